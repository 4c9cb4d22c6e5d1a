"""The PydanticAI integration (`submit_result.pydantic_ai`) on PydanticAI's `FunctionModel`.

Every real case of the corpus (a vector with a `source`: a call a model sent, from a public
bug report) is sent as an agent's first model turn, exactly as recorded: the argument text as
a `ToolCallPart`'s JSON string, the argument object as its dict, a Claude `input` string as
that string, a text turn as a `TextPart`, a `multi_tool_use.parallel` call as a call of that
name. The run must end as the corpus says: an accepted call commits the recovered value on
the first turn; a rejected one reaches the model's second turn as PydanticAI's retry carrying
the parser's message, and the run then commits the clean call that turn sends. A turn in which
the corpus finds no call of the tool is left to PydanticAI, whose own retry asks again.
"""

import asyncio
import doctest
import re
import runpy
from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai")

from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.exceptions import IncompleteToolCall, UnexpectedModelBehavior
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from test_corpus import VECTORS, build_tool

import submit_result.pydantic_ai
from submit_result import SubmitTool
from submit_result.pydantic_ai import PARALLEL_WRAPPER, SubmitOutput

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pydantic_ai_agent.py"
BENCH = Path(__file__).resolve().parents[1] / "benches" / "pydantic_ai_outcomes.py"

REAL_CASES = [vector for vector in VECTORS if "source" in vector]

CALL_ID = "call_01"


def first_turn(tool, vector):
    """The model turn that sends `vector`'s call as recorded."""
    if "arguments_text" in vector:
        part = ToolCallPart(tool.name, vector["arguments_text"], CALL_ID)
    elif "arguments" in vector:
        part = ToolCallPart(tool.name, vector["arguments"], CALL_ID)
    elif "call" in vector:
        assert vector["providers"] == ["claude"], "only Claude calls are recorded as calls"
        call = vector["call"]
        part = ToolCallPart(call["name"], call["input"], call["id"])
    elif "wrapper" in vector:
        part = ToolCallPart(PARALLEL_WRAPPER, vector["wrapper"], CALL_ID)
    else:
        part = TextPart(vector["text"])
    assert vector.get("stop") is None, "a real case cut off at the output limit: map its stop"
    return ModelResponse(parts=[part])


def parser_outcome(tool, vector):
    """The outcome of `vector`'s call through the Python API directly."""
    if "arguments_text" in vector:
        return tool.handle("openai-chat", {"id": CALL_ID, "type": "function", "function": {
            "name": tool.name, "arguments": vector["arguments_text"]}})
    if "arguments" in vector:
        return tool.handle("claude", {"type": "tool_use", "id": CALL_ID, "name": tool.name,
                                      "input": vector["arguments"]})
    if "call" in vector:
        return tool.handle("claude", vector["call"])
    if "wrapper" in vector:
        return tool.handle("claude", {"type": "tool_use", "id": CALL_ID,
                                      "name": PARALLEL_WRAPPER, "input": vector["wrapper"]})
    return tool.handle_text(vector["text"])


def instance(schema):
    """A small value `schema` (one of the corpus's plain schemas) accepts."""
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return instance(schema[key][0])
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: instance(properties.get(name, {})) for name in schema.get("required", [])}
    return {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": [],
            "null": None}[kind]


def clean_call(tool, payload):
    """A well-formed call of `tool` carrying `payload`."""
    arguments = dict(payload) if tool.flat else {tool.payload: payload}
    if not tool.omit_reasoning:
        arguments["reasoning"] = "checked"
    return ModelResponse(parts=[ToolCallPart(tool.name, arguments, "call_02")])


def run_agent(submit, turns, **agent_options):
    """Runs an agent on a `FunctionModel` answering `turns` in order; returns the result and
    the message lists the model was called with."""
    requests = []

    def model(messages, info: AgentInfo):
        requests.append(list(messages))
        return turns[len(requests) - 1]

    agent = Agent(FunctionModel(model), output_type=submit.output_type, capabilities=[submit],
                  **agent_options)
    return agent.run_sync("Submit the result."), requests


