r"""The submit parser in front of a PydanticAI agent's output tool.

:class:`SubmitOutput` is a PydanticAI capability built from a :class:`~submit_result.SubmitTool`.
It gives the agent an output tool that is the submit tool itself (its name, description and
parameters schema, as :meth:`SubmitTool.definition` gives them) and reads each call of it with
:meth:`SubmitTool.handle` before PydanticAI validates it:

- an accepted call reaches PydanticAI's output validation (and any output validator) as the
  recovered payload, and the run ends with it: the Pydantic model instance when the tool was
  built from a model class, else the dict;
- a rejected call is retried through PydanticAI's own retry mechanism, with the parser's
  message as the tool's result, and counts against the output retries;
- a turn with text only, where :meth:`SubmitTool.handle_text` finds a call of the tool written
  as text (``<tool_call>``, ``[TOOL_CALLS]``, …), becomes that tool call when it is accepted,
  and is retried with the parser's message when it is rejected;
- a ``multi_tool_use.parallel`` call whose entry names the tool is handled as that entry;
- a turn cut off at the output-token limit (``finish_reason='length'``) is never accepted.

>>> from pydantic_ai import Agent
>>> from pydantic_ai.messages import ModelResponse, ToolCallPart
>>> from pydantic_ai.models.function import AgentInfo, FunctionModel
>>> from submit_result import SubmitTool
>>> from submit_result.pydantic_ai import SubmitOutput
>>> submit = SubmitOutput(SubmitTool(
...     {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}))
>>> def model(messages, info: AgentInfo) -> ModelResponse:
...     # The payload sent as a JSON string inside the arguments, as models do.
...     args = '{"reasoning": "checked", "result": "{\\"answer\\": \\"42\\"}"}'
...     return ModelResponse(parts=[ToolCallPart("submit_result", args)])
>>> agent = Agent(FunctionModel(model), output_type=submit.output_type, capabilities=[submit])
>>> agent.run_sync("What is the answer?").output
{'answer': '42'}
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Generic, Literal, TypeVar, Union, cast

try:
    from pydantic import BaseModel
    from pydantic_ai import ModelRetry, StructuredDict, ToolOutput
    from pydantic_ai.capabilities import (
        AbstractCapability,
        RawOutput,
        WrapOutputValidateHandler,
    )
    from pydantic_ai.messages import (
        ModelResponse,
        ModelResponsePart,
        TextPart,
        ToolCallPart,
    )
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.output import OutputContext
    from pydantic_ai.tools import RunContext, ToolDefinition
except ImportError as _missing:  # pragma: no cover - only without PydanticAI
    raise ImportError(
        "submit_result.pydantic_ai needs PydanticAI: "
        "pip install 'submit-result[pydantic-ai]' (or pydantic-ai-slim)"
    ) from _missing

from ._submit_result import Accepted, Rejected, SubmitTool

__all__ = ["PARALLEL_WRAPPER", "SubmitOutput"]

_R = TypeVar("_R")

PARALLEL_WRAPPER = "multi_tool_use.parallel"
"""The name of the wrapper call some OpenAI models send their parallel calls in."""


@dataclasses.dataclass(frozen=True)
class _Unreadable:
    """A call the parser cannot be given because it is not JSON data (a non-finite float, a
    value of another type, nesting past the limit): declined, as a rejected call is."""

    message: str
    accepted: Literal[False] = False


_Outcome = Union["Accepted[Any]", Rejected, _Unreadable]


@dataclasses.dataclass(init=False)
class SubmitOutput(AbstractCapability[Any], Generic[_R]):
    """A PydanticAI capability that puts ``tool``'s parser in front of the agent's output tool.

    Give the agent both :attr:`output_type` and the capability::

        submit = SubmitOutput(SubmitTool(Verdict))
        agent = Agent(model, output_type=submit.output_type, capabilities=[submit])
        verdict = agent.run_sync(prompt).output  # a Verdict

    ``max_retries`` is the output tool's own retry limit (``ToolOutput``'s); without it, the
    agent's output retry budget applies.
    """

    tool: SubmitTool[_R]
    """The submit tool whose parser reads the calls."""

    max_retries: int | None
    """The output tool's retry limit, or ``None`` for the agent's."""

    _outcomes: dict[str, _Outcome] = dataclasses.field(repr=False, compare=False)
    """The outcomes of calls read from this run's model responses, by call id, until
    PydanticAI validates the calls."""

    def __init__(self, tool: SubmitTool[_R], *, max_retries: int | None = None) -> None:
        super().__init__()
        self.tool = tool
        self.max_retries = max_retries
        self._outcomes = {}
        function = tool.definition("openai-chat")["function"]
        self._parameters: dict[str, Any] = function["parameters"]
        self._strict: bool | None = True if function.get("strict") else None
        output = ToolOutput(
            StructuredDict({"type": "object"}, name=tool.name),
            name=tool.name,
            description=tool.description,
            max_retries=max_retries,
        )
        self._output_type = cast("ToolOutput[_R]", output)

    @property
    def output_type(self) -> ToolOutput[_R]:
        """The agent's ``output_type``: one output tool, named and described as the submit tool,
        whose output is what the parser accepted (the model instance for a tool built from a
        Pydantic model, else the dict). The capability gives the tool its parameters schema."""
        return self._output_type

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # built from a SubmitTool, not from a spec

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        run = copy.copy(self)
        run._outcomes = {}
        return run

    async def prepare_output_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        """The submit tool's definition: its parameters schema and strictness as
        :meth:`SubmitTool.definition` gives them."""
        return [
            dataclasses.replace(
                definition,
                parameters_json_schema=self._parameters,
                description=self.tool.description,
                strict=self._strict,
            )
            if definition.name == self.tool.name
            else definition
            for definition in tool_defs
        ]

    async def after_model_request(
        self,
        ctx: RunContext[Any],
        *,
        request_context: ModelRequestContext,
        response: ModelResponse,
    ) -> ModelResponse:
        """Reads the response's calls of the tool with the response's finish reason; makes a
        wrapper call holding one, or a text turn writing one, that call."""
        cut_off = response.finish_reason == "length"
        if not any(isinstance(part, ToolCallPart) for part in response.parts):
            return self._text_turn(response, cut_off)
        parts: list[ModelResponsePart] = []
        changed = False
        for part in response.parts:
            if isinstance(part, ToolCallPart) and part.tool_name == self.tool.name:
                outcome = self._handle(part, cut_off)
                if outcome is not None:
                    self._outcomes[part.tool_call_id] = outcome
            elif isinstance(part, ToolCallPart) and part.tool_name == PARALLEL_WRAPPER:
                outcome = self._handle(part, cut_off)
                if outcome is not None:
                    # The wrapper's arguments are kept when rejected: the retry answers them.
                    args = (
                        _arguments(self.tool, outcome)
                        if isinstance(outcome, Accepted)
                        else cast("str | dict[str, Any] | None", part.args)
                    )
                    part = ToolCallPart(
                        self.tool.name,
                        args,
                        part.tool_call_id,
                        provider_name=part.provider_name,
                    )
                    self._outcomes[part.tool_call_id] = outcome
                    changed = True
            parts.append(part)
        return dataclasses.replace(response, parts=parts) if changed else response

    async def wrap_output_validate(
        self,
        ctx: RunContext[Any],
        *,
        output_context: OutputContext,
        output: RawOutput,
        handler: WrapOutputValidateHandler,
    ) -> Any:
        """An accepted call's payload goes on to PydanticAI's validation; a declined one is
        retried with the parser's message."""
        call = output_context.tool_call
        if call is None or call.tool_name != self.tool.name:
            return await handler(output)
        if ctx.partial_output:
            # Arguments still streaming in: the parser reads whole calls only, so there is no
            # partial output to show (PydanticAI skips a partial output that raises this).
            raise ModelRetry(f"the {self.tool.name} call is not complete yet")
        outcome = self._outcomes.pop(call.tool_call_id, None)
        if outcome is None:
            outcome = self._handle(call, _cut_off(ctx, call))
        if outcome is None:
            # A wrapper call given the tool's name elsewhere, with no entry of the tool.
            raise ModelRetry(f"call {self.tool.name} directly, not inside {PARALLEL_WRAPPER}")
        if not isinstance(outcome, Accepted):
            raise ModelRetry(outcome.message)
        response = outcome.response
        payload = _payload(response, "python")
        validated = await handler(payload)
        if validated == payload:
            return response
        if isinstance(response, BaseModel):
            # A validate hook changed the payload: the model of what it answered.
            return type(response).model_validate(validated)
        return validated

    def _handle(self, part: ToolCallPart, cut_off: bool) -> _Outcome | None:
        """The parser's outcome for ``part``: its arguments as a string are the model's
        argument text, as a dict the object as decoded. ``None`` for a wrapper call with no
        entry of the tool."""
        arguments = part.args if isinstance(part.args, dict) else part.args or ""
        try:
            return self.tool.handle_arguments(
                arguments, name=part.tool_name, finish_reason="length" if cut_off else None
            )
        except (ValueError, TypeError) as error:
            return _unreadable(self.tool, error)

    def _text_turn(self, response: ModelResponse, cut_off: bool) -> ModelResponse:
        """A turn without tool calls: a call of the tool written in its text becomes that call
        when accepted, and is retried with the parser's message when declined."""
        text = "".join(part.content for part in response.parts if isinstance(part, TextPart))
        if not text:
            return response
        outcome: _Outcome | None
        try:
            outcome = self.tool.handle_text(
                text, finish_reason="length" if cut_off else None, provider="openai-chat"
            )
        except (ValueError, TypeError) as error:
            outcome = _unreadable(self.tool, error)
        if outcome is None:
            return response
        if not isinstance(outcome, Accepted):
            raise ModelRetry(outcome.message)
        call = ToolCallPart(self.tool.name, _arguments(self.tool, outcome))
        self._outcomes[call.tool_call_id] = outcome
        # The call takes the place of the text it was written in.
        parts: list[ModelResponsePart] = []
        for part in response.parts:
            if not isinstance(part, TextPart):
                parts.append(part)
            elif call not in parts:
                parts.append(call)
        return dataclasses.replace(response, parts=parts)


