"""PydanticAI's own outcome beside the integration's on every real case of the corpus.

Each real case (a corpus vector with a `source`: a call a model sent, from a public bug
report) is sent as the first turn of two agents on PydanticAI's FunctionModel (no network):

- plain: PydanticAI alone, its output tool of the same name, description and parameters
  schema (`StructuredDict(..., validate=True)`, PydanticAI's own JSON Schema validation);
- ours: the same agent with `submit_result.pydantic_ai.SubmitOutput` in front of the tool.

A model asked again sends a clean call on its second turn. Each run is classed as:
`committed =` (ended on the first turn with the value the corpus expects), `committed !=`
(ended on the first turn with another value, or with any value where the corpus declines the
call), `retried` (asked the model again), or `error` (the run raised).

    python benches/pydantic_ai_outcomes.py          # the table per case, then the totals
    python benches/pydantic_ai_outcomes.py --totals # the totals only

Needs `pip install './python[pydantic-ai]' 'pydantic-ai-slim[jsonschema]'`.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, StructuredDict, ToolOutput
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from submit_result import SubmitTool
from submit_result.pydantic_ai import PARALLEL_WRAPPER, SubmitOutput

CORPUS = Path(__file__).resolve().parents[2] / "submit-core" / "tests" / "corpus"

OUTCOMES = ("committed =", "committed !=", "retried", "error")


def real_cases() -> list[dict[str, Any]]:
    vectors: list[dict[str, Any]] = []
    for path in sorted(CORPUS.glob("*.json")):
        vectors.extend(json.loads(path.read_text(encoding="utf-8")))
    return [vector for vector in vectors if "source" in vector]


def build_tool(options: dict[str, Any]) -> SubmitTool[dict[str, Any]]:
    return SubmitTool(
        options["schema"],
        name=options.get("name", "submit_result"),
        payload=options.get("payload", "analysis"),
        success=options.get("success"),
        flat=options.get("flat", False),
        omit_reasoning=options.get("omit_reasoning", False),
        omit_fields=options.get("omit_fields", ()),
        strict=options.get("strict", False),
    )


def first_turn(tool: SubmitTool[Any], vector: dict[str, Any]) -> ModelResponse:
    """The model turn sending the vector's call as recorded."""
    if "arguments_text" in vector:
        part: Any = ToolCallPart(tool.name, vector["arguments_text"], "call_01")
    elif "arguments" in vector:
        part = ToolCallPart(tool.name, vector["arguments"], "call_01")
    elif "call" in vector:
        call = vector["call"]
        part = ToolCallPart(call["name"], call["input"], call["id"])
    elif "wrapper" in vector:
        part = ToolCallPart(PARALLEL_WRAPPER, vector["wrapper"], "call_01")
    else:
        part = TextPart(vector["text"])
    return ModelResponse(parts=[part])


def instance(schema: dict[str, Any]) -> Any:
    """A small value a plain schema of the corpus accepts."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: instance(properties.get(name, {})) for name in schema.get("required", [])}
    return {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": []}[kind]


def clean_turn(tool: SubmitTool[Any]) -> ModelResponse:
    payload = instance(tool.payload_schema)
    arguments = dict(payload) if tool.flat else {tool.payload: payload}
    if not tool.omit_reasoning:
        arguments["reasoning"] = "checked"
    return ModelResponse(parts=[ToolCallPart(tool.name, arguments, "call_02")])


def plain_agent(tool: SubmitTool[Any], model: FunctionModel) -> Agent[None, Any]:
    function = tool.definition("openai-chat")["function"]
    schema = StructuredDict(function["parameters"], name=tool.name, validate=True)
    output = ToolOutput(schema, name=tool.name, description=tool.description)
    return Agent(model, output_type=output)


def our_agent(tool: SubmitTool[Any], model: FunctionModel) -> Agent[None, Any]:
    submit = SubmitOutput(tool)
    return Agent(model, output_type=submit.output_type, capabilities=[submit])


def payload_of(tool: SubmitTool[Any], output: Any, plain: bool) -> Any:
    """The payload a run committed: the plain agent's output is the tool's arguments."""
    if not plain or tool.flat or not isinstance(output, dict):
        return output
    return output.get(tool.payload)


def outcome(tool: SubmitTool[Any], vector: dict[str, Any], plain: bool) -> tuple[str, str]:
    """The class of the run's end and a note (the retry message, the error)."""
    turns = [first_turn(tool, vector), clean_turn(tool)]
    requests: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        requests.append(messages)
        return turns[min(len(requests), len(turns)) - 1]

    build = plain_agent if plain else our_agent
    try:
        result = build(tool, FunctionModel(respond)).run_sync("Submit the result.")
    except Exception as error:  # the run's own end, whatever it is
        return "error", f"{type(error).__name__}: {error}"
    if len(requests) > 1:
        history = result.all_messages()
        retry = " ".join(str(getattr(part, "content", "")) for part in history[2].parts)
        return "retried", retry
    expected = vector["expected"]
    value = payload_of(tool, result.output, plain)
    if expected.get("accepted") and value == expected["response"]:
        return "committed =", ""
    return "committed !=", json.dumps(value, ensure_ascii=False)


def verdict(vector: dict[str, Any]) -> str:
    expected = vector["expected"]
    if expected.get("found") is False:
        return "no call"
    return "accepted" if expected["accepted"] else "rejected"


def main() -> None:
    totals_only = "--totals" in sys.argv[1:]
    totals: Counter[tuple[str, str, str]] = Counter()
    verdicts: Counter[str] = Counter()
    if not totals_only:
        print(f"{'case':<66} {'corpus':<9} {'PydanticAI':<13} ours")
    for vector in real_cases():
        tool = build_tool(vector["options"])
        corpus = verdict(vector)
        verdicts[corpus] += 1
        plain, plain_note = outcome(tool, vector, plain=True)
        ours, ours_note = outcome(tool, vector, plain=False)
        totals["PydanticAI", corpus, plain] += 1
        totals["ours", corpus, ours] += 1
        if not totals_only:
            print(f"{vector['name'][:66]:<66} {corpus:<9} {plain:<13} {ours}")
            if plain == "committed !=":
                print(f"{'':<76} PydanticAI committed {plain_note[:60]}")
            if ours in ("committed !=", "error"):
                print(f"{'':<76} ours: {ours_note[:70]}")
    print()
    header = " | ".join(f"{name:>12}" for name in OUTCOMES)
    print(f"{'corpus verdict':<16} {'cases':>5} | {'':<10} | {header}")
    for corpus in ("accepted", "rejected", "no call"):
        for who in ("PydanticAI", "ours"):
            counts = " | ".join(f"{totals[who, corpus, name]:>12}" for name in OUTCOMES)
            cases = verdicts[corpus] if who == "PydanticAI" else ""
            label = corpus if who == "PydanticAI" else ""
            print(f"{label:<16} {cases:>5} | {who:<10} | {counts}")
    for who in ("PydanticAI", "ours"):
        counts = " | ".join(
            f"{sum(totals[who, corpus, name] for corpus in verdicts):>12}" for name in OUTCOMES)
        cases = sum(verdicts.values()) if who == "PydanticAI" else ""
        print(f"{'all' if who == 'PydanticAI' else '':<16} {cases:>5} | {who:<10} | {counts}")


if __name__ == "__main__":
    main()
