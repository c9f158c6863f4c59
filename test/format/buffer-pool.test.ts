import { describe, expect, it } from "vitest";
import { BufferPool } from "../../src/format/buffer-pool.js";

describe("BufferPool (spare page buffers of the flat decoder and the page worker)", () => {
  it("takes the smallest kept buffer that fits, else a new one of at least minBytes rounded up to the grain", () => {
    const pool = new BufferPool(8, 1 << 20, 1000, 64);
    const fresh = pool.take(10);
    expect(fresh.byteLength).toBe(1024); // max(10, 1000) rounded up to 64
    expect(pool.take(5000).byteLength).toBe(5056);
    const [a, b, c] = [new ArrayBuffer(4096), new ArrayBuffer(2048), new ArrayBuffer(8192)];
    for (const x of [a, b, c]) pool.give(x);
    expect(pool.size).toBe(3);
    expect(pool.take(2000)).toBe(b);
    expect(pool.take(2000)).toBe(a);
    expect(pool.take(9000).byteLength).toBe(9024); // none fits: new
    expect(pool.take(1)).toBe(c);
    expect(pool.size).toBe(0);
  });

  it("keeps at most maxBuffers buffers, none larger than maxBytes and no empty (detached) one", () => {
    const pool = new BufferPool(2, 4096, 1, 1);
    pool.give(new ArrayBuffer(0));
    pool.give(new ArrayBuffer(4097));
    expect(pool.size).toBe(0);
    const kept = [new ArrayBuffer(4096), new ArrayBuffer(100)];
    for (const x of [kept[0]!, new ArrayBuffer(10), kept[1]!, new ArrayBuffer(50)]) pool.give(x);
    expect(pool.size).toBe(2);
    expect(pool.take(1)).toBe(kept[1]);
    expect(pool.take(1)).toBe(kept[0]);
    expect(pool.take(7).byteLength).toBe(7);
  });

  it("full, keeps the larger buffers: a larger one given takes the place of the smallest, so pages of a wider column after a narrower one's reuse buffers too", () => {
    const pool = new BufferPool(3, 1 << 20, 1, 1);
    const small = [new ArrayBuffer(1000), new ArrayBuffer(1100), new ArrayBuffer(1200)];
    for (const x of small) pool.give(x);
    // the wider column's pages: each needs a new buffer until the pool holds large ones
    const large = [pool.take(5000), pool.take(5000), pool.take(5000)];
    expect(large.every((x) => !small.includes(x))).toBe(true);
    for (const x of large) pool.give(x);
    expect(pool.size).toBe(3);
    expect([pool.take(5000), pool.take(5000), pool.take(5000)]).toEqual(expect.arrayContaining(large));
    for (const x of large) pool.give(x);
    pool.give(new ArrayBuffer(10)); // smaller than every kept one: dropped
    expect([pool.take(1), pool.take(1), pool.take(1)].map((x) => x.byteLength)).toEqual([5000, 5000, 5000]);
  });
});
