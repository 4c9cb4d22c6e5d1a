"""Every vector of `submit-core/tests/corpus/*.json` through the Python API, compared with the
vector's expected verdict as `submit-core/src/parse/tests/corpus.rs` compares it.

A vector with a `schema` option builds its tool from that document, as Rust does, and every
field is compared exactly. A vector without one is run in Rust against the sample type
(`summary: String`, `blocked: Option<bool>`, `tags: Option<Vec<String>>`), decoded by serde;
Python has no serde type, so the tool is built from the JSON Schema that type reflects to, and
two things serde does are applied to the outcome before comparing: an accepted response keeps
only the sample's fields that are not null (serde drops unknown members and skips `None`),
and a payload error's message is compared by its prefix `failed to decode payload: ` (serde
and the JSON Schema validator word the same mistake differently). Everything else, the verdict,
class, cause, reasoning, recoveries and the tool result, is compared exactly.
"""

import json
from pathlib import Path

import pytest

from submit_result import SubmitTool

CORPUS = Path(__file__).resolve().parents[2] / "submit-core" / "tests" / "corpus"

SAMPLE_SCHEMA = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "blocked": {"type": ["boolean", "null"]},
        "tags": {"type": ["array", "null"], "items": {"type": "string"}},
    },
    "required": ["summary"],
}

DEFAULT_SUCCESS = "Result submitted successfully."
DECODE = "failed to decode payload: "


def load_vectors():
    vectors = []
    for path in sorted(CORPUS.glob("*.json")):
        vectors.extend(json.loads(path.read_text(encoding="utf-8")))
    return vectors


VECTORS = load_vectors()


def build_tool(options):
    return SubmitTool(
        options.get("schema", SAMPLE_SCHEMA),
        name=options.get("name", "submit_result"),
        payload=options.get("payload", "analysis"),
        success=options.get("success"),
        flat=options.get("flat", False),
        omit_reasoning=options.get("omit_reasoning", False),
        omit_fields=options.get("omit_fields", ()),
        strict=options.get("strict", False),
    )


def provider_call(provider, arguments):
    """The native call of `provider` carrying `arguments` (an object: Claude and Gemini hold it
    as it is, OpenAI as its JSON text)."""
    text = json.dumps(arguments, ensure_ascii=False)
    return {
        "claude": {"type": "tool_use", "id": "toolu_01", "name": "submit_result",
                   "input": arguments},
        "gemini": {"functionCall": {"name": "submit_result", "args": arguments}},
        "openai-chat": {"id": "call_01", "type": "function",
                        "function": {"name": "submit_result", "arguments": text}},
        "openai-responses": {"type": "function_call", "call_id": "call_01",
                             "name": "submit_result", "arguments": text},
    }[provider]


def text_call(provider, text):
    """The native call of an OpenAI provider carrying argument text as sent."""
    if provider == "openai-chat":
        return {"id": "call_01", "type": "function",
                "function": {"name": "submit_result", "arguments": text}}
    return {"type": "function_call", "call_id": "call_01", "name": "submit_result",
            "arguments": text}


ALL = ("claude", "gemini", "openai-chat", "openai-responses")


def cases(vector):
    """Every (provider, call) a call vector runs as."""
    if "arguments" in vector:
        return [(p, provider_call(p, vector["arguments"])) for p in ALL]
    if "arguments_text" in vector:
        return [(p, text_call(p, vector["arguments_text"]))
                for p in ("openai-chat", "openai-responses")]
    return [(p, vector["call"]) for p in vector["providers"]]


def as_json(outcome):
    """An outcome as the command-line tool serializes it."""
    if outcome.accepted:
        response = outcome.response
        return {
            "accepted": True,
            "response": response,
            "reasoning": outcome.reasoning,
            "recovery": outcome.recovery,
            "recoveries": [r.to_dict() for r in outcome.recoveries],
            "tool_result": outcome.tool_result,
        }
    return {
        "accepted": False,
        "class": outcome.error_class,
        "cause": outcome.cause,
        "trace_error": outcome.trace,
        "tool_result": outcome.tool_result,
    }


