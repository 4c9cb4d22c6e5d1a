// The submit parser inside the Vercel AI SDK (`ai`, major 7): a language model middleware, the
// submit tool, a repair function, a stop condition, and a conversation that keeps the
// canonical arguments.

import {
  generateId,
  jsonSchema,
  type LanguageModelMiddleware,
  type StopCondition,
  type StepResult,
  type Tool,
  type ToolCallRepairFunction,
  type ToolSet,
  tool as aiTool,
} from "ai";

import {
  type Accepted,
  kArguments,
  kText,
  kTextCallStart,
  type Outcome,
  PARALLEL_WRAPPER,
  type SubmitTool,
} from "./index.js";

type WrapGenerate = NonNullable<LanguageModelMiddleware["wrapGenerate"]>;
type WrapStream = NonNullable<LanguageModelMiddleware["wrapStream"]>;
type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
type StreamResult = Awaited<ReturnType<WrapStream>>;
type Content = GenerateResult["content"][number];
type FinishReason = GenerateResult["finishReason"];
type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;
type ToolCall = Extract<Content, { type: "tool-call" }>;

/** The longest marker that a text can end in the middle of: a tool's name and `(` (at most
 * 65 characters). Text held longer than this past its marker holds a whole marker. */
const LONGEST_MARKER = 65;

/** The arguments of an accepted call in the shape of the tool's parameters: the reasoning
 * first, then the payload (as one parameter, or its properties under `flat`). */
function canonical(tool: SubmitTool<unknown>, payload: unknown, reasoning: string): string {
  const args: Record<string, unknown> = {};
  if (!tool.omitReasoning) args.reasoning = reasoning;
  if (tool.flat && typeof payload === "object" && payload !== null) {
    Object.assign(args, payload);
  } else {
    args[tool.payload] = payload;
  }
  return JSON.stringify(args);
}

/** Whether `text` is the JSON text of an object. */
function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The submit tool's verdicts, shared by the middleware, the tool, the repair function and
 * the stop condition of one integration. */
class Verdicts<R> {
  readonly #tool: SubmitTool<R>;
  /** The verdict on each submit call read from a model's turn, by call id, until the tool
   * runs. */
  readonly #byCall = new Map<string, { raw: string; outcome: Outcome<R> }>();

  constructor(tool: SubmitTool<R>) {
    this.#tool = tool;
  }

  get tool(): SubmitTool<R> {
    return this.#tool;
  }

  /** The verdict on a call of `name` with `input` (the model's argument text), recorded under
   * its id; the input the SDK should keep (the canonical arguments of an accepted call, the
   * model's own JSON object of a rejected one, else `{}`); `null` for a wrapper without an
   * entry of the tool. */
  call(id: string, name: string, input: string, limit: boolean): string | null {
    const verdict = this.#tool[kArguments](name, input, limit);
    if (verdict === null) return null;
    this.#byCall.set(id, { raw: input, outcome: verdict.outcome });
    return this.#input(verdict.outcome, verdict.payload, input);
  }

  /** The verdict on a text turn, recorded under `id`; the tool call's input, or `null` when
   * the text holds no call of the tool. */
  text(id: string, text: string, cut: boolean): string | null {
    if (!text.isWellFormed()) return null;
    const verdict = this.#tool[kText](text, cut);
    if (verdict === null) return null;
    this.#byCall.set(id, { raw: text, outcome: verdict.outcome });
    return this.#input(verdict.outcome, verdict.payload, "{}");
  }

  #input(outcome: Outcome<R>, payload: unknown, input: string): string {
    if (outcome.accepted) return canonical(this.#tool, payload, outcome.reasoning);
    return isJsonObject(input) ? input : "{}";
  }

  /** The recorded verdict on a call, if any. */
  recorded(id: string): { raw: string; outcome: Outcome<R> } | undefined {
    return this.#byCall.get(id);
  }

