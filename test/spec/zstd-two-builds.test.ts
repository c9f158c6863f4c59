// Two copies of paimon-rt's zstd accessor (two builds or versions of the library in one process)
// loading @bokuweb/zstd-wasm at the same time, before anyone initialised it: the package must be
// initialised once (a second init() re-instantiates the wasm while the exports already bound keep
// the first instance, so every later frame is wrong). A third copy loading later reuses it too.
// Runs in its own process (vitest forks pool): the package is fresh when the test starts.
import { expect, it, vi } from "vitest";
import { independent, inputs, settle } from "./zstd-users.js";

it("two copies of the accessor loading at once initialise the package once; a later third copy too; every frame decodes right", async () => {
  const first = await import("../../src/spec/zstd.js");
  vi.resetModules();
  const second = await import("../../src/spec/zstd.js");
  expect(second).not.toBe(first);
  const [a, b] = await Promise.all([first.loadZstd(), second.loadZstd()]);
  expect(a).not.toBeNull();
  expect(b).not.toBeNull();
  const next = inputs();
  const roundTrip = (enc: NonNullable<typeof a>, dec: NonNullable<typeof a>, level: number): void => {
    const data = next();
    const frame = enc.compress(data, level);
    expect(independent(frame)).toEqual(data);
    expect(dec.decompress(frame, data.length)).toEqual(data);
  };
  roundTrip(a!, b!, 1);
  roundTrip(b!, a!, 1);

  vi.resetModules();
  const third = await import("../../src/spec/zstd.js");
  const c = (await third.loadZstd())!;
  for (let round = 0; round < 4; round++) {
    await settle();
    for (const [enc, dec] of [[a!, b!], [b!, c], [c, a!], [a!, a!], [c, c]] as const) roundTrip(enc, dec, 1 + (round % 3));
  }
});
