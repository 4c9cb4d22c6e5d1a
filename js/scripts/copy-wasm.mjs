// Copies the module cargo built into dist/, where the package loads it from.
import { copyFileSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";

const target = resolve(process.env.CARGO_TARGET_DIR ?? new URL("../target", import.meta.url).pathname);
const dist = new URL("../dist/", import.meta.url);
mkdirSync(dist, { recursive: true });
copyFileSync(resolve(target, "wasm32-unknown-unknown/release/submit_result.wasm"), new URL("submit_result.wasm", dist));
