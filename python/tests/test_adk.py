"""The Google ADK integration (`submit_result.adk`) in an `LlmAgent`, on a `BaseLlm` subclass
that plays the model, each turn built by ADK's own `LlmResponse.create` from a Gemini
`GenerateContentResponse`.

Every real case of the corpus that can reach ADK is sent as the agent's first model turn as
Gemini hands it over: an argument object as the `FunctionCall`'s args (argument text as the
object it decodes to, as ADK's LiteLLM adapter decodes it first), a text turn as a text part,
and Gemini's own recording of a `MALFORMED_FUNCTION_CALL` turn as that finish reason with the
call in the finish message. Argument text that decodes to no JSON object never reaches ADK
as a call (ADK's LiteLLM adapter decodes it, or discards the call, before any callback), and
a `multi_tool_use.parallel` call names a tool the agent does not have; neither is run here.

The run must end as the corpus says for what ADK carries: an accepted call ends the run on
the first turn with the recovered value in the session state, the stored call holding the
canonical arguments; a rejected one is answered with the parser's message as the function
response, and the run ends with the clean call the model's second turn sends.
"""

import asyncio
import doctest
import json
import re
import runpy
from pathlib import Path

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import BaseModel
from real_cases import (
    GEMINI_MALFORMED_725,
    GEMINI_MALFORMED_725_SCHEMA,
    IDS,
    REAL_CASES,
    build_tool,
    canonical,
    clean_arguments,
    instance,
    parse_totals,
)

import submit_result.adk
from submit_result import SubmitTool
from submit_result.adk import SubmitFunction

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "adk_agent.py"
BENCH = ROOT / "benches" / "adk_outcomes.py"

MALFORMED = "Malformed function call: "


class ScriptedGemini(BaseLlm):
    """Answers each request with the next of `turns` (Gemini responses); records the
    contents of each request."""

    turns: list = []
    requests: list = []

    async def generate_content_async(self, llm_request, stream=False):
        self.requests.append([content.model_copy(deep=True) for content in llm_request.contents])
        yield LlmResponse.create(self.turns[len(self.requests) - 1])


def gemini(parts=None, finish_reason="STOP", finish_message=None):
    content = types.Content(role="model", parts=parts) if parts else None
    return types.GenerateContentResponse(candidates=[types.Candidate(
        content=content, finish_reason=finish_reason, finish_message=finish_message)])


def call(name, args, call_id=None):
    return types.Part(function_call=types.FunctionCall(name=name, args=args, id=call_id))


def carried(vector):
    """Whether ADK can hand the case's call over: as an object, or as text."""
    if "wrapper" in vector:
        return False
    if "arguments_text" in vector:
        try:
            return isinstance(json.loads(vector["arguments_text"] or "{}"), dict)
        except ValueError:
            return False
    if "call" in vector:
        return isinstance(vector["call"]["input"], dict)
    return True


CARRIED = [vector for vector in REAL_CASES if carried(vector)]


def arguments_of(vector):
    if "arguments_text" in vector:
        return json.loads(vector["arguments_text"] or "{}")
    if "arguments" in vector:
        return vector["arguments"]
    return vector["call"]["input"]


def first_turn(tool, vector):
    if "text" in vector:
        if vector["text"].startswith(MALFORMED):
            return gemini(finish_reason="MALFORMED_FUNCTION_CALL", finish_message=vector["text"])
        return gemini([types.Part(text=vector["text"])])
    return gemini([call(tool.name, arguments_of(vector))])


def direct(tool, vector):
    """The parser's outcome on what ADK hands over."""
    if "text" in vector:
        return tool.handle_text(vector["text"], provider="gemini")
    return tool.handle("gemini", {"functionCall": {"name": tool.name,
                                                   "args": arguments_of(vector)}})


def run(submit, turns):
    """Runs an agent with `submit` on `turns`; returns the session and the model."""
    model = ScriptedGemini(model="scripted")
    model.turns, model.requests = list(turns), []
    agent = LlmAgent(name="submitter", model=model, tools=[submit],
                     after_model_callback=submit.after_model_callback)

    async def go():
        runner = InMemoryRunner(agent=agent, app_name="app")
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text="Submit the result.")])
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=message):
            pass
        return await runner.session_service.get_session(app_name="app", user_id="u",
                                                        session_id=session.id)

    return asyncio.run(go()), model


def function_calls(contents):
    return [part.function_call for content in contents for part in content.parts or []
            if part.function_call]


def function_responses(contents):
    return [part.function_response for content in contents for part in content.parts or []
            if part.function_response]


