"""What the framework integrations share (`submit_result._integration`), held to the parser."""

import math

import pytest
from test_arguments import ENDED, OUTPUT_LIMIT

from submit_result import SubmitTool
from submit_result._integration import Unreadable, handle, handle_text, replay_arguments

TOOL = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}}},
                  flat=True, omit_reasoning=True)


@pytest.mark.parametrize("reason", OUTPUT_LIMIT)
def test_a_call_cut_off_in_any_providers_spelling_is_never_committed(reason):
    assert handle(TOOL, '{"answer": "4"}', finish_reason=reason).cause == "truncated_call"
    assert handle(TOOL, {"answer": "4"}, finish_reason=reason).cause == "truncated_call"
    written = '<tool_call>{"name": "submit_result", "arguments": {"answer": "4"}}</tool_call>'
    assert handle_text(TOOL, written, finish_reason=reason).cause == "truncated_call"


@pytest.mark.parametrize("reason", [*ENDED, None])
def test_a_turn_that_ended_otherwise_is_not_cut_off(reason):
    assert handle(TOOL, '{"answer": "4"}', finish_reason=reason).response == {"answer": "4"}
    assert handle(TOOL, {"answer": "4"}, finish_reason=reason).response == {"answer": "4"}


def test_arguments_that_are_no_json_data_are_declined_as_unreadable():
    outcome = handle(TOOL, {"answer": math.inf})
    assert isinstance(outcome, Unreadable)
    assert not outcome.accepted
    assert outcome.tool_result == {"error": outcome.message}
    assert outcome.message.startswith("the submit_result call could not be read: ")


def test_a_declined_call_is_stored_with_arguments_a_provider_takes_back():
    assert replay_arguments('{"a": 1}') == {"a": 1}
    assert replay_arguments('{"a": 1}{"a": 1}') == {}
    assert replay_arguments('"{\\"a\\": 1}"') == {}
    assert replay_arguments({"a": float("nan")}) == {}
    assert replay_arguments({"a": [1]}) == {"a": [1]}
