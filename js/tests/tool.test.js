// The package's own API: building a tool, its definitions, what a caller's mistake throws and
// what a model's mistake gives.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { jsonSchema } from "ai";
import {
  BuildError,
  CallShapeError,
  SubmitTool,
  UnknownProviderError,
  PROVIDERS,
} from "submit-result";
import { z } from "zod";

const SCHEMA = {
  type: "object",
  properties: { summary: { type: "string" }, score: { type: "integer" } },
  required: ["summary", "score"],
};

const chatCall = (args) => ({ id: "call_1", type: "function", function: { name: "submit_result", arguments: args } });

describe("SubmitTool", () => {
  it("a_caller_mistake_throws_and_a_model_mistake_rejects", () => {
    const tool = new SubmitTool(SCHEMA);
    // The caller's mistakes: a text block handed over as a call, an unknown provider, a
    // schema that builds no tool, options of the wrong type, no call at all.
    assert.throws(() => tool.handle("claude", { type: "text", text: "Done." }), (error) => {
      assert.ok(error instanceof CallShapeError);
      assert.equal(error.provider, "claude");
      assert.equal(error.message, 'not a tool call in the claude shape: `type` is "text", expected "tool_use"');
      return true;
    });
    assert.throws(() => tool.handle("openai", chatCall("{}")), UnknownProviderError);
    assert.throws(() => new SubmitTool({ type: "object" }, { flat: true }), BuildError);
    assert.throws(() => new SubmitTool({ type: "object", properties: { a: { type: 7 } } }), BuildError);
    assert.throws(() => new SubmitTool(SCHEMA, { flat: "yes" }), TypeError);
    assert.throws(() => new SubmitTool(SCHEMA, { omitFields: "score" }), TypeError);
    assert.throws(() => new SubmitTool(SCHEMA, { nmae: "x" }), /unknown option `nmae`/);
    assert.throws(() => new SubmitTool([SCHEMA]), TypeError);
    assert.throws(() => tool.handle("claude", undefined), TypeError);
    assert.throws(() => tool.handle("claude", { type: "tool_use", name: "submit_result", input: { a: 1n } }), TypeError);
    assert.throws(() => tool.handleText(42), TypeError);
    assert.throws(() => tool.handleText("x", { finishReason: 1 }), TypeError);
    // The model's mistakes are rejections the model reads.
    const outcome = tool.handle("openai-chat", chatCall('{"reasoning": "r", "result": {"summary": "ok"}}'));
    assert.equal(outcome.accepted, false);
    assert.equal(outcome.errorClass, "payload");
    assert.deepEqual(outcome.toolResult, { error: outcome.message });
    const broken = tool.handle("openai-chat", chatCall('{"reasoning": "r", "result": {"summ'));
    assert.equal(broken.cause, "undecodable_arguments");
    const cut = tool.handle("openai-chat", chatCall('{"reasoning": "r", "result": {"summary": "ok", "score": 1}}'), {
      finishReason: "length",
    });
    assert.equal(cut.cause, "truncated_call");
  });

  it("gives the definition for each provider and describes itself", () => {
    const tool = new SubmitTool(SCHEMA, { name: "submit_grade", payload: "grade", omitReasoning: true });
    assert.equal(tool.name, "submit_grade");
    assert.equal(tool.payload, "grade");
    assert.equal(tool.omitReasoning, true);
    assert.deepEqual(tool.payloadSchema.required, ["summary", "score"]);
    for (const provider of PROVIDERS) assert.ok(JSON.stringify(tool.definition(provider)).includes("submit_grade"));
    assert.equal(tool.definition("gemini").parameters.properties.grade.type, "OBJECT");
    assert.equal(String(tool), 'SubmitTool(name="submit_grade", payload="grade", omitReasoning)');
  });

  it("builds from a Zod 4 schema and parses an accepted payload with it", () => {
    const schema = z.object({ summary: z.string().refine((text) => text !== text.toUpperCase(), "write the summary in lower case"), score: z.number().int().default(5) });
    const tool = new SubmitTool(schema);
    // The model is shown the schema's input: `score` has a default, so it is not required.
    assert.deepEqual(tool.payloadSchema.required, ["summary"]);
    const accepted = tool.handle("openai-chat", chatCall('{"reasoning": "r", "result": "{\\"summary\\": \\"ok\\"}"}'));
    assert.deepEqual(accepted.response, { summary: "ok", score: 5 });
    assert.equal(accepted.recovery, "stringified");
    // A value the JSON Schema admits and the schema's own check refuses is a payload error.
    const refused = tool.handle("openai-chat", chatCall('{"reasoning": "r", "result": {"summary": "OK"}}'));
    assert.equal(refused.errorClass, "payload");
    assert.equal(refused.message, "failed to decode payload: summary: write the summary in lower case");
    assert.equal(refused.trace, `payload error: ${refused.message}`);
  });

  it("builds from an AI SDK Schema", () => {
    const tool = new SubmitTool(jsonSchema(SCHEMA));
    const call = { type: "tool_use", id: "t", name: "submit_result", input: { reasoning: "r", result: { summary: "ok", score: 1 } } };
    assert.deepEqual(tool.handle("claude", call).response, { summary: "ok", score: 1 });
    const lazy = jsonSchema(() => SCHEMA, {
      validate: (value) => (value.score > 0 ? { success: true, value } : { success: false, error: new Error("score must be positive") }),
    });
    const checked = new SubmitTool(lazy);
    call.input.result.score = 0;
    assert.equal(checked.handle("claude", call).message, "failed to decode payload: score must be positive");
    assert.throws(() => new SubmitTool(jsonSchema(Promise.resolve(SCHEMA))), /await it/);
  });

  it("answers a wrapper without an entry of the tool with null, a text without a call too", () => {
    const tool = new SubmitTool(SCHEMA);
    const wrapper = { tool_uses: [{ recipient_name: "functions.lookup", parameters: { q: "x" } }] };
    const call = { id: "c", type: "function", function: { name: "multi_tool_use.parallel", arguments: JSON.stringify(wrapper) } };
    assert.equal(tool.handle("openai-chat", call), null);
    assert.equal(tool.handleText("All done, nothing to call."), null);
  });

  it("refuses text holding half of a surrogate pair, and a freed tool", () => {
    const tool = new SubmitTool(SCHEMA);
    assert.throws(() => tool.handleText("a\uD800b"), /surrogate/);
    tool.free();
    assert.throws(() => tool.definition("claude"), /freed/);
  });
});
