// Copies the module cargo built into dist/, where the package loads it from.
import { copyFileSync, mkdirSync } from "node:fs";

const built = new URL("../target/wasm32-unknown-unknown/release/submit_result.wasm", import.meta.url);
const dist = new URL("../dist/", import.meta.url);
mkdirSync(dist, { recursive: true });
copyFileSync(built, new URL("submit_result.wasm", dist));
