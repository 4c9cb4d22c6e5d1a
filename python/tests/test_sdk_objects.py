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


# The objects a caller holds around a call: whole responses as each API returns them (written
# here in the APIs' documented shapes, each with one text part and one call of the tool) and
# their parts that are no call. Each is the caller's mistake, whatever the provider named.
ANTHROPIC_MESSAGE = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "Done."},
                {"type": "tool_use", "id": "toolu_1", "name": "submit_result",
                 "input": ARGUMENTS}],
    "stop_reason": "tool_use", "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 20},
}
CHAT_COMPLETION = {
    "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Done.",
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "submit_result", "arguments": TEXT}}]}}],
}
RESPONSE = {
    "id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-4.1",
    "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "Done.", "annotations": []}]},
               {"type": "function_call", "call_id": "call_1", "name": "submit_result",
                "arguments": TEXT}],
    "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
}
GEMINI_RESPONSE = {
    "candidates": [{"content": {"role": "model", "parts": [
        {"text": "Done."},
        {"functionCall": {"name": "submit_result", "args": ARGUMENTS}}]},
        "finishReason": "STOP"}],
}


def anthropic_objects():
    types = pytest.importorskip("anthropic.types")
    message = types.Message.model_validate(ANTHROPIC_MESSAGE)
    return "claude", message.content[1], [message, message.content[0]]


def openai_chat_objects():
    chat = pytest.importorskip("openai.types.chat")
    completion = chat.ChatCompletion.model_validate(CHAT_COMPLETION)
    message = completion.choices[0].message
    return "openai-chat", message.tool_calls[0], [completion, completion.choices[0], message]


def openai_responses_objects():
    responses = pytest.importorskip("openai.types.responses")
    response = responses.Response.model_validate(RESPONSE)
    return "openai-responses", response.output[1], [response, response.output[0]]


def gemini_objects():
    types = pytest.importorskip("google.genai.types")
    response = types.GenerateContentResponse.model_validate(GEMINI_RESPONSE)
    content = response.candidates[0].content
    return "gemini", content.parts[1], [response, response.candidates[0], content,
                                        content.parts[0]]


TAKEN = {
    "claude": "ToolUseBlock",
    "gemini": "Part or FunctionCall",
    "openai-chat": "ChatCompletionMessageToolCall",
    "openai-responses": "ResponseFunctionToolCall",
}


@pytest.mark.parametrize("objects", [anthropic_objects, openai_chat_objects,
                                     openai_responses_objects, gemini_objects],
                         ids=["anthropic", "openai-chat", "openai-responses", "google-genai"])
def test_a_message_that_is_no_call_raises_type_error(objects):
    provider, call, others = objects()
    tool = SubmitTool(SCHEMA)
    accepted_as_sent(tool.handle(provider, call),
                     "stringified" if provider.startswith("openai") else None)
    for other in others:
        name = type(other).__name__
        with pytest.raises(TypeError) as caught:
            tool.handle(provider, other)
        message = str(caught.value)
        assert message.startswith(f"handle takes a call in the {provider} shape: "), message
        assert TAKEN[provider] in message, message
        assert f"; got {name}, which is no call: " in message, message
        # The same object as a dict is data from the model's side: the parser's verdict.
        dumped = other.model_dump(mode="json", by_alias=True)
        rejected = tool.handle(provider, dumped)
        assert not rejected.accepted and rejected.cause == "undecodable_arguments"
        assert rejected.message.startswith("failed to parse tool arguments: not a tool call "
                                           f"in the {provider} shape: ")
    # JSON data that is no call is judged as a call read from a log would be; an object of
    # another kind is the caller's mistake.
    for other in ("a call", ["a", "list"], 42, None):
        rejected = tool.handle(provider, other)
        assert not rejected.accepted and rejected.cause == "undecodable_arguments"
    for other in (object(), b"{}", {"a", "set"}):
        with pytest.raises(TypeError, match=rf"shape: .*; got {type(other).__name__}$"):
            tool.handle(provider, other)