def as_sample(outcome):
    """`outcome` as the Rust sample type's decode gives it (see the module's doc)."""
    if outcome["accepted"]:
        response = outcome["response"]
        if isinstance(response, dict):
            outcome["response"] = {key: value for key, value in response.items()
                                   if key in SAMPLE_SCHEMA["properties"] and value is not None}
    return outcome


def check(outcome, expected, success, payload, typed=False):
    """The mismatches of `outcome` (as JSON) with `expected`, as corpus.rs lists them; `typed`
    for a vector of the sample type, whose payload errors are compared by prefix."""
    wrong = []
    if typed:
        outcome = as_sample(outcome)

    def differ(key, got, want):
        if got != want:
            wrong.append(f"{key}: got {got!r}, want {want!r}")

    differ("accepted", outcome["accepted"], expected["accepted"])
    if outcome["accepted"] != expected["accepted"]:
        wrong.append(f"outcome: {outcome!r}")
        return wrong
    if expected["accepted"]:
        for key in ("response", "reasoning", "recovery"):
            if key in expected:
                differ(key, outcome[key], expected[key])
        recovery = expected.get("recovery")
        implied = ([{"kind": recovery, "parameters": [payload]}]
                   if isinstance(recovery, str) else [])
        differ("recoveries", outcome["recoveries"], expected.get("recoveries", implied))
        differ("tool_result", outcome["tool_result"],
               expected.get("tool_result", {"success": True, "message": success}))
        return wrong
    for key in ("class", "cause"):
        if key in expected:
            differ(key, outcome[key], expected[key])
    result = outcome["tool_result"]
    message = result.get("error", "")
    trace = outcome["trace_error"]
    if list(result) != ["error"]:
        wrong.append(f"tool_result must be {{'error': …}}: {result!r}")
    if trace != f"{outcome['class']} error: {message}" and "trace" not in expected:
        wrong.append(f"trace: got {trace!r}, want the displayed error")
    if typed and outcome["class"] == "payload":
        if not message.startswith(DECODE):
            wrong.append(f"error {message!r} does not start with {DECODE!r}")
        return wrong
    if "error" in expected:
        differ("error", message, expected["error"])
    if "trace" in expected:
        differ("trace", trace, expected["trace"])
    for part in expected.get("error_contains", []):
        if part not in message:
            wrong.append(f"error {message!r} lacks {part!r}")
    for part in expected.get("trace_contains", []):
        if part not in trace:
            wrong.append(f"trace {trace!r} holds no {part!r}")
    for part in expected.get("trace_lacks", []):
        if part in trace:
            wrong.append(f"trace {trace!r} holds {part!r}")
    return wrong


def found_outcome(tool, vector):
    """The outcome of a `text` or `wrapper` vector, or None when no call of the tool was
    found. A wrapper runs as the Claude `tool_use` block of `multi_tool_use.parallel`."""
    stop = vector.get("stop")
    provider = vector.get("provider")
    if "text" in vector:
        return tool.handle_text(vector["text"], finish_reason=stop, provider=provider)
    call = {"type": "tool_use", "id": "toolu_01", "name": "multi_tool_use.parallel",
            "input": vector["wrapper"]}
    assert stop is None, "the corpus has no wrapper vector cut off at the output limit"
    return tool.handle("claude", call)


def params():
    for vector in VECTORS:
        if "text" in vector or "wrapper" in vector:
            yield pytest.param(vector, None, None, id=vector["name"])
            continue
        for provider, call in cases(vector):
            yield pytest.param(vector, provider, call, id=f"{vector['name']}[{provider}]")


def test_the_corpus_is_there_and_its_names_are_unique():
    names = [vector["name"] for vector in VECTORS]
    assert len(names) >= 150
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("vector, provider, call", list(params()))
def test_vector(vector, provider, call):
    options = vector.get("options", {})
    success = options.get("success", DEFAULT_SUCCESS)
    payload = options.get("payload", "analysis")
    tool = build_tool(options)
    expected = vector["expected"]
    if provider is None:
        outcome = found_outcome(tool, vector)
        if expected.get("found") is False:
            assert outcome is None, f"found a call, want none: {as_json(outcome)!r}"
            return
        assert outcome is not None, "found no call"
    else:
        outcome = tool.handle(provider, call)
    wrong = check(as_json(outcome), expected, success, payload, typed="schema" not in options)
    assert not wrong, "\n".join(wrong)
