/**
 * paimon-rt: Apache Paimon tables for every JavaScript runtime, with a real-time layer.
 *
 * This entry point is the full library. `paimon-rt/edge` exports the parts that
 * need no `node:` modules (for browsers and edge runtimes).
 * @packageDocumentation
 */
export { PaimonError } from "./error.js";
export type { PaimonErrorCode } from "./error.js";
export * from "./kernel/index.js";
