"""`handle` of a clean call beside `json.loads` of its arguments, and `handle_batch` beside a
loop of `handle`, timed side by side in one process.

    python benches/handle_speed.py [--size BYTES] [--batch N]

Prints each measurement (the best of alternating rounds) and the ratios the package holds to:
`handle` of a clean call returning a dict at most 1.3x of `json.loads` of its arguments plus
reading the payload member; `handle_batch` at least 5x faster than a Python loop of
`json.loads` and `handle`, and on one thread (`threads=1`) at least 4x; and the batch on one
thread per core (`threads=None`) against one thread.
"""

import argparse
import json
import timeit

from submit_result import SubmitTool

SCHEMA = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "title": {"type": "string"},
                    "severity": {"type": "string", "enum": ["low", "medium", "high"]},
                    "score": {"type": "number"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["id", "title", "severity", "score", "tags"],
            },
        },
    },
    "required": ["summary", "findings"],
}


def payload_of_size(size):
    """A payload of the schema whose call arguments are about `size` bytes of JSON."""
    findings = []
    payload = {"summary": "The review found the issues below.", "findings": findings}
    while len(json.dumps(payload)) < size:
        n = len(findings)
        findings.append({
            "id": n,
            "title": f"Finding {n}: the handler reads the body twice",
            "severity": ("low", "medium", "high")[n % 3],
            "score": n / 7,
            "tags": ["io", "parser", f"t{n}"],
        })
    return payload


def chat_call(arguments_text):
    return {"id": "call_1", "type": "function",
            "function": {"name": "submit_result", "arguments": arguments_text}}


def side_by_side(*statements, number, rounds=7):
    """The best time per run of each statement, timed in alternating rounds so that a change in
    the machine's load reaches them all alike."""
    best = [float("inf")] * len(statements)
    for _ in range(rounds):
        for i, statement in enumerate(statements):
            best[i] = min(best[i], timeit.timeit(statement, number=number) / number)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--batch", type=int, default=100_000)
    args = parser.parse_args()

    tool = SubmitTool(SCHEMA)
    payload = payload_of_size(args.size)
    text = json.dumps({"reasoning": "All findings checked.", "result": payload})
    call = chat_call(text)
    assert tool.handle("openai-chat", call).response == payload

    number = 2000
    baseline, handle = side_by_side(
        lambda: json.loads(call["function"]["arguments"])["result"],
        lambda: tool.handle("openai-chat", call).response,
        number=number,
    )
    print(f"call arguments: {len(text):,} bytes")
    print(f"json.loads + payload member: {baseline * 1e6:9.2f} us")
    print(f"handle -> dict:              {handle * 1e6:9.2f} us  ({handle / baseline:.2f}x, goal <= 1.3x)")

    if hasattr(tool, "handle_batch") and args.batch:
        import pyarrow as pa

        small = json.dumps(chat_call(json.dumps(
            {"reasoning": "checked", "result": payload_of_size(200)})))
        texts = [small] * args.batch
        calls = pa.array(texts, type=pa.string())
        loop, batch, single = side_by_side(
            lambda: [tool.handle("openai-chat", json.loads(t)) for t in texts],
            lambda: tool.handle_batch("openai-chat", calls),
            lambda: tool.handle_batch("openai-chat", calls, threads=1),
            number=1,
            rounds=3,
        )
        print(f"{args.batch:,} calls of {len(small)} bytes")
        print(f"loop of json.loads + handle: {loop * 1e3:9.1f} ms")
        print(f"handle_batch:                {batch * 1e3:9.1f} ms  ({loop / batch:.1f}x faster, goal >= 5x)")
        print(f"handle_batch, threads=1:     {single * 1e3:9.1f} ms  ({loop / single:.1f}x faster, goal >= 4x)")
        print(f"threads=None against threads=1: {batch / single:.2f}x the time")


if __name__ == "__main__":
    main()
