// Agents on the AI SDK's own mock model (`MockLanguageModelV4` from `ai/test`, the model of
// the SDK's current major): turns as a model sends them, whole (`generateText`) or streamed in
// small pieces (`streamText`), through the integration or through the SDK alone.

import { generateText, simulateReadableStream, stepCountIs, streamText, tool, jsonSchema, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";

import { submitResult } from "submit-result/ai";

import { PARALLEL_WRAPPER } from "./corpus.js";

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};

/** A model turn: its content (text and tool calls, as a provider of the SDK gives them) and
 * how it ended. */
export function turn(content, unified = content.some((p) => p.type === "tool-call") ? "tool-calls" : "stop") {
  const raw = { "tool-calls": "tool_calls", stop: "stop", length: "length" }[unified];
  return { content, finishReason: { unified, raw } };
}

/** A tool call part: `input` is the argument text the provider's SDK gives (an object's
 * `JSON.stringify`, an OpenAI `arguments` string as sent). */
export function toolCall(id, name, input) {
  return { type: "tool-call", toolCallId: id, toolName: name, input };
}

/** The first turn of a real case, as the model sent it. */
export function firstTurn(tool, vector) {
  if ("stop" in vector) throw new Error(`${vector.name}: a real case cut off at the output limit`);
  if ("arguments_text" in vector) return turn([toolCall("call_01", tool.name, vector.arguments_text)]);
  if ("arguments" in vector) return turn([toolCall("call_01", tool.name, JSON.stringify(vector.arguments))]);
  if ("call" in vector) {
    if (vector.providers.join() !== "claude") throw new Error(`${vector.name}: only Claude calls are recorded`);
    return turn([toolCall(vector.call.id, vector.call.name, JSON.stringify(vector.call.input))]);
  }
  if ("wrapper" in vector) {
    const text = typeof vector.wrapper === "string" ? vector.wrapper : JSON.stringify(vector.wrapper);
    return turn([toolCall("call_01", PARALLEL_WRAPPER, text)]);
  }
  return turn([{ type: "text", text: vector.text }]);
}

/** A small value `schema` (one of the corpus's schemas) accepts. */
export function instance(schema) {
  if ("enum" in schema) return schema.enum[0];
  for (const key of ["anyOf", "oneOf"]) if (key in schema) return instance(schema[key][0]);
  let kind = schema.type ?? "object";
  if (Array.isArray(kind)) kind = kind[0];
  if (kind === "object") {
    const properties = schema.properties ?? {};
    return Object.fromEntries((schema.required ?? []).map((name) => [name, instance(properties[name] ?? {})]));
  }
  return { string: "x", integer: 1, number: 1, boolean: true, array: [], null: null }[kind];
}

/** A clean call of `tool` carrying `payload`. */
export function cleanTurn(tool, payload) {
  const args = tool.flat ? { ...payload } : { [tool.payload]: payload };
  if (!tool.omitReasoning) args.reasoning = "checked";
  return turn([toolCall("call_02", tool.name, JSON.stringify(args))]);
}

/** `parts` of a turn as a provider streams them: text and tool input cut into pieces of at
 * most `size` characters. */
export function streamed({ content, finishReason }, size = 5) {
  const chunks = [{ type: "stream-start", warnings: [] }];
  const pieces = (text) => {
    const out = [];
    for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
    return out;
  };
  content.forEach((part, index) => {
    if (part.type === "text") {
      const id = `text-${index}`;
      chunks.push({ type: "text-start", id });
      for (const delta of pieces(part.text)) chunks.push({ type: "text-delta", id, delta });
      chunks.push({ type: "text-end", id });
    } else if (part.type === "tool-call") {
      const id = part.toolCallId;
      chunks.push({ type: "tool-input-start", id, toolName: part.toolName });
      for (const delta of pieces(part.input)) chunks.push({ type: "tool-input-delta", id, delta });
      chunks.push({ type: "tool-input-end", id });
      chunks.push(part);
    }
  });
  chunks.push({ type: "finish", finishReason, usage: USAGE });
  return chunks;
}

/** A mock model answering `turns` in order (the last one again after). */
export function mockModel(turns) {
  const next = (calls) => turns[Math.min(calls.length, turns.length) - 1];
  const model = new MockLanguageModelV4({
    doGenerate: async () => ({ ...next(model.doGenerateCalls), usage: USAGE, warnings: [] }),
    doStream: async () => ({ stream: simulateReadableStream({ chunks: streamed(next(model.doStreamCalls)) }) }),
  });
  return model;
}

/** Runs an agent with the integration on a mock model answering `turns`; the run's steps,
 * the prompts the model was called with, and the integration. */
export async function runAgent(submitTool, turns, { stream = false, stopWhen, ...settings } = {}) {
  const submit = submitResult(submitTool);
  const model = mockModel(turns);
  const options = {
    model: wrapLanguageModel({ model, middleware: submit.middleware }),
    tools: submit.tools,
    experimental_repairToolCall: submit.repairToolCall,
    stopWhen: stopWhen ?? [submit.stopWhen, stepCountIs(turns.length + 1)],
    prompt: "Submit the result.",
    ...settings,
  };
  let steps;
  let text;
  if (stream) {
    const result = streamText({ ...options, onError: () => {} });
    text = await result.text;
    steps = await result.steps;
  } else {
    const result = await generateText(options);
    steps = result.steps;
    text = result.text;
  }
  const prompts = (stream ? model.doStreamCalls : model.doGenerateCalls).map((call) => call.prompt);
  return { steps, prompts, submit, text };
}

/** Runs the SDK alone (no middleware, no repair function): the submit tool as a plain AI SDK
 * tool with the definition's parameters, validated by the SDK against them. */
export async function runPlain(submitTool, turns, validate) {
  const parameters = submitTool.definition("openai-chat").function.parameters;
  const plain = tool({
    description: submitTool.description,
    inputSchema: validate === undefined ? jsonSchema(parameters) : validate,
    execute: async (input) => input,
  });
  const model = mockModel(turns);
  const result = await generateText({
    model,
    tools: { [submitTool.name]: plain },
    stopWhen: stepCountIs(1),
    prompt: "Submit the result.",
  });
  return { steps: result.steps, prompts: model.doGenerateCalls.map((call) => call.prompt) };
}

/** The tool results the model read in the request that ends `prompt`. */
export function toolResultsRead(prompt) {
  const last = prompt[prompt.length - 1];
  if (last.role !== "tool") return [];
  return last.content.filter((part) => part.type === "tool-result");
}
