"""A Google ADK agent whose terminal tool is a submit tool, with the parser reading each model
turn in its after_model_callback.

Runs on a `BaseLlm` that plays Gemini (no network), its turns built by ADK's own
`LlmResponse.create`:

- a turn Gemini ended with `MALFORMED_FUNCTION_CALL`, the call written as Python in the finish
  message (adk-python #1521): ADK alone ends the run with that error; here it becomes the
  submit call, and the run ends on the first turn with its value;
- a call whose list argument came as a Python literal in a string (`"['a', 'b']"`,
  sonettohere #319): not guessed at, the function response is the parser's message, and the
  run ends with the clean call the model sends next.

Run it with `python examples/adk_agent.py` once `pip install './python[adk]'` has installed
the package and ADK.
"""

import asyncio

from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import BaseModel

from submit_result import SubmitTool
from submit_result.adk import SubmitFunction


class Labels(BaseModel):
    labels: list[str]


tool = SubmitTool(Labels, name="set_labels", flat=True, omit_reasoning=True)

MALFORMED = ('Malformed function call: print(default_api.set_labels(labels=["bug", '
             '"urgent"]))')
LITERAL_IN_A_STRING = {"labels": "['bug', 'urgent']"}


def turn(parts=None, finish_reason="STOP", finish_message=None):
    content = types.Content(role="model", parts=parts) if parts else None
    return LlmResponse.create(types.GenerateContentResponse(candidates=[types.Candidate(
        content=content, finish_reason=finish_reason, finish_message=finish_message)]))


class Gemini(BaseLlm):
    """Plays Gemini: the first turn as given; after a function response with an error, the
    clean call."""

    first: object = None

    async def generate_content_async(self, llm_request, stream=False):
        responses = [part.function_response for content in llm_request.contents
                     for part in content.parts or [] if part.function_response]
        if not responses:
            yield self.first
            return
        print(f"  retried with: {responses[-1].response['error']}")
        call = types.FunctionCall(name="set_labels", args={"labels": ["bug", "urgent"]})
        yield turn([types.Part(function_call=call)])


async def run(first):
    submit = SubmitFunction(tool)
    agent = LlmAgent(name="labeller", model=Gemini(model="gemini", first=first), tools=[submit],
                     after_model_callback=submit.after_model_callback)
    runner = InMemoryRunner(agent=agent, app_name="example")
    session = await runner.session_service.create_session(app_name="example", user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="Label the issue.")])
    events = [event async for event in runner.run_async(
        user_id="u", session_id=session.id, new_message=message)]
    session = await runner.session_service.get_session(app_name="example", user_id="u",
                                                       session_id=session.id)
    turns = sum(event.author == "labeller" and bool(event.get_function_calls())
                for event in events)
    return Labels.model_validate(session.state[submit.state_key]), turns


def main():
    firsts = (
        ("MALFORMED_FUNCTION_CALL", MALFORMED,
         turn(finish_reason="MALFORMED_FUNCTION_CALL", finish_message=MALFORMED)),
        ("a Python literal in a string", LITERAL_IN_A_STRING,
         turn([types.Part(function_call=types.FunctionCall(name="set_labels",
                                                           args=LITERAL_IN_A_STRING))])),
    )
    for label, shown, first in firsts:
        print(f"{label}: {shown}")
        labels, turns = asyncio.run(run(first))
        print(f"  committed: {labels!r} after {turns} model turn(s)")


if __name__ == "__main__":
    main()
