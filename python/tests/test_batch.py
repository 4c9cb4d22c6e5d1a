"""`SubmitTool.handle_batch`: a column of calls handled in one pass, row for row what `handle`
answers, without holding the interpreter's lock."""

import json
import threading
import time
from collections import defaultdict

import pyarrow as pa
import pytest
from pydantic import BaseModel, field_validator

from submit_result import SubmitTool
from test_corpus import VECTORS, build_tool, cases

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}},
          "required": ["answer"]}

COLUMNS = ["accepted", "response", "reasoning", "recoveries", "error_class", "cause", "message"]


def chat_call(arguments_text):
    return {"id": "call_1", "type": "function",
            "function": {"name": "submit_result", "arguments": arguments_text}}


def row_of(outcome):
    """What `handle_batch` answers for a call whose `handle` outcome is `outcome`."""
    if outcome is None:
        return None
    if outcome.accepted:
        return {"accepted": True, "response": outcome.response, "reasoning": outcome.reasoning,
                "recoveries": [r.kind for r in outcome.recoveries], "error_class": None,
                "cause": None, "message": None}
    return {"accepted": False, "response": None, "reasoning": None, "recoveries": None,
            "error_class": outcome.error_class, "cause": outcome.cause,
            "message": outcome.message}


def decoded(row):
    """A row with its response read back from JSON text."""
    if row is not None and row["response"] is not None:
        row = dict(row, response=json.loads(row["response"]))
    return row


def corpus_batches():
    """The corpus's calls grouped into one batch per tool and provider: (options, provider,
    names, calls). A `multi_tool_use.parallel` vector runs as Claude's `tool_use` block."""
    groups = defaultdict(list)
    for vector in VECTORS:
        if "text" in vector:
            continue
        options = vector.get("options", {})
        if "wrapper" in vector:
            found = [("claude", {"type": "tool_use", "id": "toolu_01",
                                 "name": "multi_tool_use.parallel",
                                 "input": vector["wrapper"]})]
        else:
            found = cases(vector)
        for provider, call in found:
            key = (json.dumps(options, sort_keys=True), provider)
            groups[key].append((vector["name"], call))
    for (options, provider), rows in sorted(groups.items()):
        yield pytest.param(json.loads(options), provider, rows,
                           id=f"{provider}:{rows[0][0]}+{len(rows) - 1}")


@pytest.mark.parametrize("options, provider, rows", list(corpus_batches()))
def test_every_corpus_call_gets_in_a_batch_the_outcome_handle_gives(options, provider, rows):
    tool = build_tool(options)
    texts = [json.dumps(call) for _, call in rows]
    answered = tool.handle_batch(provider, pa.array(texts, type=pa.string())).to_pylist()
    assert len(answered) == len(rows)
    for (name, call), row in zip(rows, answered):
        assert decoded(row) == row_of(tool.handle(provider, call)), name


def test_the_batch_is_a_struct_array_of_the_outcome_columns():
    tool = SubmitTool(SCHEMA)
    clean = json.dumps(chat_call('{"reasoning": "r", "result": {"answer": "42"}}'))
    answered = tool.handle_batch("openai-chat", pa.array([clean]))
    assert isinstance(answered, pa.StructArray)
    assert [field.name for field in answered.type] == COLUMNS
    assert answered.type.field("accepted").type == pa.bool_()
    assert answered.type.field("recoveries").type == pa.list_(pa.field("item", pa.string(),
                                                                       nullable=False))
    assert answered.to_pylist() == [{
        "accepted": True, "response": '{"answer":"42"}', "reasoning": "r", "recoveries": [],
        "error_class": None, "cause": None, "message": None}]


def test_null_rows_stay_null_and_text_that_is_no_json_is_rejected():
    tool = SubmitTool(SCHEMA)
    stringified = json.dumps(chat_call(
        json.dumps({"reasoning": "r", "result": json.dumps({"answer": "42"})})))
    answered = tool.handle_batch(
        "openai-chat", pa.array([None, "{not json", stringified])).to_pylist()
    assert answered[0] is None
    assert answered[1]["accepted"] is False
    assert answered[1]["error_class"] == "parameter"
    assert answered[1]["cause"] == "undecodable_arguments"
    assert answered[1]["message"].startswith("failed to parse tool call: ")
    assert answered[2]["accepted"] is True
    assert answered[2]["recoveries"] == ["stringified"]
    assert json.loads(answered[2]["response"]) == {"answer": "42"}


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string(), pa.string_view()])
def test_each_arrow_string_type_is_read(kind):
    tool = SubmitTool(SCHEMA)
    clean = json.dumps(chat_call('{"reasoning": "r", "result": {"answer": "é"}}'),
                       ensure_ascii=False)
    answered = tool.handle_batch("openai-chat", pa.array([clean, None], type=kind)).to_pylist()
    assert json.loads(answered[0]["response"]) == {"answer": "é"}
    assert answered[1] is None