def test_every_real_case_adk_carries_is_run():
    left = [vector for vector in REAL_CASES if vector not in CARRIED]
    assert len(CARRIED) >= 75
    assert all("wrapper" in vector or "arguments_text" in vector or "call" in vector
               for vector in left)


@pytest.mark.parametrize("vector", CARRIED, ids=[v["name"] for v in CARRIED])
def test_real_case(vector):
    tool = build_tool(vector.get("options", {}))
    expected = vector["expected"]
    payload = instance(tool.payload_schema)
    clean = gemini([call(tool.name, clean_arguments(tool, payload))])
    session, model = run(SubmitFunction(tool), [first_turn(tool, vector), clean])
    outcome = direct(tool, vector)
    if outcome is None:
        # No call of the tool: the text is the agent's answer, and the run ends.
        assert expected.get("found") is False
        assert len(model.requests) == 1 and tool.name not in session.state
        return
    if expected["accepted"] and outcome.accepted:
        assert outcome.response == expected["response"]
        assert len(model.requests) == 1
        assert session.state[tool.name] == expected["response"]
        [stored] = function_calls(event.content for event in session.events if event.content)
        assert stored.args == canonical(tool, outcome)
        return
    # Declined (also a call ADK hands over decoded that the corpus accepts from its text:
    # none today, held by the assertion below).
    assert not expected["accepted"], f"ADK's decoded call declined: {outcome.message}"
    assert len(model.requests) == 2
    sent = model.requests[1]
    [stored] = function_calls(sent)
    [answer] = function_responses(sent)
    assert answer.response == {"error": outcome.message} and answer.name == tool.name
    assert isinstance(json.loads(json.dumps(stored.args)), dict)
    for part in expected.get("error_contains", []):
        assert part in outcome.message
    assert session.state[tool.name] == payload


ANSWER = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}},
                     "required": ["answer"]}, flat=True, omit_reasoning=True)


def test_a_gemini_malformed_function_call_becomes_the_submit_call_in_adk():
    # The corpus's recording of the turn (adk-python #155: the candidate's finish message).
    [vector] = [v for v in REAL_CASES
                if v["name"] == "text-pythonic-gemini-malformed-finish-message-adk-155"]
    tool = build_tool(vector["options"])
    turn = gemini(finish_reason="MALFORMED_FUNCTION_CALL", finish_message=vector["text"])
    session, model = run(SubmitFunction(tool), [turn])
    assert session.state[tool.name] == vector["expected"]["response"] == {
        "agent_name": "OtherAgent"}
    assert len(model.requests) == 1
    [stored] = function_calls(event.content for event in session.events if event.content)
    assert (stored.name, stored.args) == ("transfer_to_agent", {"agent_name": "OtherAgent"})
    # The form Gemini writes today (adk-python #1521), `print(default_api.NAME(...))`.
    turn = gemini(finish_reason="MALFORMED_FUNCTION_CALL",
                  finish_message='Malformed function call: print(default_api.submit_result('
                                 'answer="42"))')
    session, model = run(SubmitFunction(ANSWER), [turn])
    assert session.state["submit_result"] == {"answer": "42"} and len(model.requests) == 1


def test_adk_alone_ends_on_a_malformed_function_call():
    turn = gemini(finish_reason="MALFORMED_FUNCTION_CALL",
                  finish_message='Malformed function call: print(default_api.submit_result('
                                 'answer="42"))')
    submit = SubmitFunction(ANSWER)
    model = ScriptedGemini(model="scripted")
    model.turns, model.requests = [turn], []
    agent = LlmAgent(name="plain", model=model, tools=[submit])

    async def go():
        runner = InMemoryRunner(agent=agent, app_name="app")
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text="Answer.")])
        return [event async for event in runner.run_async(user_id="u", session_id=session.id,
                                                           new_message=message)]

    [event] = asyncio.run(go())
    assert event.error_code == "MALFORMED_FUNCTION_CALL" and event.is_final_response()


def test_a_malformed_call_the_parser_declines_is_answered_with_its_message():
    # Gemini's recording (langchain-google #725): the call's string argument is never closed.
    tool = SubmitTool(GEMINI_MALFORMED_725_SCHEMA, name="TranslationResult", flat=True,
                      omit_reasoning=True)
    turn = gemini(finish_reason="MALFORMED_FUNCTION_CALL", finish_message=GEMINI_MALFORMED_725)
    clean = gemini([call("TranslationResult", {"result": "Hello"})])
    session, model = run(SubmitFunction(tool), [turn, clean])
    message = tool.handle_text(GEMINI_MALFORMED_725, provider="gemini").message
    assert "string that is not closed" in message
    [stored] = function_calls(model.requests[1])
    assert (stored.name, stored.args) == ("TranslationResult", {})
    assert function_responses(model.requests[1])[0].response == {"error": message}
    assert session.state["TranslationResult"] == {"result": "Hello"}


