from ._submit_result import (
    DEFAULT_PAYLOAD_FIELD as DEFAULT_PAYLOAD_FIELD,
    DEFAULT_SUCCESS_MESSAGE as DEFAULT_SUCCESS_MESSAGE,
    DEFAULT_TOOL_NAME as DEFAULT_TOOL_NAME,
    Accepted as Accepted,
    BuildError as BuildError,
    Recovery as Recovery,
    Rejected as Rejected,
    SubmitTool as SubmitTool,
    UnknownProviderError as UnknownProviderError,
)

PROVIDERS: tuple[str, str, str, str]
__all__ = [
    "Accepted",
    "BuildError",
    "DEFAULT_PAYLOAD_FIELD",
    "DEFAULT_SUCCESS_MESSAGE",
    "DEFAULT_TOOL_NAME",
    "PROVIDERS",
    "Recovery",
    "Rejected",
    "SubmitTool",
    "UnknownProviderError",
]
