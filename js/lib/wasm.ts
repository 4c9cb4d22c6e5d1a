// The WebAssembly module and the conversion at its edge: strings in as UTF-8, answers out as
// JSON or text. Nothing here knows what a call or an outcome is.

/** What `init` takes: the module's bytes, a compiled module, a URL (or its text) to fetch it
 * from, or a fetch `Response`. */
export type WasmSource =
  | BufferSource
  | WebAssembly.Module
  | URL
  | string
  | Response
  | PromiseLike<Response>;

/** The exports of `submit_result.wasm` (its C ABI). */
interface Exports {
  memory: WebAssembly.Memory;
  sr_alloc(len: number): number;
  sr_free(ptr: number, len: number): void;
  sr_answer_ptr(): number;
  sr_answer_len(): number;
  sr_status(): number;
  sr_tool_new(schema: number, schemaLen: number, options: number, optionsLen: number): number;
  sr_tool_free(tool: number): void;
  sr_definition(tool: number, provider: number, providerLen: number): number;
  sr_handle(
    tool: number,
    provider: number,
    providerLen: number,
    call: number,
    callLen: number,
    reason: number,
    reasonLen: number,
  ): number;
  sr_handle_openai(
    tool: number,
    provider: number,
    providerLen: number,
    envelope: number,
    envelopeLen: number,
    name: number,
    nameLen: number,
    args: number,
    argsLen: number,
    reason: number,
    reasonLen: number,
  ): number;
  sr_handle_arguments(
    tool: number,
    name: number,
    nameLen: number,
    args: number,
    argsLen: number,
    limit: number,
  ): number;
  sr_handle_text(
    tool: number,
    text: number,
    textLen: number,
    reason: number,
    reasonLen: number,
    provider: number,
    providerLen: number,
  ): number;
  sr_text_call_start(tool: number, text: number, textLen: number): number;
}

/** What an export's answer holds (the module's `Status`). */
export const Status = {
  Answer: 0,
  NoCall: 1,
  NotACall: 2,
  BuildError: 3,
  UnknownProvider: 4,
  Invalid: 5,
} as const;

/** Thrown when the package is used before its WebAssembly module is loaded. */
export class NotInitializedError extends Error {
  constructor() {
    super(
      "the submit-result WebAssembly module is not loaded: call `await init()` (or `initSync(bytes)`) first, or import the package from Node, which loads it itself",
    );
    this.name = "NotInitializedError";
  }
}

let wasm: Exports | undefined;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

/** The module's exports, or the error saying to load it. */
export function exports(): Exports {
  if (wasm === undefined) throw new NotInitializedError();
  return wasm;
}

/** Whether the module is loaded. */
export function initialized(): boolean {
  return wasm !== undefined;
}

/** The module's one import: random bytes (its JSON Schema validator seeds its hash maps),
 * from `crypto.getRandomValues` at most 65,536 bytes at a time. */
function imports(memory: () => WebAssembly.Memory): WebAssembly.Imports {
  return {
    env: {
      sr_random(ptr: number, len: number): void {
        for (let at = 0; at < len; at += 65536) {
          const size = Math.min(65536, len - at);
          crypto.getRandomValues(new Uint8Array(memory().buffer, ptr + at, size));
        }
      },
    },
  };
}

