// The AI SDK integration (`submit-result/ai`) on the SDK's mock model.
//
// Every real case of the corpus (a vector with a `source`: a call a model sent, from a public
// bug report) is an agent's first model turn, exactly as recorded: the argument text as a tool
// call's input, an argument object as its JSON, a text turn as text, a
// `multi_tool_use.parallel` call as a call of that name. The run must end as the corpus says:
// an accepted call commits the recovered value on the first turn; a rejected one reaches the
// model's second turn as the tool's result carrying the parser's message, and the run then
// commits the clean call that turn sends. A turn in which the corpus finds no call of the tool
// is left to the SDK. Each case runs through `generateText`, and through `streamText` with the
// turn streamed in pieces of five characters.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { hasToolCall, stepCountIs } from "ai";
import { SubmitTool } from "submit-result";

import { cleanTurn, firstTurn, instance, runAgent, toolCall, toolResultsRead, turn } from "./agent.js";
import { buildTool, PARALLEL_WRAPPER, REAL_CASES, textCall } from "./corpus.js";

/** The verdict the package gives the vector's call directly. */
function parserOutcome(tool, vector) {
  if ("arguments_text" in vector) return tool.handle("openai-chat", textCall("openai-chat", vector.arguments_text, tool.name));
  if ("arguments" in vector) {
    return tool.handle("claude", { type: "tool_use", id: "call_01", name: tool.name, input: vector.arguments });
  }
  if ("call" in vector) return tool.handle("claude", vector.call);
  if ("wrapper" in vector) {
    const text = typeof vector.wrapper === "string" ? vector.wrapper : JSON.stringify(vector.wrapper);
    return tool.handle("openai-chat", textCall("openai-chat", text, PARALLEL_WRAPPER));
  }
  return tool.handleText(vector.text);
}

/** The submit verdicts of a step (the tool's outputs). */
function verdicts(step, name) {
  return step.toolResults.filter((result) => result.toolName === name).map((result) => result.output);
}

async function realCase(vector, stream) {
  const tool = buildTool(vector.options);
  const expected = vector.expected;
  const payload = instance(tool.payloadSchema);
  const first = firstTurn(tool, vector);
  const { steps, prompts, submit, text } = await runAgent(tool, [first, cleanTurn(tool, payload)], { stream });
  const accepted = submit.accepted(steps);

  if (expected.found === false) {
    // No call of the tool: the SDK answers the turn as it would without the integration. A
    // text turn ends the run with its text; a wrapper of other tools' calls is a tool the SDK
    // does not know, answered with its own error, and the clean second turn commits.
    assert.equal(verdicts(steps[0], tool.name).length, 0);
    if ("text" in vector) {
      assert.equal(steps.length, 1);
      assert.equal(text, vector.text);
    } else {
      assert.equal(steps.length, 2);
      assert.deepEqual(accepted?.response, payload);
    }
    return;
  }
  if (expected.accepted) {
    assert.equal(steps.length, 1, `retried: ${JSON.stringify(toolResultsRead(prompts.at(-1)))}`);
    assert.deepEqual(accepted.response, expected.response);
    if ("text" in vector && stream) {
      // Nothing of the call streamed out as text.
      const start = vector.text.length - text.length;
      assert.ok(vector.text.startsWith(text) && start > 0, JSON.stringify(text));
    }
    return;
  }
  assert.equal(steps.length, 2, `committed ${JSON.stringify(accepted)}`);
  const [read] = toolResultsRead(prompts[1]);
  const message = parserOutcome(tool, vector).message;
  assert.deepEqual(read.output, { type: "json", value: { error: message } });
  if ("error" in expected) assert.equal(message, expected.error);
  for (const part of expected.error_contains ?? []) assert.ok(message.includes(part), part);
  assert.deepEqual(accepted.response, payload);
}

describe("every real case through an agent", () => {
  it("runs every real case: calls, text turns and wrappers", () => {
    assert.ok(REAL_CASES.length >= 90);
    assert.ok(REAL_CASES.some((v) => "text" in v) && REAL_CASES.some((v) => "wrapper" in v));
  });
  for (const vector of REAL_CASES) {
    it(`generateText: ${vector.name}`, () => realCase(vector, false));
    it(`streamText: ${vector.name}`, () => realCase(vector, true));
  }
});

const SCHEMA = {
  type: "object",
  properties: { summary: { type: "string" }, score: { type: "integer" } },
  required: ["summary", "score"],
};
const CLEAN = '{"reasoning": "checked", "result": {"summary": "ok", "score": 9}}';

