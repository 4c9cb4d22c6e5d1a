// The corpus of model-mistake vectors (`submit-core/tests/corpus/*.json`) as the tests read it:
// the vectors, the tool each vector's options build, and the calls it runs as, the same
// reading as the Rust corpus runner's (`submit-core/src/parse/tests/corpus.rs`).

import { readdirSync, readFileSync } from "node:fs";

import { SubmitTool } from "submit-result";

const CORPUS = new URL("../../submit-core/tests/corpus/", import.meta.url);

/** Every vector, in file order. */
export const VECTORS = readdirSync(CORPUS)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .flatMap((name) => JSON.parse(readFileSync(new URL(name, CORPUS), "utf8")));

/** The real cases: vectors with a `source` (a call a model sent, from a public report). */
export const REAL_CASES = VECTORS.filter((vector) => "source" in vector);

/** The JSON Schema the Rust sample type (`summary: String`, `blocked: Option<bool>`,
 * `tags: Option<Vec<String>>`) reflects to, for vectors without a `schema` option. */
export const SAMPLE_SCHEMA = {
  type: "object",
  properties: {
    summary: { type: "string" },
    blocked: { type: ["boolean", "null"] },
    tags: { type: ["array", "null"], items: { type: "string" } },
  },
  required: ["summary"],
};

export const PROVIDERS = ["claude", "gemini", "openai-chat", "openai-responses"];
export const PARALLEL_WRAPPER = "multi_tool_use.parallel";

/** The tool of a vector's options (`payload` defaults to `analysis`). */
export function buildTool(options = {}) {
  return new SubmitTool(options.schema ?? SAMPLE_SCHEMA, {
    name: options.name ?? "submit_result",
    payload: options.payload ?? "analysis",
    success: options.success,
    flat: options.flat ?? false,
    omitReasoning: options.omit_reasoning ?? false,
    omitFields: options.omit_fields ?? [],
    strict: options.strict ?? false,
  });
}

/** The native call of an OpenAI provider to `name` carrying argument text as sent. */
export function textCall(provider, text, name = "submit_result") {
  if (provider === "openai-chat") {
    return { id: "call_01", type: "function", function: { name, arguments: text } };
  }
  return { type: "function_call", call_id: "call_01", name, arguments: text };
}

/** The native call of `provider` carrying `args` (an object for Claude and Gemini, its JSON
 * text for OpenAI). */
export function providerCall(provider, args, name = "submit_result") {
  switch (provider) {
    case "claude":
      return { type: "tool_use", id: "toolu_01", name, input: args };
    case "gemini":
      return { functionCall: { name, args } };
    default:
      return textCall(provider, JSON.stringify(args), name);
  }
}

/** Every (provider, call) a call vector runs as. */
export function cases(vector) {
  if ("arguments" in vector) return PROVIDERS.map((p) => [p, providerCall(p, vector.arguments)]);
  if ("arguments_text" in vector) {
    return ["openai-chat", "openai-responses"].map((p) => [p, textCall(p, vector.arguments_text)]);
  }
  if ("wrapper" in vector) {
    const text = typeof vector.wrapper === "string" ? vector.wrapper : JSON.stringify(vector.wrapper);
    return ["openai-chat", "openai-responses"].map((p) => [p, textCall(p, text, PARALLEL_WRAPPER)]);
  }
  return vector.providers.map((p) => [p, vector.call]);
}
