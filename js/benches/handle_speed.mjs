// `handle` of a clean 8 KiB OpenAI Chat call beside `JSON.parse` of its arguments plus reading
// the payload member, timed side by side in one process (alternating rounds, the best of each),
// with the same call and schema as the Python package's benches/handle_speed.py.
//
//     npm run build && node benches/handle_speed.mjs [--size BYTES] [--against DIST]
//
// `--against` loads another build of the package (its dist/ folder, e.g. of an earlier commit
// built in another checkout) into the same process and times its `handle` beside this one's.
//
// Prints each time and its ratio to the baseline (the goal is at most 1.5x), with handle's
// parts timed beside it, and handle of the same call written whole as JSON (as every call was
// before the OpenAI argument text went to the module apart).

import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

import { SubmitTool } from "submit-result";
// The package's own module (the same instance the package loaded), to time its parts.
import { answerText, exports, pass, release } from "../dist/wasm.js";

const SCHEMA = {
  type: "object",
  properties: {
    summary: { type: "string" },
    findings: {
      type: "array",
      items: {
        type: "object",
        properties: {
          id: { type: "integer" },
          title: { type: "string" },
          severity: { type: "string", enum: ["low", "medium", "high"] },
          score: { type: "number" },
          tags: { type: "array", items: { type: "string" } },
        },
        required: ["id", "title", "severity", "score", "tags"],
      },
    },
  },
  required: ["summary", "findings"],
};

/** A payload of the schema whose call arguments are about `size` bytes of JSON. */
function payloadOfSize(size) {
  const findings = [];
  const payload = { summary: "The review found the issues below.", findings };
  while (JSON.stringify(payload).length < size) {
    const n = findings.length;
    findings.push({
      id: n,
      title: `Finding ${n}: the handler reads the body twice`,
      severity: ["low", "medium", "high"][n % 3],
      score: n / 7,
      tags: ["io", "parser", `t${n}`],
    });
  }
  return payload;
}

/** The best time per run (seconds) of each function, in alternating rounds: many short rounds,
 * so that on a busy machine some round of each runs unpreempted. */
function sideBySide(functions, number = 20, rounds = 60) {
  const best = functions.map(() => Infinity);
  for (let round = 0; round < rounds; round++) {
    functions.forEach((run, i) => {
      const start = process.hrtime.bigint();
      for (let k = 0; k < number; k++) run();
      best[i] = Math.min(best[i], Number(process.hrtime.bigint() - start) / 1e9 / number);
    });
  }
  return best;
}

const sizeAt = process.argv.indexOf("--size");
const size = sizeAt > 0 ? Number(process.argv[sizeAt + 1]) : 8192;
const tool = new SubmitTool(SCHEMA);
const text = JSON.stringify({ reasoning: "All findings checked.", result: payloadOfSize(size) });
const call = { id: "call_1", type: "function", function: { name: "submit_result", arguments: text } };
// The same call behind another prototype: `handle` writes it whole as JSON for the module (as
// it writes any call that is no plain object), the way every call went before.
const written = Object.assign(Object.create({}), call);

let sink;
const ours = () => {
  sink = tool.handle("openai-chat", call).response;
};
const baseline = () => {
  sink = JSON.parse(call.function.arguments).result;
};
const whole = () => {
  sink = tool.handle("openai-chat", written).response;
};
const outcome = tool.handle("openai-chat", call);
if (outcome.accepted !== true) throw new Error("the call is not accepted");
// handle's own steps, timed beside it: the call's envelope written as JSON, the module alone
// (the exports handle calls, on text already in its memory), and the outcome's JSON read back.
const module = exports();
const envelope = JSON.stringify({ ...call, function: { ...call.function, arguments: "" } });
const passed = [pass("openai-chat"), pass(envelope), pass("submit_result"), pass(text)];
// The same tool in the module, built through its export as the constructor builds it.
const [schemaText, optionsText] = [pass(JSON.stringify(SCHEMA)), pass("{}")];
const toolPointer = module.sr_tool_new(schemaText.ptr, schemaText.len, optionsText.ptr, optionsText.len);
release(schemaText, optionsText);
const inModule = () => {
  const [p, e, n, a] = passed;
  sink = module.sr_handle_openai(toolPointer, p.ptr, p.len, e.ptr, e.len, n.ptr, n.len, a.ptr, a.len, 0, 0);
};
inModule();
const answer = answerText();
const writeEnvelope = () => {
  sink = JSON.stringify({ ...call, function: { ...call.function, arguments: "" } });
};
const readBack = () => {
  sink = JSON.parse(answer);
};
const againstAt = process.argv.indexOf("--against");
// Passing the argument text alone: the module's memory taken, the text written with
// `encodeInto`, the memory freed.
const passText = () => {
  release(pass(text));
};
const timed = [ours, baseline, whole, writeEnvelope, inModule, readBack, passText];
if (againstAt > 0) {
  const dist = pathToFileURL(`${resolve(process.argv[againstAt + 1])}/`);
  const { SubmitTool: Other } = await import(new URL("node.js", dist).href);
  const other = new Other(SCHEMA);
  timed.push(() => {
    sink = other.handle("openai-chat", call).response;
  });
}
const [handle, parse, before, env, alone, read, passing, against] = sideBySide(timed);
release(...passed);
module.sr_tool_free(toolPointer);
const us = (seconds) => `${(seconds * 1e6).toFixed(1).padStart(6)} µs`;
const x = (seconds) => `${(seconds / parse).toFixed(2)}x`;
console.log(`arguments: ${text.length} bytes`);
console.log(`handle:                          ${us(handle)}  ${x(handle)} (goal at most 1.5x)`);
console.log(`JSON.parse + payload read:       ${us(parse)}  1.00x`);
console.log(`handle, the call written whole:  ${us(before)}  ${x(before)}`);
console.log(`of handle: the envelope's JSON   ${us(env)}  ${x(env)}`);
console.log(`           the module alone      ${us(alone)}  ${x(alone)}`);
console.log(`           JSON.parse(answer)    ${us(read)}  ${x(read)}`);
console.log(`           the rest (glue)       ${us(handle - env - alone - read)}`);
console.log(`           of it, the text passed ${us(passing)}`);
if (against !== undefined) console.log(`handle of the --against build:   ${us(against)}  ${x(against)}`);
void sink;
