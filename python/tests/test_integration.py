"""What the framework integrations share (`submit_result._integration`), held to the parser."""

import pytest
from test_corpus import provider_call

from submit_result import SubmitTool
from submit_result._integration import OUTPUT_LIMIT, cut_off, handle, replay_arguments

TOOL = SubmitTool({"type": "object", "properties": {"answer": {"type": "string"}}},
                  flat=True, omit_reasoning=True)
SPELLINGS = [(provider, reason) for provider, reasons in OUTPUT_LIMIT.items()
             for reason in reasons]


@pytest.mark.parametrize(("provider", "reason"), SPELLINGS)
def test_each_output_limit_spelling_is_the_parsers(provider, reason):
    call = provider_call(provider, {"answer": "4"})
    assert TOOL.handle(provider, call, finish_reason=reason).cause == "truncated_call"
    assert cut_off(reason)
    # Read in another provider's spelling, the integration still never commits it.
    assert handle(TOOL, '{"answer": "4"}', finish_reason=reason).cause == "truncated_call"
    assert handle(TOOL, {"answer": "4"}, finish_reason=reason).cause == "truncated_call"


@pytest.mark.parametrize("reason", ["stop", "end_turn", "STOP", "tool_use", "tool_calls", None])
def test_a_turn_that_ended_otherwise_is_not_cut_off(reason):
    assert not cut_off(reason)
    assert handle(TOOL, '{"answer": "4"}', finish_reason=reason).response == {"answer": "4"}


def test_a_declined_call_is_stored_with_arguments_a_provider_takes_back():
    assert replay_arguments('{"a": 1}') == {"a": 1}
    assert replay_arguments('{"a": 1}{"a": 1}') == {}
    assert replay_arguments('"{\\"a\\": 1}"') == {}
    assert replay_arguments({"a": float("nan")}) == {}
    assert replay_arguments({"a": [1]}) == {"a": [1]}
