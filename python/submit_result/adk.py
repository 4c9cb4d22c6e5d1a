r"""The submit parser in a Google ADK agent.

:class:`SubmitFunction` is an ADK tool built from a :class:`~submit_result.SubmitTool`, and its
:meth:`~SubmitFunction.after_model_callback` is the agent's ``after_model_callback``:

- the model sees the submit tool as :meth:`SubmitTool.definition` gives it for Gemini;
- each model turn is read before ADK runs its calls: a call of the tool gets the parser's
  verdict on its arguments with the turn's finish reason (a call cut off at ``MAX_TOKENS`` is
  never accepted), and is stored with the canonical arguments when accepted, with arguments a
  provider takes back when not (its own when they are a JSON object, else ``{}``);
- a turn Gemini ended with ``MALFORMED_FUNCTION_CALL``, whose ``finish_message`` holds the
  call as Python (``print(default_api.NAME(k=v))``), or a text turn holding a call written as
  text (a chat template's syntax, from a model served through LiteLLM), becomes the submit
  call when accepted; when not, it becomes a submit call with ``{}`` answered by the parser's
  message, so the agent goes back to the model;
- the tool answers an accepted call with the success message, ends the run (the function
  response is the agent's final response) and stores the recovered value in the session
  state under :attr:`~SubmitFunction.state_key` (the tool's name by default) as JSON data; a
  rejected call is answered with ``{"error": <the parser's message>}``.

>>> import asyncio
>>> from google.adk.agents import LlmAgent
>>> from google.adk.models import BaseLlm, LlmResponse
>>> from google.adk.runners import InMemoryRunner
>>> from google.genai import types
>>> from submit_result import SubmitTool
>>> from submit_result.adk import SubmitFunction
>>> class Gemini(BaseLlm):  # plays a turn Gemini ended with MALFORMED_FUNCTION_CALL
...     async def generate_content_async(self, llm_request, stream=False):
...         yield LlmResponse.create(types.GenerateContentResponse(candidates=[types.Candidate(
...             finish_reason="MALFORMED_FUNCTION_CALL",
...             finish_message='Malformed function call: print(default_api.submit_result('
...                            'reasoning="checked", result={"answer": "42"}))')]))
>>> submit = SubmitFunction(SubmitTool(
...     {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}))
>>> agent = LlmAgent(name="answerer", model=Gemini(model="fake"), tools=[submit],
...                  after_model_callback=submit.after_model_callback)
>>> async def run():
...     runner = InMemoryRunner(agent=agent, app_name="app")
...     session = await runner.session_service.create_session(app_name="app", user_id="u")
...     message = types.Content(role="user", parts=[types.Part(text="What is the answer?")])
...     async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
...         pass
...     session = await runner.session_service.get_session(
...         app_name="app", user_id="u", session_id=session.id)
...     return session.state["submit_result"]
>>> asyncio.run(run())
{'answer': '42'}
"""

from __future__ import annotations

from typing import Any, Optional

try:
    from google.adk.agents.callback_context import CallbackContext
    from google.adk.flows.llm_flows.functions import generate_client_function_call_id
    from google.adk.models import LlmResponse
    from google.adk.tools import BaseTool, ToolContext
    from google.genai import types
except ImportError as _missing:  # pragma: no cover - only without ADK
    raise ImportError(
        "submit_result.adk needs Google ADK: pip install 'submit-result[adk]'"
    ) from _missing

from . import _integration
from ._integration import Outcome
from ._submit_result import Accepted, SubmitTool

__all__ = ["SubmitFunction"]


