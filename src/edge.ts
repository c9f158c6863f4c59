/**
 * paimon-rt for browsers and edge runtimes: everything here avoids `node:` modules.
 * Open warehouses over `http(s)://` (read-only, with a custom `fetch` / headers through
 * `HttpFileIO`), `memory://` or a custom FileIO. On hosts that refuse to compile wasm from bytes
 * or to fetch it by URL (Cloudflare Workers), first `await init({ kernels, parquet })` with the
 * statically imported `paimon-rt/kernels.wasm` and `parquet-wasm/esm/parquet_wasm_bg.wasm`.
 * @packageDocumentation
 */
export { PaimonError } from "./error.js";
export type { PaimonErrorCode } from "./error.js";
export { Catalog, openRESTCatalog } from "./catalog/catalog.js";
export type { RESTCatalog, RESTCatalogOptions, RESTTag, RESTTableSnapshot } from "./catalog/rest-catalog.js";
export { Table } from "./table/table.js";
export type { TableSchema } from "./spec/schema.js";
export type { Snapshot, CommitKind } from "./spec/snapshot.js";
export type { DataType, DataField } from "./spec/types.js";
export { parseDataType, typeToString } from "./spec/types.js";
export { variantFromJson, variantOf, variantToJson, variantToValue } from "./spec/variant.js";
export type { Variant, VariantJsValue } from "./spec/variant.js";
export { TableScan } from "./scan/table-scan.js";
export type { ScanOptions } from "./scan/table-scan.js";
export type { DataSplit, Split, Plan } from "./scan/split.js";
export type { StreamTableScan, StreamPlan, StreamScanOptions, StreamReadOptions } from "./scan/stream-scan.js";
export type { DeletionFile } from "./read/kv-file-reader.js";
export { TableRead } from "./read/table-read.js";
export type { ReadOptions, BatchReader } from "./read/table-read.js";
export { col, and, or, not } from "./predicate/predicate.js";
export type { Predicate } from "./predicate/predicate.js";
export { RowKind } from "./spec/row-kind.js";
export { init } from "./init.js";
export type { InitOptions } from "./init.js";
// The file systems a query-only user picks from; the internal path and error helpers stay internal.
export type { FileIO, FileStatus, FileContent, FileIOFactory, ResolvedLocation } from "./fs/file-io.js";
export { registerFileIOFactory } from "./fs/file-io.js";
// (importing these modules registers the memory:// and http(s):// warehouse factories)
export { MemoryFileIO } from "./fs/memory-file-io.js";
export type { MemoryFileIOOptions } from "./fs/memory-file-io.js";
export { HttpFileIO } from "./fs/http-file-io.js";
export type { HttpFileIOOptions } from "./fs/http-file-io.js";
// s3:// and s3a:// (read and write; signed with SigV4 through WebCrypto)
export { S3FileIO } from "./fs/s3-file-io.js";
export type { S3FileIOOptions, S3Options } from "./fs/s3-file-io.js";
export * from "./kernel/index.js";
