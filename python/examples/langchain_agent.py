"""A LangChain agent (`create_agent`) whose structured output is a submit tool, with the parser
in front of LangChain's router.

Runs on LangChain's fake chat model (no network), which plays a model that sends malformed
calls seen from real models:

- the call written as text in the Hermes template, as Qwen2.5 served without a tool parser
  writes it (mlx-examples #1316): LangChain alone ends the run with no structured response;
  here it becomes the call, and the run ends on the first turn with its value;
- the arguments sent twice, one object after the other (streamed deltas concatenated, llm
  #1130): LangChain keeps it as an invalid tool call it never reads; here the model is asked
  again with the parser's message, and the run ends with the clean call it sends next.

Run it with `python examples/langchain_agent.py` once `pip install './python[langchain]'` has
installed the package and LangChain.
"""

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from pydantic import BaseModel

from submit_result import SubmitTool
from submit_result.langchain import SubmitMiddleware


class Product(BaseModel):
    a: int
    b: int


tool = SubmitTool(Product, name="multiply", flat=True, omit_reasoning=True)
submit = SubmitMiddleware(tool)

WRITTEN_AS_TEXT = ('<tool_call>\n{"name": "multiply", "arguments": '
                   '{"a": 12234585, "b": 48838483920}}\n</tool_call>')
SENT_TWICE = '{"a": 3, "b": 2}{"a": 3, "b": 2}'


class Model(GenericFakeChatModel):
    """Answers with the turns it is given; prints the parser's message when it is asked
    again."""

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        last = messages[-1]
        if isinstance(last, ToolMessage) and last.status == "error":
            print(f"  retried with: {last.content}")
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def first_turn(label):
    if label == "written as text":
        return AIMessage(WRITTEN_AS_TEXT)
    # An OpenAI-compatible integration keeps the provider's call in additional_kwargs.
    raw = {"id": "call_1", "type": "function",
           "function": {"name": "multiply", "arguments": SENT_TWICE}}
    return AIMessage("", additional_kwargs={"tool_calls": [raw]})


def main():
    clean = AIMessage("", tool_calls=[{"name": "multiply", "args": {"a": 3, "b": 2},
                                       "id": "call_2"}])
    for label in ("written as text", "sent twice"):
        turn = first_turn(label)
        print(f"{label}: {turn.content or SENT_TWICE}")
        model = Model(messages=iter([turn, clean]))
        agent = create_agent(model, middleware=[submit], response_format=submit.response_format)
        result = agent.invoke({"messages": [("user", "Multiply the numbers.")]})
        turns = sum(isinstance(message, AIMessage) for message in result["messages"])
        print(f"  committed: {result['structured_response']!r} after {turns} model turn(s)")


if __name__ == "__main__":
    main()
