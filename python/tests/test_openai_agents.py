"""The OpenAI Agents SDK integration (`submit_result.openai_agents`) on the SDK's own test
model (`agents.testing.ScriptedModel`, a `Model` implementation).

Every real case of the corpus is sent as the agent's first model turn as the SDK hands it
over: a call's argument text as the `function_call` item's `arguments` (an argument object as
its JSON text, as LiteLLM hands a Claude or Gemini call to the SDK), a text turn as an
assistant message. The run must end as the corpus says: an accepted call commits the
recovered value as the final output on the first turn, the history holding the canonical
arguments; a rejected call is answered with the parser's message as its output, the history
holding arguments a provider takes back, and the run commits the clean call the model's second
turn sends. A call written as text becomes that call (`SubmitModel`) and ends the same way; a
text turn with no call of the tool goes to the output schema, which reads it as the tool's
arguments and declines it: the run raises the SDK's `ModelBehaviorError` with the parser's
message (the SDK does not ask again for a final output). A `multi_tool_use.parallel` call
names a tool the agent does not have, which the SDK refuses before any tool runs.
"""

import doctest
import json
import re
import runpy
from pathlib import Path

import pytest

pytest.importorskip("agents")

from agents import Agent, ModelBehaviorError, Runner, StopAtTools, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call
from pydantic import BaseModel
from real_cases import (
    CALL_ID,
    IDS,
    PARALLEL_WRAPPER,
    REAL_CASES,
    build_tool,
    canonical,
    clean_arguments,
    instance,
    parse_totals,
)

import submit_result.openai_agents
from submit_result import SubmitTool
from submit_result.openai_agents import (
    SubmitModel,
    SubmitOutputSchema,
    stop_on_submit,
    submit_tool,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "openai_agents_agent.py"
BENCH = ROOT / "benches" / "openai_agents_outcomes.py"

set_tracing_disabled(True)


def agent_of(tool, model, **options):
    return Agent(name="submitter", model=SubmitModel(model, tool), tools=[submit_tool(tool)],
                 tool_use_behavior=stop_on_submit, output_type=SubmitOutputSchema(tool),
                 **options)


def arguments_text(vector):
    """The call's argument text as the SDK hands it over."""
    if "arguments_text" in vector:
        return vector["arguments_text"]
    if "arguments" in vector:
        return json.dumps(vector["arguments"], ensure_ascii=False)
    return json.dumps(vector["call"]["input"], ensure_ascii=False)


def first_turn(tool, vector):
    if "text" in vector:
        return [assistant_message(vector["text"])]
    if "wrapper" in vector:
        return [function_call(PARALLEL_WRAPPER, json.dumps(vector["wrapper"]), call_id=CALL_ID)]
    return [function_call(tool.name, arguments_text(vector), call_id=CALL_ID)]


def clean_turn(tool, payload):
    return [function_call(tool.name, clean_arguments(tool, payload), call_id="call_02")]


def direct(tool, vector):
    """The parser's outcome on the call as the SDK hands it over."""
    if "text" in vector:
        return tool.handle_text(vector["text"])
    return tool.handle("openai-responses", {"type": "function_call", "call_id": CALL_ID,
                                            "name": tool.name,
                                            "arguments": arguments_text(vector)})


def stored_calls(items):
    return {item["call_id"]: item for item in items if item.get("type") == "function_call"}


def outputs(items):
    return {item["call_id"]: item["output"] for item in items
            if item.get("type") == "function_call_output"}


def test_every_real_case_is_run():
    assert len(REAL_CASES) >= 90


@pytest.mark.parametrize("vector", REAL_CASES, ids=IDS)
def test_real_case(vector):
    tool = build_tool(vector.get("options", {}))
    expected = vector["expected"]
    payload = instance(tool.payload_schema)
    model = ScriptedModel([first_turn(tool, vector), clean_turn(tool, payload)])
    agent = agent_of(tool, model)
    if "wrapper" in vector:
        with pytest.raises(ModelBehaviorError, match="multi_tool_use.parallel not found"):
            Runner.run_sync(agent, "Submit the result.")
        return
    outcome = direct(tool, vector)
    if outcome is None:
        # A text turn with no call of the tool: the output schema reads it as the tool's
        # arguments, declines it, and the SDK ends the run with the parser's message.
        assert expected.get("found") is False
        with pytest.raises(ModelBehaviorError) as raised:
            Runner.run_sync(agent, "Submit the result.")
        assert str(raised.value) == tool.handle("openai-chat", {
            "id": "c", "type": "function",
            "function": {"name": tool.name, "arguments": vector["text"]}}).message
        assert len(model.calls) == 1
        return
    result = Runner.run_sync(agent, "Submit the result.")
    # The argument text the SDK carries gets the corpus's verdict.
    assert outcome.accepted == expected["accepted"]
    history = result.to_input_list()
    if expected["accepted"]:
        assert len(model.calls) == 1, f"retried: {model.calls[-1].input[-1]!r}"
        assert result.final_output == expected["response"]
        if "text" not in vector:
            stored = stored_calls(history)[CALL_ID]
            assert json.loads(stored["arguments"]) == canonical(tool, outcome)
        return
    assert len(model.calls) == 2, f"committed {result.final_output!r}"
    sent = model.calls[1].input
    [call_id] = outputs(sent)
    assert call_id == CALL_ID or "text" in vector
    assert outputs(sent)[call_id] == outcome.message
    for part in expected.get("error_contains", []):
        assert part in outcome.message
    if "error" in expected:
        assert outcome.message == expected["error"]
    # The stored call is one a provider takes back: a JSON object.
    assert isinstance(json.loads(stored_calls(sent)[call_id]["arguments"]), dict)
    assert result.final_output == payload


ANSWER = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}},
                     "required": ["answer"]}, flat=True, omit_reasoning=True)


