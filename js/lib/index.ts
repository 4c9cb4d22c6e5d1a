// The submit parser: a terminal `submit_result` tool built from a JSON Schema (or a Zod 4
// schema, or an AI SDK `Schema`), its definition for the four providers, and the verdict on a
// call as each provider's SDK gives it.

import {
  answerJson,
  answerText,
  exports,
  type Passed,
  pass,
  release,
  Status,
} from "./wasm.js";

export { init, initSync, NotInitializedError, type WasmSource } from "./wasm.js";

/** A provider's wire format. */
export type Provider = "claude" | "gemini" | "openai-chat" | "openai-responses";

/** Every provider, in a fixed order. */
export const PROVIDERS: readonly Provider[] = ["claude", "gemini", "openai-chat", "openai-responses"];

/** The tool's name unless the options name another. */
export const DEFAULT_TOOL_NAME = "submit_result";
/** The payload parameter's name unless the options name another. */
export const DEFAULT_PAYLOAD_FIELD = "result";
/** The `message` of an accepted call's tool result unless the options give another. */
export const DEFAULT_SUCCESS_MESSAGE = "Result submitted successfully.";
/** The name of the wrapper call some OpenAI models send their parallel calls in. */
export const PARALLEL_WRAPPER = "multi_tool_use.parallel";

/** Which rule of a recovery applied to an accepted call. */
export type RecoveryKind =
  | "stringified"
  | "reasoning_opener"
  | "reasoning_member"
  | "trailing_closers"
  | "stringified_arguments"
  | "fenced_arguments"
  | "wrapped_arguments"
  | "stringified_property"
  | "closing_markup"
  | "call_in_text"
  | "parallel_wrapper"
  | "wrapped_call"
  | "stringified_value"
  | "enum_case";

/** The chat template's syntax a call written as text was in. */
export type TextFormat =
  | "hermes"
  | "xml_function"
  | "glm"
  | "mistral"
  | "llama_json"
  | "deepseek"
  | "kimi"
  | "harmony"
  | "pythonic";

/** Why a call's parameters were rejected. */
export type ParameterCause =
  | "undecodable_arguments"
  | "absent_or_mistyped"
  | "stringified_declined"
  | "reasoning_declined"
  | "swallowed_parameter"
  | "truncated_call";

/** A recovery that applied: its kind, the parameters (or JSON Pointers) it touched, and for a
 * call written as text, its format. */
export interface Recovery {
  kind: RecoveryKind;
  parameters: string[];
  format?: TextFormat;
}

/** An accepted call: the response, the reasoning, and every recovery that applied. */
export interface Accepted<R = unknown> {
  accepted: true;
  /** The payload: the JSON value, or the schema's own parse of it (a Zod schema's output). */
  response: R;
  /** The final reasoning (`""` under `omitReasoning`). */
  reasoning: string;
  /** Where the payload was found when it was not the payload parameter's object. */
  recovery: RecoveryKind | null;
  /** Every recovery that applied, in the order applied. */
  recoveries: Recovery[];
  /** `{ success: true, message }`: the tool result to send back to the model. */
  toolResult: { success: true; message: string };
}

/** A rejected call: its class and cause, the message the model reads, and the tool result. */
export interface Rejected {
  accepted: false;
  /** `"parameter"` (the call's parameters) or `"payload"` (the payload's value). */
  errorClass: "parameter" | "payload";
  /** The parameter cause; `null` for a payload error. */
  cause: ParameterCause | null;
  /** The message the model reads. */
  message: string;
  /** What a trace records: the class, the message, and the bounded echo of a declined string. */
  trace: string;
  /** `{ error: message }`: the tool result to send back to the model. */
  toolResult: { error: string };
}

/** The verdict on one call. */
export type Outcome<R = unknown> = Accepted<R> | Rejected;

