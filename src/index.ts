/**
 * paimon-rt: Apache Paimon tables for every JavaScript runtime, with a real-time layer.
 *
 * This entry point is the full library. `paimon-rt/edge` exports the parts that
 * need no `node:` modules (for browsers and edge runtimes).
 * @packageDocumentation
 */
export { PaimonError } from "./error.js";
export type { PaimonErrorCode } from "./error.js";
export { Catalog, openRESTCatalog } from "./catalog/catalog.js";
export type { RESTCatalog, RESTCatalogOptions, RESTTag, RESTTableSnapshot } from "./catalog/rest-catalog.js";
export { Table } from "./table/table.js";
export type { SchemaChange } from "./table/schema-manager.js";
export type { SchemaInput, TableSchema } from "./spec/schema.js";
export type { Snapshot, CommitKind } from "./spec/snapshot.js";
export type { DataType, DataField } from "./spec/types.js";
export { parseDataType, typeToString } from "./spec/types.js";
export { variantFromJson, variantOf, variantToJson, variantToValue } from "./spec/variant.js";
export type { Variant, VariantJsValue } from "./spec/variant.js";
export { TableWrite, RowKind } from "./write/table-write.js";
export type { WriteTarget, TableWriteOptions } from "./write/table-write.js";
export { TableCommit } from "./commit/table-commit.js";
export type { RemoveOrphanFilesOptions, RemoveOrphanFilesResult } from "./commit/orphan-files.js";
export { CommitMessage } from "./commit/commit-message.js";
export type { ExpireOptions } from "./commit/expire.js";
export { TableScan } from "./scan/table-scan.js";
export type { ScanOptions } from "./scan/table-scan.js";
export type { DataSplit, Split, Plan } from "./scan/split.js";
export type { StreamTableScan, StreamPlan, StreamScanOptions, StreamReadOptions } from "./scan/stream-scan.js";
export type { DeletionFile } from "./read/kv-file-reader.js";
export { TableRead } from "./read/table-read.js";
export type { ReadOptions, BatchReader } from "./read/table-read.js";
export { col, and, or, not } from "./predicate/predicate.js";
export type { Predicate } from "./predicate/predicate.js";
export * from "./fs/index.js";
export { init } from "./init.js";
export type { InitOptions } from "./init.js";
export * from "./kernel/index.js";
export * from "./realtime/index.js";

// This entry is the server runtimes' (Node, Deno, Bun): what a process's first table read needs
// starts loading now, with the library, rather than on the read's critical path — the flat
// decoder's chunk (statically, with this module graph), zstd's package and the kernel module
// (their wasm compiles on V8's background threads). Nothing waits for it and nothing fails here:
// a host without WebAssembly (node --jitless) reports it on its first read, as before. Opening a
// table starts the same loads (table.ts) for the browser/edge entry, where they stay lazy.
import "./format/parquet-flat.js";
import { prefetchTableModules } from "./table/table.js";
prefetchTableModules();
