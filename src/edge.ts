/**
 * paimon-rt for browsers and edge runtimes: everything here avoids `node:` modules.
 * Open warehouses over `memory://`, `http(s)://` or a custom FileIO. On runtimes that
 * refuse to compile wasm from bytes at request time, call `initKernels(module)` with a
 * statically imported `paimon_rt_kernels.wasm` module.
 * @packageDocumentation
 */
export { PaimonError } from "./error.js";
export type { PaimonErrorCode } from "./error.js";
export { Catalog } from "./catalog/catalog.js";
export { Table } from "./table/table.js";
export type { TableSchema } from "./spec/schema.js";
export type { Snapshot, CommitKind } from "./spec/snapshot.js";
export type { DataType, DataField } from "./spec/types.js";
export { parseDataType, typeToString } from "./spec/types.js";
export { TableScan } from "./scan/table-scan.js";
export type { ScanOptions } from "./scan/table-scan.js";
export type { DataSplit, Split, Plan } from "./scan/split.js";
export type { DeletionFile } from "./read/kv-file-reader.js";
export { TableRead } from "./read/table-read.js";
export type { ReadOptions, BatchReader } from "./read/table-read.js";
export { col, and, or, not } from "./predicate/predicate.js";
export type { Predicate } from "./predicate/predicate.js";
export * from "./fs/edge.js";
export * from "./kernel/index.js";