/** How a submit tool is built. */
export interface SubmitToolOptions {
  /** The tool's name (`submit_result`). */
  name?: string;
  /** The tool's description. */
  description?: string;
  /** The payload parameter's name (`result`). */
  payload?: string;
  /** The payload parameter's description. */
  payloadDescription?: string;
  /** The `message` of an accepted call's tool result. */
  success?: string;
  /** Each payload property its own parameter. */
  flat?: boolean;
  /** No `reasoning` parameter. */
  omitReasoning?: boolean;
  /** Payload properties withheld from the advertised schema (each optional). */
  omitFields?: readonly string[];
  /** The providers' strict schema modes. */
  strict?: boolean;
}

/** How the turn that carried a call ended. */
export interface HandleOptions {
  /** The turn's finish reason in the provider's spelling (`length`, `max_tokens`,
   * `max_output_tokens`, `MAX_TOKENS`, …); the last call of a turn cut at the output-token
   * limit is never accepted. */
  finishReason?: string | null;
}

/** How a visible text turn ended, and in whose spelling. */
export interface HandleTextOptions extends HandleOptions {
  /** The provider whose spelling `finishReason` is in; any provider's when none is named. */
  provider?: Provider;
}

/** The submit tool could not be built: the message says what to change. */
export class BuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BuildError";
  }
}

/** A provider name that is not one of `claude`, `gemini`, `openai-chat`, `openai-responses`. */
export class UnknownProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnknownProviderError";
  }
}

/** What was handed to `handle` is not a tool call in the provider's shape (a whole message, a
 * text block, a call of another provider): the caller's mistake, not the model's. */
export class CallShapeError extends Error {
  /** The provider whose shape was expected. */
  readonly provider: Provider;
  constructor(provider: Provider, message: string) {
    super(message);
    this.name = "CallShapeError";
    this.provider = provider;
  }
}

/** A schema a JavaScript library describes: Zod 4 and others through the Standard JSON Schema
 * interface (`~standard.jsonSchema`). */
export interface StandardJsonSchema<R = unknown> {
  readonly "~standard": {
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult | PromiseLike<StandardResult>;
    readonly jsonSchema?: { input: (options: { target: string }) => Record<string, unknown> };
    /** The schema's output type, which a built tool's response has. */
    readonly types?: { readonly output: R } | undefined;
  };
}

type StandardResult =
  | { value: unknown; issues?: undefined }
  | { issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<unknown> }> };

/** The AI SDK's `Schema` (`jsonSchema(...)`, `zodSchema(...)`). */
export interface AiSdkSchema<R = unknown> {
  readonly jsonSchema: unknown;
  readonly validate?: (value: unknown) => unknown;
  /** The schema's type, which a built tool's response has. */
  readonly _type: R;
}

const AI_SDK_SCHEMA = Symbol.for("vercel.ai.schema");

/** A JSON Schema document for the payload, a Zod 4 schema (or any Standard JSON Schema), or
 * an AI SDK `Schema`. */
export type SchemaInput<R = unknown> = Record<string, unknown> | StandardJsonSchema<R> | AiSdkSchema<R>;

/** A response's own check, after the parser accepted it: the schema library's parse. */
type Check = (value: unknown) => { value: unknown } | { error: string };

/** What a built tool is, as the module describes it. */
interface Description {
  name: string;
  payload: string;
  description: string;
  payloadDescription: string;
  success: string;
  flat: boolean;
  omitReasoning: boolean;
  omitFields: string[];
  payloadSchema: Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string | symbol, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return isObject(value) && typeof value.then === "function";
}

function pathText(path: ReadonlyArray<unknown> | undefined): string {
  if (path === undefined || path.length === 0) return "";
  const keys = path.map((key) => (isObject(key) && "key" in key ? key.key : key));
  return `${keys.map(String).join(".")}: `;
}

const ASYNC_CHECK =
  "the schema validates asynchronously (an async refinement or transform), and handle is synchronous: use a schema whose checks are synchronous";

