// Runtime smoke test, run directly (no test runner, no build) by Node (from dist/),
// Deno and Bun (from the TypeScript sources): imports the package entry, touches the
// wasm kernels and Arrow, and exits non-zero on any mismatch.
import { makeData, Int64, vectorFromArray, Utf8 } from "apache-arrow";
import { assignBuckets, keyColumnFromArrow, mergeDeduplicate, sortPermutation, fingerprintKeys, PaimonError } from "../../src/index.js";

const runtime = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined" ? "deno" : typeof (globalThis as { Bun?: unknown }).Bun !== "undefined" ? "bun" : "node";
const failures: string[] = [];
const check = (name: string, ok: boolean) => {
  if (!ok) failures.push(name);
};

const ids = makeData({ type: new Int64(), length: 5, data: BigInt64Array.from([5n, 1n, 4n, 1n, 3n]) });
const seq = BigInt64Array.from([0n, 2n, 0n, 1n, 0n]);
check("sort", sortPermutation([keyColumnFromArrow(ids)], seq).join() === "3,1,4,2,0");
const names = vectorFromArray(["a", "hello", "hello world!"], new Utf8());
check("bucket", assignBuckets([keyColumnFromArrow(names)], 128).join() === "94,50,35");
const run = (keys: bigint[], s: bigint[]) => ({ keys: [keyColumnFromArrow(makeData({ type: new Int64(), length: keys.length, data: BigInt64Array.from(keys) }))], sequence: BigInt64Array.from(s) });
const merged = mergeDeduplicate([run([1n, 2n], [1n, 1n]), run([2n, 3n], [2n, 2n])]);
check("merge", merged.run.join() === "0,1,1" && merged.row.join() === "0,0,1");
check("fingerprint", fingerprintKeys([keyColumnFromArrow(ids)]).length === 5);
try {
  sortPermutation([], new BigInt64Array(0));
  check("error", false);
} catch (e) {
  check("error", e instanceof PaimonError && e.code === "INVALID_ARGUMENT");
}

if (failures.length > 0) {
  console.error(`smoke (${runtime}): FAILED ${failures.join(", ")}`);
  throw new Error("smoke test failed");
}
console.log(`smoke (${runtime}): 5 passed, 0 failed`);
