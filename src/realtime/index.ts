// The real-time layer: context, store SPI and default Arrow store, writer, commit, scan, read.
export { RealtimeContext } from "./context.js";
export { ArrowRealtimeStore, ArrowRealtimeStoreFactory } from "./arrow-store.js";
export { RealtimeSnapshotOffsets, serializeOffsets, parseOffsets } from "./offsets.js";
export { REALTIME_OFFSET_FIELD, REALTIME_OFFSETS_PROPERTY } from "./types.js";
export type { OffsetRange, RealtimeCommitProgress, RealtimeMetrics, RealtimePartitionBucket } from "./types.js";
export type {
  RealtimeQueryContext,
  RealtimeReadView,
  RealtimeSegmentHandle,
  RealtimeStore,
  RealtimeStoreCreateRequest,
  RealtimeStoreDataUsage,
  RealtimeStoreFactory,
  RealtimeWriteBatch,
} from "./store.js";
export type { RealtimeSplit, RealtimeSplitInfo } from "./scan.js";
export { isRealtimeSplit } from "./scan.js";
export { RealtimeTableWrite, RealtimeTableWrite as RealtimeAppendTableWrite } from "./writer.js";
export type { RealtimeStatsMode, RealtimeStoreMode } from "./options.js";
