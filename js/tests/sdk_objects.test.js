// Calls as the providers' own JavaScript SDKs give them: each SDK's client is asked for a
// completion, served by a `fetch` that answers with a body in the provider's wire format
// (written here from each API's documented shape, not recorded), and the call object the SDK
// returns goes to `handle` as it is.

import assert from "node:assert/strict";
import { test } from "node:test";

import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { SubmitTool } from "submit-result";

const SCHEMA = {
  type: "object",
  properties: { summary: { type: "string" }, blocked: { type: ["boolean", "null"] } },
  required: ["summary"],
};
const ARGUMENTS = { reasoning: "checked", result: { summary: "ok", blocked: null } };
const TEXT = '{"reasoning": "checked", "result": "{\\"summary\\": \\"ok\\", \\"blocked\\": null}"}';

/** A `fetch` answering every request with `body` as JSON. */
function answering(body) {
  return async () => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
}

function acceptedAsSent(outcome, recovery = null) {
  assert.equal(outcome.accepted, true, JSON.stringify(outcome));
  assert.deepEqual(outcome.response, { summary: "ok", blocked: null });
  assert.equal(outcome.reasoning, "checked");
  assert.equal(outcome.recovery, recovery);
}

test("an @anthropic-ai/sdk ToolUseBlock", async () => {
  const message = (input) => ({
    id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5",
    content: [{ type: "tool_use", id: "toolu_1", name: "submit_result", input }],
    stop_reason: "tool_use", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 },
  });
  const tool = new SubmitTool(SCHEMA);
  for (const [input, recovery] of [[ARGUMENTS, null], [{ reasoning: "checked", result: '{"summary": "ok", "blocked": null}' }, "stringified"]]) {
    const client = new Anthropic({ apiKey: "test", fetch: answering(message(input)) });
    const answer = await client.messages.create({ model: "claude-sonnet-4-5", max_tokens: 100, messages: [] });
    acceptedAsSent(tool.handle("claude", answer.content[0], { finishReason: answer.stop_reason }), recovery);
  }
});

test("an openai Chat tool call and a Responses function call item", async () => {
  const tool = new SubmitTool(SCHEMA);
  const completion = (reason) => ({
    id: "chatcmpl-1", object: "chat.completion", created: 1, model: "gpt-4.1",
    choices: [{
      index: 0, finish_reason: reason, logprobs: null,
      message: { role: "assistant", content: null, refusal: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "submit_result", arguments: TEXT } }] },
    }],
  });
  for (const reason of ["tool_calls", "length"]) {
    const chat = new OpenAI({ apiKey: "test", fetch: answering(completion(reason)) });
    const answer = await chat.chat.completions.create({ model: "gpt-4.1", messages: [] });
    const [choice] = answer.choices;
    const outcome = tool.handle("openai-chat", choice.message.tool_calls[0], { finishReason: choice.finish_reason });
    if (reason === "length") assert.equal(outcome.cause, "truncated_call");
    else acceptedAsSent(outcome, "stringified");
  }
  const response = {
    id: "resp_1", object: "response", created_at: 1, model: "gpt-4.1", status: "completed",
    output: [{ type: "function_call", id: "fc_1", call_id: "call_1", name: "submit_result", arguments: TEXT, status: "completed" }],
  };
  const responses = new OpenAI({ apiKey: "test", fetch: answering(response) });
  const answer = await responses.responses.create({ model: "gpt-4.1", input: "Submit." });
  acceptedAsSent(tool.handle("openai-responses", answer.output[0]), "stringified");
});

test("a @google/genai FunctionCall and Part", async () => {
  const tool = new SubmitTool(SCHEMA);
  const body = {
    candidates: [{
      content: { role: "model", parts: [{ functionCall: { name: "submit_result", args: ARGUMENTS } }] },
      finishReason: "STOP",
    }],
  };
  const original = globalThis.fetch;
  globalThis.fetch = answering(body);
  try {
    const client = new GoogleGenAI({ apiKey: "test" });
    const answer = await client.models.generateContent({ model: "gemini-2.5-flash", contents: "Submit." });
    acceptedAsSent(tool.handle("gemini", answer.functionCalls[0]));
    const [candidate] = answer.candidates;
    acceptedAsSent(tool.handle("gemini", candidate.content.parts[0], { finishReason: candidate.finishReason }));
  } finally {
    globalThis.fetch = original;
  }
});