class SubmitFunction(BaseTool):
    """The submit tool as an ADK tool, with the ``after_model_callback`` that reads the model's
    turns for it::

        submit = SubmitFunction(SubmitTool(Verdict))
        agent = LlmAgent(name=..., model=..., tools=[submit],
                         after_model_callback=submit.after_model_callback)
        # after the run: Verdict.model_validate(session.state[submit.state_key])
    """

    def __init__(self, tool: SubmitTool[Any], *, state_key: Optional[str] = None) -> None:
        super().__init__(name=tool.name, description=tool.description)
        self.submit_tool = tool
        self.state_key = state_key or tool.name
        """The session state key the accepted value is stored under."""
        self._declaration = types.FunctionDeclaration.model_validate(tool.definition("gemini"))
        self._outcomes: dict[str, Outcome] = {}

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        return self._declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """The verdict on a call: the one the callback gave for this call, else the parser's
        on the arguments ADK hands over."""
        call_id = tool_context.function_call_id
        outcome = self._outcomes.pop(call_id, None) if call_id else None
        if outcome is None:
            outcome = _integration.handle(self.submit_tool, args)
        if outcome is None:  # pragma: no cover - a call of this tool is never a wrapper
            return {"error": f"no call of {self.submit_tool.name}"}
        if isinstance(outcome, Accepted):
            tool_context.state[self.state_key] = _integration.payload(outcome.response)
            # The function response is the agent's final response: the run ends.
            tool_context.actions.skip_summarization = True
        return outcome.tool_result

    def after_model_callback(
        self, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> Optional[LlmResponse]:
        """Reads a model turn (see the module's doc); returns the turn to keep in its place,
        or ``None`` to keep it as it is."""
        if llm_response.partial:
            return None
        reason = _reason(llm_response.finish_reason)
        parts = list(llm_response.content.parts or []) if llm_response.content else []
        if any(part.function_call for part in parts):
            return self._calls(llm_response, parts, reason)
        text = "".join(part.text or "" for part in parts if part.text and not part.thought)
        if reason == "MALFORMED_FUNCTION_CALL" and llm_response.error_message:
            text = llm_response.error_message
        if not text:
            return None
        outcome = _integration.handle_text(self.submit_tool, text, finish_reason=reason)
        if outcome is None:
            return None
        call = types.FunctionCall(
            id=generate_client_function_call_id(), name=self.submit_tool.name,
            args=(_integration.arguments(self.submit_tool, outcome)
                  if isinstance(outcome, Accepted) else {}))
        self._outcomes[str(call.id)] = outcome
        # The call takes the place of the text it was written in.
        kept = [part for part in parts if not part.text or part.thought]
        return llm_response.model_copy(update={
            "content": types.Content(role="model", parts=[*kept, types.Part(function_call=call)]),
            "finish_reason": types.FinishReason.STOP,
            "error_code": None,
            "error_message": None,
        })

    def _calls(self, llm_response: LlmResponse, parts: list[types.Part],
               reason: Optional[str]) -> Optional[LlmResponse]:
        """The turn with each call of the tool read, given an id when it has none and stored
        with the arguments its verdict leaves."""
        rewritten: list[types.Part] = []
        changed = False
        for part in parts:
            call = part.function_call
            if call is None or call.name != self.submit_tool.name:
                rewritten.append(part)
                continue
            call_id = call.id or generate_client_function_call_id()
            outcome = _integration.handle(self.submit_tool, call.args or {},
                                          finish_reason=reason)
            if outcome is None:  # pragma: no cover - a call of this tool is never a wrapper
                rewritten.append(part)
                continue
            self._outcomes[call_id] = outcome
            args = (_integration.arguments(self.submit_tool, outcome)
                    if isinstance(outcome, Accepted)
                    else _integration.replay_arguments(call.args or {}))
            fixed = call.model_copy(update={"id": call_id, "args": args})
            rewritten.append(part.model_copy(update={"function_call": fixed}))
            changed = True
        if not changed:
            return None
        content = types.Content(role=llm_response.content.role if llm_response.content else "model",
                                parts=rewritten)
        return llm_response.model_copy(update={"content": content})


def _reason(finish_reason: Any) -> Optional[str]:
    """A finish reason in Gemini's spelling (``MAX_TOKENS``, ``MALFORMED_FUNCTION_CALL``)."""
    if finish_reason is None:
        return None
    return str(getattr(finish_reason, "name", finish_reason))
