"""The corpus's real cases (vectors with a `source`: a call a model sent, from a public bug
report) as the framework integrations' tests and measurements send them: each one's verdict
through the Python API directly, and the clean call a model sends when asked again."""

import json

from test_corpus import VECTORS, build_tool

REAL_CASES = [vector for vector in VECTORS if "source" in vector]
IDS = [vector["name"] for vector in REAL_CASES]

CALL_ID = "call_01"
PARALLEL_WRAPPER = "multi_tool_use.parallel"

__all__ = ["CALL_ID", "IDS", "PARALLEL_WRAPPER", "REAL_CASES", "build_tool", "canonical",
           "clean_arguments", "decodes_to_an_object", "instance", "parse_totals",
           "parser_outcome", "verdict", "GEMINI_MALFORMED_725", "GEMINI_MALFORMED_725_SCHEMA"]


def verdict(vector):
    """The corpus's verdict on `vector`: `accepted`, `rejected`, or `no call` (a turn with no
    call of the tool)."""
    expected = vector["expected"]
    if expected.get("found") is False:
        return "no call"
    return "accepted" if expected["accepted"] else "rejected"


def parser_outcome(tool, vector):
    """The outcome of `vector`'s call through the Python API directly."""
    if "arguments_text" in vector:
        return tool.handle("openai-chat", {"id": CALL_ID, "type": "function", "function": {
            "name": tool.name, "arguments": vector["arguments_text"]}})
    if "arguments" in vector:
        return tool.handle("claude", {"type": "tool_use", "id": CALL_ID, "name": tool.name,
                                      "input": vector["arguments"]})
    if "call" in vector:
        return tool.handle("claude", vector["call"])
    if "wrapper" in vector:
        return tool.handle("claude", {"type": "tool_use", "id": CALL_ID,
                                      "name": PARALLEL_WRAPPER, "input": vector["wrapper"]})
    return tool.handle_text(vector["text"])


def decodes_to_an_object(vector):
    """Whether the call's arguments, decoded as JSON, are an object (a framework whose call
    type holds a dict can carry them): argument text that is no JSON at all counts, as the
    framework keeps it as text."""
    if "arguments" in vector:
        return isinstance(vector["arguments"], dict)
    if "call" in vector:
        return isinstance(vector["call"]["input"], dict)
    if "arguments_text" in vector:
        try:
            return isinstance(json.loads(vector["arguments_text"] or "{}"), dict)
        except ValueError:
            return True
    return True


def instance(schema):
    """A small value `schema` (one of the corpus's plain schemas) accepts."""
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return instance(schema[key][0])
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: instance(properties.get(name, {})) for name in schema.get("required", [])}
    return {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": [],
            "null": None}[kind]


def clean_arguments(tool, payload):
    """The arguments of a well-formed call of `tool` carrying `payload`."""
    arguments = dict(payload) if tool.flat else {tool.payload: payload}
    if not tool.omit_reasoning:
        arguments = {"reasoning": "checked", **arguments}
    return arguments



def canonical(tool, accepted):
    """The arguments a history stores for an accepted call: its recovered payload (and final
    reasoning) in the shape of the tool's parameters."""
    response = accepted.response
    if hasattr(response, "model_dump"):
        response = response.model_dump(mode="json", by_alias=True)
    arguments = dict(response) if tool.flat else {tool.payload: response}
    if not tool.omit_reasoning:
        arguments["reasoning"] = accepted.reasoning
    return arguments


def parse_totals(printed):
    """The totals a measurement in benches/ prints, one `totals | WHO | VERDICT | N | N | N | N`
    line each: {(who, verdict): {outcome: count}}."""
    outcomes = ("committed =", "committed !=", "retried", "ended with none", "error")
    totals = {}
    for line in printed.splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if cells[0] == "totals":
            totals[cells[1], cells[2]] = dict(zip(outcomes, map(int, cells[3:])))
    return totals


# A Gemini turn ended with MALFORMED_FUNCTION_CALL, as langchain-google-vertexai logged it
# (langchain-ai/langchain-google #725, yu-iskw, 2025-01-30): the finish message, as the logged
# JSON string holds it, with the call's string argument never closed. The tool it calls is
# `TranslationResult(result: str)`.
GEMINI_MALFORMED_725 = json.loads(
    r'''"Malformed function call: \nprint(default_api.TranslationResult(result='---\\ntitle: \\'Sample Title\\'\\ndraft: false\\nauthor: \\'foo bar\\'\\ndate: \\'2025-01-30T15:23:33+09:00\\'\\ntype: tutorial\\ntags: [\\'k8s\\', \\'tutorial\\']\\n---\\n\\nHello\\n\\n# I have to escape the backticks to paste the GitHub issue\\n"''')
GEMINI_MALFORMED_725_SCHEMA = {"type": "object", "properties": {"result": {"type": "string"}},
                               "required": ["result"]}