def test_an_array_of_another_type_is_refused_with_what_it_takes():
    tool = SubmitTool(SCHEMA)
    with pytest.raises(TypeError, match=r"Arrow array of strings \(utf8, large_utf8 or "
                                        r"utf8_view\).*got an array of Int64"):
        tool.handle_batch("openai-chat", pa.array([1, 2]))
    with pytest.raises(TypeError, match=r"Arrow array of strings \(utf8, large_utf8 or "
                                        r"utf8_view\).*got an array of Int64"):
        tool.handle_batch("openai-chat", pa.chunked_array([], type=pa.int64()))
    with pytest.raises(TypeError, match=r"calls must be an Arrow array of strings \(a "
                                        r"pyarrow.Array or ChunkedArray, .*\), got list; "
                                        r"pyarrow.array\(...\) makes one from a list"):
        tool.handle_batch("openai-chat", ["not", "an", "arrow", "array"])


class Stream:
    """An object that exports an Arrow stream and nothing else, as other libraries' chunked
    arrays and streams do (polars' Series, nanoarrow's and arro3's streams)."""

    def __init__(self, chunked):
        self.chunked = chunked

    def __arrow_c_stream__(self, requested_schema=None):
        return self.chunked.__arrow_c_stream__(requested_schema)


def test_handle_batch_takes_a_chunked_array():
    tool = SubmitTool(SCHEMA)
    texts = []
    for n in range(50):
        if n % 9 == 0:
            texts.append(None)
        elif n % 5 == 0:
            texts.append(json.dumps(chat_call(f'{{"reasoning": "r{n}", "result": "nope"}}')))
        else:
            texts.append(json.dumps(chat_call(json.dumps(
                {"reasoning": f"r{n}", "result": {"answer": str(n)}}))))
    reasons = ["length" if n % 7 == 0 else "stop" for n in range(50)]
    # As `table.column(...)` gives it: chunks of any length, an empty one among them.
    kinds = pa.schema({"call": pa.string(), "reason": pa.string()})
    table = pa.concat_tables([pa.table({"call": texts[a:b], "reason": reasons[a:b]}, kinds)
                              for a, b in ((0, 20), (20, 20), (20, 21), (21, 50))])
    calls = table.column("call")
    assert isinstance(calls, pa.ChunkedArray) and calls.num_chunks == 4
    # Finish reasons chunked otherwise: rows are matched across the chunks.
    finish = pa.chunked_array([reasons[:33], reasons[33:]])
    whole = tool.handle_batch("openai-chat", pa.array(texts),
                              finish_reasons=pa.array(reasons)).to_pylist()
    for threads in (1, None):
        answered = tool.handle_batch("openai-chat", calls, finish_reasons=finish,
                                     threads=threads)
        assert isinstance(answered, pa.ChunkedArray)
        assert [len(chunk) for chunk in answered.chunks] == [20, 0, 1, 29]
        assert answered.to_pylist() == whole
    for n, row in enumerate(whole):
        call = json.loads(texts[n]) if texts[n] is not None else None
        expected = (None if call is None else
                    row_of(tool.handle("openai-chat", call, finish_reason=reasons[n])))
        assert decoded(row) == expected, n
    # Any object exporting an Arrow stream, answered as a pyarrow.ChunkedArray.
    answered = tool.handle_batch("openai-chat", Stream(calls),
                                 finish_reasons=Stream(table.column("reason")))
    assert isinstance(answered, pa.ChunkedArray)
    assert answered.to_pylist() == whole
    assert tool.handle_batch("openai-chat", pa.chunked_array([], type=pa.string())).to_pylist() == []
    large = pa.chunked_array([texts[:10], texts[10:]], type=pa.large_string())
    assert tool.handle_batch("openai-chat", large).to_pylist() == whole_without_reasons(tool, texts)
    with pytest.raises(ValueError, match="finish_reasons has 49 rows and calls 50"):
        tool.handle_batch("openai-chat", calls, finish_reasons=pa.chunked_array([reasons[1:]]))


def whole_without_reasons(tool, texts):
    return tool.handle_batch("openai-chat", pa.array(texts)).to_pylist()