def _payload(response: Any, mode: Literal["python", "json"]) -> dict[str, Any]:
    """An accepted response as a dict: a model instance dumped (by alias, as it validates)."""
    if isinstance(response, BaseModel):
        return response.model_dump(mode=mode, by_alias=True)
    return cast(dict[str, Any], response)


def _arguments(tool: SubmitTool[Any], accepted: Accepted[Any]) -> dict[str, Any]:
    """The clean arguments of an accepted call, in the shape of the tool's parameters."""
    payload = _payload(accepted.response, "json")
    arguments = dict(payload) if tool.flat else {tool.payload: payload}
    if not tool.omit_reasoning:
        arguments = {"reasoning": accepted.reasoning, **arguments}
    return arguments


def _cut_off(ctx: RunContext[Any], call: ToolCallPart) -> bool:
    """Whether the response holding ``call`` ended at the output-token limit."""
    for message in reversed(ctx.messages):
        if isinstance(message, ModelResponse) and any(
            isinstance(part, ToolCallPart) and part.tool_call_id == call.tool_call_id
            for part in message.parts
        ):
            return message.finish_reason == "length"
    return False


def _unreadable(tool: SubmitTool[Any], error: Exception) -> _Unreadable:
    return _Unreadable(f"the {tool.name} call could not be read: {error}")
