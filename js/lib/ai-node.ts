// The AI SDK integration's Node entry: loads the WebAssembly module, as the package's Node
// entry does, before the integration is used.

import "./node.js";

export * from "./ai.js";