  /** The verdict on a call, taken out of the record: the one recorded from the model's turn,
   * or else the verdict on the input the SDK parsed. */
  take(id: string, input: unknown): Outcome<R> {
    const recorded = this.#byCall.get(id);
    if (recorded !== undefined) {
      this.#byCall.delete(id);
      return recorded.outcome;
    }
    const block = { type: "tool_use", id, name: this.#tool.name, input };
    // A block with this tool's name is always a call in the shape.
    return this.#tool.handle("claude", block) as Outcome<R>;
  }

  /** A turn's content with each call of the submit tool (or a wrapper holding one) read and
   * recorded, and a text turn that writes a call made that call; and the finish reason, made
   * `tool-calls` when the submit call that ended a turn cut at the output-token limit is to
   * be answered. */
  turn(content: Content[], finishReason: FinishReason): { content: Content[]; finishReason: FinishReason } {
    const cut = finishReason.unified === "length";
    const calls = content.filter((part): part is ToolCall => part.type === "tool-call" && !part.providerExecuted);
    if (calls.length === 0) return this.#textTurn(content, finishReason, cut);
    const last = calls[calls.length - 1];
    let answered = false;
    const read = content.map((part) => {
      if (part.type !== "tool-call" || part.providerExecuted) return part;
      if (part.toolName !== this.#tool.name && part.toolName !== PARALLEL_WRAPPER) return part;
      const limit = cut && part === last;
      const input = this.call(part.toolCallId, part.toolName, part.input, limit);
      if (input === null) return part;
      answered ||= limit;
      return { ...part, toolName: this.#tool.name, input };
    });
    return { content: read, finishReason: answered ? { ...finishReason, unified: "tool-calls" } : finishReason };
  }

  #textTurn(content: Content[], finishReason: FinishReason, cut: boolean) {
    const text = content.map((part) => (part.type === "text" ? part.text : "")).join("");
    const id = generateId();
    const input = text === "" ? null : this.text(id, text, cut);
    if (input === null) return { content, finishReason };
    const start = this.#tool[kTextCallStart](text);
    const prose = start > 0 ? text.slice(0, start) : "";
    const call: Content = { type: "tool-call", toolCallId: id, toolName: this.#tool.name, input };
    const made: Content[] = [];
    let placed = false;
    for (const part of content) {
      if (part.type !== "text") {
        made.push(part);
      } else if (!placed) {
        if (prose.trim() !== "") made.push({ ...part, text: prose });
        made.push(call);
        placed = true;
      }
    }
    return { content: made, finishReason: { ...finishReason, unified: "tool-calls" as const } };
  }
}

/** A text block of a streamed turn: its text so far, how much of it went on, and the parts
 * held back with the rest. */
interface TextBlock {
  id: string;
  text: string;
  emitted: number;
  /** The rest is held for good: a whole marker stands at `emitted`. */
  holding: boolean;
  end?: StreamPart;
  /** Its end went on: nothing of it was held. */
  closed?: boolean;
}

/** The stream of one turn, read as `Verdicts.turn` reads a whole one. */
function streamTransform<R>(verdicts: Verdicts<R>): TransformStream<StreamPart, StreamPart> {
  const tool = verdicts.tool;
  const blocks = new Map<string, TextBlock>();
  const order: TextBlock[] = [];
  const held: ToolCall[] = [];
  let lastCallId: string | undefined;
  let finished = false;

  const pass = (block: TextBlock, controller: TransformStreamDefaultController<StreamPart>) => {
    if (block.holding) return;
    const rest = block.text.slice(block.emitted);
    const start = tool[kTextCallStart](rest);
    const upTo = start < 0 ? block.text.length : block.emitted + start;
    if (upTo > block.emitted) {
      controller.enqueue({ type: "text-delta", id: block.id, delta: block.text.slice(block.emitted, upTo) });
      block.emitted = upTo;
    }
    block.holding = start >= 0 && block.text.length - upTo > LONGEST_MARKER;
  };

  const finish = (controller: TransformStreamDefaultController<StreamPart>, finishPart?: StreamPart) => {
    finished = true;
    const reason: FinishReason =
      finishPart?.type === "finish" ? finishPart.finishReason : { unified: "stop", raw: undefined };
    const cut = reason.unified === "length";
    let answered = false;
    let textCall: { block: TextBlock; input: string; id: string } | undefined;
    if (held.length === 0 && lastCallId === undefined) {
      const text = order.map((block) => block.text).join("");
      const id = generateId();
      const input = text === "" ? null : verdicts.text(id, text, cut);
      const block = order.find((candidate) => candidate.text.length > candidate.emitted) ?? order[order.length - 1];
      if (input !== null && block !== undefined) textCall = { block, input, id };
    }
    for (const block of order) {
      if (block.closed) continue;
      const rest = block.text.slice(block.emitted);
      if (rest !== "" && block !== textCall?.block) {
        controller.enqueue({ type: "text-delta", id: block.id, delta: rest });
      }
      if (block.end !== undefined) controller.enqueue(block.end);
      else controller.enqueue({ type: "text-end", id: block.id });
    }
    if (textCall !== undefined) {
      controller.enqueue({ type: "tool-call", toolCallId: textCall.id, toolName: tool.name, input: textCall.input });
      answered = true;
    }
    for (const call of held) {
      const limit = cut && call.toolCallId === lastCallId;
      const input = verdicts.call(call.toolCallId, call.toolName, call.input, limit);
      controller.enqueue(input === null ? call : { ...call, toolName: tool.name, input });
      answered ||= input !== null && limit;
    }
    if (finishPart?.type === "finish") {
      const unified = answered ? "tool-calls" : reason.unified;
      controller.enqueue({ ...finishPart, finishReason: { ...reason, unified } });
    }
  };

  return new TransformStream<StreamPart, StreamPart>({
    transform(part, controller) {
      switch (part.type) {
        case "text-start": {
          const block: TextBlock = { id: part.id, text: "", emitted: 0, holding: false };
          blocks.set(part.id, block);
          order.push(block);
          controller.enqueue(part);
          return;
        }
        case "text-delta": {
          const block = blocks.get(part.id);
          if (block === undefined) return controller.enqueue(part);
          block.text += part.delta;
          return pass(block, controller);
        }
        case "text-end": {
          const block = blocks.get(part.id);
          if (block === undefined) return controller.enqueue(part);
          block.end = part;
          // A block with nothing held ends now: no call of the tool begins in it.
          if (block.text.length === block.emitted) {
            block.closed = true;
            controller.enqueue(part);
          }
          return;
        }
        case "tool-call":
          if (part.providerExecuted) return controller.enqueue(part);
          lastCallId = part.toolCallId;
          if (part.toolName === tool.name || part.toolName === PARALLEL_WRAPPER) {
            held.push(part);
            return;
          }
          return controller.enqueue(part);
        case "finish":
          return finish(controller, part);
        default:
          return controller.enqueue(part);
      }
    },
    flush(controller) {
      if (!finished) finish(controller);
    },
  });
}

/** The submit tool in the AI SDK, in the pieces an agent takes. */
export interface SubmitResult<R = unknown> {
  /** The parser's tool. */
  readonly submitTool: SubmitTool<R>;
  /** The tool's name: the key of `tool` in the agent's tools. */
  readonly name: string;
  /** The language model middleware (`wrapLanguageModel({ model, middleware })`). */
  readonly middleware: LanguageModelMiddleware;
  /** The submit tool: its definition's parameters as the input schema, without the SDK's
   * validation (every call reaches the parser); `execute` gives the verdict (the `Outcome`),
   * and the model reads its tool result. */
  readonly tool: Tool<Record<string, unknown>, Outcome<R>>;
  /** `{ [name]: tool }`, to spread into the agent's tools. */
  readonly tools: Record<string, Tool<Record<string, unknown>, Outcome<R>>>;
  /** `repairToolCall` (`experimental_repairToolCall`): a submit call the SDK could not parse
   * gets canonical arguments when accepted; a rejected one reaches the tool, whose result is
   * the parser's message. */
  readonly repairToolCall: ToolCallRepairFunction<ToolSet>;
  /** A `stopWhen` condition: the last step holds an accepted submit. */
  readonly stopWhen: StopCondition<ToolSet>;
  /** The accepted submit of a run's steps (the last one), if any. */
  accepted(steps: ReadonlyArray<StepResult<ToolSet>>): Accepted<R> | undefined;
}

function acceptedIn<R>(name: string, step: StepResult<ToolSet> | undefined): Accepted<R> | undefined {
  if (step === undefined) return undefined;
  for (const result of [...step.toolResults].reverse()) {
    const output = result.output as Outcome<R> | undefined;
    if (result.toolName === name && output?.accepted === true) return output;
  }
  return undefined;
}

/**
 * The submit tool for an AI SDK agent: a middleware that reads each turn (calls written as
 * text, the finish reason, every submit call's own text), the tool, a repair function and a
 * stop condition that share its verdicts.
 *
 * ```ts
 * const submit = submitResult(new SubmitTool(z.object({ answer: z.string() })));
 * const result = await generateText({
 *   model: wrapLanguageModel({ model, middleware: submit.middleware }),
 *   tools: submit.tools,
 *   experimental_repairToolCall: submit.repairToolCall,
 *   stopWhen: [submit.stopWhen, stepCountIs(5)],
 *   prompt,
 * });
 * console.log(submit.accepted(result.steps)?.response);
 * ```
 */
export function submitResult<R>(tool: SubmitTool<R>): SubmitResult<R> {
  const verdicts = new Verdicts(tool);
  const name = tool.name;
  const parameters = (tool.definition("openai-chat").function as { parameters: Record<string, unknown> })
    .parameters;

  const wrapGenerate: WrapGenerate = async ({ doGenerate }) => {
    const result = await doGenerate();
    return { ...result, ...verdicts.turn(result.content, result.finishReason) };
  };
  const wrapStream: WrapStream = async ({ doStream }) => {
    const result = await doStream();
    return { ...result, stream: result.stream.pipeThrough(streamTransform(verdicts)) };
  };
  const middleware: LanguageModelMiddleware = { specificationVersion: "v4", wrapGenerate, wrapStream };

  const submit: Tool<Record<string, unknown>, Outcome<R>> = aiTool({
    description: tool.description,
    inputSchema: jsonSchema<Record<string, unknown>>(parameters as never),
    execute: (input: Record<string, unknown>, { toolCallId }: { toolCallId: string }) =>
      verdicts.take(toolCallId, input),
    toModelOutput: ({ output }: { output: Outcome<R> }) => ({ type: "json" as const, value: output.toolResult }),
  });

  const repairToolCall: ToolCallRepairFunction<ToolSet> = async ({ toolCall }) => {
    if (toolCall.toolName !== name && toolCall.toolName !== PARALLEL_WRAPPER) return null;
    const recorded = verdicts.recorded(toolCall.toolCallId);
    if (recorded !== undefined) {
      // Read by the middleware already: the tool answers the recorded verdict.
      return { ...toolCall, toolName: name, input: isJsonObject(toolCall.input) ? toolCall.input : "{}" };
    }
    const input = verdicts.call(toolCall.toolCallId, toolCall.toolName, toolCall.input, false);
    return input === null ? null : { ...toolCall, toolName: name, input };
  };

  const stopWhen: StopCondition<ToolSet> = ({ steps }) => acceptedIn(name, steps[steps.length - 1]) !== undefined;

  return {
    submitTool: tool,
    name,
    middleware,
    tool: submit,
    tools: { [name]: submit },
    repairToolCall,
    stopWhen,
    accepted: (steps) => acceptedIn<R>(name, steps[steps.length - 1]),
  };
}
