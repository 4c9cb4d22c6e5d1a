"""The LangChain integration (`submit_result.langchain`) in `create_agent`, on LangChain's own
fake chat model (`GenericFakeChatModel`, given the `bind_tools` an agent needs).

Every real case of the corpus is sent as the agent's first model turn in the shape LangChain's
integrations build it:

- argument text as an OpenAI-compatible integration hands it over: the provider's tool call
  in `additional_kwargs["tool_calls"]`, from which langchain-core derives `tool_calls` (or
  `invalid_tool_calls` for text that is no JSON object);
- an argument object as langchain-anthropic builds it: a `tool_use` content block and the
  `tool_calls` entry of the same input;
- a text turn as its text, a `multi_tool_use.parallel` call as a call of that name.

The run must end as the corpus says: an accepted call commits the recovered value as the
`structured_response` on the first turn, with the stored call holding the canonical arguments;
a rejected one reaches the model's second turn answered with the parser's message (a
`ToolMessage` for a call, a user message for a call written as text), and the run commits
the clean call that turn sends. Arguments that decode to no JSON object (encoded twice, a
Claude input string) never reach a middleware: langchain-core's `AIMessage` refuses them.
"""

import asyncio
import doctest
import json
import re
import runpy
from pathlib import Path

import pytest

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool as langchain_tool
from pydantic import BaseModel, ValidationError
from real_cases import (
    CALL_ID,
    GEMINI_MALFORMED_725,
    GEMINI_MALFORMED_725_SCHEMA,
    IDS,
    PARALLEL_WRAPPER,
    REAL_CASES,
    build_tool,
    clean_arguments,
    canonical,
    decodes_to_an_object,
    instance,
    parse_totals,
    parser_outcome,
)

import submit_result.langchain
from submit_result import SubmitTool
from submit_result.langchain import SubmitMiddleware

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "langchain_agent.py"
BENCH = ROOT / "benches" / "langchain_outcomes.py"


class FakeModel(GenericFakeChatModel):
    """LangChain's fake chat model answering `messages` in order; records what it was sent."""

    sent: list = []
    bound: list = []

    def bind_tools(self, tools, **kwargs):
        self.bound = [getattr(t, "name", t) for t in tools]
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.sent.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def fake(turns):
    model = FakeModel(messages=iter(turns))
    model.sent = []
    return model


def openai_turn(name, arguments, call_id=CALL_ID, finish_reason="tool_calls"):
    """A turn as an OpenAI-compatible integration hands it over."""
    raw = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return AIMessage(content="", additional_kwargs={"tool_calls": [raw]},
                     response_metadata={"finish_reason": finish_reason})


def anthropic_turn(name, arguments, call_id=CALL_ID, stop_reason="tool_use"):
    """A turn as langchain-anthropic builds it."""
    block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
    return AIMessage(content=[block],
                     tool_calls=[{"name": name, "args": arguments, "id": call_id}],
                     response_metadata={"stop_reason": stop_reason})


def first_turn(tool, vector):
    if "arguments_text" in vector:
        return openai_turn(tool.name, vector["arguments_text"])
    if "arguments" in vector:
        return anthropic_turn(tool.name, vector["arguments"])
    if "call" in vector:
        call = vector["call"]
        return anthropic_turn(call["name"], call["input"], call["id"])
    if "wrapper" in vector:
        return openai_turn(PARALLEL_WRAPPER, json.dumps(vector["wrapper"]))
    return AIMessage(content=vector["text"], response_metadata={"finish_reason": "stop"})


def clean_turn(tool, payload):
    return anthropic_turn(tool.name, clean_arguments(tool, payload), "call_02")


def run(submit, turns, *, response_format=True, tools=()):
    model = fake(turns)
    agent = create_agent(model, tools=list(tools), middleware=[submit],
                         response_format=submit.response_format if response_format else None)
    return agent.invoke({"messages": [HumanMessage("Submit the result.")]}), model.sent


def replayable(messages):
    """Every stored call's arguments as a provider is sent them again: langchain-openai's
    conversion of the history, each call's argument text a JSON object."""
    convert = pytest.importorskip("langchain_openai.chat_models.base")._convert_message_to_dict
    for message in messages:
        for call in convert(message).get("tool_calls", []):
            assert isinstance(json.loads(call["function"]["arguments"]), dict), call