for (const stream of [false, true]) {
  const mode = stream ? "streamText" : "generateText";

  describe(mode, () => {
    it("a_turn_cut_at_the_length_limit_never_commits", async () => {
      const tool = new SubmitTool(SCHEMA);
      // A whole call, but the turn stopped at the output-token limit: it may hold less than
      // the model meant, so it is answered as cut off, and the clean second turn commits.
      const cut = turn([toolCall("call_01", "submit_result", CLEAN)], "length");
      const { steps, prompts, submit } = await runAgent(tool, [cut, turn([toolCall("call_02", "submit_result", CLEAN)])], {
        stream,
      });
      assert.equal(verdicts(steps[0], "submit_result")[0].cause, "truncated_call");
      assert.equal(submit.accepted(steps.slice(0, 1)), undefined);
      const [read] = toolResultsRead(prompts[1]);
      assert.match(read.output.value.error, /cut off at the output-token limit/);
      assert.equal(steps.length, 2);
      assert.deepEqual(submit.accepted(steps).response, { summary: "ok", score: 9 });

      // Cut mid-JSON, and written as text in a cut turn: the same.
      for (const first of [
        turn([toolCall("call_01", "submit_result", CLEAN.slice(0, 40))], "length"),
        turn([{ type: "text", text: `<tool_call>{"name": "submit_result", "arguments": ${CLEAN}}</tool_call>` }], "length"),
      ]) {
        const run = await runAgent(tool, [first, turn([toolCall("call_02", "submit_result", CLEAN)])], { stream });
        assert.equal(verdicts(run.steps[0], "submit_result")[0].cause, "truncated_call");
        assert.equal(run.steps.length, 2);
      }
    });

    it("a_hermes_call_in_a_text_turn_commits_through_the_middleware", async () => {
      const tool = new SubmitTool(SCHEMA);
      const text = `Checked the essay.\n<tool_call>\n{"name": "submit_result", "arguments": ${CLEAN}}\n</tool_call>`;
      const { steps, submit, text: shown } = await runAgent(tool, [turn([{ type: "text", text }])], { stream });
      assert.equal(steps.length, 1);
      const accepted = submit.accepted(steps);
      assert.deepEqual(accepted.response, { summary: "ok", score: 9 });
      assert.deepEqual(accepted.recoveries, [{ kind: "call_in_text", parameters: [], format: "hermes" }]);
      // The prose before the call is the turn's text; the call is a tool call.
      assert.equal(shown.trim(), "Checked the essay.");
      assert.deepEqual(steps[0].toolCalls[0].input, JSON.parse(CLEAN));
    });

    it("a_rejected_submit_does_not_stop_the_loop", async () => {
      const tool = new SubmitTool(SCHEMA);
      const rejected = turn([toolCall("call_01", "submit_result", '{"reasoning": "checked", "result": {"summary": "ok"}}')]);
      const clean = turn([toolCall("call_02", "submit_result", CLEAN)]);
      const { steps, submit } = await runAgent(tool, [rejected, clean], { stream, stopWhen: [stepCountIs(5)] });
      assert.equal(verdicts(steps[0], "submit_result")[0].accepted, false);
      assert.equal(submit.stopWhen({ steps: steps.slice(0, 1) }), false);
      assert.equal(submit.stopWhen({ steps: steps.slice(0, 2) }), true);
      // The SDK's own `hasToolCall` would have stopped on the rejected call.
      assert.equal(await hasToolCall("submit_result")({ steps: steps.slice(0, 1) }), true);
      const run = await runAgent(tool, [rejected, clean], { stream });
      assert.equal(run.steps.length, 2);
      assert.deepEqual(run.submit.accepted(run.steps).response, { summary: "ok", score: 9 });
    });

    it("the_history_holds_canonical_arguments_after_a_recovery", async () => {
      const tool = new SubmitTool(SCHEMA);
      // The payload sent as a JSON string inside the arguments, then `</invoke>` after the object:
      // accepted with two recoveries; the loop goes on (a step limit only) to show what the
      // model is sent back.
      const malformed = '{"reasoning": "checked", "result": "{\\"summary\\": \\"ok\\", \\"score\\": 9}"}</invoke>';
      const { steps, prompts } = await runAgent(tool, [turn([toolCall("call_01", "submit_result", malformed)])], {
        stream,
        stopWhen: stepCountIs(2),
      });
      assert.deepEqual(
        verdicts(steps[0], "submit_result")[0].recoveries.map((r) => r.kind),
        ["trailing_closers", "stringified"],
      );
      const canonical = { reasoning: "checked", result: { summary: "ok", score: 9 } };
      const assistant = prompts[1].find((message) => message.role === "assistant");
      assert.deepEqual(
        assistant.content.map(({ type, toolCallId, input }) => ({ type, toolCallId, input })),
        [{ type: "tool-call", toolCallId: "call_01", input: canonical }],
      );
      assert.deepEqual(steps[0].response.messages[0].content[0].input, canonical);
    });
  });
}

describe("what the SDK hands over", () => {
  it("names half of a surrogate pair in a call's input instead of throwing", async () => {
    const tool = new SubmitTool(SCHEMA);
    const lone = turn([toolCall("call_01", "submit_result", '{"reasoning": "a\uD800b", "result": {"summary": "ok", "score": 9}}')]);
    const { steps, prompts } = await runAgent(tool, [lone, turn([toolCall("call_02", "submit_result", CLEAN)])]);
    const [read] = toolResultsRead(prompts[1]);
    assert.equal(
      read.output.value.error,
      "reasoning parameter holds the escape \\ud800 at byte 2 of its JSON string, which is no Unicode scalar value (half of a surrogate pair); send the reasoning as text without it",
    );
    assert.equal(steps.length, 2);
  });
});