@pytest.mark.parametrize("kind", ["call", "text"])
def test_a_turn_cut_at_the_limit_never_commits(kind):
    if kind == "call":
        cut = gemini([call("submit_result", {"answer": "4"})], finish_reason="MAX_TOKENS")
    else:
        cut = gemini([types.Part(text='<tool_call>\n{"name": "submit_result", "arguments": '
                                      '{"answer": "4"}}\n</tool_call>')],
                     finish_reason="MAX_TOKENS")
    clean = gemini([call("submit_result", {"answer": "42"})])
    session, model = run(SubmitFunction(ANSWER), [cut, clean])
    [answer] = function_responses(model.requests[1])
    assert "cut off at the output-token limit" in answer.response["error"]
    assert session.state["submit_result"] == {"answer": "42"}


def test_a_model_built_tool_stores_the_models_data_and_runs_other_tools_first():
    class Verdict(BaseModel):
        verdict: str
        score: int

    def lookup(key: str) -> str:
        """Look a key up."""
        return f"value of {key}"

    tool = SubmitTool(Verdict)
    submit = SubmitFunction(tool, state_key="verdict")
    model = ScriptedGemini(model="scripted")
    model.turns = [
        gemini([call("lookup", {"key": "k"})]),
        gemini([call("submit_result", {"reasoning": "checked",
                                       "result": '{"verdict": "ok", "score": "7"}'})]),
    ]
    model.requests = []
    agent = LlmAgent(name="grader", model=model, tools=[lookup, submit],
                     after_model_callback=submit.after_model_callback)

    async def go():
        runner = InMemoryRunner(agent=agent, app_name="app")
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text="Grade.")])
        async for _ in runner.run_async(user_id="u", session_id=session.id,
                                        new_message=message):
            pass
        return await runner.session_service.get_session(app_name="app", user_id="u",
                                                        session_id=session.id)

    session = asyncio.run(go())
    assert Verdict.model_validate(session.state["verdict"]) == Verdict(verdict="ok", score=7)
    assert function_responses(model.requests[1])[0].response == {"result": "value of k"}


def test_the_model_sees_the_submit_tool():
    tool = SubmitTool({"type": "object", "properties": {"n": {"type": "integer"}}},
                      name="submit_count")
    submit = SubmitFunction(tool)
    declaration = submit._get_declaration()
    assert declaration == types.FunctionDeclaration.model_validate(tool.definition("gemini"))
    assert declaration.name == "submit_count"


def test_plain_google_genai_reads_the_finish_message():
    # What the README shows a google-genai user: the candidate's finish message read as text.
    candidate = gemini(finish_reason="MALFORMED_FUNCTION_CALL",
                       finish_message='Malformed function call: print(default_api.submit_result('
                                      'answer="42"))').candidates[0]
    outcome = ANSWER.handle_text(candidate.finish_message, finish_reason=candidate.finish_reason,
                                 provider="gemini")
    assert outcome.response == {"answer": "42"}


def test_the_module_docstring_example():
    failures, tried = doctest.testmod(submit_result.adk)
    assert tried > 0 and failures == 0


def test_the_example_runs(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    printed = capsys.readouterr().out
    assert "committed:" in printed and "retried with:" in printed


def test_the_comparison_with_adk_alone_runs(capsys):
    bench = runpy.run_path(str(BENCH))
    bench["main"](["--totals"])
    totals = parse_totals(capsys.readouterr().out)
    accepted = sum(v["expected"].get("accepted", False) for v in CARRIED)
    assert totals["ours", "accepted"]["committed ="] == accepted
    for verdict in ("rejected", "no call"):
        assert totals["ours", verdict]["committed ="] == totals["ours", verdict]["committed !="] == 0


def test_the_readme_sections_print_what_they_say(capsys):
    readme = ROOT / "README.md"
    blocks = [block for block in re.findall(r"```python\n(.*?)```", readme.read_text("utf-8"), re.S)
              if "submit_result.adk" in block or "finish_message" in block]
    assert len(blocks) == 2
    for code in blocks:
        exec(compile(code, str(readme), "exec"), {})
    assert capsys.readouterr().out == "Verdict(verdict='pass', score=9)\n" * 2
