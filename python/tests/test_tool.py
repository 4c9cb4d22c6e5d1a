"""The Python surface of the tool: construction and its errors, definitions, outcomes and their
reprs, Pydantic models, finish reasons and calls written as text."""

import json
import pickle
from copy import deepcopy

import pytest

import submit_result
from submit_result import (
    Accepted,
    BuildError,
    Rejected,
    SubmitTool,
    UnknownProviderError,
)

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "note": {"type": "string"}},
    "required": ["answer"],
}


def chat_call(arguments, name="submit_result"):
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}


def test_defaults_and_accessors():
    tool = SubmitTool(SCHEMA)
    assert tool.name == "submit_result" == submit_result.DEFAULT_TOOL_NAME
    assert tool.payload == "result" == submit_result.DEFAULT_PAYLOAD_FIELD
    assert tool.success == submit_result.DEFAULT_SUCCESS_MESSAGE
    assert not tool.flat and not tool.omit_reasoning
    assert tool.omit_fields == ()
    assert tool.payload_schema["properties"]["answer"] == {"type": "string"}
    assert repr(tool) == "SubmitTool(name='submit_result', payload='result')"


def test_options_reach_the_definitions():
    tool = SubmitTool(SCHEMA, name="submit_answer", payload="answer_payload",
                      description="Submit it.", payload_description="The answer.",
                      omit_fields=["note"], strict=True)
    assert repr(tool) == ("SubmitTool(name='submit_answer', payload='answer_payload', "
                          "omit_fields=['note'])")
    claude = tool.definition("claude")
    assert claude["name"] == "submit_answer"
    assert claude["description"] == "Submit it."
    payload = claude["input_schema"]["properties"]["answer_payload"]
    assert payload["description"] == "The answer."
    assert "note" not in payload["properties"]
    chat = tool.definition("openai-chat")
    assert chat["type"] == "function" and chat["function"]["strict"] is True
    assert tool.definition("openai-responses")["strict"] is True
    assert tool.definition("gemini")["parameters"]["properties"]["reasoning"]["type"] == "STRING"


def test_flat_and_omit_reasoning():
    tool = SubmitTool(SCHEMA, flat=True, omit_reasoning=True)
    assert repr(tool) == ("SubmitTool(name='submit_result', payload='result', flat=True, "
                          "omit_reasoning=True)")
    parameters = tool.definition("openai-chat")["function"]["parameters"]
    assert parameters["required"] == ["answer"]
    outcome = tool.handle("openai-chat", chat_call({"answer": "42"}))
    assert outcome.accepted and outcome.response == {"answer": "42"}
    assert outcome.reasoning == ""


def test_from_tag():
    tool = SubmitTool.from_tag("name=submit_plan,payload=plan,flat", SCHEMA)
    assert (tool.name, tool.payload, tool.flat) == ("submit_plan", "plan", True)


TAG = ("name=submit_plan,description=From the tag.,payload=plan,"
       "payloadDescription=The tag's payload.,success=Tag ok.,flat,omitReasoning")


def options_of(tool):
    return {"name": tool.name, "description": tool.description, "payload": tool.payload,
            "payload_description": tool.payload_description, "success": tool.success,
            "flat": tool.flat, "omit_reasoning": tool.omit_reasoning,
            "omit_fields": tool.omit_fields, "strict": tool.strict}


def test_from_tag_keywords_override_the_tag():
    from_tag = {"name": "submit_plan", "description": "From the tag.", "payload": "plan",
                "payload_description": "The tag's payload.", "success": "Tag ok.",
                "flat": True, "omit_reasoning": True, "omit_fields": (), "strict": False}
    assert options_of(SubmitTool.from_tag(TAG, SCHEMA)) == from_tag
    keywords = {"name": "submit_answer", "description": "From the keyword.",
                "payload": "answer_payload", "payload_description": "The keyword's payload.",
                "success": "Keyword ok.", "flat": False, "omit_reasoning": False,
                "omit_fields": ["note"], "strict": True}
    # Each keyword alone overrides its own option and leaves the tag's others.
    for key, value in keywords.items():
        tool = SubmitTool.from_tag(TAG, SCHEMA, **{key: value})
        expected = dict(from_tag, **{key: tuple(value) if key == "omit_fields" else value})
        assert options_of(tool) == expected, key
    # All of them: the tool `SubmitTool(...)` builds from the same keywords, definitions and all.
    tool = SubmitTool.from_tag(TAG, SCHEMA, **keywords)
    plain = SubmitTool(SCHEMA, **keywords)
    assert options_of(tool) == options_of(plain)
    for provider in submit_result.PROVIDERS:
        assert tool.definition(provider) == plain.definition(provider)
    # A tag naming its payload `reasoning` is a mistake unless a keyword mends it, as with the
    # command-line tool's `--tag` and its flags.
    with pytest.raises(BuildError, match="cannot be named `reasoning`"):
        SubmitTool.from_tag("payload=reasoning", SCHEMA)
    assert SubmitTool.from_tag("payload=reasoning", SCHEMA, payload="answer").payload == "answer"
    mended = SubmitTool.from_tag("payload=reasoning", SCHEMA, omit_reasoning=True)
    assert (mended.payload, mended.omit_reasoning) == ("reasoning", True)
    with pytest.raises(BuildError, match="cannot be named `reasoning`"):
        SubmitTool.from_tag("payload=reasoning,omitReasoning", SCHEMA, omit_reasoning=False)
    # The tag's own mistakes are still every one reported.
    with pytest.raises(BuildError, match="did you mean `name`"):
        SubmitTool.from_tag("nmae=x", SCHEMA, name="x")