def test_finish_reasons_mark_calls_cut_off_at_the_output_limit():
    tool = SubmitTool(SCHEMA)
    clean = json.dumps(chat_call('{"reasoning": "r", "result": {"answer": "42"}}'))
    cut = json.dumps(chat_call('{"reasoning": "r", "result": {"ans'))
    answered = tool.handle_batch("openai-chat", pa.array([clean, cut, cut]),
                                 finish_reasons=pa.array(["stop", "length", None])).to_pylist()
    assert answered[0]["accepted"] is True
    assert answered[1]["cause"] == "truncated_call"
    assert answered[2]["cause"] == "undecodable_arguments"
    with pytest.raises(TypeError, match=r"finish_reasons must be an Arrow array of strings .*"
                                        r"got an array of Int64"):
        tool.handle_batch("openai-chat", pa.array([clean]), finish_reasons=pa.array([1]))
    with pytest.raises(ValueError, match="finish_reasons has 1 rows and calls 2"):
        tool.handle_batch("openai-chat", pa.array([clean, clean]),
                          finish_reasons=pa.array(["stop"]))


class Verdict(BaseModel):
    answer: str

    @field_validator("answer")
    @classmethod
    def not_a_placeholder(cls, value: str) -> str:
        if value == "TODO":
            raise ValueError("a placeholder is no answer")
        return value.strip()


def test_a_tool_of_a_pydantic_model_runs_the_models_own_validation_on_each_row():
    tool = SubmitTool(Verdict)
    texts = [json.dumps(chat_call(json.dumps({"reasoning": "r", "result": {"answer": a}})))
             for a in (" 42 ", "TODO")]
    answered = tool.handle_batch("openai-chat", pa.array(texts)).to_pylist()
    assert json.loads(answered[0]["response"]) == {"answer": "42"}
    by_handle = tool.handle("openai-chat", json.loads(texts[1]))
    assert answered[1]["accepted"] is False
    assert answered[1]["error_class"] == by_handle.error_class == "payload"
    assert answered[1]["message"] == by_handle.message
    assert "a placeholder is no answer" in answered[1]["message"]


def test_the_interpreter_runs_other_threads_while_a_batch_runs():
    tool = SubmitTool(SCHEMA)
    clean = json.dumps(chat_call(json.dumps(
        {"reasoning": "r", "result": {"answer": "x" * 2000}})))
    calls = pa.array([clean] * 100_000)
    span = {}
    ticks = []

    def run():
        span["start"] = time.perf_counter()
        tool.handle_batch("openai-chat", calls)
        span["end"] = time.perf_counter()

    worker = threading.Thread(target=run)
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    start, end = span["start"], span["end"]
    assert end - start > 0.05, "the batch ran too briefly to tell"
    # Holding the lock, the batch would let this thread run only before it starts and after
    # it ends; released, this thread ticks all through it.
    middle = [t for t in ticks if start + (end - start) / 3 < t < end - (end - start) / 3]
    assert middle, "no tick of this thread in the middle third of the batch"


def test_the_rows_keep_their_order_on_any_number_of_threads():
    tool = SubmitTool(SCHEMA)
    texts = []
    for n in range(7000):
        if n % 11 == 0:
            texts.append(None)
        elif n % 7 == 0:
            texts.append(json.dumps(chat_call(f'{{"reasoning": "r{n}", "result": "nope"}}')))
        else:
            texts.append(json.dumps(chat_call(json.dumps(
                {"reasoning": f"r{n}", "result": {"answer": str(n)}}))))
    calls = pa.array(texts)
    one = tool.handle_batch("openai-chat", calls, threads=1).to_pylist()
    for n, row in enumerate(one):
        if texts[n] is None:
            assert row is None
        elif n % 7 == 0:
            assert row["accepted"] is False
        else:
            assert row["reasoning"] == f"r{n}"
            assert json.loads(row["response"]) == {"answer": str(n)}
    assert tool.handle_batch("openai-chat", calls).to_pylist() == one
    assert tool.handle_batch("openai-chat", calls, threads=3).to_pylist() == one
    assert tool.handle_batch("openai-chat", pa.array([], type=pa.string())).to_pylist() == []
    with pytest.raises(ValueError, match="threads must be at least 1"):
        tool.handle_batch("openai-chat", calls, threads=0)


def test_a_row_is_read_from_its_bytes_so_a_member_written_twice_is_seen():
    # Written by hand: an Anthropic tool_use block whose input names `reasoning` twice, which
    # a dict (json.loads keeps the last) cannot show.
    tool = SubmitTool(SCHEMA)
    text = ('{"type": "tool_use", "id": "toolu_1", "name": "submit_result", "input": '
            '{"reasoning": "a", "reasoning": "b", "result": {"answer": "42"}}}')
    [row] = tool.handle_batch("claude", pa.array([text])).to_pylist()
    assert row["accepted"] is False
    assert row["message"] == ('failed to parse tool arguments: "reasoning" appears twice; '
                              "send each parameter once")
    assert tool.handle("claude", json.loads(text)).reasoning == "b"
    # Once, the row and the dict agree.
    once = text.replace('"reasoning": "a", ', "")
    [row] = tool.handle_batch("claude", pa.array([once])).to_pylist()
    assert decoded(row) == row_of(tool.handle("claude", json.loads(once)))