/** An instance of `module` (or of the bytes) with its import bound to its own memory. */
function link(): { imports: WebAssembly.Imports; bind: (instance: WebAssembly.Instance) => WebAssembly.Instance } {
  let memory: WebAssembly.Memory | undefined;
  return {
    imports: imports(() => {
      if (memory === undefined) throw new NotInitializedError();
      return memory;
    }),
    bind(instance) {
      memory = (instance.exports as unknown as Exports).memory;
      return instance;
    },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

function isResponse(value: unknown): value is Response {
  return typeof Response === "function" && value instanceof Response;
}

async function instantiate(source: WasmSource): Promise<WebAssembly.Instance> {
  const { imports, bind } = link();
  if (source instanceof WebAssembly.Module) {
    return bind(await WebAssembly.instantiate(source, imports));
  }
  let fetched: unknown = source;
  if (typeof source === "string" || source instanceof URL) fetched = fetch(source);
  if (isThenable(fetched)) fetched = await fetched;
  if (isResponse(fetched)) {
    const response = fetched;
    if (!response.ok) {
      throw new Error(
        `could not fetch the submit-result WebAssembly module: ${response.status} ${response.statusText} from ${response.url}`,
      );
    }
    const type = response.headers.get("content-type") ?? "";
    if (typeof WebAssembly.instantiateStreaming === "function" && type.startsWith("application/wasm")) {
      try {
        return bind((await WebAssembly.instantiateStreaming(response, imports)).instance);
      } catch (error) {
        // A runtime whose Response is not the one its WebAssembly takes refuses it before
        // reading the body: the bytes are compiled as they are.
        if (!(error instanceof TypeError) || response.bodyUsed) throw error;
      }
    }
    return bind((await WebAssembly.instantiate(await response.arrayBuffer(), imports)).instance);
  }
  return bind((await WebAssembly.instantiate(source as BufferSource, imports)).instance);
}

/**
 * Loads the WebAssembly module: from `source` (its bytes, a compiled `WebAssembly.Module`, a
 * URL to fetch, or a `Response`), or without one from `submit_result.wasm` beside this file
 * (as browsers, Deno and bundlers resolve `import.meta.url`). Calling it again does nothing.
 *
 * ```ts
 * import { init, SubmitTool } from "submit-result";
 * import wasm from "submit-result/submit_result.wasm"; // a WebAssembly.Module on Workers
 * await init(wasm);
 * ```
 */
export async function init(source?: WasmSource): Promise<void> {
  if (wasm !== undefined) return;
  const instance = await instantiate(source ?? new URL("./submit_result.wasm", import.meta.url));
  wasm ??= instance.exports as unknown as Exports;
}

/**
 * Loads the WebAssembly module synchronously from its bytes or a compiled
 * `WebAssembly.Module`: for a runtime that hands the module over at import (Cloudflare
 * Workers), or a file read synchronously. Calling it again does nothing.
 */
export function initSync(source: BufferSource | WebAssembly.Module): void {
  if (wasm !== undefined) return;
  const module = source instanceof WebAssembly.Module ? source : new WebAssembly.Module(source);
  const { imports, bind } = link();
  wasm = bind(new WebAssembly.Instance(module, imports)).exports as unknown as Exports;
}

/** A string written into the module's memory: its place, length and the size taken. */
export interface Passed {
  ptr: number;
  len: number;
  size: number;
}

/** Writes `text` as UTF-8 into memory the module gives; free it with `release`. */
export function pass(text: string): Passed {
  const module = exports();
  if (text.length === 0) return { ptr: 0, len: 0, size: 0 };
  // UTF-8 takes at most three bytes for each UTF-16 code unit.
  const size = text.length * 3;
  const ptr = module.sr_alloc(size);
  if (ptr === 0) throw new RangeError(`cannot take ${size} bytes of WebAssembly memory for the text`);
  const { written } = encoder.encodeInto(text, new Uint8Array(module.memory.buffer, ptr, size));
  return { ptr, len: written, size };
}

/** Frees what `pass` took. */
export function release(...passed: Passed[]): void {
  const module = exports();
  for (const { ptr, size } of passed) {
    if (size > 0) module.sr_free(ptr, size);
  }
}

/** The last answer as text. */
export function answerText(): string {
  const module = exports();
  const ptr = module.sr_answer_ptr();
  const len = module.sr_answer_len();
  return decoder.decode(new Uint8Array(module.memory.buffer, ptr, len));
}

/** The last answer as its JSON value. */
export function answerJson<T>(): T {
  return JSON.parse(answerText()) as T;
}