def retries(messages):
    """The retries of the request that ends `messages` (a run's history): a retried tool
    return (a retry answering a call) or retry feedback (one answering a text turn), as
    (kind, call id, content)."""
    request = messages[-1]
    assert isinstance(request, ModelRequest)
    found = []
    for part in request.parts:
        if isinstance(part, ToolReturnPart) and part.outcome == "retried":
            found.append(("call", part.tool_call_id, part.content))
        elif isinstance(part, RetryFeedbackPart):
            found.append(("feedback", None, part.content))
    return found


def second_request(result):
    """The retries of the run's second request, checked against what the model was sent."""
    history = result.all_messages()
    assert isinstance(history[1], ModelResponse)
    return retries(history[:3])


def sent(messages):
    """The text of the request that ends `messages` as the model was sent it."""
    return "\n".join(str(getattr(part, "content", "")) for part in messages[-1].parts)


def test_every_real_case_is_run():
    assert len(REAL_CASES) >= 90
    assert {("text" in v, "wrapper" in v) for v in REAL_CASES} == {
        (False, False), (True, False), (False, True)}


@pytest.mark.parametrize("vector", REAL_CASES, ids=[v["name"] for v in REAL_CASES])
def test_real_case(vector):
    tool = build_tool(vector.get("options", {}))
    expected = vector["expected"]
    first = first_turn(tool, vector)
    payload = instance(tool.payload_schema)
    assert tool.handle("claude", {"type": "tool_use", "id": "c", "name": tool.name,
                                  "input": clean_call(tool, payload).parts[0].args})
    result, requests = run_agent(SubmitOutput(tool), [first, clean_call(tool, payload)])

    if expected.get("found") is False:
        # No call of the tool: the turn is PydanticAI's to answer, and its own retry asks again.
        # A text turn is answered with PydanticAI's feedback, a wrapper of other tools' calls
        # as an unknown tool.
        [(kind, call_id, content)] = second_request(result)
        if "text" in vector:
            assert kind == "feedback" and content == "Please include your response in a tool call."
        else:
            assert (kind, call_id) == ("call", CALL_ID) and content.startswith("Unknown tool name")
        assert result.output == payload
        return
    if expected["accepted"]:
        assert len(requests) == 1, f"retried: {sent(requests[-1])!r}"
        assert result.output == expected["response"]
        return
    assert len(requests) == 2, f"committed {result.output!r}"
    [(kind, call_id, content)] = second_request(result)
    assert content in sent(requests[1])
    if "text" in vector:
        assert kind == "feedback"
    else:
        assert (kind, call_id) == ("call", first.parts[0].tool_call_id)
    for part in expected.get("error_contains", []):
        assert part in content
    if "error" in expected:
        assert content == expected["error"]
    assert content == parser_outcome(tool, vector).message
    assert result.output == payload


def test_a_model_built_tool_commits_the_model_instance():
    class Verdict(BaseModel):
        verdict: str
        score: int

    tool = SubmitTool(Verdict)
    stringified = '{"reasoning": "checked", "result": "{\\"verdict\\": \\"ok\\", \\"score\\": 7}"}'
    result, requests = run_agent(
        SubmitOutput(tool), [ModelResponse(parts=[ToolCallPart(tool.name, stringified)])])
    assert result.output == Verdict(verdict="ok", score=7)
    assert len(requests) == 1

    bad = {"reasoning": "checked", "result": {"verdict": "ok"}}
    good = {"reasoning": "checked", "result": {"verdict": "ok", "score": "8"}}
    result, requests = run_agent(SubmitOutput(tool), [
        ModelResponse(parts=[ToolCallPart(tool.name, bad, "call_01")]),
        ModelResponse(parts=[ToolCallPart(tool.name, good, "call_02")]),
    ])
    [(_, _, content)] = second_request(result)
    assert content == tool.handle("claude", {"type": "tool_use", "id": "call_01",
                                             "name": tool.name, "input": bad}).message
    assert result.output == Verdict(verdict="ok", score=8)


