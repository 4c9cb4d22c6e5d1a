// The Node entry (also Bun's and Deno's through the `node` export condition): the same API,
// with the WebAssembly module read from the file beside this one at import.

import { readFileSync } from "node:fs";

import { initSync } from "./wasm.js";

initSync(readFileSync(new URL("./submit_result.wasm", import.meta.url)));

export * from "./index.js";
