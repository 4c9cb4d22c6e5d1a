r"""The submit parser in a LangChain agent (``langchain.agents.create_agent``).

:class:`SubmitMiddleware` is an agent middleware built from a :class:`~submit_result.SubmitTool`.
It gives the model the submit tool (its name, description and parameters schema, as
:meth:`SubmitTool.definition` gives them) and reads each model turn before the agent routes
it, in ``wrap_model_call`` (and ``awrap_model_call``):

- a call of the tool is read from its **raw** arguments: the provider's argument text where
  the integration keeps it (``additional_kwargs["tool_calls"]``, ``invalid_tool_calls``), the
  ``tool_use`` input of an Anthropic content block, else the decoded ``args``; with the turn's
  finish reason (``response_metadata``);
- accepted: the stored call holds the canonical arguments, a ``ToolMessage`` answers it, and
  the run ends with the recovered value as its ``structured_response`` (the Pydantic model
  instance for a tool built from a model class, else the dict);
- rejected: the stored call holds arguments a provider takes back (the call's own when they
  are a JSON object, else ``{}``), a ``ToolMessage`` with the parser's message answers it,
  and the agent goes back to the model;
- a turn with text only in which :meth:`SubmitTool.handle_text` finds a call of the tool
  written as text becomes that call when accepted, and is answered by a user message with the
  parser's message when not (Gemini's ``MALFORMED_FUNCTION_CALL`` ``finish_message`` is read
  the same way where the integration keeps it);
- a call in a turn cut off at the output-token limit is never accepted.

It works with ``response_format=middleware.response_format`` (LangChain's ``ToolStrategy``:
the tool is LangChain's structured output tool) and without a response format (the tool is
the middleware's own).

>>> from langchain.agents import create_agent
>>> from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
>>> from langchain_core.messages import AIMessage
>>> from submit_result import SubmitTool
>>> from submit_result.langchain import SubmitMiddleware
>>> class Model(GenericFakeChatModel):
...     def bind_tools(self, tools, **kwargs):
...         return self
>>> # The call written as text, as a model served without a tool parser writes it.
>>> text = ('<tool_call>{"name": "submit_result", "arguments": '
...         '{"reasoning": "checked", "result": {"answer": "42"}}}</tool_call>')
>>> submit = SubmitMiddleware(SubmitTool(
...     {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}))
>>> agent = create_agent(Model(messages=iter([AIMessage(text)])), middleware=[submit],
...                      response_format=submit.response_format)
>>> agent.invoke({"messages": [("user", "What is the answer?")]})["structured_response"]
{'answer': '42'}
"""

from __future__ import annotations

import uuid
from typing import Any, Awaitable, Callable, Optional, Union, cast

try:
    from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
    from langchain.agents.middleware.types import ExtendedModelResponse, hook_config
    from langchain.agents.structured_output import ToolStrategy
    from langchain_core.messages import (
        AIMessage,
        AnyMessage,
        BaseMessage,
        HumanMessage,
        ToolMessage,
    )
    from langchain_core.tools import StructuredTool
    from langgraph.types import Command
except ImportError as _missing:  # pragma: no cover - only without LangChain
    raise ImportError(
        "submit_result.langchain needs LangChain 1.x: pip install 'submit-result[langchain]'"
    ) from _missing

from . import _integration
from ._integration import PARALLEL_WRAPPER, Outcome
from ._submit_result import Accepted, SubmitTool

__all__ = ["SubmitMiddleware"]

_Handler = Callable[[ModelRequest], ModelResponse]
_AsyncHandler = Callable[[ModelRequest], Awaitable[ModelResponse]]
_Result = Union[ModelResponse, ExtendedModelResponse]


class SubmitMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """A LangChain agent middleware that puts ``tool``'s parser in front of the agent's
    router.

    With LangChain's structured output::

        submit = SubmitMiddleware(SubmitTool(Verdict))
        agent = create_agent(model, tools, middleware=[submit],
                             response_format=submit.response_format)
        verdict = agent.invoke({"messages": [...]})["structured_response"]  # a Verdict

    or without (``create_agent(model, tools, middleware=[submit])``): the run ends on an
    accepted submit all the same, its value in ``structured_response``.
    """

    def __init__(self, tool: SubmitTool[Any]) -> None:
        super().__init__()
        self.submit_tool = tool
        function = tool.definition("openai-chat")["function"]
        parameters: dict[str, Any] = function["parameters"]
        self._structured: ToolStrategy[Any] = ToolStrategy(
            {"title": tool.name, "description": tool.description, **parameters})
        self.tools = [StructuredTool(
            name=tool.name,
            description=tool.description,
            args_schema=parameters,
            func=self._run_tool,
        )]

    @property
    def name(self) -> str:
        return f"SubmitMiddleware[{self.submit_tool.name}]"

    @property
    def response_format(self) -> ToolStrategy[Any]:
        """The agent's ``response_format``: LangChain's structured output tool, named,
        described and with the parameters schema of the submit tool."""
        return self._structured

    def wrap_model_call(self, request: ModelRequest, handler: _Handler) -> _Result:
        """Reads the model turn's calls of the tool (see the module's doc)."""
        return self._verdict(request, handler(self._request(request)))

    async def awrap_model_call(self, request: ModelRequest, handler: _AsyncHandler) -> _Result:
        """As :meth:`wrap_model_call`, for an agent run with ``ainvoke`` or ``astream``."""
        return self._verdict(request, await handler(self._request(request)))

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> Optional[dict[str, Any]]:
        """Ends the run after the other calls of a turn whose submit was accepted (without a
        response format, LangChain would call the model again)."""
        return {"jump_to": "end"} if self._committed(state["messages"]) else None

    async def abefore_model(self, state: Any, runtime: Any) -> Optional[dict[str, Any]]:
        """As :meth:`before_model`, for an agent run with ``ainvoke`` or ``astream`` (LangChain
        reads the jumps of both from the sync hook's configuration)."""
        return self.before_model(state, runtime)

    def _request(self, request: ModelRequest) -> ModelRequest:
        """The request without the middleware's own tool when LangChain's structured output
        tool already is the submit tool (the model would see it twice)."""
        if request.response_format is not self._structured:
            return request
        return request.override(tools=[t for t in request.tools if t not in self.tools])

    def _verdict(self, request: ModelRequest, response: ModelResponse) -> _Result:
        messages = response.result
        index = next((i for i, m in enumerate(messages) if isinstance(m, AIMessage)), None)
        if index is None:
            return response
        message = cast(AIMessage, messages[index])
        reason = _finish_reason(message)
        calls = _calls(message)
        if not calls:
            return self._text_turn(request, response, message, reason)
        answers: list[BaseMessage] = []
        structured: Any = None
        rewritten = message
        for call_id, name, raw in calls:
            if name not in (self.submit_tool.name, PARALLEL_WRAPPER):
                continue
            outcome = _integration.handle(self.submit_tool, raw, name=name,
                                          finish_reason=reason)
            if outcome is None:
                continue  # a wrapper of other tools' calls only: LangChain's to answer
            if isinstance(outcome, Accepted):
                rewritten = _replace_call(rewritten, call_id, self.submit_tool.name,
                                          _integration.arguments(self.submit_tool, outcome))
                answers.append(ToolMessage(self.submit_tool.success, tool_call_id=call_id,
                                           name=self.submit_tool.name))
                if structured is None:
                    structured = outcome.response
            else:
                rewritten = _replace_call(rewritten, call_id, name,
                                          _integration.replay_arguments(raw))
                answers.append(ToolMessage(outcome.message, tool_call_id=call_id, name=name,
                                           status="error"))
        if not answers:
            return response
        # LangChain's own answer to its structured output call is replaced by the verdict.
        answered = {m.tool_call_id for m in answers if isinstance(m, ToolMessage)}
        rest = [m for m in messages[index + 1:]
                if not (isinstance(m, ToolMessage) and m.tool_call_id in answered)]
        result = [*messages[:index], rewritten, *answers, *rest]
        return self._respond(request, result, structured)

    def _text_turn(self, request: ModelRequest, response: ModelResponse, message: AIMessage,
                   reason: Optional[str]) -> _Result:
        """A turn without calls: a call of the tool written in its text (or in Gemini's
        ``MALFORMED_FUNCTION_CALL`` finish message) becomes that call when accepted."""
        text: str = str(message.text)
        finish_message = message.response_metadata.get("finish_message")
        if reason == "MALFORMED_FUNCTION_CALL" and isinstance(finish_message, str):
            text = finish_message
        outcome = (_integration.handle_text(self.submit_tool, text, finish_reason=reason)
                   if text else None)
        if outcome is None:
            if request.response_format is self._structured:
                # As LangChain does for its structured output when the agent has no tools
                # (the middleware's own tool gives it one): ask again.
                return ExtendedModelResponse(response, Command(update={"jump_to": "model"}))
            return response
        if not isinstance(outcome, Accepted):
            # No call to answer: the parser's message goes to the model as the user's.
            return ExtendedModelResponse(
                ModelResponse(result=[*response.result, HumanMessage(outcome.message)]),
                Command(update={"jump_to": "model", **self._cleared(request)}),
            )
        call_id = f"call_{uuid.uuid4().hex[:24]}"
        call = {"name": self.submit_tool.name, "id": call_id, "type": "tool_call",
                "args": _integration.arguments(self.submit_tool, outcome)}
        # The call takes the place of the text it was written in.
        content: Any = "" if isinstance(message.content, str) else [
            block for block in message.content
            if not (isinstance(block, dict) and block.get("type") == "text")
            and not isinstance(block, str)]
        rewritten = _rebuilt(message, content=content, tool_calls=[call],
                             invalid_tool_calls=list(message.invalid_tool_calls))
        answer = ToolMessage(self.submit_tool.success, tool_call_id=call_id,
                             name=self.submit_tool.name)
        return self._respond(request, [rewritten, answer], outcome.response)

    def _respond(self, request: ModelRequest, result: list[BaseMessage],
                 structured: Any) -> _Result:
        response = ModelResponse(result=result, structured_response=structured)
        if structured is not None or not self._cleared(request):
            return response
        return ExtendedModelResponse(response, Command(update=self._cleared(request)))

    def _cleared(self, request: ModelRequest) -> dict[str, Any]:
        """Without a response format LangChain keeps the last ``structured_response`` of the
        thread: a turn that commits nothing clears it, so the router does not end on it."""
        return {} if request.response_format is not None else {"structured_response": None}

    def _committed(self, messages: list[AnyMessage]) -> bool:
        """Whether the last model turn holds a submit call answered as accepted."""
        for position in range(len(messages) - 1, -1, -1):
            message = messages[position]
            if isinstance(message, AIMessage):
                ids = {call["id"] for call in message.tool_calls
                       if call["name"] == self.submit_tool.name}
                return any(isinstance(m, ToolMessage) and m.tool_call_id in ids
                           and m.status != "error" for m in messages[position + 1:])
            if not isinstance(message, ToolMessage):
                return False
        return False

    def _run_tool(self, **arguments: Any) -> str:
        """The tool's function, for a call the middleware did not read (a graph that runs
        the tool node itself): the verdict on its decoded arguments, as the model reads it."""
        outcome = _integration.handle(self.submit_tool, arguments)
        if outcome is None:  # pragma: no cover - a call of this tool is never a wrapper
            return f"no call of {self.submit_tool.name}"
        return self.submit_tool.success if outcome.accepted else outcome.message


