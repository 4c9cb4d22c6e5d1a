"""What the framework measurements share: the corpus's real cases, the clean call a model sends
when asked again, and the table of outcomes (a framework alone beside it with the
integration).

Each run is classed by how it ended: `committed =` (on the first turn, with the value the
corpus expects), `committed !=` (on the first turn, with another value, or with any value
where the corpus declines the call), `retried` (the model was asked again), `ended with none`
(the run ended with no value and no error), or `error` (the run, or the framework building the
model's turn, raised).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable

from submit_result import SubmitTool

CORPUS = Path(__file__).resolve().parents[2] / "submit-core" / "tests" / "corpus"

OUTCOMES = ("committed =", "committed !=", "retried", "ended with none", "error")
VERDICTS = ("accepted", "rejected", "no call")
PHRASES = {
    "committed =": "committed with the value",
    "committed !=": "with another value",
    "retried": "retried",
    "ended with none": "ended with no value",
    "error": "raised",
}


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


def instance(schema: dict[str, Any]) -> Any:
    """A small value a plain schema of the corpus accepts."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: instance(properties.get(name, {})) for name in schema.get("required", [])}
    return {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": []}[kind]


def clean_arguments(tool: SubmitTool[Any]) -> dict[str, Any]:
    """The arguments of the clean call a model sends when asked again."""
    payload = instance(tool.payload_schema)
    arguments = dict(payload) if tool.flat else {tool.payload: payload}
    if not tool.omit_reasoning:
        arguments["reasoning"] = "checked"
    return arguments


def payload_of(tool: SubmitTool[Any], arguments: Any) -> Any:
    """The payload in a framework's own committed arguments."""
    if tool.flat or not isinstance(arguments, dict):
        return arguments
    return arguments.get(tool.payload)


def verdict(vector: dict[str, Any]) -> str:
    expected = vector["expected"]
    if expected.get("found") is False:
        return "no call"
    return "accepted" if expected["accepted"] else "rejected"


def committed(vector: dict[str, Any], value: Any) -> str:
    """The class of a run that ended on its first turn with `value`."""
    expected = vector["expected"]
    if expected.get("accepted") and value == expected["response"]:
        return "committed ="
    return "committed !="


Runner = Callable[[dict[str, Any]], "tuple[str, str]"]


def main(title: str, runners: dict[str, Runner], headers: dict[str, str],
         argv: list[str] | None = None, cases: list[dict[str, Any]] | None = None) -> None:
    """Runs every case through each of `runners` (by short name: a function of the vector
    giving the class of the run's end and a note) and prints the table of outcomes, each
    column headed by `headers[name]`."""
    argv = sys.argv[1:] if argv is None else argv
    totals_only = "--totals" in argv
    totals: Counter[tuple[str, str, str]] = Counter()
    verdicts: Counter[str] = Counter()
    for vector in cases if cases is not None else real_cases():
        corpus = verdict(vector)
        verdicts[corpus] += 1
        ends = {who: run(vector) for who, run in runners.items()}
        for who, (end, _note) in ends.items():
            totals[who, corpus, end] += 1
        if not totals_only:
            row = "  ".join(f"{end:<16}" for end, _ in ends.values())
            print(f"{vector['name'][:64]:<64} {corpus:<9} {row}")
            for who, (end, note) in ends.items():
                if end in ("committed !=", "error") and note:
                    print(f"{'':<10}{who}: {note[:100]}")
    print()
    print(f"| corpus verdict | cases | {' | '.join(headers[who] for who in runners)} |")
    print(f"|---|---:|{'---|' * len(runners)}")
    for corpus in VERDICTS:
        if not verdicts[corpus]:
            continue
        cells = []
        for who in runners:
            counts = [(totals[who, corpus, end], end) for end in OUTCOMES]
            cells.append(", ".join(f"{n} {PHRASES[end]}" for n, end in counts if n))
        print(f"| {corpus} | {verdicts[corpus]} | {' | '.join(cells)} |")
    print()
    print(f"{title}: totals | who | corpus verdict | {' | '.join(OUTCOMES)}")
    for who in runners:
        for corpus in VERDICTS:
            counts = " | ".join(str(totals[who, corpus, end]) for end in OUTCOMES)
            print(f"totals | {who} | {corpus} | {counts}")
