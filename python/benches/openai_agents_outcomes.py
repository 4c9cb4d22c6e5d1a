"""The OpenAI Agents SDK's own outcome beside the integration's on every real case of the
corpus.

Each real case (a corpus vector with a `source`: a call a model sent, from a public bug
report) is sent as the first turn of an agent on the SDK's test model (`ScriptedModel`, no
network), a call as its argument text (an argument object as its JSON text, as LiteLLM hands
it over), a text turn as an assistant message:

- SDK: the agent alone, the terminal tool done the SDK's way: a `FunctionTool` of the same
  name, description and parameters schema whose invocation decodes the arguments and
  validates them against the schema (returning the error as its output, as the SDK's own
  function tools do), `tool_use_behavior=StopAtTools` on it, and an output type of a dict;
- ours: `SubmitModel`, `submit_tool`, `stop_on_submit` and `SubmitOutputSchema` from
  `submit_result.openai_agents`.

A model asked again sends a clean call on its second turn. See `outcomes.py` for the classes.

    python benches/openai_agents_outcomes.py          # the table per case, then the totals
    python benches/openai_agents_outcomes.py --totals # the totals only

Needs `pip install './python[openai-agents]' jsonschema`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jsonschema  # noqa: E402
from agents import (  # noqa: E402
    Agent,
    AgentOutputSchema,
    FunctionTool,
    Runner,
    StopAtTools,
    set_tracing_disabled,
)
from agents.testing import ScriptedModel, assistant_message, function_call  # noqa: E402
from outcomes import (  # noqa: E402
    build_tool,
    clean_arguments,
    committed,
    main as table,
    payload_of,
)

from submit_result import SubmitTool  # noqa: E402
from submit_result.openai_agents import (  # noqa: E402
    SubmitModel,
    SubmitOutputSchema,
    stop_on_submit,
    submit_tool,
)

PARALLEL_WRAPPER = "multi_tool_use.parallel"

set_tracing_disabled(True)


def plain_tool(tool: SubmitTool[Any]) -> FunctionTool:
    definition = tool.definition("openai-responses")
    parameters = definition["parameters"]

    async def invoke(context: Any, arguments: str) -> Any:
        try:
            value = json.loads(arguments or "{}")
            jsonschema.validate(value, parameters)
        except (ValueError, jsonschema.ValidationError) as error:
            return f"An error occurred while running the tool. Please try again. Error: {error}"
        return value

    return FunctionTool(name=tool.name, description=tool.description,
                        params_json_schema=parameters, on_invoke_tool=invoke,
                        strict_json_schema=False)


def first_turn(tool: SubmitTool[Any], vector: dict[str, Any]) -> list[Any]:
    if "text" in vector:
        return [assistant_message(vector["text"])]
    if "wrapper" in vector:
        return [function_call(PARALLEL_WRAPPER, json.dumps(vector["wrapper"]), call_id="call_01")]
    if "arguments_text" in vector:
        text = vector["arguments_text"]
    elif "arguments" in vector:
        text = json.dumps(vector["arguments"], ensure_ascii=False)
    else:
        text = json.dumps(vector["call"]["input"], ensure_ascii=False)
    return [function_call(tool.name, text, call_id="call_01")]


def outcome(vector: dict[str, Any], plain: bool) -> tuple[str, str]:
    tool = build_tool(vector["options"])
    clean = [function_call(tool.name, clean_arguments(tool), call_id="call_02")]
    model = ScriptedModel([first_turn(tool, vector), clean, clean, clean])
    if plain:
        agent = Agent(name="plain", model=model, tools=[plain_tool(tool)],
                      tool_use_behavior=StopAtTools(stop_at_tool_names=[tool.name]),
                      output_type=AgentOutputSchema(dict[str, Any], strict_json_schema=False))
    else:
        agent = Agent(name="ours", model=SubmitModel(model, tool), tools=[submit_tool(tool)],
                      tool_use_behavior=stop_on_submit, output_type=SubmitOutputSchema(tool))
    try:
        result = Runner.run_sync(agent, "Submit the result.")
    except Exception as error:  # the run's own end, whatever it is
        return "error", f"{type(error).__name__}: {error}"
    if len(model.calls) > 1:
        return "retried", ""
    value = result.final_output
    if value is None:
        return "ended with none", ""
    if plain:
        value = payload_of(tool, value)
    return committed(vector, value), json.dumps(value, ensure_ascii=False, default=str)


def main(argv: list[str] | None = None) -> None:
    table("OpenAI Agents SDK",
          {"SDK": lambda v: outcome(v, True), "ours": lambda v: outcome(v, False)},
          {"SDK": "Agents SDK alone (`StopAtTools`)",
           "ours": "with `submit_result.openai_agents`"},
          argv)


if __name__ == "__main__":
    main()
