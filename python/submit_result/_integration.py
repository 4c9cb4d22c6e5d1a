"""What the framework integrations (LangChain, the OpenAI Agents SDK, Google ADK) share: the
verdict on a call a framework hands over, and the canonical arguments an accepted call is
stored with."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Literal, Mapping, Optional, Union, cast

from ._submit_result import Accepted, Rejected, SubmitTool

PARALLEL_WRAPPER = "multi_tool_use.parallel"
"""The name of the wrapper call some OpenAI models send their parallel calls in."""


@dataclasses.dataclass(frozen=True)
class Unreadable:
    """A call the parser cannot be given because it is not JSON data (a non-finite float, a
    value of another type, nesting past the limit): declined, as a rejected call is."""

    message: str
    accepted: Literal[False] = False

    @property
    def tool_result(self) -> dict[str, Any]:
        return {"error": self.message}


Outcome = Union["Accepted[Any]", Rejected, Unreadable]


def handle(
    tool: SubmitTool[Any],
    arguments: Any,
    *,
    name: Optional[str] = None,
    finish_reason: Optional[str] = None,
) -> Optional[Outcome]:
    """The verdict on a call of ``name`` (the tool's own by default) through
    :meth:`SubmitTool.handle_arguments`: ``arguments`` as text is the model's argument text,
    anything else the object as the framework decoded it; ``finish_reason`` in any provider's
    spelling (a framework may hand over another provider's word). ``None`` for a
    ``multi_tool_use.parallel`` call with no entry of the tool."""
    try:
        return tool.handle_arguments(arguments, name=name, finish_reason=finish_reason)
    except (ValueError, TypeError) as error:
        return unreadable(tool, error)


def handle_text(
    tool: SubmitTool[Any],
    text: str,
    *,
    finish_reason: Optional[str] = None,
) -> Optional[Outcome]:
    """The verdict on a call of the tool written in a text turn; ``None`` when it holds none.
    ``finish_reason`` is read in any provider's spelling."""
    try:
        return tool.handle_text(text, finish_reason=finish_reason)
    except (ValueError, TypeError) as error:
        return unreadable(tool, error)


def unreadable(tool: SubmitTool[Any], error: Exception) -> Unreadable:
    return Unreadable(f"the {tool.name} call could not be read: {error}")


def payload(response: Any, mode: Literal["python", "json"] = "json") -> Any:
    """An accepted response as plain data: a model instance dumped (by alias, as it
    validates)."""
    dump = getattr(response, "model_dump", None)
    if callable(dump):
        return dump(mode=mode, by_alias=True)
    return response


def arguments(tool: SubmitTool[Any], accepted: Accepted[Any]) -> dict[str, Any]:
    """The canonical arguments of an accepted call, in the shape of the tool's parameters."""
    value = payload(accepted.response)
    canonical = dict(value) if tool.flat else {tool.payload: value}
    if not tool.omit_reasoning:
        canonical = {"reasoning": accepted.reasoning, **canonical}
    return canonical


def replay_arguments(arguments: Any) -> dict[str, Any]:
    """The arguments a declined call is stored with, so that the history can be sent again:
    the call's own when they are a JSON object (as text or decoded), else an empty object."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return {}
    if isinstance(arguments, Mapping):
        try:
            # Only what JSON can carry (a NaN or bytes would be refused again on the way out).
            return cast(dict[str, Any], json.loads(json.dumps(dict(arguments), allow_nan=False)))
        except (ValueError, TypeError):
            return {}
    return {}


def to_json(arguments: Mapping[str, Any]) -> str:
    """Arguments as the JSON text a provider's history holds."""
    return json.dumps(arguments, ensure_ascii=False)
