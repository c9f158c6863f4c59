// The real-time layer: context, store SPI and default Arrow store, writer, commit, scan, read.
// Its public face: RealtimeContext comes from here, and importing it connects TableScan and
// TableRead to the real-time scan and read (hooks.ts), so the layers below never import this one
// and a query-only bundle (edge.ts), which cannot create a context, leaves it all out.
import { installRealtimeHooks } from "./hooks.js";
import { checkRealtimeRead, createRealtimeReader } from "./read.js";
import { checkRealtimeScan, planRealtimeScan } from "./scan.js";

installRealtimeHooks({ checkRealtimeScan, planRealtimeScan, checkRealtimeRead, createRealtimeReader });

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
export { isRealtimeSplit } from "./hooks.js";
export { RealtimeTableWrite, RealtimeTableWrite as RealtimeAppendTableWrite } from "./writer.js";
export type { RealtimeStatsMode, RealtimeStoreMode } from "./options.js";
