import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoadCache } from "../../src/fs/load-cache.js";

describe("LoadCache", () => {
  it("keeps the most recently used entries like a plain LRU, also when the newest key is asked for again (randomized against a model)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.tuple(fc.constantFrom("get", "peek", "loaded"), fc.integer({ min: 0, max: 5 })), { maxLength: 60 }), async (capacity, ops) => {
        const cache = new LoadCache<string>(capacity);
        const model: string[] = []; // least recently used first
        let loads = 0;
        for (const [op, k] of ops) {
          const key = `k${k}`;
          if (op === "peek" || op === "loaded") {
            // (every get below is awaited: a kept entry has loaded, and `loaded` gives its value without a promise)
            const hit = op === "peek" ? cache.peek(key) : cache.loaded(key);
            expect(hit !== undefined).toBe(model.includes(key));
            if (op === "loaded" && hit !== undefined) expect(hit).toBe(`v${key}`);
            if (hit !== undefined) {
              model.splice(model.indexOf(key), 1);
              model.push(key);
            }
            continue;
          }
          const before = loads;
          const value = await cache.get(key, async () => {
            loads++;
            return `v${key}`;
          });
          expect(value).toBe(`v${key}`);
          if (model.includes(key)) {
            expect(loads).toBe(before); // a hit loads nothing
            model.splice(model.indexOf(key), 1);
          } else {
            expect(loads).toBe(before + 1);
            if (model.length >= capacity) model.shift();
          }
          model.push(key);
          expect(cache.size).toBe(model.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("loaded: the values of kept entries once loaded, none while loading, after eviction by weight or when too heavy to keep", async () => {
    const cache = new LoadCache<{ bytes: number }>(10, (v) => v.bytes);
    let release!: (v: { bytes: number }) => void;
    const pending = cache.get("a", () => new Promise((r) => (release = r)));
    expect(cache.loaded("a")).toBeUndefined(); // loading
    release({ bytes: 4 });
    const a = await pending;
    expect(cache.loaded("a")).toBe(a);
    const b = await cache.get("b", async () => ({ bytes: 5 }));
    expect([cache.loaded("a"), cache.loaded("b")]).toEqual([a, b]);
    await cache.get("c", async () => ({ bytes: 3 })); // 12 > 10: the least recently used (a: `loaded` b made b the newest) goes
    expect(cache.loaded("a")).toBeUndefined();
    expect(cache.loaded("b")).toBe(b);
    await cache.get("d", async () => ({ bytes: 11 })); // heavier than the cache: returned, not kept
    expect(cache.loaded("d")).toBeUndefined();
    cache.clear();
    expect(cache.loaded("b")).toBeUndefined();
  });

  it("a failed load of the newest key is forgotten: the next request loads again", async () => {
    const cache = new LoadCache<number>(4);
    await expect(cache.get("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await Promise.resolve();
    expect(await cache.get("a", async () => 7)).toBe(7);
    expect(await cache.get("a", async () => 8)).toBe(7);
  });
});
