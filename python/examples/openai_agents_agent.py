"""An OpenAI Agents SDK agent whose terminal tool is a submit tool read by the parser.

Runs on the SDK's test model (`agents.testing.ScriptedModel`, no network), which plays a
model that sends malformed calls seen from real models:

- the arguments encoded twice (a JSON string holding the JSON object, huf #676): recovered,
  the run ends on the first turn with the value;
- the arguments sent twice, one object after the other (streamed deltas concatenated, llm
  #1130): not guessed at, the call's output is the parser's message, the model is asked
  again, and the run ends with the clean call it sends next. The SDK's own `StopAtTools`
  would have ended the run with the error string as its output.

Run it with `python examples/openai_agents_agent.py` once
`pip install './python[openai-agents]'` has installed the package and the SDK.
"""

from agents import Agent, Runner, set_tracing_disabled
from agents.testing import ModelStep, ScriptedModel, function_call
from pydantic import BaseModel

from submit_result import SubmitTool
from submit_result.openai_agents import (
    SubmitModel,
    SubmitOutputSchema,
    stop_on_submit,
    submit_tool,
)

set_tracing_disabled(True)


class Weather(BaseModel):
    city: str


tool = SubmitTool(Weather, name="get_weather", flat=True, omit_reasoning=True)

ENCODED_TWICE = '"{\\"city\\": \\"Bengaluru\\"}"'
SENT_TWICE = '{"city": "Bengaluru"}{"city": "Bengaluru"}'


def clean_after_retry(call):
    """The model's second turn: it reads the parser's message, then sends the clean call."""
    for item in call.input:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            print(f"  retried with: {item['output']}")
    return [function_call("get_weather", {"city": "Bengaluru"}, call_id="call_2")]


def main():
    for label, arguments in (("encoded twice", ENCODED_TWICE), ("sent twice", SENT_TWICE)):
        print(f"{label}: {arguments}")
        model = ScriptedModel([[function_call("get_weather", arguments, call_id="call_1")],
                               ModelStep.respond(clean_after_retry)])
        agent = Agent(name="forecaster", model=SubmitModel(model, tool),
                      tools=[submit_tool(tool)], tool_use_behavior=stop_on_submit,
                      output_type=SubmitOutputSchema(tool))
        result = Runner.run_sync(agent, "Which city's weather?")
        print(f"  committed: {result.final_output!r} after {len(model.calls)} model turn(s)")


if __name__ == "__main__":
    main()
