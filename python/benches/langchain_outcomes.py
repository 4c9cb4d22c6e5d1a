"""LangChain's own outcome beside the integration's on every real case of the corpus.

Each real case (a corpus vector with a `source`: a call a model sent, from a public bug
report) is sent as the first turn of an agent made by `create_agent` with one tool of its own
(`lookup`), on LangChain's fake chat model (no network):

- LangChain: the agent alone, its structured output a `ToolStrategy` of the same name,
  description and parameters schema (LangChain does not validate a JSON Schema dict: the
  arguments are the value);
- ours: the same agent with `submit_result.langchain.SubmitMiddleware`, argument text handed
  over as an OpenAI-compatible integration keeps it (`additional_kwargs["tool_calls"]`), an
  argument object as langchain-anthropic builds its turn;
- ours (langchain-openai): the same, argument text as langchain-openai 1.x builds the turn
  (its own conversion of the provider's message): the text kept only when it is no JSON, the
  decoded object otherwise.

A model asked again sends a clean call on its second turn. See `outcomes.py` for the classes.

    python benches/langchain_outcomes.py          # the table per case, then the totals
    python benches/langchain_outcomes.py --totals # the totals only

Needs `pip install './python[langchain]' langchain-openai`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from langchain.agents import create_agent  # noqa: E402
from langchain.agents.structured_output import ToolStrategy  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402
from langchain_core.tools import tool as langchain_tool  # noqa: E402
from outcomes import (  # noqa: E402
    build_tool,
    clean_arguments,
    committed,
    main as table,
    payload_of,
)

from submit_result import SubmitTool  # noqa: E402
from submit_result.langchain import SubmitMiddleware  # noqa: E402

PARALLEL_WRAPPER = "multi_tool_use.parallel"

try:
    from langchain_openai.chat_models.base import _convert_dict_to_message
except ImportError:  # the third column needs langchain-openai
    _convert_dict_to_message = None


@langchain_tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


class FakeModel(GenericFakeChatModel):
    calls: int = 0

    def bind_tools(self, tools: Any, **kwargs: Any) -> "FakeModel":
        return self

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> Any:
        self.calls += 1
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def openai_compatible(name: str, arguments: str) -> AIMessage:
    raw = {"id": "call_01", "type": "function", "function": {"name": name, "arguments": arguments}}
    return AIMessage(content="", additional_kwargs={"tool_calls": [raw]},
                     response_metadata={"finish_reason": "tool_calls"})


def langchain_openai(name: str, arguments: str) -> AIMessage:
    raw = {"id": "call_01", "type": "function", "function": {"name": name, "arguments": arguments}}
    message = _convert_dict_to_message({"role": "assistant", "content": None, "tool_calls": [raw]})
    message.response_metadata = {"finish_reason": "tool_calls"}
    return message  # type: ignore[return-value]


def anthropic(name: str, arguments: Any, call_id: str = "call_01") -> AIMessage:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
    return AIMessage(content=[block], tool_calls=[{"name": name, "args": arguments, "id": call_id}],
                     response_metadata={"stop_reason": "tool_use"})


def first_turn(tool: SubmitTool[Any], vector: dict[str, Any], openai: Any) -> AIMessage:
    if "arguments_text" in vector:
        return openai(tool.name, vector["arguments_text"])
    if "arguments" in vector:
        return anthropic(tool.name, vector["arguments"])
    if "call" in vector:
        call = vector["call"]
        return anthropic(call["name"], call["input"], call["id"])
    if "wrapper" in vector:
        return openai(PARALLEL_WRAPPER, json.dumps(vector["wrapper"]))
    return AIMessage(content=vector["text"], response_metadata={"finish_reason": "stop"})


def outcome(vector: dict[str, Any], plain: bool, openai: Any) -> tuple[str, str]:
    tool = build_tool(vector["options"])
    try:
        first = first_turn(tool, vector, openai)
    except Exception as error:  # LangChain refuses to build the turn
        return "error", f"{type(error).__name__}: {error}"
    clean = anthropic(tool.name, clean_arguments(tool), "call_02")
    model = FakeModel(messages=iter([first, clean, clean, clean]))
    if plain:
        parameters = tool.definition("openai-chat")["function"]["parameters"]
        strategy = ToolStrategy({"title": tool.name, "description": tool.description,
                                 **parameters})
        agent = create_agent(model, tools=[lookup], response_format=strategy)
    else:
        submit = SubmitMiddleware(tool)
        agent = create_agent(model, tools=[lookup], middleware=[submit],
                             response_format=submit.response_format)
    try:
        result = agent.invoke({"messages": [HumanMessage("Submit the result.")]})
    except Exception as error:  # the run's own end, whatever it is
        return "error", f"{type(error).__name__}: {error}"
    if model.calls > 1:
        return "retried", ""
    value = result.get("structured_response")
    if value is None:
        return "ended with none", ""
    if plain:
        value = payload_of(tool, value)
    return committed(vector, value), json.dumps(value, ensure_ascii=False, default=str)


def main(argv: list[str] | None = None) -> None:
    runners = {
        "LangChain": lambda v: outcome(v, True, openai_compatible),
        "ours": lambda v: outcome(v, False, openai_compatible),
    }
    headers = {"LangChain": "LangChain alone",
               "ours": "with `SubmitMiddleware`",
               "ours (langchain-openai)": "with `SubmitMiddleware`, on langchain-openai's turn"}
    if _convert_dict_to_message is not None:
        runners["ours (langchain-openai)"] = lambda v: outcome(v, False, langchain_openai)
    table("LangChain", runners, headers, argv)


if __name__ == "__main__":
    main()
