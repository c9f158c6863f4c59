// The kernel layer: hot paths in wasm (built from wasm/), plain-TypeScript references beside them.
export { initKernels, kernelExports, kernelSourceHash, kernelWasmBytes } from "./wasm.js";
export type { KernelExports } from "./wasm.js";
export { keyColumnFromArrow, keyColumnFromValues, keyValue, isNull } from "./columns.js";
export type { KeyColumn, KeyColumnType, KeyValue } from "./columns.js";
export { sortPermutation } from "./sort.js";
export { mergeDeduplicate } from "./merge.js";
export type { MergeOptions, MergeResult, SortedRun } from "./merge.js";
export { assignBuckets, fingerprintKeys } from "./hash.js";
export * as reference from "./reference.js";