/** The JSON Schema document of `schema`, and the schema library's own check. */
function schemaOf(schema: SchemaInput): { document: unknown; check?: Check } {
  if (!isObject(schema)) {
    throw new TypeError(
      `schema must be a JSON Schema object, a Zod 4 schema or an AI SDK Schema, got ${schema === null ? "null" : Array.isArray(schema) ? "an array" : typeof schema}`,
    );
  }
  if (schema[AI_SDK_SCHEMA] === true) {
    const { jsonSchema, validate } = schema as unknown as AiSdkSchema;
    if (isThenable(jsonSchema)) {
      throw new TypeError(
        "the AI SDK schema's jsonSchema is a promise: await it and pass the JSON Schema document",
      );
    }
    const check: Check | undefined =
      typeof validate === "function"
        ? (value) => {
            const result = validate(value) as { success: boolean; value?: unknown; error?: Error };
            if (isThenable(result)) throw new TypeError(ASYNC_CHECK);
            return result.success
              ? { value: result.value }
              : { error: result.error?.message ?? "the schema's validate refused it" };
          }
        : undefined;
    return { document: jsonSchema, check };
  }
  const standard = schema["~standard"];
  if (isObject(standard)) {
    const props = standard as StandardJsonSchema["~standard"];
    if (props.jsonSchema === undefined) {
      throw new TypeError(
        `the ${props.vendor} schema has no JSON Schema conversion (~standard.jsonSchema): pass its JSON Schema document, or use Zod 4`,
      );
    }
    const check: Check = (value) => {
      const result = props.validate(value);
      if (isThenable(result)) throw new TypeError(ASYNC_CHECK);
      if (result.issues === undefined) return { value: result.value };
      return { error: result.issues.map((issue) => pathText(issue.path) + issue.message).join("; ") };
    };
    // What the model sends is the schema's input (before defaults and transforms).
    return { document: props.jsonSchema.input({ target: "draft-2020-12" }), check };
  }
  return { document: schema };
}

const OPTION_TYPES: Record<keyof SubmitToolOptions, "string" | "boolean" | "strings"> = {
  name: "string",
  description: "string",
  payload: "string",
  payloadDescription: "string",
  success: "string",
  flat: "boolean",
  omitReasoning: "boolean",
  omitFields: "strings",
  strict: "boolean",
};