def test_the_model_sees_the_submit_tool():
    tool = SubmitTool({"type": "object", "properties": {"n": {"type": "integer"}}},
                      name="submit_count", description="Submit the count.", strict=True)
    seen = []

    def model(messages, info: AgentInfo):
        seen.append(info)
        return ModelResponse(parts=[ToolCallPart(tool.name, {"reasoning": "r", "result": {"n": 1}})])

    submit = SubmitOutput(tool)
    agent = Agent(FunctionModel(model), output_type=submit.output_type, capabilities=[submit])
    assert agent.run_sync("Count.").output == {"n": 1}
    [definition] = seen[0].output_tools
    function = tool.definition("openai-chat")["function"]
    assert (definition.name, definition.description) == (function["name"], function["description"])
    assert definition.parameters_json_schema == function["parameters"]
    assert definition.strict is True


TRUNCATION = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}},
                         "required": ["answer"]}, flat=True, omit_reasoning=True)


def test_a_complete_looking_call_at_the_output_limit_is_retried_with_the_parsers_hint():
    cut = ModelResponse(parts=[ToolCallPart("submit_result", '{"answer": "4"}', "call_01")],
                        finish_reason="length")
    clean = ModelResponse(parts=[ToolCallPart("submit_result", '{"answer": "42"}', "call_02")])
    result, _requests = run_agent(SubmitOutput(TRUNCATION), [cut, clean])
    [(kind, call_id, content)] = second_request(result)
    assert (kind, call_id) == ("call", "call_01")
    assert "cut off at the output-token limit" in content
    assert result.output == {"answer": "42"}


def test_a_call_cut_off_mid_json_ends_as_pydantic_ai_ends_it():
    # PydanticAI does not ask again for arguments the limit cut off mid-JSON: the run raises,
    # and the parser never commits the cut-off value.
    cut = ModelResponse(parts=[ToolCallPart("submit_result", '{"answer": "4', "call_01")],
                        finish_reason="length")
    with pytest.raises(IncompleteToolCall):
        run_agent(SubmitOutput(TRUNCATION), [cut])


def test_a_text_call_at_the_output_limit_is_retried():
    text = '<tool_call>\n{"name": "submit_result", "arguments": {"answer": "4"}}\n</tool_call>'
    cut = ModelResponse(parts=[TextPart(text)], finish_reason="length")
    clean = ModelResponse(parts=[ToolCallPart("submit_result", {"answer": "42"})])
    result, _requests = run_agent(SubmitOutput(TRUNCATION), [cut, clean])
    [(kind, _, content)] = second_request(result)
    assert kind == "feedback" and "cut off at the output-token limit" in content
    assert result.output == {"answer": "42"}


def nested(levels):
    value = {}
    for _ in range(levels):
        value = {"a": value}
    return value


UNREADABLE = {
    "non-finite-float": {"answer": float("nan")},
    "bytes": {"answer": b"bytes"},
    "nested-past-the-limit": {"answer": nested(200)},
}


@pytest.mark.parametrize("args", list(UNREADABLE.values()), ids=list(UNREADABLE))
def test_a_call_the_parser_cannot_be_given_is_retried(args):
    clean = ModelResponse(parts=[ToolCallPart("submit_result", {"answer": "42"})])
    result, _requests = run_agent(
        SubmitOutput(TRUNCATION), [ModelResponse(parts=[ToolCallPart("submit_result", args)]), clean])
    [(_, _, content)] = second_request(result)
    assert content.startswith("the submit_result call could not be read: ")
    assert result.output == {"answer": "42"}


def test_other_tools_and_output_validators_are_untouched():
    tool = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}},
                       "required": ["answer"]}, flat=True, omit_reasoning=True)
    submit = SubmitOutput(tool)
    turns = [
        ModelResponse(parts=[ToolCallPart("lookup", {"key": "k"}, "call_01")]),
        ModelResponse(parts=[ToolCallPart(tool.name, '{"answer": 41}', "call_02")]),
        ModelResponse(parts=[ToolCallPart(tool.name, '{"answer": "41"}', "call_03")]),
        ModelResponse(parts=[ToolCallPart(tool.name, '{"answer": "42"}', "call_04")]),
    ]
    requests = []

    def model(messages, info: AgentInfo):
        requests.append(list(messages))
        return turns[len(requests) - 1]

    agent = Agent(FunctionModel(model), output_type=submit.output_type, capabilities=[submit],
                  retries=3)

    @agent.tool_plain
    def lookup(key: str) -> str:
        return f"value of {key}"

    @agent.output_validator
    def not_41(output):
        if output["answer"] == "41":
            raise ModelRetry("41 is wrong")
        return output

    assert agent.run_sync("Answer.").output == {"answer": "42"}
    assert requests[1][-1].parts[0].content == "value of k"
    assert 'failed to decode payload: at "/answer": 41 is not of type "string"' in sent(requests[2])
    assert "41 is wrong" in sent(requests[3])


