// `npm pack` of the package, checked: the tarball holds the WebAssembly module, the types and
// the JavaScript of every entry, and nothing from the build (no Rust sources, no target/, no
// TypeScript sources, no tests); then it is installed into an empty project and used from
// there, as a user gets it.

import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const here = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "submit-result-pack-"));
const [packed] = JSON.parse(
  execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: here, encoding: "utf8" }),
);
const files = packed.files.map((file) => file.path).sort();

const wanted = [
  "README.md",
  "dist/ai-node.d.ts",
  "dist/ai-node.js",
  "dist/ai.d.ts",
  "dist/ai.js",
  "dist/index.d.ts",
  "dist/index.js",
  "dist/node.d.ts",
  "dist/node.js",
  "dist/submit_result.wasm",
  "dist/wasm.d.ts",
  "dist/wasm.js",
  "package.json",
];
const missing = wanted.filter((file) => !files.includes(file));
const extra = files.filter((file) => !wanted.includes(file));
if (missing.length > 0 || extra.length > 0) {
  console.error(`npm pack: missing ${JSON.stringify(missing)}, not wanted ${JSON.stringify(extra)}`);
  process.exit(1);
}
const wasm = packed.files.find((file) => file.path === "dist/submit_result.wasm");
console.log(`npm pack: ${packed.filename}, ${files.length} files, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked (the module ${wasm.size} bytes)`);

// Installed from the tarball into an empty project, and used.
writeFileSync(join(work, "package.json"), JSON.stringify({ name: "user", private: true, type: "module" }));
execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", join(work, packed.filename)], { cwd: work });
writeFileSync(
  join(work, "use.mjs"),
  `import { SubmitTool } from "submit-result";
const tool = new SubmitTool({ type: "object", properties: { answer: { type: "string" } } });
const outcome = tool.handle("claude", { type: "tool_use", id: "t", name: "submit_result",
  input: { reasoning: "r", result: '{"answer": "42"}' } });
if (!outcome.accepted || outcome.response.answer !== "42") throw new Error(JSON.stringify(outcome));
console.log("npm pack: the installed package handled a call");
`,
);
execFileSync(process.execPath, ["use.mjs"], { cwd: work, stdio: "inherit" });
