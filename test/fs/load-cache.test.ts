import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoadCache } from "../../src/fs/load-cache.js";

describe("LoadCache", () => {
  it("keeps the most recently used entries like a plain LRU, also when the newest key is asked for again (randomized against a model)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.tuple(fc.constantFrom("get", "peek"), fc.integer({ min: 0, max: 5 })), { maxLength: 60 }), async (capacity, ops) => {
        const cache = new LoadCache<string>(capacity);
        const model: string[] = []; // least recently used first
        let loads = 0;
        for (const [op, k] of ops) {
          const key = `k${k}`;
          if (op === "peek") {
            const hit = cache.peek(key);
            expect(hit !== undefined).toBe(model.includes(key));
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

  it("a failed load of the newest key is forgotten: the next request loads again", async () => {
    const cache = new LoadCache<number>(4);
    await expect(cache.get("a", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await Promise.resolve();
    expect(await cache.get("a", async () => 7)).toBe(7);
    expect(await cache.get("a", async () => 8)).toBe(7);
  });
});
