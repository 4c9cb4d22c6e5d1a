// An AI SDK agent whose submit tool is read by the parser, run offline on the SDK's mock model
// playing two recorded model mistakes: a call written as text in a Hermes `<tool_call>` (the
// inference server's tool parser missed it), whose payload was also sent as a JSON string, and
// before it, a call whose grade is no integer, which the model is told about and sends again.
//
//     npm run build && node examples/ai_agent.mjs

import { generateText, stepCountIs, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { SubmitTool } from "submit-result";
import { submitResult } from "submit-result/ai";
import { z } from "zod";

const turns = [
  // The grade as a word: rejected, and the model reads why.
  [{ type: "tool-call", toolCallId: "call_1", toolName: "submit_result",
     input: '{"reasoning": "graded", "result": {"verdict": "pass", "grade": "nine"}}' }],
  // A call written as text, its payload a JSON string: recovered and committed.
  [{ type: "text", text: 'Done.\n<tool_call>\n{"name": "submit_result", "arguments": {"reasoning": "graded", "result": "{\\"verdict\\": \\"pass\\", \\"grade\\": 9}"}}\n</tool_call>' }],
];
const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
const model = new MockLanguageModelV4({
  doGenerate: async () => ({ content: turns.shift(), finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
});

const submit = submitResult(new SubmitTool(z.object({ verdict: z.enum(["pass", "fail"]), grade: z.number().int() })));
const result = await generateText({
  model: wrapLanguageModel({ model, middleware: submit.middleware }),
  tools: submit.tools,
  experimental_repairToolCall: submit.repairToolCall,
  stopWhen: [submit.stopWhen, stepCountIs(5)],
  prompt: "Grade the essay.",
});

const told = result.steps[0].toolResults[0].output;
console.log(`turn 1: rejected, the model read: ${told.message}`);
const accepted = submit.accepted(result.steps);
console.log(`turn 2: committed ${JSON.stringify(accepted.response)} (recovered: ${accepted.recoveries.map((r) => r.format ?? r.kind).join(", ")})`);
console.log(`the conversation keeps the call as ${JSON.stringify(result.steps[1].toolCalls[0].input)}`);
