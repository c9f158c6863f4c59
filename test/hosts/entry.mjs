// Bundle entry for the browser page and the worker: the public edge API plus the shared queries.
export * as pr from "../../src/edge.ts";
export { runHostQueries } from "./queries.mjs";
