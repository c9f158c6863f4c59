// Decoded Parquet footers by file. Data files never change once written, so continuous queries
// over committed data need not re-read and re-parse a file's footer on every read: one range
// read per file instead of two.
import type { ParquetFooter } from "./footer.js";
import { readParquetFooter } from "./parquet-stats.js";
import type { RandomAccessSource } from "./source.js";

export class FooterCache {
  private readonly entries = new Map<string, Promise<ParquetFooter>>();

  constructor(private readonly capacity = 512) {}

  /** The footer of the file at `path` (keyed by path and size), read from `source` on first use. */
  get(source: RandomAccessSource, path: string): Promise<ParquetFooter> {
    const key = `${source.size}|${path}`;
    let hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // re-insert: most recently used last
    } else {
      hit = readParquetFooter(source, path);
      hit.catch(() => this.entries.delete(key)); // failures are not remembered
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, hit);
    return hit;
  }
}
