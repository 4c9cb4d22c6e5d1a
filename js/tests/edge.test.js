// The package inside an edge runtime: Vercel's `edge-runtime` (the context its Edge Functions
// run in: web APIs only, no `fs`, no `process`), with the package's own ES modules linked into
// that context as the runtime's bundler would load them (the browser/edge entry, which reads
// nothing from the disk), the module handed over as a fetch `Response`, as `init` takes it.
//
// Needs `node --experimental-vm-modules` (node:vm's SourceTextModule).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

import { EdgeRuntime } from "edge-runtime";



const DIST = new URL("../dist/", import.meta.url);

test("the package loads and handles a call inside the edge runtime", async () => {
  const edge = new EdgeRuntime();
  const context = edge.context;
  assert.equal(typeof context.process, "undefined", "the edge context has no process");
  const modules = new Map();
  const load = (name) => {
    if (!modules.has(name)) {
      const source = readFileSync(new URL(name, DIST), "utf8");
      modules.set(
        name,
        new vm.SourceTextModule(source, {
          context,
          identifier: new URL(name, DIST).href,
          initializeImportMeta: (meta) => {
            meta.url = new URL(name, DIST).href;
          },
        }),
      );
    }
    return modules.get(name);
  };
  const entry = load("index.js");
  await entry.link((specifier) => load(specifier.replace(/^\.\//, "")));
  await entry.evaluate();
  const api = entry.namespace;

  // The module's bytes as an edge function gets them: a Response of the edge context.
  context.wasmBytes = new Uint8Array(readFileSync(new URL("submit_result.wasm", DIST)));
  const response = edge.evaluate(`new Response(wasmBytes, { headers: { "content-type": "application/wasm" } })`);
  assert.throws(() => new api.SubmitTool({ type: "object" }), { name: "NotInitializedError" });
  await api.init(response);

  const tool = new api.SubmitTool({ type: "object", properties: { answer: { type: "string" } }, required: ["answer"] });
  const outcome = tool.handle("openai-chat", {
    id: "call_1",
    type: "function",
    function: { name: "submit_result", arguments: '{"reasoning": "checked", "result": "{\\"answer\\": \\"42\\"}"}' },
  });
  assert.equal(outcome.accepted, true);
  assert.equal(JSON.stringify(outcome.response), '{"answer":"42"}');
  assert.equal(outcome.recovery, "stringified");
  const text = tool.handleText('<tool_call>{"name": "submit_result", "arguments": {"reasoning": "r", "result": {"answer": 7}}}</tool_call>');
  assert.equal(text.accepted, false);
  assert.equal(text.errorClass, "payload");
});
