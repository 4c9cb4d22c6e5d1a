from typing import (
    Any,
    Generic,
    Literal,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
    final,
    overload,
)

_Provider = Literal["claude", "gemini", "openai-chat", "openai-responses"]
_ErrorClass = Literal["parameter", "payload"]
_Cause = Literal[
    "undecodable_arguments",
    "absent_or_mistyped",
    "stringified_declined",
    "reasoning_declined",
    "swallowed_parameter",
    "truncated_call",
]

_R = TypeVar("_R")

class _SdkCall(Protocol):
    """A provider SDK's call object (a Pydantic model): Anthropic ``ToolUseBlock``, OpenAI's
    Chat tool call or Responses ``ResponseFunctionToolCall``, google-genai ``FunctionCall`` or
    ``Part``."""

    def model_dump(self, *, mode: str = ..., by_alias: bool = ...) -> Any: ...

class _ArrowArray(Protocol):
    """An Arrow array exported through the Arrow PyCapsule interface (``pyarrow.Array``, and
    the arrays of other Arrow libraries)."""

    def __arrow_c_array__(self, requested_schema: Any = ..., /) -> Tuple[Any, Any]: ...

class _ArrowStream(Protocol):
    """An Arrow stream exported through the Arrow PyCapsule interface
    (``pyarrow.ChunkedArray``, and the chunked arrays and streams of other Arrow libraries)."""

    def __arrow_c_stream__(self, requested_schema: Any = ..., /) -> Any: ...

DEFAULT_TOOL_NAME: str
DEFAULT_PAYLOAD_FIELD: str
DEFAULT_SUCCESS_MESSAGE: str

class BuildError(ValueError):
    """The submit tool could not be built: the message says what to change."""

class UnknownProviderError(ValueError):
    """A provider name that is not one of the four."""

@final
class Recovery:
    """One recovery that applied to an accepted submit."""

    @property
    def kind(self) -> str: ...
    @property
    def parameters(self) -> Tuple[str, ...]: ...
    @property
    def format(self) -> Optional[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class Accepted(Generic[_R]):
    """An accepted submit."""

    @property
    def accepted(self) -> Literal[True]: ...
    @property
    def response(self) -> _R: ...
    @property
    def reasoning(self) -> str: ...
    @property
    def recovery(self) -> Optional[str]: ...
    @property
    def recoveries(self) -> Tuple[Recovery, ...]: ...
    @property
    def tool_result(self) -> dict[str, Any]: ...
    def __bool__(self) -> Literal[True]: ...

@final
class Rejected:
    """A rejected submit."""

    @property
    def accepted(self) -> Literal[False]: ...
    @property
    def error_class(self) -> _ErrorClass: ...
    @property
    def cause(self) -> Optional[_Cause]: ...
    @property
    def message(self) -> str: ...
    @property
    def trace(self) -> str: ...
    @property
    def tool_result(self) -> dict[str, Any]: ...
    def __bool__(self) -> Literal[False]: ...

@final
class SubmitTool(Generic[_R]):
    """A terminal submit tool for a JSON Schema payload, or a Pydantic model's."""

    @overload
    def __new__(
        cls,
        schema: Mapping[str, Any],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        payload: Optional[str] = None,
        payload_description: Optional[str] = None,
        success: Optional[str] = None,
        flat: bool = False,
        omit_reasoning: bool = False,
        omit_fields: Optional[Sequence[str]] = None,
        strict: bool = False,
    ) -> "SubmitTool[dict[str, Any]]": ...
    @overload
    def __new__(
        cls,
        schema: Type[_R],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        payload: Optional[str] = None,
        payload_description: Optional[str] = None,
        success: Optional[str] = None,
        flat: bool = False,
        omit_reasoning: bool = False,
        omit_fields: Optional[Sequence[str]] = None,
        strict: bool = False,
    ) -> "SubmitTool[_R]": ...
    @classmethod
    def from_tag(
        cls,
        tag: str,
        schema: Union[Mapping[str, Any], Type[Any]],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        payload: Optional[str] = None,
        payload_description: Optional[str] = None,
        success: Optional[str] = None,
        flat: Optional[bool] = None,
        omit_reasoning: Optional[bool] = None,
        omit_fields: Optional[Sequence[str]] = None,
        strict: Optional[bool] = None,
    ) -> "SubmitTool[Any]":
        """A tool from a tag string and a schema; each keyword given overrides the tag."""
    @property
    def model(self) -> Optional[Type[_R]]:
        """The Pydantic model class the tool was built from; ``None`` for a schema dict."""
    @property
    def strict(self) -> bool: ...
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
    def definition(self, provider: _Provider) -> dict[str, Any]: ...
    def handle(
        self,
        provider: _Provider,
        call: Union[Mapping[str, Any], _SdkCall],
        *,
        finish_reason: Optional[str] = None,
    ) -> Union[Accepted[_R], Rejected, None]:
        """Handles a call in ``provider``'s shape. ``None`` only for a
        ``multi_tool_use.parallel`` call with no entry naming this tool."""
    def handle_arguments(
        self,
        arguments: Union[str, Mapping[str, Any], None],
        *,
        name: Optional[str] = None,
        finish_reason: Optional[str] = None,
    ) -> Union[Accepted[_R], Rejected, None]:
        """Handles a call's arguments alone, as an agent framework hands them over: a ``str``
        is the argument text as the model wrote it, a dict the arguments object as decoded,
        ``None`` no arguments. ``finish_reason`` in any provider's spelling. ``None`` only for
        a call named ``multi_tool_use.parallel`` with no entry naming this tool."""
    def handle_text(
        self,
        text: str,
        *,
        finish_reason: Optional[str] = None,
        provider: Optional[_Provider] = None,
    ) -> Union[Accepted[_R], Rejected, None]: ...
    def handle_batch(
        self,
        provider: _Provider,
        calls: Union[_ArrowArray, _ArrowStream],
        *,
        finish_reasons: Union[_ArrowArray, _ArrowStream, None] = None,
        threads: Optional[int] = None,
    ) -> Any:
        """Handles a column of calls (an Arrow string array or chunked array, each row a
        call's JSON text) in one pass without the interpreter's lock, on up to ``threads``
        threads (one per core by default); returns a ``pyarrow.StructArray`` (for a chunked
        array or stream, a ``pyarrow.ChunkedArray`` of the same chunks) with the columns
        ``accepted``, ``response`` (JSON text), ``reasoning``, ``recoveries``, ``error_class``,
        ``cause`` and ``message``."""

__all__ = [
    "SubmitTool",
    "Accepted",
    "Rejected",
    "Recovery",
    "BuildError",
    "UnknownProviderError",
    "DEFAULT_TOOL_NAME",
    "DEFAULT_PAYLOAD_FIELD",
    "DEFAULT_SUCCESS_MESSAGE",
]
