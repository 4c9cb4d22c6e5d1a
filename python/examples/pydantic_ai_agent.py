"""A PydanticAI agent whose output tool is a submit tool, with the parser in front of it.

Runs on PydanticAI's FunctionModel (no network), which plays a model that sends malformed
calls seen from real models:

- the arguments encoded twice (a JSON string holding the JSON object), as Qwen2.5 sent them:
  recovered, the run ends on the first turn with the value;
- the arguments sent twice, one object after the other (streamed deltas concatenated): not
  guessed at, the model is asked again with the parser's message as the tool's result, and
  the run ends with the clean call it sends next.

Run it with `python examples/pydantic_ai_agent.py` once `pip install './python[pydantic-ai]'`
has installed the package and PydanticAI.
"""

import json

from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from submit_result import SubmitTool
from submit_result.pydantic_ai import SubmitOutput


class SalesQuery(BaseModel):
    shop_name: str
    start_date: str
    end_date: str


tool = SubmitTool(SalesQuery, name="sales_data", flat=True, omit_reasoning=True)
submit = SubmitOutput(tool)

CLEAN = {"shop_name": "A店", "start_date": "2025-03-23", "end_date": "2025-03-23"}
ENCODED_TWICE = json.dumps(json.dumps(CLEAN, ensure_ascii=False), ensure_ascii=False)
SENT_TWICE = json.dumps(CLEAN, ensure_ascii=False) * 2


def model_sending(first_arguments: str) -> FunctionModel:
    """A model whose first turn calls the tool with `first_arguments` (JSON text as the
    provider delivered it) and whose next turn, after a retry, sends the clean call."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        for part in last.parts:
            if isinstance(part, ToolReturnPart) and part.outcome == "retried":
                print(f"  retried with: {part.content}")
                return ModelResponse(parts=[ToolCallPart(tool.name, CLEAN)])
        return ModelResponse(parts=[ToolCallPart(tool.name, first_arguments)])

    return FunctionModel(respond)


def main() -> None:
    for label, arguments in (("encoded twice", ENCODED_TWICE), ("sent twice", SENT_TWICE)):
        print(f"{label}: {arguments}")
        agent = Agent(model_sending(arguments), output_type=submit.output_type,
                      capabilities=[submit])
        result = agent.run_sync("Which sales data should be fetched?")
        turns = sum(isinstance(message, ModelResponse) for message in result.all_messages())
        print(f"  committed: {result.output!r} after {turns} model turn(s)")


if __name__ == "__main__":
    main()
