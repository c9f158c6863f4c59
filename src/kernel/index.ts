// The kernel layer: hot paths in wasm (built from wasm/), plain-TypeScript references beside them.
export { initKernels, kernelExports, kernelSourceHash, kernelWasmBytes } from "./wasm.js";
export type { KernelExports } from "./wasm.js";
export { keyColumnFromArrow, keyColumnFromValues, keyValue, isNull } from "./columns.js";
export type { KeyColumn, KeyColumnType, KeyValue } from "./columns.js";
export { sortPermutation } from "./sort.js";
export { mergeDeduplicate } from "./merge.js";
export type { MergeOptions, MergeResult, SortedRun } from "./merge.js";
export { assignBuckets, fingerprintKeys, wangHash64Values, xxh64Values } from "./hash.js";
export * as reference from "./reference.js";
export { OffsetSet64, RoaringBitmap32 } from "./bitmap.js";
export type { RunOptimizeTieRule } from "./bitmap.js";
export {
  DELETION_VECTOR_INDEX_VERSION,
  DELETION_VECTOR_MAGIC_32,
  DELETION_VECTOR_MAGIC_64,
  MAX_POSITION_32,
  crc32,
  deletionVectorLength,
  deserializeDeletionVector,
  readDeletionVector,
  serializeDeletionVector32,
  serializeDeletionVector64,
} from "./deletion-vector.js";
export type { DeletionVector, DeserializeDeletionVectorOptions } from "./deletion-vector.js";
