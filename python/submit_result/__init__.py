"""A terminal ``submit_result`` tool for LLM agents: the four providers' definitions and a
lenient, exact parser of the call, with classified rejections.

>>> from submit_result import SubmitTool
>>> tool = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}},
...                    "required": ["answer"]})
>>> call = {"type": "tool_use", "id": "toolu_1", "name": "submit_result",
...         "input": {"reasoning": "checked", "result": {"answer": "42"}}}
>>> tool.handle("claude", call)
Accepted(response={'answer': '42'})
"""

from ._submit_result import (
    DEFAULT_PAYLOAD_FIELD,
    DEFAULT_SUCCESS_MESSAGE,
    DEFAULT_TOOL_NAME,
    Accepted,
    BuildError,
    Recovery,
    Rejected,
    SubmitTool,
    UnknownProviderError,
)

PROVIDERS = ("claude", "gemini", "openai-chat", "openai-responses")
"""The providers' names, as ``definition`` and ``handle`` take them."""

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