def test_every_real_case_is_run():
    assert len(REAL_CASES) >= 90


@pytest.mark.parametrize("response_format", [True, False], ids=["tool-strategy", "own-tool"])
@pytest.mark.parametrize("vector", REAL_CASES, ids=IDS)
def test_real_case(vector, response_format):
    tool = build_tool(vector.get("options", {}))
    expected = vector["expected"]
    if not decodes_to_an_object(vector):
        # LangChain's message types hold a call's arguments as an object: the integration
        # fails building the message, before any middleware sees the turn.
        with pytest.raises(ValidationError):
            first_turn(tool, vector)
        return
    first = first_turn(tool, vector)
    payload = instance(tool.payload_schema)
    result, sent = run(SubmitMiddleware(tool), [first, clean_turn(tool, payload)],
                       response_format=response_format)
    messages = result["messages"]
    replayable(messages)

    if expected.get("found") is False:
        # No call of the tool: with a response format the model is asked again, as LangChain
        # asks for its structured output; without, the turn is the agent's answer.
        if response_format or "wrapper" in vector:
            assert len(sent) == 2 and result["structured_response"] == payload
        else:
            assert len(sent) == 1 and result.get("structured_response") is None
        return
    if expected["accepted"]:
        assert len(sent) == 1, f"retried: {sent[-1][-1]!r}"
        assert result["structured_response"] == expected["response"]
        outcome = parser_outcome(tool, vector)
        [call] = messages[1].tool_calls
        assert call["name"] == tool.name and messages[1].invalid_tool_calls == []
        assert call["args"] == canonical(tool, outcome)
        assert isinstance(messages[2], ToolMessage) and messages[2].tool_call_id == call["id"]
        return
    assert len(sent) == 2, f"committed {result.get('structured_response')!r}"
    message = parser_outcome(tool, vector).message
    for part in expected.get("error_contains", []):
        assert part in message
    if "error" in expected:
        assert message == expected["error"]
    answer = sent[1][-1]
    if "text" in vector:
        assert isinstance(answer, HumanMessage) and answer.content == message
    else:
        assert isinstance(answer, ToolMessage) and answer.status == "error"
        assert answer.content == message and answer.tool_call_id == CALL_ID
        stored = sent[1][-2]
        assert [call["id"] for call in stored.tool_calls] == [CALL_ID]
        assert stored.invalid_tool_calls == []
    assert result["structured_response"] == payload


TEXT_CALL = ('<tool_call>\n{"name": "submit_result", "arguments": {"answer": "42"}}\n'
             '</tool_call>')
ANSWER = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}},
                     "required": ["answer"]}, flat=True, omit_reasoning=True)


@pytest.mark.parametrize("response_format", [True, False], ids=["tool-strategy", "own-tool"])
def test_a_call_written_as_text_ends_a_langchain_agent_with_its_structured_response(
        response_format):
    result, sent = run(SubmitMiddleware(ANSWER), [AIMessage(TEXT_CALL)],
                       response_format=response_format)
    assert result["structured_response"] == {"answer": "42"} and len(sent) == 1
    _, call_turn, answer = result["messages"]
    # The call takes the place of the text it was written in.
    assert call_turn.content == "" and call_turn.tool_calls[0]["args"] == {"answer": "42"}
    assert answer.tool_call_id == call_turn.tool_calls[0]["id"]


def test_langchain_alone_ends_a_text_call_with_no_structured_response():
    # The failure the middleware answers (langchain #32951): the router sees no call.
    model = fake([AIMessage(TEXT_CALL)])
    agent = create_agent(model, tools=[lookup])
    result = agent.invoke({"messages": [HumanMessage("Answer.")]})
    assert "structured_response" not in result and len(model.sent) == 1


