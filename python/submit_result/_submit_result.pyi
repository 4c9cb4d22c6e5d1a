from typing import Any, Generic, Literal, Mapping, Optional, Sequence, Tuple, Type, TypeVar, Union, overload

Provider = Literal["claude", "gemini", "openai-chat", "openai-responses"]
ErrorClass = Literal["parameter", "payload"]
Cause = Literal[
    "undecodable_arguments",
    "absent_or_mistyped",
    "stringified_declined",
    "reasoning_declined",
    "swallowed_parameter",
    "truncated_call",
]

R = TypeVar("R")

DEFAULT_TOOL_NAME: str
DEFAULT_PAYLOAD_FIELD: str
DEFAULT_SUCCESS_MESSAGE: str

class BuildError(ValueError):
    """The submit tool could not be built: the message says what to change."""

class UnknownProviderError(ValueError):
    """A provider name that is not one of the four."""

class Recovery:
    """One recovery that applied to an accepted submit."""

    @property
    def kind(self) -> str: ...
    @property
    def parameters(self) -> Tuple[str, ...]: ...
    @property
    def format(self) -> Optional[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Accepted(Generic[R]):
    """An accepted submit."""

    @property
    def accepted(self) -> Literal[True]: ...
    @property
    def response(self) -> R: ...
    @property
    def reasoning(self) -> str: ...
    @property
    def recovery(self) -> Optional[str]: ...
    @property
    def recoveries(self) -> Tuple[Recovery, ...]: ...
    @property
    def tool_result(self) -> dict[str, Any]: ...
    def __bool__(self) -> Literal[True]: ...

class Rejected:
    """A rejected submit."""

    @property
    def accepted(self) -> Literal[False]: ...
    @property
    def error_class(self) -> ErrorClass: ...
    @property
    def cause(self) -> Optional[Cause]: ...
    @property
    def message(self) -> str: ...
    @property
    def trace(self) -> str: ...
    @property
    def tool_result(self) -> dict[str, Any]: ...
    def __bool__(self) -> Literal[False]: ...

class SubmitTool(Generic[R]):
    """A terminal submit tool for a JSON Schema payload, or a Pydantic model's."""

    @overload
    def __init__(
        self: "SubmitTool[dict[str, Any]]",
        schema: Mapping[str, Any],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        payload: Optional[str] = None,
        payload_description: Optional[str] = None,
        success: Optional[str] = None,
        flat: bool = False,
        omit_reasoning: bool = False,
        omit_fields: Sequence[str] = (),
        strict: bool = False,
    ) -> None: ...
    @overload
    def __init__(
        self: "SubmitTool[R]",
        schema: Type[R],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        payload: Optional[str] = None,
        payload_description: Optional[str] = None,
        success: Optional[str] = None,
        flat: bool = False,
        omit_reasoning: bool = False,
        omit_fields: Sequence[str] = (),
        strict: bool = False,
    ) -> None: ...
    @classmethod
    def from_tag(
        cls,
        tag: str,
        schema: Union[Mapping[str, Any], Type[Any]],
        *,
        omit_fields: Sequence[str] = (),
        strict: bool = False,
    ) -> "SubmitTool[Any]": ...
    @property
    def name(self) -> str: ...
    @property
    def payload(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def payload_description(self) -> str: ...
    @property
    def success(self) -> str: ...
    @property
    def flat(self) -> bool: ...
    @property
    def omit_reasoning(self) -> bool: ...
    @property
    def omit_fields(self) -> Tuple[str, ...]: ...
    @property
    def payload_schema(self) -> dict[str, Any]: ...
    def definition(self, provider: Provider) -> dict[str, Any]: ...
    def handle(
        self,
        provider: Provider,
        call: Mapping[str, Any],
        *,
        finish_reason: Optional[str] = None,
    ) -> Union[Accepted[R], Rejected, None]:
        """Handles a call in ``provider``'s shape. ``None`` only for a
        ``multi_tool_use.parallel`` call with no entry naming this tool."""
    def handle_text(
        self,
        text: str,
        *,
        finish_reason: Optional[str] = None,
        provider: Optional[Provider] = None,
    ) -> Union[Accepted[R], Rejected, None]: ...
