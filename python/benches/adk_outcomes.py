"""Google ADK's own outcome beside the integration's on the real cases of the corpus ADK
carries.

Each real case (a corpus vector with a `source`: a call a model sent, from a public bug
report) is sent as the first turn of an `LlmAgent` on a `BaseLlm` that plays Gemini (no
network), built by ADK's own `LlmResponse.create`: an argument object as the function call's
args (argument text as the object it decodes to), a text turn as a text part, Gemini's
`MALFORMED_FUNCTION_CALL` recording as that finish reason with the call in the finish message.
Argument text that decodes to no JSON object, and `multi_tool_use.parallel` calls, are left
out: ADK never hands them to an agent as a call (its LiteLLM adapter decodes argument text
itself, or discards the call, before any callback).

- ADK: the agent alone, the terminal tool an ADK tool of the same declaration that validates
  its args against the schema, answers `{"error": ...}` when they fail, and otherwise stores
  them in the session state and ends the run;
- ours: `submit_result.adk.SubmitFunction` and its `after_model_callback`.

A model asked again sends a clean call on its second turn. See `outcomes.py` for the classes.

    python benches/adk_outcomes.py          # the table per case, then the totals
    python benches/adk_outcomes.py --totals # the totals only

Needs `pip install './python[adk]' jsonschema`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jsonschema  # noqa: E402
from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.models import BaseLlm, LlmResponse  # noqa: E402
from google.adk.runners import InMemoryRunner  # noqa: E402
from google.adk.tools import BaseTool, ToolContext  # noqa: E402
from google.genai import types  # noqa: E402
from outcomes import (  # noqa: E402
    build_tool,
    clean_arguments,
    committed,
    main as table,
    payload_of,
    real_cases,
)

from submit_result import SubmitTool  # noqa: E402
from submit_result.adk import SubmitFunction  # noqa: E402

MALFORMED = "Malformed function call: "


class ScriptedGemini(BaseLlm):
    turns: list = []
    calls: int = 0

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        self.calls += 1
        yield LlmResponse.create(self.turns[min(self.calls, len(self.turns)) - 1])


class PlainSubmit(BaseTool):
    """The terminal tool without the parser: the args validated against the schema."""

    def __init__(self, tool: SubmitTool[Any]) -> None:
        super().__init__(name=tool.name, description=tool.description)
        self._declaration = types.FunctionDeclaration.model_validate(tool.definition("gemini"))
        self._schema = tool.definition("openai-chat")["function"]["parameters"]

    def _get_declaration(self) -> types.FunctionDeclaration:
        return self._declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        try:
            jsonschema.validate(args, self._schema)
        except jsonschema.ValidationError as error:
            return {"error": error.message}
        tool_context.state[self.name] = args
        tool_context.actions.skip_summarization = True
        return {"success": True}


def carried(vector: dict[str, Any]) -> bool:
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


def gemini(parts: Any = None, finish_reason: str = "STOP",
           finish_message: str | None = None) -> types.GenerateContentResponse:
    content = types.Content(role="model", parts=parts) if parts else None
    return types.GenerateContentResponse(candidates=[types.Candidate(
        content=content, finish_reason=finish_reason, finish_message=finish_message)])


def first_turn(tool: SubmitTool[Any], vector: dict[str, Any]) -> types.GenerateContentResponse:
    if "text" in vector:
        if vector["text"].startswith(MALFORMED):
            return gemini(finish_reason="MALFORMED_FUNCTION_CALL", finish_message=vector["text"])
        return gemini([types.Part(text=vector["text"])])
    if "arguments_text" in vector:
        args = json.loads(vector["arguments_text"] or "{}")
    elif "arguments" in vector:
        args = vector["arguments"]
    else:
        args = vector["call"]["input"]
    return gemini([types.Part(function_call=types.FunctionCall(name=tool.name, args=args))])


def outcome(vector: dict[str, Any], plain: bool) -> tuple[str, str]:
    tool = build_tool(vector["options"])
    clean = gemini([types.Part(function_call=types.FunctionCall(
        name=tool.name, args=clean_arguments(tool)))])
    model = ScriptedGemini(model="scripted")
    model.turns = [first_turn(tool, vector), clean]
    if plain:
        agent = LlmAgent(name="plain", model=model, tools=[PlainSubmit(tool)])
    else:
        submit = SubmitFunction(tool)
        agent = LlmAgent(name="ours", model=model, tools=[submit],
                         after_model_callback=submit.after_model_callback)

    async def go() -> Any:
        runner = InMemoryRunner(agent=agent, app_name="app")
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text="Submit the result.")])
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass
        return await runner.session_service.get_session(app_name="app", user_id="u",
                                                        session_id=session.id)

    try:
        session = asyncio.run(go())
    except Exception as error:  # the run's own end, whatever it is
        return "error", f"{type(error).__name__}: {error}"
    if model.calls > 1:
        return "retried", ""
    if tool.name not in session.state:
        return "ended with none", ""
    value = session.state[tool.name]
    if plain:
        value = payload_of(tool, value)
    return committed(vector, value), json.dumps(value, ensure_ascii=False, default=str)


def main(argv: list[str] | None = None) -> None:
    table("Google ADK",
          {"ADK": lambda v: outcome(v, True), "ours": lambda v: outcome(v, False)},
          {"ADK": "ADK alone", "ours": "with `SubmitFunction`"},
          argv, [vector for vector in real_cases() if carried(vector)])


if __name__ == "__main__":
    main()