def streamed(turns):
    """A `FunctionModel` stream function sending each call's argument text in chunks."""
    calls = []

    async def stream(messages, info: AgentInfo):
        calls.append(messages)
        name, text = turns[len(calls) - 1]
        for start in range(0, len(text), 5):
            yield {0: DeltaToolCall(name=name if start == 0 else None,
                                    json_args=text[start:start + 5],
                                    tool_call_id=f"call_{len(calls)}" if start == 0 else None)}

    return stream, calls


def test_a_streamed_run_reads_the_whole_call():
    stringified = '{"reasoning": "r", "result": "{\\"answer\\": \\"42\\"}"}'
    bad = '{"reasoning": "r", "result": {"answer": 42}}'
    tool = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}},
                       "required": ["answer"]})

    async def run_streams():
        submit = SubmitOutput(tool)
        stream, calls = streamed([(tool.name, stringified)])
        agent = Agent(FunctionModel(stream_function=stream), output_type=submit.output_type,
                      capabilities=[submit])
        async with agent.run_stream("Answer.") as run:
            outputs = [output async for output in run.stream_output(debounce_by=None)]
        assert outputs == [{"answer": "42"}] and len(calls) == 1

        # PydanticAI's run_stream does not retry; a streamed run() does.
        stream, calls = streamed([(tool.name, bad), (tool.name, stringified)])
        agent = Agent(FunctionModel(stream_function=stream), output_type=submit.output_type,
                      capabilities=[submit])
        with pytest.raises(UnexpectedModelBehavior):
            async with agent.run_stream("Answer.") as run:
                await run.get_output()
        stream, calls = streamed([(tool.name, bad), (tool.name, stringified)])
        agent = Agent(FunctionModel(stream_function=stream), output_type=submit.output_type,
                      capabilities=[submit])
        events = []

        async def handler(ctx, stream_events):
            async for event in stream_events:
                events.append(event)

        result = await agent.run("Answer.", event_stream_handler=handler)
        assert result.output == {"answer": "42"} and len(calls) == 2
        assert "failed to decode payload" in sent(calls[1])

    asyncio.run(run_streams())


def test_the_module_docstring_example():
    failures, tried = doctest.testmod(submit_result.pydantic_ai)
    assert tried > 0 and failures == 0


def test_the_example_runs(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    printed = capsys.readouterr().out
    assert "committed:" in printed and "retried with:" in printed


def test_the_comparison_with_pydantic_ai_alone_runs(capsys):
    pytest.importorskip("jsonschema")  # PydanticAI's own JSON Schema validation, for the plain agent
    bench = runpy.run_path(str(BENCH))
    bench["main"]()
    printed = capsys.readouterr().out
    rows = {}
    for line in printed.splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) == 6 and cells[1] == "ours":
            rows[len(rows)] = cells[2:]
    # ours: every accepted case committed with the expected value, every other one retried
    accepted, rejected, no_call, total = (rows[index] for index in range(4))
    assert accepted[1:] == ["0", "0", "0"] and accepted[0] != "0"
    assert rejected[0] == rejected[1] == rejected[3] == "0"
    assert no_call[0] == no_call[1] == no_call[3] == "0"
    assert int(total[0]) + int(total[2]) == len(REAL_CASES)


def test_the_readme_section_prints_what_it_says(capsys):
    readme = Path(__file__).resolve().parents[1] / "README.md"
    [code] = [block for block in re.findall(r"```python\n(.*?)```", readme.read_text("utf-8"), re.S)
              if "submit_result.pydantic_ai" in block]
    exec(compile(code, str(readme), "exec"), {})
    assert capsys.readouterr().out == "Verdict(verdict='pass', score=9)\n"