def _finish_reason(message: AIMessage) -> Optional[str]:
    """The turn's finish reason as the integration recorded it: ``finish_reason`` (OpenAI,
    Gemini), ``stop_reason`` (Anthropic), ``done_reason`` (Ollama), or the Responses API's
    ``incomplete_details``."""
    metadata = message.response_metadata
    for key in ("finish_reason", "stop_reason", "done_reason"):
        reason = metadata.get(key)
        if isinstance(reason, str):
            return reason
    details = metadata.get("incomplete_details")
    if isinstance(details, dict) and isinstance(details.get("reason"), str):
        return cast(str, details["reason"])
    return None


def _calls(message: AIMessage) -> list[tuple[str, str, Any]]:
    """The turn's calls as (id, name, raw arguments), in order: the provider's argument text
    where the integration kept it, an Anthropic ``tool_use`` block's input, else the decoded
    arguments."""
    raw: dict[str, Any] = {}
    for call in message.additional_kwargs.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(call.get("id"), str):
            raw[call["id"]] = function.get("arguments")
    if isinstance(message.content, list):
        for block in message.content:
            if isinstance(block, dict) and block.get("type") == "tool_use" and "id" in block:
                raw.setdefault(block["id"], block.get("input"))
    for chunk in getattr(message, "tool_call_chunks", None) or []:
        if isinstance(chunk.get("id"), str) and isinstance(chunk.get("args"), str):
            raw.setdefault(chunk["id"], chunk["args"])
    calls: list[tuple[str, str, Any]] = []
    seen: set[str] = set()
    for call in message.tool_calls:
        call_id = call.get("id") or ""
        calls.append((call_id, call["name"], raw.get(call_id, call["args"])))
        seen.add(call_id)
    for invalid in message.invalid_tool_calls:
        call_id = invalid.get("id") or ""
        calls.append((call_id, invalid.get("name") or "", raw.get(call_id, invalid.get("args"))))
        seen.add(call_id)
    if isinstance(message.content, list):
        # A tool_use block LangChain made no call of (its input was no object).
        for block in message.content:
            if (isinstance(block, dict) and block.get("type") == "tool_use"
                    and block.get("id") not in seen):
                calls.append((str(block.get("id")), str(block.get("name")), block.get("input")))
    return calls


