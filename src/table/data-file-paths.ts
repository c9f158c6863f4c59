// Where the files a manifest entry or commit message names live: the bucket directory of a
// serialized partition row, and a data file with its extra files (file index) in it.
import { fromBinaryRow } from "../spec/binary-row.js";
import type { DataFileMeta } from "../spec/manifest.js";
import type { DataField } from "../spec/types.js";
import type { TableOptions } from "./options.js";
import { type FileLocation, partitionPath, type TablePaths } from "./paths.js";

/** Resolves file locations of one table from serialized partition rows. */
export class DataFilePaths {
  private readonly types;

  constructor(
    readonly paths: TablePaths,
    readonly partitionFields: readonly DataField[],
    readonly options: TableOptions,
  ) {
    this.types = partitionFields.map((f) => f.type);
  }

  /** `<root>/<partition dirs>bucket-<b>` of a serialized partition row (arity header included). */
  bucketDir(partition: Uint8Array, bucket: number): string {
    const values = fromBinaryRow(partition.subarray(4), this.types);
    return this.paths.bucketDir(partitionPath(this.partitionFields, values, this.options.partitionDefaultName, this.options.partitionLegacyName), bucket);
  }

  /** Path of a table-index file of a partition-bucket ({@link TablePaths.indexFile}). */
  indexFile(partition: Uint8Array, bucket: number, file: FileLocation): string {
    return this.paths.indexFile(file, this.paths.indexInDataDir ? this.bucketDir(partition, bucket) : "");
  }

  /** The data file (its external path when it has one) followed by its extra files. */
  files(partition: Uint8Array, bucket: number, file: DataFileMeta): string[] {
    const dir = this.bucketDir(partition, bucket);
    return [this.paths.dataFile(dir, file), ...file.extraFiles.map((extra) => this.paths.extraFile(dir, file, extra))];
  }
}
