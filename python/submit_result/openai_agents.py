r"""The submit parser in an OpenAI Agents SDK agent.

Three pieces, each built from a :class:`~submit_result.SubmitTool`, given to an ``Agent``:

- :func:`submit_tool` makes the submit tool a ``FunctionTool`` (not strict, so that input the
  parser recovers is not refused upstream) whose invocation gives the verdict on the call's
  **raw** argument text, with the call's status (``incomplete``: cut off at the output-token
  limit, never accepted). The call stored in the run's history then holds the canonical
  arguments when accepted, and arguments a provider takes back when rejected (the call's own
  when they are a JSON object, else ``{}``); a rejected call's output is the parser's message.
- :func:`stop_on_submit` is the agent's ``tool_use_behavior``: it ends the run on an accepted
  submit, its final output the recovered value (the Pydantic model instance for a tool built
  from a model class, else the dict), and lets a rejected one go back to the model (the SDK's
  ``StopAtTools`` would end the run on the error string).
- :class:`SubmitOutputSchema` is the agent's ``output_type``: it keeps the final output an
  object, and reads an answer that comes as text, a call of the tool written as text (a chat
  template's tool-call syntax) or the tool's arguments as JSON text (fenced, encoded twice, …).
- :class:`SubmitModel` wraps the agent's ``Model`` so that a text turn holding a call of the
  tool written as text becomes that call: accepted, it ends the run as a call would; rejected,
  it is answered with the parser's message and the model is asked again (a rejected text
  answer the output schema reads ends the run, as the SDK never asks again for a final
  output).

>>> from agents import Agent, Runner
>>> from agents.testing import ScriptedModel, function_call
>>> from submit_result import SubmitTool
>>> from submit_result.openai_agents import SubmitOutputSchema, stop_on_submit, submit_tool
>>> tool = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}},
...                    "required": ["answer"]})
>>> # The payload sent as a JSON string inside the arguments, as models do.
>>> model = ScriptedModel([[function_call(
...     "submit_result", '{"reasoning": "checked", "result": "{\\"answer\\": \\"42\\"}"}',
...     call_id="call_1")]])
>>> agent = Agent(name="answerer", model=model, tools=[submit_tool(tool)],
...               tool_use_behavior=stop_on_submit, output_type=SubmitOutputSchema(tool))
>>> Runner.run_sync(agent, "What is the answer?").final_output
{'answer': '42'}
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any, AsyncIterator, Optional

try:
    from agents import (
        AgentOutputSchemaBase,
        FunctionTool,
        FunctionToolResult,
        Model,
        ModelBehaviorError,
        ModelResponse,
        RunContextWrapper,
        ToolsToFinalOutputResult,
    )
    from agents.tool_context import ToolContext
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )
except ImportError as _missing:  # pragma: no cover - only without the Agents SDK
    raise ImportError(
        "submit_result.openai_agents needs the OpenAI Agents SDK: "
        "pip install 'submit-result[openai-agents]'"
    ) from _missing

from . import _integration
from ._integration import Outcome
from ._submit_result import Accepted, SubmitTool

__all__ = ["SubmitModel", "SubmitOutputSchema", "SubmitVerdict", "stop_on_submit", "submit_tool"]

_TEXT_CALLS: dict[str, Outcome] = {}
"""The verdicts :class:`SubmitModel` gave calls written as text, by the id of the call it made
of each, until the submit tool answers it."""


class SubmitVerdict(str):
    """A submit call's output as the model reads it (the success message, or the parser's
    message), carrying the parser's outcome for :func:`stop_on_submit`."""

    outcome: Optional[Outcome] = None

    @classmethod
    def of(cls, outcome: Outcome, success: str) -> "SubmitVerdict":
        verdict = cls(success if isinstance(outcome, Accepted) else outcome.message)
        verdict.outcome = outcome
        return verdict

    def __copy__(self) -> "SubmitVerdict":
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> "SubmitVerdict":
        return self  # immutable: the SDK's snapshots of a run's items keep it as it is


def submit_tool(tool: SubmitTool[Any]) -> FunctionTool:
    """The submit tool as an Agents SDK ``FunctionTool``: its name, description and parameters
    schema as :meth:`SubmitTool.definition` gives them, not strict, its invocation the
    parser's verdict on the raw argument text.

    >>> from submit_result import SubmitTool
    >>> submit_tool(SubmitTool({"type": "object"})).strict_json_schema
    False
    """
    definition = tool.definition("openai-responses")

    async def invoke(context: ToolContext[Any], arguments: str) -> SubmitVerdict:
        call = context.tool_call
        # The Responses API marks a call cut off at the output-token limit incomplete.
        reason = "max_output_tokens" if call is not None and call.status == "incomplete" else None
        outcome = _TEXT_CALLS.pop(context.tool_call_id, None)
        if outcome is None:
            outcome = _integration.handle(tool, arguments, finish_reason=reason)
        if outcome is None:  # pragma: no cover - a call of this tool is never a wrapper
            raise ModelBehaviorError(f"no call of {tool.name}")
        if call is not None:
            # The run's history replays this call: it keeps arguments a provider takes back.
            stored = (_integration.arguments(tool, outcome) if isinstance(outcome, Accepted)
                      else _integration.replay_arguments(arguments))
            call.arguments = _integration.to_json(stored)
        return SubmitVerdict.of(outcome, tool.success)

    return FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=definition["parameters"],
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


