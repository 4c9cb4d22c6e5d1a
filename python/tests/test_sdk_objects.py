"""Calls as the providers' Python SDKs give them: their own objects, not dicts. Each test skips
when its SDK is not installed (CI installs all three)."""

import pytest

from submit_result import SubmitTool

SCHEMA = {"type": "object", "properties": {"summary": {"type": "string"},
                                           "blocked": {"type": ["boolean", "null"]}},
          "required": ["summary"]}
ARGUMENTS = {"reasoning": "checked", "result": {"summary": "ok", "blocked": None}}
TEXT = '{"reasoning": "checked", "result": "{\\"summary\\": \\"ok\\", \\"blocked\\": null}"}'


def accepted_as_sent(outcome, recovery=None):
    assert outcome.accepted, outcome
    assert outcome.response == {"summary": "ok", "blocked": None}
    assert outcome.reasoning == "checked"
    assert outcome.recovery == recovery


def test_anthropic_tool_use_block():
    types = pytest.importorskip("anthropic.types")
    block = types.ToolUseBlock(id="toolu_1", type="tool_use", name="submit_result",
                               input=ARGUMENTS)
    accepted_as_sent(SubmitTool(SCHEMA).handle("claude", block))
    stringified = types.ToolUseBlock(id="toolu_1", type="tool_use", name="submit_result",
                                     input={"reasoning": "checked",
                                            "result": '{"summary": "ok", "blocked": null}'})
    accepted_as_sent(SubmitTool(SCHEMA).handle("claude", stringified), "stringified")


def test_openai_chat_tool_call():
    pytest.importorskip("openai")
    from openai.types.chat.chat_completion_message_function_tool_call import (
        ChatCompletionMessageFunctionToolCall,
        Function,
    )
    call = ChatCompletionMessageFunctionToolCall(
        id="call_1", type="function", function=Function(name="submit_result", arguments=TEXT))
    accepted_as_sent(SubmitTool(SCHEMA).handle("openai-chat", call), "stringified")
    cut = SubmitTool(SCHEMA).handle("openai-chat", call, finish_reason="length")
    assert cut.cause == "truncated_call"


def test_openai_responses_function_call():
    types = pytest.importorskip("openai.types.responses")
    item = types.ResponseFunctionToolCall(arguments=TEXT, call_id="call_1",
                                          name="submit_result", type="function_call")
    accepted_as_sent(SubmitTool(SCHEMA).handle("openai-responses", item), "stringified")


def test_google_genai_function_call_and_part():
    types = pytest.importorskip("google.genai.types")
    call = types.FunctionCall(name="submit_result", args=ARGUMENTS)
    accepted_as_sent(SubmitTool(SCHEMA).handle("gemini", call))
    accepted_as_sent(SubmitTool(SCHEMA).handle("gemini", types.Part(function_call=call)))
    missing = SubmitTool(SCHEMA).handle("gemini", types.FunctionCall(name="submit_result",
                                                                     args={"result": {}}))
    assert missing.cause == "absent_or_mistyped"