@langchain_tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def test_an_invalid_tool_call_is_read_from_its_raw_arguments():
    # The payload sent twice, as streamed deltas concatenated: LangChain keeps it as an
    # invalid tool call, which its ToolStrategy never reads.
    raw = '{"answer": "42"}{"answer": "42"}'
    result, sent = run(SubmitMiddleware(ANSWER), [
        openai_turn("submit_result", raw),
        anthropic_turn("submit_result", {"answer": "42"}, "call_02"),
    ])
    answer = sent[1][-1]
    outcome = ANSWER.handle("openai-chat", {"id": "c", "type": "function", "function": {
        "name": "submit_result", "arguments": raw}})
    assert answer.content == outcome.message and answer.status == "error"
    assert sent[1][-2].tool_calls[0]["args"] == {}
    assert sent[1][-2].additional_kwargs["tool_calls"][0]["function"]["arguments"] == "{}"
    assert result["structured_response"] == {"answer": "42"}


TRUNCATED = ['{"answer": "4', '{"answer": "4"}']


@pytest.mark.parametrize("arguments", TRUNCATED, ids=["mid-json", "parses"])
def test_a_turn_cut_at_the_limit_never_commits(arguments):
    result, sent = run(SubmitMiddleware(ANSWER), [
        openai_turn("submit_result", arguments, finish_reason="length"),
        anthropic_turn("submit_result", {"answer": "42"}, "call_02"),
    ])
    answer = sent[1][-1]
    assert "cut off at the output-token limit" in answer.content and answer.status == "error"
    assert result["structured_response"] == {"answer": "42"}


def test_a_text_call_cut_at_the_limit_never_commits():
    cut = AIMessage(TEXT_CALL, response_metadata={"stop_reason": "max_tokens"})
    result, sent = run(SubmitMiddleware(ANSWER),
                       [cut, anthropic_turn("submit_result", {"answer": "42"}, "call_02")])
    assert "cut off at the output-token limit" in sent[1][-1].content
    assert result["structured_response"] == {"answer": "42"}


def test_a_gemini_malformed_function_call_declined_is_answered_as_the_user():
    # As langchain-google-vertexai keeps the turn (langchain-google #725, its recording): the
    # finish message's call never closes its string argument.
    tool = SubmitTool(GEMINI_MALFORMED_725_SCHEMA, name="TranslationResult", flat=True,
                      omit_reasoning=True)
    turn = AIMessage("", response_metadata={"finish_reason": "MALFORMED_FUNCTION_CALL",
                                            "finish_message": GEMINI_MALFORMED_725})
    result, sent = run(SubmitMiddleware(tool),
                       [turn, anthropic_turn("TranslationResult", {"result": "Hello"}, "call_2")])
    answer = sent[1][-1]
    assert isinstance(answer, HumanMessage)
    assert answer.content == tool.handle_text(GEMINI_MALFORMED_725, provider="gemini").message
    assert result["structured_response"] == {"result": "Hello"}


def test_a_gemini_malformed_function_call_finish_message_is_read():
    # As langchain-google-genai would keep it; the corpus's recording (adk-python #155).
    turn = AIMessage("", response_metadata={
        "finish_reason": "MALFORMED_FUNCTION_CALL",
        "finish_message": 'Malformed function call: print(default_api.submit_result(answer="42"))'})
    result, sent = run(SubmitMiddleware(ANSWER), [turn])
    assert result["structured_response"] == {"answer": "42"} and len(sent) == 1


def test_a_model_built_tool_commits_the_model_instance_and_runs_other_tools_first():
    class Verdict(BaseModel):
        verdict: str
        score: int

    tool = SubmitTool(Verdict)
    arguments = {"reasoning": "checked", "result": '{"verdict": "ok", "score": "7"}'}
    turn = AIMessage("", tool_calls=[
        {"name": "lookup", "args": {"key": "k"}, "id": "call_a"},
        {"name": tool.name, "args": arguments, "id": "call_b"},
    ])
    for response_format in (True, False):
        result, sent = run(SubmitMiddleware(tool), [turn], response_format=response_format,
                           tools=[lookup])
        assert result["structured_response"] == Verdict(verdict="ok", score=7)
        assert len(sent) == 1
        tool_messages = [m for m in result["messages"] if isinstance(m, ToolMessage)]
        assert {m.tool_call_id for m in tool_messages} == {"call_a", "call_b"}
        assert result["messages"][1].tool_calls[1]["args"] == {
            "reasoning": "checked", "result": {"verdict": "ok", "score": 7}}


