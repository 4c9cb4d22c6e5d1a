// The AI SDK alone beside the SDK with the integration, on every real case of the corpus.
//
// Each real case (a corpus vector with a `source`: a call a model sent, from a public bug
// report) is the first turn of two agents on the SDK's mock model (no network); a model asked
// again sends a clean call on its second turn:
//
// - the SDK alone, as a default user has it: the submit tool with the definition's parameters
//   as `jsonSchema(...)`, no repair function;
// - the SDK with `submit-result/ai`: middleware, tool, repair function, stop condition.
//
// Each run is classed by its first turn: `committed =` (the tool ran on the value the corpus
// expects), `committed !=` (on another value, or on any value where the corpus declines the
// call), `retried` (the model was asked again), or `ended` (the run ended with neither).
//
//     node benches/ai_outcomes.mjs           # the table per case, then the totals
//     node benches/ai_outcomes.mjs --totals  # the totals only

import { isDeepStrictEqual } from "node:util";

import { cleanTurn, firstTurn, instance, runAgent, runPlain } from "../tests/agent.js";
import { buildTool, REAL_CASES } from "../tests/corpus.js";

const OUTCOMES = ["committed =", "committed !=", "retried", "ended"];

function verdict(vector) {
  if (vector.expected.found === false) return "no call";
  return vector.expected.accepted ? "accepted" : "rejected";
}

/** The payload the plain tool committed: its input's payload parameter (or the input less
 * the reasoning, for a flat tool). */
function plainPayload(tool, input) {
  if (typeof input !== "object" || input === null) return input;
  if (!tool.flat) return input[tool.payload];
  const { reasoning: _, ...payload } = input;
  return payload;
}

function classify(vector, committed, value, asked) {
  if (committed) {
    const right = vector.expected.accepted && isDeepStrictEqual(value, vector.expected.response);
    return right ? "committed =" : "committed !=";
  }
  return asked ? "retried" : "ended";
}

export async function outcomes() {
  const rows = [];
  for (const vector of REAL_CASES) {
    const tool = buildTool(vector.options);
    const turns = [firstTurn(tool, vector), cleanTurn(tool, instance(tool.payloadSchema))];
    const plain = await runPlain(tool, turns);
    const result = plain.steps[0].toolResults.find((r) => r.toolName === tool.name);
    const sdk = classify(vector, result !== undefined, plainPayload(tool, result?.input), plain.steps[0].toolCalls.length > 0);
    const ours = await runAgent(tool, turns);
    const first = ours.steps[0].toolResults.find((r) => r.toolName === tool.name && r.output.accepted);
    const integration = classify(vector, first !== undefined, first?.output.response, ours.prompts.length > 1);
    rows.push({ name: vector.name, verdict: verdict(vector), sdk, integration });
  }
  return rows;
}

export function totals(rows) {
  const table = {};
  for (const row of rows) {
    table[row.verdict] ??= { cases: 0, sdk: {}, integration: {} };
    const entry = table[row.verdict];
    entry.cases += 1;
    entry.sdk[row.sdk] = (entry.sdk[row.sdk] ?? 0) + 1;
    entry.integration[row.integration] = (entry.integration[row.integration] ?? 0) + 1;
  }
  return table;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await outcomes();
  if (!process.argv.includes("--totals")) {
    for (const row of rows) console.log(`${row.name.slice(0, 66).padEnd(66)} ${row.verdict.padEnd(9)} ${row.sdk.padEnd(13)} ${row.integration}`);
    console.log();
  }
  const table = totals(rows);
  console.log(`| corpus verdict | cases | who | ${OUTCOMES.join(" | ")} |`);
  console.log(`|---|---:|---|${OUTCOMES.map(() => "---:").join("|")}|`);
  for (const [name, entry] of Object.entries(table)) {
    for (const who of ["sdk", "integration"]) {
      const label = who === "sdk" ? "the SDK alone" : "with submit-result/ai";
      const counts = OUTCOMES.map((o) => entry[who][o] ?? 0).join(" | ");
      console.log(`| ${who === "sdk" ? name : ""} | ${who === "sdk" ? entry.cases : ""} | ${label} | ${counts} |`);
    }
  }
}
