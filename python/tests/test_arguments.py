"""`SubmitTool.handle_arguments`: a call's arguments alone, as an agent framework hands them
over, through the core's door for arguments (no provider's envelope around them).

Every corpus vector of arguments (as a value, as argument text, in a `multi_tool_use.parallel`
wrapper) is held to its expected verdict as `test_corpus.py` holds it, and to what `handle`
gives the same arguments in a provider's call. The finish reasons are the rule page's table
(`submit-core/docs/rejections.md`, `truncated_call`), each provider's spelling."""

import json
import math

import pytest
from test_corpus import (
    DEFAULT_SUCCESS,
    VECTORS,
    as_json,
    build_tool,
    check,
    provider_call,
    text_call,
)

from submit_result import SubmitTool

TOOL = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}},
                   "required": ["answer"]})
CLEAN = {"reasoning": "checked", "result": {"answer": "42"}}

OUTPUT_LIMIT = ["max_tokens", "model_context_window_exceeded", "length", "max_output_tokens",
                "MAX_TOKENS"]
"""Each provider's finish reason for a turn cut off at the output-token limit, as the rule page
lists them (Anthropic's two, OpenAI Chat's, OpenAI Responses', Gemini's)."""

PROVIDER_OF = dict(zip(OUTPUT_LIMIT, ["claude", "claude", "openai-chat", "openai-responses",
                                      "gemini"]))

ENDED = ["stop", "end_turn", "tool_use", "tool_calls", "STOP", "MALFORMED_FUNCTION_CALL",
         "completed", "Length", "max_tokens ", ""]
"""Finish reasons of turns that were not cut off (and near misses of the limit's spellings)."""


def argument_vectors():
    for vector in VECTORS:
        if "arguments" in vector or "arguments_text" in vector or "wrapper" in vector:
            yield pytest.param(vector, id=vector["name"])


def by_arguments(tool, vector):
    if "arguments_text" in vector:
        return tool.handle_arguments(vector["arguments_text"])
    if "wrapper" in vector:
        return tool.handle_arguments(vector["wrapper"], name="multi_tool_use.parallel")
    return tool.handle_arguments(vector["arguments"])


@pytest.mark.parametrize("vector", list(argument_vectors()))
def test_handle_arguments_gives_each_corpus_vector_its_verdict(vector):
    options = vector.get("options", {})
    tool = build_tool(options)
    outcome = by_arguments(tool, vector)
    expected = vector["expected"]
    if expected.get("found") is False:
        assert outcome is None
        return
    assert outcome is not None
    wrong = check(as_json(outcome), expected, options.get("success", DEFAULT_SUCCESS),
                  options.get("payload", "analysis"), typed="schema" not in options)
    assert not wrong, "\n".join(wrong)
    # The same arguments in a provider's call: text in an OpenAI call, a value in Claude's.
    if "arguments_text" in vector:
        call = text_call("openai-chat", vector["arguments_text"])
        assert as_json(tool.handle("openai-chat", call)) == as_json(outcome)
    elif "arguments" in vector:
        call = provider_call("claude", vector["arguments"])
        assert as_json(tool.handle("claude", call)) == as_json(outcome)


def test_handle_arguments_reads_text_as_the_model_wrote_it():
    stringified = json.dumps({"reasoning": "checked", "result": json.dumps({"answer": "42"})})
    accepted = TOOL.handle_arguments(stringified)
    assert accepted.response == {"answer": "42"}
    assert [r.kind for r in accepted.recoveries] == ["stringified"]
    # A member written twice is in the text, and only there: a dict has lost it.
    twice = '{"reasoning": "a", "reasoning": "b", "result": {"answer": "42"}}'
    rejected = TOOL.handle_arguments(twice)
    assert rejected.cause == "undecodable_arguments"
    assert rejected.message == ("failed to parse tool arguments: \"reasoning\" appears twice; "
                                "send each parameter once")
    assert TOOL.handle_arguments(json.loads(twice)).reasoning == "b"
    # Text that is no JSON is the model's mistake, answered as one.
    assert TOOL.handle_arguments('{"reasoning": "a", "result": ').cause == "undecodable_arguments"