def test_a_rejected_submit_loops_back_in_the_openai_agents_sdk():
    # The payload sent twice, as streamed deltas concatenated (llm #1130).
    sent_twice = '{"answer": "42"}{"answer": "42"}'
    model = ScriptedModel([
        [function_call("submit_result", sent_twice, call_id="call_1")],
        [function_call("submit_result", '{"answer": "42"}', call_id="call_2")],
    ])
    result = Runner.run_sync(agent_of(ANSWER, model), "Answer.")
    message = ANSWER.handle("openai-chat", {"id": "c", "type": "function", "function": {
        "name": "submit_result", "arguments": sent_twice}}).message
    assert outputs(model.calls[1].input) == {"call_1": message}
    assert stored_calls(model.calls[1].input)["call_1"]["arguments"] == "{}"
    assert result.final_output == {"answer": "42"} and len(model.calls) == 2


def test_the_sdks_stop_at_tools_ends_on_the_error_string():
    # The failure stop_on_submit answers: StopAtTools ends the run on a rejected call's output.
    model = ScriptedModel([[function_call("submit_result", '{"answer": 42}', call_id="call_1")]])
    agent = Agent(name="a", model=model, tools=[submit_tool(ANSWER)],
                  tool_use_behavior=StopAtTools(stop_at_tool_names=["submit_result"]))
    assert Runner.run_sync(agent, "Answer.").final_output.startswith("failed to decode payload")


TEXT_CALL = ('<tool_call>\n{"name": "submit_result", "arguments": {"answer": "4"}}\n'
             '</tool_call>')


@pytest.mark.parametrize("first", [
    function_call("submit_result", '{"answer": "4', call_id="call_1"),
    function_call("submit_result", '{"answer": "4"}', call_id="call_1"),
    assistant_message(TEXT_CALL),
], ids=["mid-json", "parses", "text"])
def test_a_turn_cut_at_the_limit_never_commits(first):
    # The Responses API marks an item the output limit cut off incomplete.
    cut = first.model_copy(update={"status": "incomplete"})
    model = ScriptedModel([[cut], [function_call("submit_result", '{"answer": "42"}',
                                                 call_id="call_2")]])
    result = Runner.run_sync(agent_of(ANSWER, model), "Answer.")
    [answer] = outputs(model.calls[1].input).values()
    assert "cut off at the output-token limit" in answer
    assert result.final_output == {"answer": "42"}


