// Bundle entry for the browser page and the worker: the public edge API plus the shared queries.
export * as pr from "../../src/edge.ts";
export { runHostQueries, runRESTQueries } from "./queries.mjs";
// internals the suites use to force a wasm panic and see the instance replaced
export { withParquetWasm, parquetWasmRestarts } from "../../src/format/wasm.ts";
