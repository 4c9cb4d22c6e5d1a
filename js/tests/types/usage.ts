// The package's types as a TypeScript user meets them: checked by `tsc --noEmit` (npm test),
// never run. An outcome narrows on `accepted`; the AI SDK pieces fit `generateText`.

import { generateText, stepCountIs, wrapLanguageModel, type LanguageModel } from "ai";
import type OpenAI from "openai";
import { BuildError, CallShapeError, type Outcome, type Provider, SubmitTool } from "submit-result";
import { submitResult } from "submit-result/ai";
import { z } from "zod";

declare const call: OpenAI.Chat.Completions.ChatCompletionMessageToolCall;
declare const model: Exclude<LanguageModel, string>;

const tool = new SubmitTool<{ answer: string }>({ type: "object", properties: { answer: { type: "string" } } });
const provider: Provider = "openai-chat";
const outcome: Outcome<{ answer: string }> | null = tool.handle(provider, call, { finishReason: "stop" });
if (outcome?.accepted) {
  const answer: string = outcome.response.answer;
  const kinds: string[] = outcome.recoveries.map((recovery) => recovery.kind);
  void [answer, kinds];
} else if (outcome) {
  const message: string = outcome.message;
  const error: { error: string } = outcome.toolResult;
  void [message, error, outcome.cause, outcome.errorClass];
}
void [BuildError, CallShapeError, tool.definition("claude"), tool.handleText("text", { provider: "claude" })];

const zodTool = new SubmitTool(z.object({ answer: z.string() }));
const zodOutcome = zodTool.handleText("");
if (zodOutcome?.accepted) {
  // The response has the schema's output type.
  const answer: string = zodOutcome.response.answer;
  void answer;
}
const submit = submitResult(zodTool);
export async function run(): Promise<unknown> {
  const result = await generateText({
    model: wrapLanguageModel({ model, middleware: submit.middleware }),
    tools: { ...submit.tools },
    experimental_repairToolCall: submit.repairToolCall,
    stopWhen: [submit.stopWhen, stepCountIs(5)],
    prompt: "Answer.",
  });
  return submit.accepted(result.steps)?.response;
}