def test_a_text_answer_is_read_by_the_output_schema():
    # Fenced JSON, as a non-OpenAI model through LitellmModel answers (openai-agents-python
    # #280), and a call written as text.
    for text in ('```json\n{"answer": "42"}\n```',
                 '<tool_call>\n{"name": "submit_result", "arguments": {"answer": "42"}}\n'
                 '</tool_call>'):
        model = ScriptedModel([[assistant_message(text)]])
        assert Runner.run_sync(agent_of(ANSWER, model), "Answer.").final_output == {
            "answer": "42"}


def test_a_model_built_tool_ends_with_the_model_instance_after_other_tools():
    from agents import function_tool

    class Verdict(BaseModel):
        verdict: str
        score: int

    @function_tool
    def lookup(key: str) -> str:
        """Look a key up."""
        return f"value of {key}"

    tool = SubmitTool(Verdict)
    model = ScriptedModel([
        [function_call("lookup", {"key": "k"}, call_id="call_1")],
        [function_call("submit_result",
                       '{"reasoning": "checked", "result": "{\\"verdict\\": \\"ok\\", '
                       '\\"score\\": \\"7\\"}"}', call_id="call_2")],
    ])
    agent = Agent(name="grader", model=model, tools=[lookup, submit_tool(tool)],
                  tool_use_behavior=stop_on_submit, output_type=SubmitOutputSchema(tool))
    result = Runner.run_sync(agent, "Grade.")
    assert result.final_output == Verdict(verdict="ok", score=7)
    assert outputs(model.calls[1].input)["call_1"] == "value of k"
    assert json.loads(stored_calls(result.to_input_list())["call_2"]["arguments"]) == {
        "reasoning": "checked", "result": {"verdict": "ok", "score": 7}}


def test_the_model_sees_the_submit_tool():
    tool = SubmitTool({"type": "object", "properties": {"n": {"type": "integer"}}},
                      name="submit_count")
    model = ScriptedModel([[function_call("submit_count", {"reasoning": "r", "result": {"n": 1}},
                                          call_id="call_1")]])
    assert Runner.run_sync(agent_of(tool, model), "Count.").final_output == {"n": 1}
    [seen] = model.calls[0].tools
    definition = tool.definition("openai-responses")
    assert (seen.name, seen.description) == (definition["name"], definition["description"])
    assert seen.params_json_schema == definition["parameters"]
    assert seen.strict_json_schema is False


def test_the_module_docstring_example():
    failures, tried = doctest.testmod(submit_result.openai_agents)
    assert tried > 0 and failures == 0


def test_the_example_runs(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    printed = capsys.readouterr().out
    assert "committed:" in printed and "retried with:" in printed


def test_the_comparison_with_the_sdk_alone_runs(capsys):
    bench = runpy.run_path(str(BENCH))
    bench["main"](["--totals"])
    totals = parse_totals(capsys.readouterr().out)
    # Every accepted case committed with its value but the multi_tool_use.parallel call,
    # which the SDK refuses.
    accepted = sum(v["expected"].get("accepted", False) and "wrapper" not in v
                   for v in REAL_CASES)
    assert totals["ours", "accepted"]["committed ="] == accepted
    for verdict in ("rejected", "no call"):
        assert totals["ours", verdict]["committed ="] == totals["ours", verdict]["committed !="] == 0


def test_the_readme_section_prints_what_it_says(capsys):
    readme = ROOT / "README.md"
    [code] = [block for block in re.findall(r"```python\n(.*?)```", readme.read_text("utf-8"), re.S)
              if "submit_result.openai_agents" in block]
    exec(compile(code, str(readme), "exec"), {})
    assert capsys.readouterr().out == "Verdict(verdict='pass', score=9)\n"
