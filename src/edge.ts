/**
 * paimon-rt for browsers and edge runtimes: everything here avoids `node:` modules.
 * On runtimes that refuse to compile wasm from bytes at request time, call
 * `initKernels(module)` with a statically imported `paimon_rt_kernels.wasm` module.
 * @packageDocumentation
 */
export { PaimonError } from "./error.js";
export type { PaimonErrorCode } from "./error.js";
export * from "./kernel/index.js";
