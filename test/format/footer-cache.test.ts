// FooterCache: one footer read per data file, LRU-bounded, failures not remembered.
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { FooterCache } from "../../src/format/footer-cache.js";
import { writeParquet } from "../../src/format/parquet-writer.js";
import type { RandomAccessSource } from "../../src/format/source.js";
import { parseDataType } from "../../src/spec/types.js";

async function parquetBytes(n: number): Promise<Uint8Array> {
  const fields = [{ id: 0, name: "x", type: parseDataType("BIGINT") }];
  const t = arrow.tableFromArrays({ x: BigInt64Array.from({ length: n }, (_, i) => BigInt(i)) });
  return (await writeParquet(fields, t)).bytes;
}

function counting(bytes: Uint8Array): RandomAccessSource & { reads: number } {
  const src = {
    size: bytes.length,
    reads: 0,
    read: async (offset: number, length: number) => {
      src.reads++;
      return bytes.subarray(offset, offset + length);
    },
  };
  return src;
}

describe("FooterCache", () => {
  it("reads a file's footer once, evicts the least recently used, forgets failures", async () => {
    const cache = new FooterCache(2);
    const [a, b, c] = await Promise.all([parquetBytes(3), parquetBytes(5), parquetBytes(7)]);
    const sa = counting(a);
    const first = await cache.get(sa, "a");
    const readsOfOneFooter = sa.reads;
    expect(first.numRows).toBe(3);
    expect(await cache.get(sa, "a")).toBe(first);
    expect(sa.reads).toBe(readsOfOneFooter);
    const sb = counting(b);
    expect((await cache.get(sb, "b")).numRows).toBe(5);
    await cache.get(sa, "a"); // a is now the most recently used: c evicts b
    expect((await cache.get(counting(c), "c")).numRows).toBe(7);
    await cache.get(sa, "a");
    expect(sa.reads).toBe(readsOfOneFooter);
    await cache.get(sb, "b");
    expect(sb.reads).toBe(2 * readsOfOneFooter);
    // a failed read is not cached
    const broken = { size: a.length, read: async () => Promise.reject(new Error("disk gone")) };
    await expect(cache.get(broken, "x")).rejects.toThrow(/disk gone/);
    expect((await cache.get(counting(a), "x")).numRows).toBe(3);
  });
});
