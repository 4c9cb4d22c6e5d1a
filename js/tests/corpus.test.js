// Every vector of `submit-core/tests/corpus/*.json` through `handle` and `handleText`, compared
// with the vector's expected verdict field by field, as the Rust corpus runner
// (`submit-core/src/parse/tests/corpus.rs`) compares it.
//
// A vector with a `schema` option builds its tool from that document, as Rust does, and every
// field is compared exactly. A vector without one runs in Rust against the sample type, decoded
// by serde; here the tool is built from the JSON Schema that type reflects to, and two things
// serde does are applied before comparing: an accepted response keeps only the sample's fields
// that are not null, and a payload error's message is compared by its prefix
// `failed to decode payload: ` (serde and the JSON Schema validator word the same mistake
// differently). Everything else is compared exactly.
//
// Rust's `handle` answers a call object that is not in the provider's shape (a text block, a
// message item) with a rejection `failed to parse tool arguments: <shape error>`; this package
// follows the door, for which that is the caller's mistake: `handle` throws `CallShapeError`,
// whose message must be that rejection's after its prefix.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { CallShapeError } from "submit-result";

import { buildTool, cases, SAMPLE_SCHEMA, VECTORS } from "./corpus.js";

const DEFAULT_SUCCESS = "Result submitted successfully.";
const DECODE = "failed to decode payload: ";
const NOT_A_CALL = "failed to parse tool arguments: ";

/** An outcome with the sample type's decode applied (see the file's comment). */
function asSample(outcome) {
  if (!outcome.accepted || typeof outcome.response !== "object" || outcome.response === null) return outcome;
  const response = Object.fromEntries(
    Object.entries(outcome.response).filter(
      ([key, value]) => key in SAMPLE_SCHEMA.properties && value !== null,
    ),
  );
  return { ...outcome, response };
}

/** The mismatches of `outcome` with `expected`, as corpus.rs lists them. */
function check(outcome, expected, success, payload, typed) {
  const wrong = [];
  if (typed) outcome = asSample(outcome);
  const differ = (key, got, want) => {
    try {
      assert.deepStrictEqual(got, want);
    } catch {
      wrong.push(`${key}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
  };
  differ("accepted", outcome.accepted, expected.accepted);
  if (outcome.accepted !== expected.accepted) {
    wrong.push(`outcome: ${JSON.stringify(outcome)}`);
    return wrong;
  }
  if (expected.accepted) {
    for (const key of ["response", "reasoning", "recovery"]) {
      if (key in expected) differ(key, outcome[key], expected[key]);
    }
    const implied = typeof expected.recovery === "string" ? [{ kind: expected.recovery, parameters: [payload] }] : [];
    differ("recoveries", outcome.recoveries, expected.recoveries ?? implied);
    differ("tool_result", outcome.toolResult, expected.tool_result ?? { success: true, message: success });
    return wrong;
  }
  if ("class" in expected) differ("class", outcome.errorClass, expected.class);
  if ("cause" in expected) differ("cause", outcome.cause, expected.cause);
  differ("tool_result", outcome.toolResult, { error: outcome.message });
  if (!("trace" in expected) && outcome.trace !== `${outcome.errorClass} error: ${outcome.message}`) {
    wrong.push(`trace: got ${JSON.stringify(outcome.trace)}, want the displayed error`);
  }
  if (typed && outcome.errorClass === "payload") {
    if (!outcome.message.startsWith(DECODE)) wrong.push(`error ${outcome.message} does not start with ${DECODE}`);
    return wrong;
  }
  if ("error" in expected) differ("error", outcome.message, expected.error);
  if ("trace" in expected) differ("trace", outcome.trace, expected.trace);
  for (const part of expected.error_contains ?? []) {
    if (!outcome.message.includes(part)) wrong.push(`error ${JSON.stringify(outcome.message)} lacks ${JSON.stringify(part)}`);
  }
  for (const part of expected.trace_contains ?? []) {
    if (!outcome.trace.includes(part)) wrong.push(`trace ${JSON.stringify(outcome.trace)} lacks ${JSON.stringify(part)}`);
  }
  for (const part of expected.trace_lacks ?? []) {
    if (outcome.trace.includes(part)) wrong.push(`trace ${JSON.stringify(outcome.trace)} holds ${JSON.stringify(part)}`);
  }
  return wrong;
}

/** The mismatches of a `CallShapeError` with the rejection the vector expects. */
function checkShape(error, expected) {
  const wrong = [];
  const message = NOT_A_CALL + error.message;
  if (expected.accepted !== false) wrong.push(`threw ${error.message}, want accepted`);
  if ("class" in expected && expected.class !== "parameter") wrong.push(`class: want ${expected.class}`);
  if ("cause" in expected && expected.cause !== "undecodable_arguments") wrong.push(`cause: want ${expected.cause}`);
  if ("error" in expected && expected.error !== message) wrong.push(`error: got ${message}, want ${expected.error}`);
  for (const part of expected.error_contains ?? []) {
    if (!message.includes(part)) wrong.push(`error ${message} lacks ${part}`);
  }
  return wrong;
}

describe("every corpus vector through the package", () => {
  it("reads the whole corpus, each name once", () => {
    const names = VECTORS.map((vector) => vector.name);
    assert.ok(names.length >= 500, `${names.length} vectors`);
    assert.equal(new Set(names).size, names.length);
  });

  let shapeErrors = 0;
  for (const vector of VECTORS) {
    it(vector.name, () => {
      const options = vector.options ?? {};
      const tool = buildTool(options);
      const success = options.success ?? DEFAULT_SUCCESS;
      const payload = options.payload ?? "analysis";
      const typed = !("schema" in options);
      const expected = vector.expected;
      if ("text" in vector) {
        const outcome = tool.handleText(vector.text, { finishReason: vector.stop, provider: vector.provider });
        if (expected.found === false) return assert.equal(outcome, null);
        assert.notEqual(outcome, null, "found no call");
        const wrong = check(outcome, expected, success, payload, typed);
        return assert.deepEqual(wrong, []);
      }
      for (const [provider, call] of cases(vector)) {
        let outcome;
        try {
          outcome = tool.handle(provider, call, { finishReason: vector.stop });
        } catch (error) {
          if (!(error instanceof CallShapeError)) throw error;
          shapeErrors += 1;
          assert.equal(error.provider, provider);
          assert.deepEqual(checkShape(error, expected), [], provider);
          continue;
        }
        if (expected.found === false) {
          assert.equal(outcome, null, provider);
          continue;
        }
        assert.notEqual(outcome, null, `${provider}: found no call`);
        assert.deepEqual(check(outcome, expected, success, payload, typed), [], provider);
      }
      tool.free();
    });
  }

  it("throws CallShapeError only for the calls not in their provider's shape", () => {
    // claude-wrong-block-type, claude-call-is-array, gemini-text-part,
    // gemini-function-call-not-object, openai-chat-function-missing,
    // openai-responses-message-item, chat-call-read-as-responses.
    assert.equal(shapeErrors, 7);
  });
});
