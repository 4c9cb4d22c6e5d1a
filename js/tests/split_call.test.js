// `handle` of an OpenAI call whose `arguments` are a string gives the module the argument text
// apart from the call's envelope, and a clean accepted payload comes back as the text the model
// wrote (lib/index.ts `openAiArguments`, src/answer.rs `Source`). Both are ways of reading the
// same call faster, so every outcome must be the one the call written whole gives: these tests
// compare the two readings on every OpenAI call of the corpus, and on payloads whose text and
// whose value written again differ (numbers, escapes).
//
// A call is written whole when it is no plain object: the same members behind another
// prototype, which `JSON.stringify` writes exactly as the plain call.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { CallShapeError, SubmitTool } from "submit-result";

import { buildTool, cases, VECTORS } from "./corpus.js";

/** The call with the same members, written whole by `handle`. */
function whole(call) {
  return Object.assign(Object.create({}), call);
}

/** The outcome of `handle`, or the shape error it threw as `{ shape: message }`. */
function verdict(tool, provider, call, finishReason) {
  try {
    return tool.handle(provider, call, { finishReason });
  } catch (error) {
    if (!(error instanceof CallShapeError)) throw error;
    return { shape: error.message };
  }
}

describe("an OpenAI call given apart from its argument text", () => {
  it("gives the outcome of the call written whole, for every OpenAI call of the corpus", () => {
    let compared = 0;
    for (const vector of VECTORS) {
      if ("text" in vector) continue;
      const tool = buildTool(vector.options ?? {});
      for (const [provider, call] of cases(vector)) {
        if (provider !== "openai-chat" && provider !== "openai-responses") continue;
        // As the turn ended, and as the last call of a turn cut at the output-token limit.
        for (const reason of [vector.stop, provider === "openai-chat" ? "length" : "max_output_tokens"]) {
          const apart = verdict(tool, provider, call, reason);
          const written = verdict(tool, provider, whole(call), reason);
          assert.deepStrictEqual(apart, written, `${vector.name} (${provider}, ${reason})`);
          compared += 1;
        }
      }
    }
    assert.ok(compared >= 600, `${compared} calls compared`);
  });

  it("reads a payload's numbers and strings as JSON.parse reads the model's text", () => {
    const tool = new SubmitTool({ type: "object" });
    // Written by hand: values whose text differs from the text of their value written again
    // (an exponent, a trailing zero, minus zero, an integer beyond 2^53, escapes, a surrogate
    // pair written as escapes, which the module then writes from the value).
    const payloads = [
      '{"a": 1.0, "b": 1e2, "c": -0, "d": 12345678901234567890, "e": 0.1, "f": 1e-400, "g": 2.5E+3}',
      '{"s": "caf\\u00e9 \\/ \\"q\\" \\t", "t": "\\ud83d\\ude00", "u": "\u00e9"}',
      '{"nested": {"list": [1, 2.50, {"k": null}], "2": "integer-like key", "1": true}}',
      "[1, 2, 3]",
    ];
    for (const payload of payloads) {
      for (const provider of ["openai-chat", "openai-responses"]) {
        const call =
          provider === "openai-chat"
            ? { id: "call_1", type: "function", function: { name: "submit_result", arguments: `{"reasoning": "r", "result": ${payload}}` } }
            : { type: "function_call", call_id: "call_1", name: "submit_result", arguments: `{"reasoning": "r", "result": ${payload}}` };
        const apart = tool.handle(provider, call);
        assert.deepStrictEqual(apart, tool.handle(provider, whole(call)), payload);
        if (apart.accepted) assert.deepStrictEqual(apart.response, JSON.parse(payload), payload);
      }
    }
  });

  it("is not taken for a call that writes itself or holds half of a surrogate pair", () => {
    const tool = new SubmitTool({ type: "object" });
    const call = { id: "call_1", type: "function", function: { name: "submit_result", arguments: '{"reasoning": "r", "result": {"a": 1}}' } };
    // `toJSON` is what JSON.stringify writes, so the module reads that call.
    const writesItself = { ...call, toJSON: () => ({ ...call, function: { ...call.function, arguments: '{"reasoning": "r", "result": {"a": 2}}' } }) };
    assert.deepStrictEqual(tool.handle("openai-chat", writesItself).response, { a: 2 });
    const lone = { ...call, function: { ...call.function, arguments: '{"reasoning": "\ud800", "result": {"a": 1}}' } };
    assert.deepStrictEqual(verdict(tool, "openai-chat", lone), verdict(tool, "openai-chat", whole(lone)));
  });
});