/** `options` checked for their types, as the module reads them. */
function checkedOptions(options: SubmitToolOptions | undefined): SubmitToolOptions {
  if (options === undefined) return {};
  if (!isObject(options)) throw new TypeError("options must be an object");
  const checked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    const type = OPTION_TYPES[key as keyof SubmitToolOptions];
    if (type === undefined) {
      throw new TypeError(
        `unknown option \`${key}\`, expected one of ${Object.keys(OPTION_TYPES).map((k) => `\`${k}\``).join(", ")}`,
      );
    }
    if (value === undefined) continue;
    if (type === "strings") {
      if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
        throw new TypeError(`${key} must be an array of property names (strings)`);
      }
    } else if (typeof value !== type) {
      throw new TypeError(`${key} must be a ${type}, got ${typeof value}`);
    }
    checked[key] = value;
  }
  return checked;
}

function checkedReason(reason: unknown): string {
  if (reason === undefined || reason === null) return "";
  if (typeof reason !== "string") {
    throw new TypeError(`finishReason must be a string, got ${typeof reason}`);
  }
  return reason;
}

function checkedProvider(provider: unknown): string {
  if (typeof provider !== "string") {
    throw new TypeError(`provider must be a string naming a provider, got ${typeof provider}`);
  }
  return provider;
}

/** Half of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string as UTF-8 text, or the error naming where it holds half of a surrogate pair. */
function wellFormed(text: string, what: string): string {
  if (text.isWellFormed()) return text;
  LONE_SURROGATE.lastIndex = 0;
  const found = LONE_SURROGATE.exec(text);
  const at = found?.index ?? 0;
  throw new TypeError(
    `${what} holds half of a surrogate pair (\\u${text.charCodeAt(at).toString(16)} at index ${at}), which is no Unicode text`,
  );
}

/** JSON text with each half of a surrogate pair written as its `\uXXXX` escape: the only way
 * JSON holds one, which the parser then names. */
function escapedSurrogates(json: string): string {
  if (json.isWellFormed()) return json;
  return json.replace(LONE_SURROGATE, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A plain object (as the SDKs give a call, and as `JSON.stringify` writes its own members
 * alone), not one that writes itself (`toJSON`). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && !("toJSON" in value);
}

/** An OpenAI call (Chat tool call, Responses function call) split for the module: its JSON
 * with `arguments` written as `""` (the envelope, read for its shape), its name and its
 * argument text. Written whole, the argument text would be escaped into a JSON string here and
 * read out of it again in the module; given apart, it is passed as it is. `undefined` for
 * anything else, which is written whole: a call that is no plain object, `arguments` that are
 * no string or hold half of a surrogate pair, a name that is no string. */
function openAiArguments(
  provider: unknown,
  call: unknown,
): { envelope: string; name: string; args: string } | undefined {
  if (!isPlainObject(call)) return undefined;
  let holder: Record<string, unknown>;
  let envelope: Record<string, unknown>;
  if (provider === "openai-chat") {
    const inner = call.function;
    if (!isPlainObject(inner)) return undefined;
    holder = inner;
    envelope = { ...call, function: { ...inner, arguments: "" } };
  } else if (provider === "openai-responses") {
    holder = call;
    envelope = { ...call, arguments: "" };
  } else {
    return undefined;
  }
  const { name, arguments: args } = holder;
  if (typeof name !== "string" || typeof args !== "string") return undefined;
  if (!name.isWellFormed() || !args.isWellFormed()) return undefined;
  return { envelope: JSON.stringify(envelope), name, args };
}

/** Frees a tool's memory in the module when its object is collected. */
const collected =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry<number>((pointer) => {
        exports().sr_tool_free(pointer);
      })
    : undefined;

/** Internal: handing arguments alone to the door, for the AI SDK integration. */
export const kArguments = Symbol("submit-result.arguments");
/** Internal: reading a text turn, for the AI SDK integration. */
export const kText = Symbol("submit-result.text");
/** Internal: where a call written as text may begin, for the AI SDK integration. */
export const kTextCallStart = Symbol("submit-result.textCallStart");

/** Internal: an outcome with the payload as the parser accepted it (before the schema
 * library's own parse), for the canonical arguments. */
export interface Verdict<R> {
  outcome: Outcome<R>;
  payload: unknown;
}

/**
 * A terminal submit tool for a JSON Schema payload (or a Zod 4 schema's, or an AI SDK
 * `Schema`'s): its definitions for the four providers, and the verdict on each call.
 *
 * ```ts
 * const tool = new SubmitTool({ type: "object", properties: { answer: { type: "string" } } });
 * const tools = [tool.definition("openai-chat")];
 * // … the model calls the tool …
 * const outcome = tool.handle("openai-chat", completion.choices[0].message.tool_calls[0], {
 *   finishReason: completion.choices[0].finish_reason,
 * });
 * if (outcome?.accepted) console.log(outcome.response);
 * else if (outcome) console.log(outcome.message); // send outcome.toolResult back
 * ```
 *
 * Built from a Zod 4 schema, the model is shown the schema's input JSON Schema
 * (`z.toJSONSchema(schema, { io: "input" })`), and an accepted payload is parsed by the schema
 * too: the response is its output, and a payload it refuses is rejected as a payload error.
 */
export class SubmitTool<R = unknown> {
  #pointer: number;
  readonly #description: Description;
  readonly #check: Check | undefined;

  /** Builds the tool; a schema that does not build throws `BuildError`, options of the wrong
   * type a `TypeError`. */
  constructor(schema: SchemaInput<R>, options?: SubmitToolOptions) {
    const module = exports();
    const { document, check } = schemaOf(schema);
    const schemaText = JSON.stringify(document);
    if (schemaText === undefined) throw new TypeError("schema is not JSON data");
    const passed = [pass(schemaText), pass(JSON.stringify(checkedOptions(options)))];
    let pointer: number;
    try {
      const [s, o] = passed as [Passed, Passed];
      pointer = module.sr_tool_new(s.ptr, s.len, o.ptr, o.len);
    } finally {
      release(...passed);
    }
    if (pointer === 0) {
      const message = answerText();
      if (module.sr_status() === Status.BuildError) throw new BuildError(message);
      throw new TypeError(message);
    }
    this.#pointer = pointer;
    this.#description = answerJson<Description>();
    this.#check = check;
    collected?.register(this, pointer, this);
  }

  #tool(): number {
    if (this.#pointer === 0) throw new TypeError("this SubmitTool was freed");
    return this.#pointer;
  }

  /** The tool's name. */
  get name(): string {
    return this.#description.name;
  }
  /** The payload parameter's name. */
  get payload(): string {
    return this.#description.payload;
  }
  /** The tool's description. */
  get description(): string {
    return this.#description.description;
  }
  /** The payload parameter's description. */
  get payloadDescription(): string {
    return this.#description.payloadDescription;
  }
  /** The `message` of an accepted call's tool result. */
  get success(): string {
    return this.#description.success;
  }
  /** Whether each payload property is its own parameter. */
  get flat(): boolean {
    return this.#description.flat;
  }
  /** Whether the `reasoning` parameter is dropped. */
  get omitReasoning(): boolean {
    return this.#description.omitReasoning;
  }
  /** The payload properties withheld from the advertised schema. */
  get omitFields(): readonly string[] {
    return [...this.#description.omitFields];
  }
  /** The full payload schema (before omitted fields are withheld). */
  get payloadSchema(): Record<string, unknown> {
    return structuredClone(this.#description.payloadSchema);
  }

  /** The tool's definition in `provider`'s wire format, as the provider's SDK takes it. */
  definition(provider: Provider): Record<string, unknown> {
    const module = exports();
    const name = pass(checkedProvider(provider));
    let status: number;
    try {
      status = module.sr_definition(this.#tool(), name.ptr, name.len);
    } finally {
      release(name);
    }
    return this.#answer(status, provider) as Record<string, unknown>;
  }

  /**
   * The verdict on a call in `provider`'s shape, as the provider's SDK gives it: an
   * `@anthropic-ai/sdk` `ToolUseBlock`, an `openai` Chat tool call or Responses function call
   * item, a `@google/genai` `FunctionCall` or `Part`.
   *
   * A `multi_tool_use.parallel` call is read as its one entry naming this tool, and `null` is
   * returned when no entry names it. Anything that is not a call in the provider's shape
   * throws `CallShapeError`; a model's mistake is a `Rejected` outcome.
   */
  handle(provider: Provider, call: unknown, options?: HandleOptions): Outcome<R> | null {
    const module = exports();
    const apart = openAiArguments(provider, call);
    if (apart !== undefined) {
      const passed = [
        pass(provider),
        pass(apart.envelope),
        pass(apart.name),
        pass(apart.args),
        pass(checkedReason(options?.finishReason)),
      ] as const;
      let status: number;
      try {
        const [p, e, n, a, r] = passed;
        status = module.sr_handle_openai(this.#tool(), p.ptr, p.len, e.ptr, e.len, n.ptr, n.len, a.ptr, a.len, r.ptr, r.len);
      } finally {
        release(...passed);
      }
      return this.#outcome(status, provider);
    }
    const callText = JSON.stringify(call);
    if (callText === undefined) {
      throw new TypeError(`call must be a tool call object, got ${typeof call}`);
    }
    const passed = [
      pass(checkedProvider(provider)),
      pass(callText),
      pass(checkedReason(options?.finishReason)),
    ] as const;
    let status: number;
    try {
      const [p, c, r] = passed;
      status = module.sr_handle(this.#tool(), p.ptr, p.len, c.ptr, c.len, r.ptr, r.len);
    } finally {
      release(...passed);
    }
    return this.#outcome(status, provider);
  }

  /**
   * Reads a model's visible text turn for a call of this tool written as text (a chat
   * template's tool-call syntax: `<tool_call>`, `[TOOL_CALLS]`, …) and gives its verdict;
   * `null` when the text holds no such call. `finishReason` is read in `provider`'s spelling,
   * or in any provider's when none is named.
   */
  handleText(text: string, options?: HandleTextOptions): Outcome<R> | null {
    const module = exports();
    if (typeof text !== "string") throw new TypeError(`text must be a string, got ${typeof text}`);
    const provider = options?.provider;
    const passed = [
      pass(wellFormed(text, "text")),
      pass(checkedReason(options?.finishReason)),
      pass(provider === undefined ? "" : checkedProvider(provider)),
    ] as const;
    let status: number;
    try {
      const [t, r, p] = passed;
      status = module.sr_handle_text(this.#tool(), t.ptr, t.len, r.ptr, r.len, p.ptr, p.len);
    } finally {
      release(...passed);
    }
    return this.#outcome(status, provider ?? "claude");
  }

  /** Internal: the verdict on a call's arguments as the model sent them (`name` it was called
   * under, `limit` when it is the last call of a turn cut at the output-token limit), with
   * the payload as the parser accepted it (before the schema library's own parse). */
  [kArguments](name: string, args: string, limit: boolean): Verdict<R> | null {
    const module = exports();
    const passed = [pass(name), pass(escapedSurrogates(args))] as const;
    let status: number;
    try {
      const [n, a] = passed;
      status = module.sr_handle_arguments(this.#tool(), n.ptr, n.len, a.ptr, a.len, limit ? 1 : 0);
    } finally {
      release(...passed);
    }
    return this.#verdict(status, "openai-chat");
  }

  /** Internal: the verdict on a text turn (`limit` when it was cut at the output-token
   * limit), with the payload as the parser accepted it. */
  [kText](text: string, limit: boolean): Verdict<R> | null {
    const module = exports();
    const passed = [pass(wellFormed(text, "text")), pass(limit ? "length" : ""), pass("openai-chat")] as const;
    let status: number;
    try {
      const [t, r, p] = passed;
      status = module.sr_handle_text(this.#tool(), t.ptr, t.len, r.ptr, r.len, p.ptr, p.len);
    } finally {
      release(...passed);
    }
    return this.#verdict(status, "openai-chat");
  }

  /** Internal: where a call written as text may begin in `text` (a UTF-16 index), or -1. */
  [kTextCallStart](text: string): number {
    const module = exports();
    const passed = pass(text);
    let at: number;
    try {
      at = module.sr_text_call_start(this.#tool(), passed.ptr, passed.len);
    } finally {
      release(passed);
    }
    return at === 0xffffffff || at < 0 ? -1 : at;
  }

  #answer(status: number, provider: string): unknown {
    switch (status) {
      case Status.Answer:
        return answerJson<unknown>();
      case Status.NoCall:
        return null;
      case Status.NotACall:
        throw new CallShapeError(provider as Provider, answerText());
      case Status.UnknownProvider:
        throw new UnknownProviderError(answerText());
      default:
        throw new TypeError(answerText());
    }
  }

  #outcome(status: number, provider: string): Outcome<R> | null {
    return this.#verdict(status, provider)?.outcome ?? null;
  }

  #verdict(status: number, provider: string): Verdict<R> | null {
    const outcome = this.#answer(status, provider) as Outcome<R> | null;
    if (outcome === null) return null;
    const payload = outcome.accepted ? outcome.response : undefined;
    if (!outcome.accepted || this.#check === undefined) return { outcome, payload };
    const checked = this.#check(outcome.response);
    if ("value" in checked) {
      outcome.response = checked.value as R;
      return { outcome, payload };
    }
    const message = `failed to decode payload: ${checked.error}`;
    const rejected: Rejected = {
      accepted: false,
      errorClass: "payload",
      cause: null,
      message,
      trace: `payload error: ${message}`,
      toolResult: { error: message },
    };
    return { outcome: rejected, payload: undefined };
  }

  /** Frees the tool's memory in the WebAssembly module now, rather than when the object is
   * collected; the tool cannot be used after. */
  free(): void {
    if (this.#pointer === 0) return;
    collected?.unregister(this);
    exports().sr_tool_free(this.#pointer);
    this.#pointer = 0;
  }

  toString(): string {
    let text = `SubmitTool(name=${JSON.stringify(this.name)}, payload=${JSON.stringify(this.payload)}`;
    if (this.flat) text += ", flat";
    if (this.omitReasoning) text += ", omitReasoning";
    if (this.#description.omitFields.length > 0) {
      text += `, omitFields=${JSON.stringify(this.#description.omitFields)}`;
    }
    return `${text})`;
  }
}
