// Optimizes the module cargo built with binaryen's `wasm-opt -O3` (the npm package `binaryen`, a
// dev dependency) and writes it into dist/, where the package loads it from. The pass takes the
// module's time on a large call down by about an eighth and its size a little (BENCHMARKS.md);
// it enables only the WebAssembly features rustc's wasm32-unknown-unknown output already uses,
// so the module runs wherever the unoptimized one did.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";

const target = resolve(process.env.CARGO_TARGET_DIR ?? fileURLToPath(new URL("../target", import.meta.url)));
const built = resolve(target, "wasm32-unknown-unknown/release/submit_result.wasm");
const dist = new URL("../dist/", import.meta.url);
mkdirSync(dist, { recursive: true });
const wasmOpt = fileURLToPath(new URL("../node_modules/binaryen/bin/wasm-opt", import.meta.url));
const features = [
  "--enable-bulk-memory",
  "--enable-mutable-globals",
  "--enable-nontrapping-float-to-int",
  "--enable-sign-ext",
  "--enable-reference-types",
  "--enable-multivalue",
  "--enable-simd",
];
execFileSync(
  process.execPath,
  [wasmOpt, ...features, "-O3", built, "-o", fileURLToPath(new URL("submit_result.wasm", dist))],
  { stdio: "inherit" },
);