def test_handle_arguments_takes_the_object_as_decoded():
    accepted = TOOL.handle_arguments(CLEAN)
    assert accepted.response == {"answer": "42"}
    assert accepted.reasoning == "checked"
    assert accepted.recoveries == ()
    # A string value is argument text encoded once, as in a Claude `input` string.
    as_string = TOOL.handle_arguments(json.dumps(CLEAN))
    assert as_json(as_string) == as_json(accepted)


def test_handle_arguments_none_is_no_arguments():
    rejected = TOOL.handle_arguments(None)
    assert rejected.cause == "absent_or_mistyped"
    assert as_json(rejected) == as_json(TOOL.handle_arguments({}))
    assert as_json(rejected) == as_json(TOOL.handle("claude", {
        "type": "tool_use", "id": "toolu_1", "name": "submit_result"}))


@pytest.mark.parametrize("reason", OUTPUT_LIMIT)
def test_handle_arguments_never_commits_a_call_cut_off_in_any_providers_spelling(reason):
    for arguments in (CLEAN, json.dumps(CLEAN)):
        rejected = TOOL.handle_arguments(arguments, finish_reason=reason)
        assert rejected.cause == "truncated_call"
        assert rejected.message.startswith(
            "the submit_result call was cut off at the output-token limit after ")
    # The same arguments in the call of the provider whose spelling it is: the same verdict.
    provider = PROVIDER_OF[reason]
    own = TOOL.handle(provider, provider_call(provider, CLEAN), finish_reason=reason)
    arguments = json.dumps(CLEAN) if provider.startswith("openai") else CLEAN
    assert as_json(TOOL.handle_arguments(arguments, finish_reason=reason)) == as_json(own)


@pytest.mark.parametrize("reason", [*ENDED, None])
def test_handle_arguments_commits_a_call_of_a_turn_that_ended_otherwise(reason):
    assert TOOL.handle_arguments(CLEAN, finish_reason=reason).response == {"answer": "42"}


def test_handle_arguments_reads_a_parallel_wrapper_under_its_name():
    entry = {"recipient_name": "functions.submit_result", "parameters": CLEAN}
    other = {"recipient_name": "functions.search", "parameters": {"q": "x"}}
    wrapper = {"tool_uses": [other, entry]}
    accepted = TOOL.handle_arguments(wrapper, name="multi_tool_use.parallel")
    assert accepted.response == {"answer": "42"}
    assert [r.kind for r in accepted.recoveries] == ["parallel_wrapper"]
    as_text = TOOL.handle_arguments(json.dumps(wrapper), name="multi_tool_use.parallel")
    assert as_json(as_text) == as_json(accepted)
    assert TOOL.handle_arguments({"tool_uses": [other]}, name="multi_tool_use.parallel") is None
    # Only the wrapper's last entry is cut at the limit.
    assert TOOL.handle_arguments(wrapper, name="multi_tool_use.parallel",
                                 finish_reason="length").cause == "truncated_call"
    first = {"tool_uses": [entry, other]}
    assert TOOL.handle_arguments(first, name="multi_tool_use.parallel",
                                 finish_reason="length").accepted
    # Under any other name, the arguments are this tool's call.
    assert TOOL.handle_arguments(CLEAN, name="anything").response == {"answer": "42"}


def test_handle_arguments_that_are_no_json_data_are_the_callers_mistake():
    with pytest.raises(ValueError, match="not finite"):
        TOOL.handle_arguments({"reasoning": "r", "result": {"answer": math.nan}})
    with pytest.raises(TypeError, match="must be JSON data"):
        TOOL.handle_arguments({"reasoning": "r", "result": object()})
    with pytest.raises(TypeError, match="keys must be str"):
        TOOL.handle_arguments({1: "r"})
