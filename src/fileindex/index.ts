// Paimon data-file indexes (`file-index.*`): bloom filters and bitmaps, Java-compatible.
export { fileIndexSpecOf, DEFAULT_IN_MANIFEST_THRESHOLD, IN_MANIFEST_THRESHOLD_KEY } from "./options.js";
export type { FileIndexColumnSpec, FileIndexSpec } from "./options.js";
export { FileIndexBuilder } from "./builder.js";
export { fileIndexMayMatch } from "./evaluate.js";
export { readFileIndexHeader, serializeFileIndex, indexPayload, FILE_INDEX_MAGIC, FILE_INDEX_VERSION } from "./format.js";
export type { ColumnIndexes, FileIndexHeader, IndexLocation } from "./format.js";
export { BloomFilter64, wangHash64, literalHashes, BLOOM_FILTER } from "./bloom-filter.js";
export { BitmapIndexReader, BITMAP, BITMAP_DEFAULT_VERSION } from "./bitmap-index.js";
export { BitmapIndexWriter } from "./bitmap-index-writer.js";
export type { BitmapKey } from "./bitmap-index.js";