@pytest.mark.parametrize("make, message", [
    (lambda: SubmitTool(SCHEMA, name="bad name"),
     "invalid tool name `bad name`: use 1 to 64 characters from `A-Z`, `a-z`, `0-9`, `_` and `-`"),
    (lambda: SubmitTool(SCHEMA, payload="reasoning"),
     "the payload field cannot be named `reasoning` while the reasoning parameter is "
     "advertised: choose another payload field name, or set omit_reasoning"),
    (lambda: SubmitTool(SCHEMA, omit_fields=["answer"]),
     "cannot omit payload field `answer`: it is required, so every submit would fail to "
     "decode; give it a serde default or make it an Option"),
    (lambda: SubmitTool(SCHEMA, omit_fields=["nope"]),
     "cannot omit payload field `nope`: the payload schema has no such top-level property"),
    (lambda: SubmitTool({"type": "string"}, flat=True),
     None),
    (lambda: SubmitTool({"type": 12}),
     None),
    (lambda: SubmitTool.from_tag("nmae=x", SCHEMA),
     None),
])
def test_construction_errors_are_value_errors_with_the_rust_message(make, message):
    with pytest.raises(BuildError) as caught:
        make()
    assert isinstance(caught.value, ValueError)
    if message is not None:
        assert str(caught.value) == message


def test_the_errors_the_rust_messages_name():
    with pytest.raises(BuildError, match="invalid payload JSON Schema"):
        SubmitTool({"type": 12})
    with pytest.raises(BuildError, match="did you mean `name`"):
        SubmitTool.from_tag("nmae=x", SCHEMA)
    with pytest.raises(BuildError, match="flat payload needs a struct with named fields"):
        SubmitTool({"type": "string"}, flat=True)


def test_arguments_of_the_wrong_python_type_are_type_errors():
    with pytest.raises(TypeError, match="JSON Schema dict or a Pydantic model class"):
        SubmitTool("not a schema")
    with pytest.raises(TypeError, match="omit_fields must be a sequence"):
        SubmitTool(SCHEMA, omit_fields="note")
    with pytest.raises(TypeError, match="call must be JSON data"):
        SubmitTool(SCHEMA).handle("claude", {"input": object()})


def test_an_unknown_provider_is_a_value_error():
    tool = SubmitTool(SCHEMA)
    with pytest.raises(UnknownProviderError) as caught:
        tool.definition("anthropic")
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == ("unknown provider `anthropic`, expected one of `claude`, "
                                 "`gemini`, `openai-chat`, `openai-responses`")
    with pytest.raises(UnknownProviderError):
        tool.handle("openai", {})


def test_accepted_with_its_recovery_and_repr():
    tool = SubmitTool(SCHEMA)
    call = chat_call({"reasoning": "checked", "result": '{"answer": "42"}'})
    outcome = tool.handle("openai-chat", call)
    assert isinstance(outcome, Accepted) and outcome and outcome.accepted
    assert outcome.response == {"answer": "42"}
    assert outcome.reasoning == "checked"
    assert outcome.recovery == "stringified"
    [recovery] = outcome.recoveries
    assert (recovery.kind, recovery.parameters, recovery.format) == (
        "stringified", ("result",), None)
    assert recovery.to_dict() == {"kind": "stringified", "parameters": ["result"]}
    assert repr(recovery) == "Recovery('stringified', parameters=['result'])"
    assert outcome.tool_result == {"success": True,
                                   "message": "Result submitted successfully."}
    assert repr(outcome) == ("Accepted(response={'answer': '42'}, recovery='stringified', "
                             "recoveries=['stringified'])")