def stop_on_submit(
    context: RunContextWrapper[Any], results: list[FunctionToolResult]
) -> ToolsToFinalOutputResult:
    """The agent's ``tool_use_behavior``: the run ends on the turn's first accepted submit,
    its final output the recovered value; any other turn goes back to the model (a rejected
    submit with the parser's message as its output)."""
    for result in results:
        output = result.output
        if isinstance(output, SubmitVerdict) and isinstance(output.outcome, Accepted):
            return ToolsToFinalOutputResult(is_final_output=True,
                                            final_output=output.outcome.response)
    return ToolsToFinalOutputResult(is_final_output=False)


class SubmitOutputSchema(AgentOutputSchemaBase):
    """The agent's ``output_type`` for a submit tool: the final output is the recovered value,
    and an answer that comes as text is read by the parser.

    The text is read as a call of the tool written as text when it holds one, else as the
    tool's arguments (the JSON schema the model is asked for is the tool's parameters). A
    rejected answer raises the SDK's ``ModelBehaviorError`` with the parser's message: the SDK
    does not ask again for a final output, and its ``invalid_final_output`` error handler
    receives the message.

    >>> from submit_result import SubmitTool
    >>> schema = SubmitOutputSchema(SubmitTool(
    ...     {"type": "object", "properties": {"city": {"type": "string"}}},
    ...     flat=True, omit_reasoning=True))
    >>> schema.validate_json('```json\\n{"city": "paris"}\\n```')
    {'city': 'paris'}
    """

    def __init__(self, tool: SubmitTool[Any]) -> None:
        self.tool = tool
        definition = tool.definition("openai-responses")
        self._schema: dict[str, Any] = definition["parameters"]
        self._strict = bool(definition.get("strict"))

    def is_plain_text(self) -> bool:
        return False

    def name(self) -> str:
        return self.tool.name

    def json_schema(self) -> dict[str, Any]:
        return self._schema

    def is_strict_json_schema(self) -> bool:
        return self._strict

    def validate_json(self, json_str: str) -> Any:
        outcome: Optional[Outcome] = _integration.handle_text(self.tool, json_str)
        if outcome is None:
            outcome = _integration.handle(self.tool, json_str)
        if not isinstance(outcome, Accepted):
            message = outcome.message if outcome is not None else f"no {self.tool.name} answer"
            raise ModelBehaviorError(message)
        return outcome.response


class SubmitModel(Model):
    """A ``Model`` that hands the agent a text turn holding a call of ``tool`` written as text
    as that call (with the canonical arguments when accepted; with ``{}`` when not, the
    submit tool then answering with the parser's message), read with the turn's status
    (``incomplete``: cut off at the output-token limit). Every other turn is ``model``'s as it
    is. Streamed turns pass through unread (the output schema still reads a text answer).

    >>> from agents.testing import ScriptedModel
    >>> from submit_result import SubmitTool
    >>> model = SubmitModel(ScriptedModel(), SubmitTool({"type": "object"}))
    """

    def __init__(self, model: Model, tool: SubmitTool[Any]) -> None:
        self.model = model
        self.tool = tool

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        response = await self.model.get_response(*args, **kwargs)
        if any(isinstance(item, ResponseFunctionToolCall) for item in response.output):
            return response
        messages = [item for item in response.output if isinstance(item, ResponseOutputMessage)]
        text = "".join(part.text for message in messages for part in message.content
                       if isinstance(part, ResponseOutputText))
        if not text:
            return response
        cut = any(message.status == "incomplete" for message in messages)
        outcome = _integration.handle_text(self.tool, text,
                                           finish_reason="max_output_tokens" if cut else None)
        if outcome is None:
            return response
        arguments = (_integration.arguments(self.tool, outcome) if isinstance(outcome, Accepted)
                     else {})
        call = ResponseFunctionToolCall(type="function_call", call_id=f"call_{uuid.uuid4().hex}",
                                        name=self.tool.name,
                                        arguments=_integration.to_json(arguments))
        _TEXT_CALLS[call.call_id] = outcome
        # The call takes the place of the text it was written in.
        output = [item for item in response.output if not isinstance(item, ResponseOutputMessage)]
        return dataclasses.replace(response, output=[*output, call])

    def get_retry_advice(self, request: Any) -> Any:
        return self.model.get_retry_advice(request)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        return self.model.stream_response(*args, **kwargs)

    async def close(self) -> None:
        await self.model.close()
