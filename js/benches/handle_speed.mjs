// `handle` of a clean 8 KiB OpenAI Chat call beside `JSON.parse` of its arguments plus reading
// the payload member, timed side by side in one process (alternating rounds, the best of each),
// with the same call and schema as the Python package's benches/handle_speed.py.
//
//     npm run build && node benches/handle_speed.mjs [--size BYTES]
//
// Prints each time and the ratio (the goal is at most 1.5x).

import { SubmitTool } from "submit-result";

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

/** The best time per run (seconds) of each function, in alternating rounds. */
function sideBySide(functions, number, rounds = 9) {
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

let sink;
const ours = () => {
  sink = tool.handle("openai-chat", call).response;
};
const baseline = () => {
  sink = JSON.parse(call.function.arguments).result;
};
const outcome = tool.handle("openai-chat", call);
if (outcome.accepted !== true) throw new Error("the call is not accepted");
// Two of handle's own steps, timed beside it: the call written as JSON for the module, and
// the outcome's JSON read back (the same text the module answers).
const answer = JSON.stringify(outcome);
const stringify = () => {
  sink = JSON.stringify(call);
};
const readBack = () => {
  sink = JSON.parse(answer);
};
const [handle, parse, written, read] = sideBySide([ours, baseline, stringify, readBack], 300);
const us = (seconds) => `${(seconds * 1e6).toFixed(1)} µs`;
console.log(`arguments: ${text.length} bytes`);
console.log(`handle:                          ${us(handle)}`);
console.log(`JSON.parse + payload read:       ${us(parse)}`);
console.log(`ratio: ${(handle / parse).toFixed(2)}x (goal at most 1.5x)`);
console.log(`of handle: JSON.stringify(call)  ${us(written)}`);
console.log(`           JSON.parse(outcome)   ${us(read)}`);
console.log(`           the module and glue   ${us(handle - written - read)}`);
void sink;