def test_rejected_with_class_cause_message_and_repr():
    tool = SubmitTool(SCHEMA)
    outcome = tool.handle("claude", {"type": "tool_use", "id": "toolu_1",
                                     "name": "submit_result", "input": {"result": {}}})
    assert isinstance(outcome, Rejected) and not outcome and not outcome.accepted
    assert outcome.error_class == "parameter"
    assert outcome.cause == "absent_or_mistyped"
    assert outcome.message == "reasoning parameter is required"
    assert outcome.trace == "parameter error: reasoning parameter is required"
    assert outcome.tool_result == {"error": "reasoning parameter is required"}
    assert repr(outcome) == ("Rejected(error_class='parameter', cause='absent_or_mistyped', "
                             "message='reasoning parameter is required')")
    payload = tool.handle("claude", {"type": "tool_use", "id": "toolu_1",
                                     "name": "submit_result",
                                     "input": {"reasoning": "r", "result": {}}})
    assert payload.error_class == "payload" and payload.cause is None
    assert repr(payload).startswith("Rejected(error_class='payload', message=")


def test_the_tool_result_is_a_fresh_copy():
    outcome = SubmitTool(SCHEMA).handle("gemini", {"functionCall": {
        "name": "submit_result", "args": {"reasoning": "r", "result": {"answer": "a"}}}})
    outcome.tool_result["message"] = "changed"
    assert outcome.tool_result["message"] == "Result submitted successfully."


def test_a_call_cut_off_at_the_output_limit_is_rejected():
    tool = SubmitTool(SCHEMA)
    call = chat_call({"reasoning": "r", "result": {"answer": "a"}})
    assert tool.handle("openai-chat", call, finish_reason="stop").accepted
    cut = tool.handle("openai-chat", call, finish_reason="length")
    assert cut.cause == "truncated_call"
    # Another provider's spelling of the limit is not this one's.
    assert tool.handle("openai-chat", call, finish_reason="max_tokens").accepted


def test_a_call_written_as_text():
    tool = SubmitTool(SCHEMA)
    turn = ('Done.\n<tool_call>\n{"name": "submit_result", "arguments": '
            '{"reasoning": "checked", "result": {"answer": "42"}}}\n</tool_call>')
    outcome = tool.handle_text(turn)
    assert outcome.response == {"answer": "42"}
    assert outcome.recoveries[0].to_dict() == {"kind": "call_in_text", "parameters": [],
                                               "format": "hermes"}
    assert tool.handle_text("No call here.") is None
    assert tool.handle_text(turn, finish_reason="max_tokens").cause == "truncated_call"
    assert tool.handle_text(turn, finish_reason="max_tokens", provider="gemini").accepted


def test_a_parallel_wrapper_without_an_entry_of_the_tool_is_none():
    tool = SubmitTool(SCHEMA)
    wrapper = {"tool_uses": [{"recipient_name": "functions.search", "parameters": {"q": "x"}}]}
    assert tool.handle("openai-chat", chat_call(wrapper, "multi_tool_use.parallel")) is None
    wrapper["tool_uses"].append({"recipient_name": "functions.submit_result",
                                 "parameters": {"reasoning": "r", "result": {"answer": "a"}}})
    outcome = tool.handle("openai-chat", chat_call(wrapper, "multi_tool_use.parallel"))
    assert outcome.response == {"answer": "a"}
    assert outcome.recoveries[0].kind == "parallel_wrapper"


pydantic = pytest.importorskip("pydantic")


class Verdict(pydantic.BaseModel):
    approve: bool
    reasons: list[str] = []

    @pydantic.field_validator("reasons")
    @classmethod
    def no_empty_reason(cls, reasons):
        if any(not reason for reason in reasons):
            raise ValueError("a reason is empty")
        return reasons


def test_a_pydantic_model_is_the_schema_and_the_response():
    tool = SubmitTool(Verdict, payload="verdict")
    assert tool.model is Verdict
    assert SubmitTool(SCHEMA).model is None
    properties = tool.definition("claude")["input_schema"]["properties"]["verdict"]
    assert properties["required"] == ["approve"]
    call = {"type": "tool_use", "id": "toolu_1", "name": "submit_result",
            "input": {"reasoning": "r", "verdict": '{"approve": true, "reasons": ["ok"]}'}}
    outcome = tool.handle("claude", call)
    assert outcome.response == Verdict(approve=True, reasons=["ok"])
    assert outcome.recovery == "stringified"
    assert repr(outcome).startswith("Accepted(response=Verdict(approve=True, reasons=['ok'])")


