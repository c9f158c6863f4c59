// The table's state and file-store access (Java's FileStoreTable minus its operations): schema,
// options, paths, snapshot/schema managers, manifests and the footer cache. Scan, read, write,
// commit and real-time code take this narrow type; the `Table` facade (table.ts) adds the
// operations on top, so the layers below it never import the facade.
import { FooterCache } from "../format/footer-cache.js";
import { ChunkCache } from "../format/chunk-cache.js";
import { PaimonError } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import type { TableSchema } from "../spec/schema.js";
import type { Snapshot } from "../spec/snapshot.js";
import type { DataField } from "../spec/types.js";
import { ManifestStore } from "./manifests.js";
import { TableOptions } from "./options.js";
import { TablePaths } from "./paths.js";
import { SchemaManager } from "./schema-manager.js";
import { SnapshotManager } from "./snapshot-manager.js";
import type { TimeTravel } from "./time-travel.js";

/** A Paimon table's state and file-store access; `Table` adds scans, reads, writes and commits. */
export class FileStoreTable {
  /** Options with Java's defaults and parsers. */
  readonly coreOptions: TableOptions;
  readonly paths: TablePaths;
  readonly snapshotManager: SnapshotManager;
  readonly schemaManager: SchemaManager;
  readonly manifestStore: ManifestStore;
  readonly partitionFields: DataField[];

  constructor(
    readonly fileIO: FileIO,
    /** "database.table" */
    readonly identifier: string,
    /** The table directory. */
    readonly location: string,
    /** The latest schema when the table was loaded (a time-travel view: its snapshot's schema). */
    readonly schema: TableSchema,
    /** Set on a time-travel view (`atSnapshot`): the snapshot scans default to; the view is read-only. */
    readonly pinnedSnapshotId: number | null = null,
  ) {
    this.coreOptions = new TableOptions(schema.options);
    this.partitionFields = schema.partitionKeys.map((k) => schema.fields.find((f) => f.name === k)!);
    this.paths = new TablePaths(location, this.coreOptions, this.partitionFields);
    this.snapshotManager = new SnapshotManager(fileIO, location, this.paths.branch);
    this.schemaManager = new SchemaManager(fileIO, location, this.paths.branch);
    this.manifestStore = new ManifestStore(fileIO, this.paths, this.partitionFields, this.coreOptions.manifestCompression);
  }

  /**
   * The time travel the table's `scan.*` options ask of its scans (src/table/time-travel.ts), or
   * the error refusing them, which `newScan` throws; set when the table is loaded
   * (`loadTimeTravel`; pending while a `Table.copy`'s options are parsed), null without such options.
   */
  timeTravel: TimeTravel | PaimonError | Promise<TimeTravel | PaimonError | null> | null = null;

  /** Decoded footers of this table's data files (immutable once written), shared by its reads. */
  readonly footers = new FooterCache();

  private decodedChunks: ChunkCache | null = null;

  /** Decoded column chunks of this table's data files kept by selective reads (`read.chunk-cache.max-memory`). */
  get chunkCache(): ChunkCache {
    return (this.decodedChunks ??= new ChunkCache(this.coreOptions.readChunkCacheMaxMemory));
  }

  /** Table options as stored in the schema. */
  get options(): Record<string, string> {
    return this.schema.options;
  }

  latestSnapshot(): Promise<Snapshot | null> {
    return this.snapshotManager.latestSnapshot();
  }

  snapshot(id: number): Promise<Snapshot> {
    return this.snapshotManager.snapshot(id);
  }

  listSnapshots(): Promise<Snapshot[]> {
    return this.snapshotManager.listSnapshots();
  }

  /** The highest sequence number of the live files of one partition-bucket (-1 when none). */
  async maxSequenceNumber(partitionRow: Uint8Array, bucket: number): Promise<bigint> {
    const latest = await this.latestSnapshot();
    if (latest === null) return -1n;
    const key = partitionRow.join(",");
    const entries = await this.manifestStore.liveEntries(latest, undefined, (e) => e.bucket === bucket && e.partition.join(",") === key);
    let max = -1n;
    for (const e of entries) if (e.file.maxSequenceNumber > max) max = e.file.maxSequenceNumber;
    return max;
  }

  /** Throws NOT_FOUND unless the table directory still holds a schema. */
  async checkExists(): Promise<void> {
    if ((await this.schemaManager.listSchemaIds()).length === 0) throw new PaimonError("NOT_FOUND", `table ${this.identifier} no longer exists (${this.location})`);
  }
}
