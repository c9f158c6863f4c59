// Data-file indexes on the write path, stored like Java's DataFileIndexWriter: the index blob of
// a data file goes into its manifest entry (`_EMBEDDED_FILE_INDEX`) when it is at most
// `file-index.in-manifest-threshold` bytes, otherwise into `<data-file>.index` beside the data
// file, named in `_EXTRA_FILES`.
import type * as arrow from "apache-arrow";
import { FileIndexBuilder, fileIndexSpecOf, type FileIndexSpec } from "../fileindex/index.js";
import { javaOptionKeyOrder } from "../fileindex/java-order.js";
import type { FileIO } from "../fs/file-io.js";
import type { TableSchema } from "../spec/schema.js";
import { INDEX_FILE_SUFFIX } from "../table/paths.js";

const specs = new WeakMap<TableSchema, FileIndexSpec | null>();

/** The schema's file-index configuration (validated; PaimonError when unusable), null when none. */
export function fileIndexSpecOfSchema(schema: TableSchema): FileIndexSpec | null {
  let spec = specs.get(schema);
  if (spec === undefined) {
    spec = fileIndexSpecOf(schema.options, schema.fields, javaOptionKeyOrder); // Java walks the options in HashMap order
    specs.set(schema, spec);
  }
  return spec;
}

/** Where a data file's index went: its manifest entry fields. */
export interface StoredFileIndex {
  embeddedIndex: Uint8Array | null;
  extraFiles: string[];
}

/** Builds the index of one data file from its rows (the table's columns, in field order). */
export class DataFileIndexWriter {
  private readonly builder: FileIndexBuilder;

  private constructor(
    private readonly spec: FileIndexSpec,
    schema: TableSchema,
  ) {
    this.builder = new FileIndexBuilder(spec, schema.fields);
  }

  /** A writer when the schema configures an index, else null. */
  static forSchema(schema: TableSchema): DataFileIndexWriter | null {
    const spec = fileIndexSpecOfSchema(schema);
    return spec ? new DataFileIndexWriter(spec, schema) : null;
  }

  update(batch: arrow.RecordBatch): void {
    this.builder.update(batch);
  }

  /** Serialises the index: embedded when small, else written to `<dataFilePath>.index`. */
  async finish(io: FileIO, dataFilePath: string, dataFileName: string): Promise<StoredFileIndex> {
    const blob = this.builder.finish();
    if (blob.length <= this.spec.inManifestThreshold) return { embeddedIndex: blob, extraFiles: [] };
    await io.writeFile(`${dataFilePath}${INDEX_FILE_SUFFIX}`, blob);
    return { embeddedIndex: null, extraFiles: [`${dataFileName}${INDEX_FILE_SUFFIX}`] };
  }
}

/** What a data file without an index records. */
export const NO_FILE_INDEX: StoredFileIndex = Object.freeze({ embeddedIndex: null, extraFiles: [] }) as StoredFileIndex;