def test_the_model_sees_the_submit_tool_once():
    tool = SubmitTool({"type": "object", "properties": {"n": {"type": "integer"}}},
                      name="submit_count")
    for response_format in (True, False):
        model = fake([anthropic_turn("submit_count", {"reasoning": "r", "result": {"n": 1}})])
        submit = SubmitMiddleware(tool)
        agent = create_agent(model, tools=[lookup], middleware=[submit],
                             response_format=submit.response_format if response_format else None)
        assert agent.invoke({"messages": [HumanMessage("Count.")]})["structured_response"] == {
            "n": 1}
        assert sorted(model.bound) == ["lookup", "submit_count"]


def test_an_async_agent_reads_the_call_the_same_way():
    async def go():
        submit = SubmitMiddleware(ANSWER)
        model = fake([openai_turn("submit_result", '{"answer": "42"}}'),
                      anthropic_turn("submit_result", {"answer": "42"}, "call_02")])
        agent = create_agent(model, middleware=[submit], response_format=submit.response_format)
        return await agent.ainvoke({"messages": [HumanMessage("Answer.")]}), model.sent

    result, sent = asyncio.run(go())
    # '{"answer": "42"}}': the trailing closer recovered.
    assert result["structured_response"] == {"answer": "42"} and len(sent) == 1
    assert result["messages"][1].additional_kwargs["tool_calls"][0]["function"][
        "arguments"] == '{"answer": "42"}'


def test_a_stale_structured_response_does_not_end_a_later_run():
    from langgraph.checkpoint.memory import InMemorySaver

    model = fake([
        anthropic_turn("submit_result", {"answer": "1"}, "call_1"),
        anthropic_turn("submit_result", {"answer": 2}, "call_2"),
        anthropic_turn("submit_result", {"answer": "2"}, "call_3"),
    ])
    agent = create_agent(model, middleware=[SubmitMiddleware(ANSWER)],
                         checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    assert agent.invoke({"messages": [HumanMessage("One.")]}, config)["structured_response"] == {
        "answer": "1"}
    assert agent.invoke({"messages": [HumanMessage("Two.")]}, config)["structured_response"] == {
        "answer": "2"}
    assert len(model.sent) == 3


def test_the_module_docstring_example():
    failures, tried = doctest.testmod(submit_result.langchain)
    assert tried > 0 and failures == 0


def test_the_example_runs(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    printed = capsys.readouterr().out
    assert "committed:" in printed and "retried with:" in printed


def test_the_comparison_with_langchain_alone_runs(capsys):
    bench = runpy.run_path(str(BENCH))
    bench["main"](["--totals"])
    totals = parse_totals(capsys.readouterr().out)
    accepted = [v for v in REAL_CASES if v["expected"].get("accepted")]
    carried = sum(decodes_to_an_object(v) for v in accepted)
    # ours: every accepted case LangChain can carry committed with its value, the others
    # refused by langchain-core; every other case retried.
    assert totals["ours", "accepted"] == {"committed =": carried, "committed !=": 0,
                                          "retried": 0, "ended with none": 0,
                                          "error": len(accepted) - carried}
    for verdict in ("rejected", "no call"):
        assert totals["ours", verdict]["committed ="] == totals["ours", verdict]["committed !="] == 0


def test_the_readme_section_prints_what_it_says(capsys):
    readme = ROOT / "README.md"
    [code] = [block for block in re.findall(r"```python\n(.*?)```", readme.read_text("utf-8"), re.S)
              if "submit_result.langchain" in block]
    exec(compile(code, str(readme), "exec"), {})
    assert capsys.readouterr().out == "Verdict(verdict='pass', score=9)\n"


def test_an_async_run_ends_after_the_other_calls_of_a_committing_turn():
    async def go():
        model = fake([AIMessage("", tool_calls=[
            {"name": "lookup", "args": {"key": "k"}, "id": "call_a"},
            {"name": "submit_result", "args": {"answer": "42"}, "id": "call_b"},
        ])])
        agent = create_agent(model, tools=[lookup], middleware=[SubmitMiddleware(ANSWER)])
        return await agent.ainvoke({"messages": [HumanMessage("Answer.")]}), model.sent

    result, sent = asyncio.run(go())
    assert result["structured_response"] == {"answer": "42"} and len(sent) == 1
