// Data-file format layer: Parquet read/write with Paimon's conventions, footer statistics,
// and lazy parquet-wasm initialization.

export {
  ParquetFileWriter,
  writeParquet,
  type ParquetColumnStats,
  type ParquetCompression,
  type ParquetWriteOptions,
  type ParquetWriteResult,
} from "./parquet-writer.js";
export { readParquet, readParquetBatches, fileFieldIds, type ParquetReadOptions } from "./parquet-reader.js";
export {
  compareStatValues,
  footerStatistics,
  readParquetFooter,
  readParquetStatistics,
  statisticsForFields,
  type ParquetFooter,
  type ParquetLeafStatistics,
  type ParquetRowGroupStatistics,
  type ParquetStatistics,
} from "./parquet-stats.js";
export {
  ColumnStatsCollector,
  DEFAULT_STATS_MODE,
  parseStatsMode,
  truncateMax,
  truncateMin,
  type ColumnStats,
  type StatsMode,
} from "./column-stats.js";
export {
  STRUCTURED_TYPE_FIELD_ID_BASE,
  arrayElementFieldId,
  convertData,
  makeNullData,
  mapKeyFieldId,
  mapValueFieldId,
  parquetArrowField,
  parquetArrowSchema,
  readArrowField,
} from "./arrow-types.js";
export { fileIOSource, type ParquetSource, type RandomAccessSource } from "./source.js";
export {
  getParquetWasm,
  isWasmTrap,
  parquetWasmRestarts,
  resetParquetWasm,
  setParquetWasmSource,
  withParquetWasm,
  type ParquetWasm,
  type ParquetWasmSource,
} from "./wasm.js";
