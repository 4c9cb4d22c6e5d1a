"""The cases of `handle_speed.py` counted in instructions by cachegrind, which the machine's
load does not move: each side runs in a process of its own, once with the work and once
without, and the difference is divided by the calls made.

    python benches/handle_instructions.py [--calls N] [--rows N]

Needs valgrind. Prints the instructions of `handle` of the clean 8 KiB call beside `json.loads`
of its arguments, and a row of `handle_batch(threads=1)` beside a row of the Python loop of
`json.loads` and `handle`.
"""

import argparse
import json
import re
import subprocess
import sys

from handle_speed import SCHEMA, chat_call, payload_of_size


def work(case, count):
    """Runs `case` `count` times (in the process cachegrind watches)."""
    import pyarrow as pa

    from submit_result import SubmitTool

    tool = SubmitTool(SCHEMA)
    large = chat_call(json.dumps({"reasoning": "All findings checked.",
                                  "result": payload_of_size(8192)}))
    small = json.dumps(chat_call(json.dumps({"reasoning": "checked",
                                             "result": payload_of_size(200)})))
    texts = [small] * count
    calls = pa.array(texts, type=pa.string())
    # Everything the cases touch, made and imported before the counted part.
    tool.handle("openai-chat", large)
    tool.handle_batch("openai-chat", calls[:1], threads=1)
    if case == "handle":
        for _ in range(count):
            tool.handle("openai-chat", large).response
    elif case == "loads":
        for _ in range(count):
            json.loads(large["function"]["arguments"])["result"]
    elif case == "loop":
        [tool.handle("openai-chat", json.loads(text)) for text in texts]
    elif case == "batch":
        tool.handle_batch("openai-chat", calls, threads=1)


def instructions(case, count):
    """The instructions `count` runs of `case` take, the setup subtracted."""
    def counted(runs):
        done = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
             sys.executable, __file__, "--work", case, str(runs)],
            capture_output=True, text=True, check=True)
        return int(re.search(r"I\s+refs:\s+([\d,]+)", done.stderr).group(1).replace(",", ""))
    return (counted(count) - counted(0)) / count


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--work", nargs=2)
    args = parser.parse_args()
    if args.work:
        work(args.work[0], int(args.work[1]))
        return
    handle = instructions("handle", args.calls)
    loads = instructions("loads", args.calls)
    print(f"handle of the 8 KiB call:       {handle:12,.0f}  ({handle / loads:.2f}x)")
    print(f"json.loads + payload member:    {loads:12,.0f}")
    batch = instructions("batch", args.rows)
    loop = instructions("loop", args.rows)
    print(f"handle_batch, threads=1, a row: {batch:12,.0f}  ({loop / batch:.2f}x fewer)")
    print(f"json.loads + handle, a row:     {loop:12,.0f}")


if __name__ == "__main__":
    main()
