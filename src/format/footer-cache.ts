// Decoded Parquet footers by file. Data files never change once written, so continuous queries
// over committed data need not re-read and re-parse a file's footer on every read: one range
// read per file instead of two.
import { LoadCache } from "../fs/load-cache.js";
import type { ParquetFooter } from "./footer.js";
import { readParquetFooter } from "./parquet-stats.js";
import type { RandomAccessSource } from "./source.js";

export class FooterCache {
  private readonly loads: LoadCache<ParquetFooter>;

  constructor(capacity = 512) {
    this.loads = new LoadCache(capacity);
  }

  /** The footer of the file at `path` (keyed by path and size), read from `source` on first use. */
  get(source: RandomAccessSource, path: string): Promise<ParquetFooter> {
    return this.loads.get(`${source.size}|${path}`, () => readParquetFooter(source, path));
  }
}
