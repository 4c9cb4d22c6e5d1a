// What the README and the examples show holds: the example agent runs and prints what it says,
// and the README's table of the AI SDK alone beside the integration is what
// benches/ai_outcomes.mjs measures now.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { outcomes, totals } from "../benches/ai_outcomes.mjs";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

test("the example agent commits the recovered call after the model read the rejection", () => {
  const out = execFileSync(process.execPath, [new URL("../examples/ai_agent.mjs", import.meta.url).pathname], {
    encoding: "utf8",
  });
  assert.match(out, /^turn 1: rejected, the model read: failed to decode payload: /m);
  assert.match(out, /^turn 2: committed \{"verdict":"pass","grade":9\} \(recovered: hermes, stringified\)$/m);
  assert.match(out, /^the conversation keeps the call as \{"reasoning":"graded","result":\{"verdict":"pass","grade":9\}\}$/m);
});

test("the README's table is what the real cases give now", async () => {
  const table = totals(await outcomes());
  const count = (entry, outcome) => entry[outcome] ?? 0;
  const { accepted, rejected } = table;
  const noCall = table["no call"];
  // The integration: every accepted case committed with its value, every rejected one
  // answered with the parser's message, nothing committed wrong.
  assert.deepEqual(accepted.integration, { "committed =": accepted.cases });
  assert.deepEqual(rejected.integration, { retried: rejected.cases });
  assert.deepEqual(noCall.integration, noCall.sdk);
  const rows = [
    `| accepted | ${accepted.cases} | ${count(accepted.sdk, "committed =")} committed with the value, ${count(accepted.sdk, "committed !=")} with another value, ${count(accepted.sdk, "retried")} answered with an error, ${count(accepted.sdk, "ended")} ended without a call (text turns) | ${accepted.cases} committed with the value |`,
    `| rejected | ${rejected.cases} | ${count(rejected.sdk, "committed !=")} committed, ${count(rejected.sdk, "retried")} answered with an error, ${count(rejected.sdk, "ended")} ended without a call | ${rejected.cases} answered with the parser's message |`,
    `| no call of the tool | ${noCall.cases} | ${count(noCall.sdk, "retried")} answered with an error, ${count(noCall.sdk, "ended")} ended | the same (left to the SDK) |`,
  ];
  for (const row of rows) assert.ok(README.includes(row), row);
});