def _replace_call(message: AIMessage, call_id: str, name: str,
                  arguments: dict[str, Any]) -> AIMessage:
    """``message`` with the call ``call_id`` stored as a valid call of ``name`` with
    ``arguments``, in every place the integration keeps it."""
    call = {"name": name, "args": arguments, "id": call_id, "type": "tool_call"}
    tool_calls = [call if c.get("id") == call_id else c for c in message.tool_calls]
    if not any(c.get("id") == call_id for c in message.tool_calls):
        tool_calls.append(call)
    invalid = [c for c in message.invalid_tool_calls if c.get("id") != call_id]
    additional = dict(message.additional_kwargs)
    if isinstance(additional.get("tool_calls"), list):
        additional["tool_calls"] = [
            {**raw, "function": {**raw["function"], "name": name,
                                 "arguments": _integration.to_json(arguments)}}
            if isinstance(raw, dict) and raw.get("id") == call_id
            and isinstance(raw.get("function"), dict) else raw
            for raw in additional["tool_calls"]]
    content = message.content
    if isinstance(content, list):
        content = [
            {**block, "name": name, "input": arguments}
            if isinstance(block, dict) and block.get("type") == "tool_use"
            and block.get("id") == call_id else block
            for block in content]
    return _rebuilt(message, content=content, tool_calls=tool_calls, invalid_tool_calls=invalid,
                    additional_kwargs=additional)


def _rebuilt(message: AIMessage, **fields: Any) -> AIMessage:
    """A plain ``AIMessage`` (also from a streamed chunk) with ``fields`` replaced."""
    kept = {
        "content": message.content,
        "additional_kwargs": message.additional_kwargs,
        "response_metadata": message.response_metadata,
        "id": message.id,
        "name": message.name,
        "usage_metadata": message.usage_metadata,
    }
    return AIMessage(**{**kept, **fields})

