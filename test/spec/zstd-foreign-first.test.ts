// @bokuweb/zstd-wasm initialised by another user of the package before paimon-rt loads it, then a
// second copy of paimon-rt's zstd accessor (a second build or version of the library in the same
// process): the accessor must not call init() again (a second init() re-instantiates the wasm while
// the exports already bound keep the first instance, so every later frame of both users is wrong).
// Runs in its own process (vitest forks pool): the package is fresh when the test starts.
import { expect, it, vi } from "vitest";
import { independent, inputs, settle, zstdPackage } from "./zstd-users.js";

it("a foreign user initialises the package first; two copies of the accessor reuse it and every frame of all three decodes right", async () => {
  const pkg = await zstdPackage();
  const next = inputs();
  // before init a call fails (the lazily bound export finds no instance) and binds nothing
  expect(() => pkg.compress(next(), 1)).toThrow();
  await pkg.init();
  const foreign = (): void => {
    const data = next();
    const frame = pkg.compress(data, 3);
    expect(independent(frame)).toEqual(data);
    expect(pkg.decompress(frame)).toEqual(data);
  };
  foreign();

  const first = await import("../../src/spec/zstd.js");
  const a = (await first.loadZstd())!;
  vi.resetModules();
  const second = await import("../../src/spec/zstd.js");
  expect(second).not.toBe(first);
  const b = (await second.loadZstd())!;
  expect(a).not.toBeNull();
  expect(b).not.toBeNull();

  for (let round = 0; round < 4; round++) {
    await settle();
    foreign();
    for (const [enc, dec] of [[a, b], [b, a], [a, a], [b, b]] as const) {
      const data = next();
      const frame = enc.compress(data, 1 + (round % 3));
      expect(independent(frame)).toEqual(data);
      expect(dec.decompress(frame, data.length)).toEqual(data);
      const theirs = next();
      expect(dec.decompress(pkg.compress(theirs, 5), theirs.length)).toEqual(theirs);
    }
  }
});