def test_a_model_that_refuses_the_payload_makes_a_payload_rejection():
    tool = SubmitTool(Verdict, payload="verdict")
    call = {"type": "tool_use", "id": "toolu_1", "name": "submit_result",
            "input": {"reasoning": "r", "verdict": {"approve": True, "reasons": [""]}}}
    outcome = tool.handle("claude", call)
    assert outcome.error_class == "payload" and outcome.cause is None
    assert outcome.message.startswith("failed to decode payload: ")
    assert "a reason is empty" in outcome.message


@pytest.mark.parametrize("bad, error, message", [
    ({"x": float("nan")}, ValueError, "holds a float that is not finite"),
    ({1: 2}, TypeError, "holds a dict key of type int: keys must be str"),
    ({"x": object()}, TypeError, "holds a value of type object"),
])
def test_a_call_that_is_not_json_data_raises(bad, error, message):
    call = {"type": "tool_use", "id": "toolu_1", "name": "submit_result",
            "input": {"reasoning": "r", "result": bad}}
    with pytest.raises(error, match=message):
        SubmitTool({"type": "object"}).handle("claude", call)


def test_a_call_nested_past_the_json_limit_raises_instead_of_overflowing():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    call = {"type": "tool_use", "id": "toolu_1", "name": "submit_result",
            "input": {"reasoning": "r", "result": {"x": deep}}}
    with pytest.raises(ValueError, match="nests deeper than 128 levels"):
        SubmitTool({"type": "object"}).handle("claude", call)


def test_tuples_and_big_integers_read_as_json_reads_them():
    call = {"type": "tool_use", "id": "toolu_1", "name": "submit_result",
            "input": {"reasoning": "r", "result": {"pair": (1, 2), "big": 2**70}}}
    outcome = SubmitTool({"type": "object"}).handle("claude", call)
    assert outcome.response == {"pair": [1, 2], "big": float(2**70)}


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_submit_tool_pickles_with_its_options_and_model(protocol):
    # Key order, floats, a non-ASCII description and a nested definition: kept exactly.
    schema = {"title": "Plan", "type": "object", "required": ["steps"],
              "properties": {"steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}},
                             "confidence": {"type": "number", "minimum": 0.1, "maximum": 1e3},
                             "note": {"type": "string", "description": "Ünïcode — note"}},
              "$defs": {"Step": {"type": "object", "properties": {"do": {"type": "string"}}}}}
    options = {"name": "submit_plan", "description": "Submit the plan.", "payload": "plan",
               "payload_description": "The plan.", "success": "Plan taken.", "flat": False,
               "omit_reasoning": True, "omit_fields": ("note",), "strict": True}
    from_tag = SubmitTool.from_tag("name=submit_plan,payload=plan,omitReasoning", schema,
                                   description="Submit the plan.",
                                   payload_description="The plan.", success="Plan taken.",
                                   omit_fields=["note"], strict=True)
    for tool in (SubmitTool(schema, **options), from_tag, SubmitTool(Verdict, flat=True)):
        copy = pickle.loads(pickle.dumps(tool, protocol=protocol))
        assert type(copy) is SubmitTool
        assert options_of(copy) == options_of(tool)
        assert copy.model is tool.model
        assert copy.payload_schema == tool.payload_schema
        for provider in submit_result.PROVIDERS:
            assert copy.definition(provider) == tool.definition(provider)
    # The schema document exactly as given, member order included; the model by reference.
    _, (cls, (pickled,), keywords) = SubmitTool(schema, **options).__reduce__()
    assert cls is SubmitTool
    assert json.dumps(pickled) == json.dumps(schema)
    assert keywords == dict(options, omit_fields=["note"])
    assert SubmitTool(Verdict).__reduce__()[1][1] == (Verdict,)
    assert str(Verdict.__qualname__).encode() in pickle.dumps(SubmitTool(Verdict), protocol)
    # The copy handles calls as the original does; a model's copy answers with the model.
    copy = pickle.loads(pickle.dumps(SubmitTool(Verdict, payload="verdict"), protocol))
    call = {"type": "tool_use", "id": "toolu_1", "name": "submit_result",
            "input": {"reasoning": "r", "verdict": '{"approve": true}'}}
    assert copy.handle("claude", call).response == Verdict(approve=True)
    assert deepcopy(copy).model is Verdict
