// `bucket-function.type` (src/write/bucket-function.ts): mod and hive place rows as Java's
// ModBucketFunction / HiveBucketFunction (row-by-row agreement with Java in
// test/interop/bucket-function-interop.test.ts); here: fixed and postpone-bucket writes, Java's
// errors, and a floorMod model.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { keyColumnFromValues } from "../../src/kernel/columns.js";
import type { Table } from "../../src/table/table.js";
import { bucketFunction, bucketFunctionTypeOf } from "../../src/write/bucket-function.js";
import { createPkTable, type Row, toBatch, writeCommit } from "../pk/helpers.js";
import { failure } from "./helpers.js";
import { rowsToBatch } from "../interop/convert.js";

const row = (id: number): Row => ({ dt: "a", id: BigInt(id), name: "k", v: `v${id}`, n: null });
const floorMod = (a: number, n: number) => ((a % n) + n) % n;

/** `id → bucket` of every live row, read split by split. */
async function bucketOfIds(table: Table): Promise<Array<[number, number]>> {
  const out: Array<[number, number]> = [];
  for (const split of (await table.newScan().plan()).splits) {
    if (split.kind !== "data") continue;
    const t = await table.newRead().toArrow([split]);
    for (const id of t.getChild("id")!.toArray() as BigInt64Array) out.push([Number(id), split.bucket]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

describe("bucket-function.type", () => {
  const ids = [-7, -5, -1, 0, 1, 2, 3, 4, 5, 9, 1000000007];

  it("mod: a fixed-bucket primary-key table puts each key in floorMod(key, bucket)", async () => {
    const t = await createPkTable({ bucket: 4, "bucket-key": "id", "bucket-function.type": "mod" });
    await writeCommit(t, "u", [{ rows: ids.map(row) }]);
    expect(await bucketOfIds(t)).toEqual(ids.map((id) => [id, floorMod(id, 4)]));
  });

  it("mod: postpone-bucket compaction assigns the real buckets with the table's function", async () => {
    const t = await createPkTable({ bucket: -2, "postpone.default-bucket-num": 3, "bucket-key": "id", "bucket-function.type": "Mod" });
    await writeCommit(t, "u", [{ rows: ids.map(row) }]);
    const w = await t.newWrite({ commitUser: "c" });
    await w.compact({});
    await t.newCommit({ commitUser: "c" }).commit(await w.prepareCommit());
    await w.close();
    expect(await bucketOfIds(t)).toEqual(ids.map((id) => [id, floorMod(id, 3)]));
  });

  it("hive: a TIMESTAMP key value fails as Java's HiveBucketFunction (nothing written); null keys hash to 0", async () => {
    const catalog = await Catalog.open("memory://bucket-function-hive");
    await catalog.createDatabase("db");
    const t = await catalog.createTable("db.t", { fields: [{ name: "ts", type: "TIMESTAMP(3)" }, { name: "v", type: "INT" }], options: { bucket: "3", "bucket-key": "ts", "bucket-function.type": "hive" } });
    const batch = (ts: Array<string | null>) => rowsToBatch([{ name: "ts", type: "TIMESTAMP(3)" }, { name: "v", type: "INT" }], ts.map((x, i) => ({ ts: x, v: i })));
    const w = await t.newWrite({ commitUser: "u" });
    const e = await failure(() => w.write(batch([null, "5000000"])));
    expect([e.code, e.message]).toEqual(["UNSUPPORTED", "Unsupported type as bucket key type class org.apache.paimon.data.Timestamp (bucket-function.type=hive)"]);
    await w.write(batch([null, null]));
    await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    await w.close();
    const splits = (await t.newScan().plan()).splits;
    expect(splits.map((s) => (s.kind === "data" ? [s.bucket, s.files.map((f) => f.rowCount)] : null))).toEqual([[0, [2n]]]);
  });

  it("an unknown type is Java's parse error at newWrite", async () => {
    const t = await createPkTable({ bucket: 2, "bucket-function.type": "murmur" });
    const e = await failure(() => t.newWrite({ commitUser: "u" }));
    expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", "Could not parse value 'murmur' for key 'bucket-function.type' (default, mod, hive)."]);
    expect(await t.latestSnapshot()).toBeNull();
    expect(bucketFunctionTypeOf({})).toBe("default");
  });

  it("mod agrees with Math.floorMod on INT and BIGINT keys (model)", () => {
    const intMod = bucketFunction("mod", [{ id: 0, name: "k", type: { kind: "INT", nullable: true } }]);
    const longMod = bucketFunction("mod", [{ id: 0, name: "k", type: { kind: "BIGINT", nullable: true } }]);
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), fc.integer({ min: 1, max: 1000 }), (ints, longs, n) => {
        expect(Array.from(intMod([keyColumnFromValues("int32", ints)], n))).toEqual(ints.map((v) => floorMod(v, n) + 0));
        const m = BigInt(n);
        expect(Array.from(longMod([keyColumnFromValues("int64", longs)], n))).toEqual(longs.map((v) => Number(((v % m) + m) % m)));
      }),
    );
  });
});
