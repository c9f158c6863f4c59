// merge-engine=aggregation with `theta_sketch` (Java FieldThetaSketchAgg) and `hll_sketch`
// (FieldHllSketchAgg): the fold of a key's sketches (a reference model of DataSketches' union
// over hand-built compact images) merge-on-read, after a full compaction and with deletion
// vectors (lookup compaction), retractions refused as Java refuses them or ignored with
// ignore-retract, and the exact refusals (type, malformed bytes: nothing committed). Bytes
// against Java: test/interop/theta-sketch-interop.test.ts, test/interop/hll-sketch-interop.test.ts
// and test/interop/sketch-aggregates-interop.test.ts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { DEFAULT_THETA_SEED_HASH } from "../../src/kernel/theta-sketch.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";
import { commitRows } from "../support/pk-commits.js";

const FIELDS: FieldLike[] = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "s", type: "BYTES" },
];
const LONG_MAX = 0x7fffffffffffffffn;

/** A compact ordered theta sketch image (serial version 3, default seed) of distinct `hashes` with `theta`. */
function image(hashes: readonly bigint[], theta = LONG_MAX): Uint8Array {
  const sorted = [...new Set(hashes)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (sorted.length === 0 && theta === LONG_MAX) return Uint8Array.of(1, 3, 3, 0, 0, 0x1e, 0, 0);
  const single = sorted.length === 1 && theta === LONG_MAX;
  const pre = theta < LONG_MAX ? 3 : single ? 1 : 2;
  const out = new Uint8Array((pre + sorted.length) * 8);
  const view = new DataView(out.buffer);
  out.set([pre, 3, 3, 0, 0, single ? 0x3a : 0x1a]);
  view.setUint16(6, DEFAULT_THETA_SEED_HASH, true);
  if (pre > 1) {
    view.setInt32(8, sorted.length, true);
    view.setFloat32(12, 1, true);
  }
  if (pre > 2) view.setBigInt64(16, theta, true);
  sorted.forEach((h, i) => view.setBigInt64((pre + i) * 8, h, true));
  return out;
}
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

/** The model of DataSketches' union (k = 4096, never reached here): the distinct hashes below the smallest theta. */
function union(sketches: ReadonlyArray<{ hashes: bigint[]; theta: bigint }>): string {
  const theta = sketches.reduce((m, s) => (s.theta < m ? s.theta : m), LONG_MAX);
  return b64(image(sketches.flatMap((s) => s.hashes.filter((h) => h < theta)), theta));
}

let n = 0;
async function table(options: Record<string, string>, fields = FIELDS): Promise<Table> {
  const catalog = await Catalog.open(`memory://theta-agg-${process.pid}-${n++}`);
  await catalog.createDatabase("db", { ignoreIfExists: true });
  return catalog.createTable(`db.t${n++}`, { fields, primaryKeys: ["id"], options });
}

const commit = (t: Table, rows: OracleRow[], kinds?: number[], compact = false, fields = FIELDS): Promise<void> => commitRows(t, fields, rows, kinds, compact);

async function read(t: Table): Promise<OracleRow[]> {
  const rows = arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits));
  return rows.map((r) => ({ id: String(r.id), s: r.s instanceof Uint8Array ? b64(r.s) : r.s })).sort((a, b) => Number(a.id) - Number(b.id));
}

const OPTIONS = { bucket: "1", "merge-engine": "aggregation", "fields.s.aggregate-function": "theta_sketch" };
const hashArb = fc.bigInt({ min: 1n, max: 2000n }).map((h) => h << 50n);
const sketchArb = fc.record({ hashes: fc.array(hashArb, { maxLength: 6 }), theta: fc.oneof(fc.constant(LONG_MAX), fc.constant(LONG_MAX), hashArb) }).map(({ hashes, theta }) => ({ hashes: hashes.filter((h) => h < theta), theta }));

describe("theta_sketch and hll_sketch aggregation (Java FieldThetaSketchAgg, FieldHllSketchAgg)", () => {
  it("a key's sketches fold to their union: merge-on-read, compacted, and with deletion vectors (model)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.option(sketchArb, { nil: null }), { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 3 }), fc.boolean(), async (commits, dv) => {
        const t = await table(dv ? { ...OPTIONS, "deletion-vectors.enabled": "true" } : OPTIONS);
        for (const c of commits) await commit(t, c.map((s, i) => ({ id: String(i), s: s === null ? null : b64(image(s.hashes, s.theta)) })));
        const expected = [0, 1].flatMap((id) => {
          const values = commits.map((c) => c[id]).filter((v) => v !== undefined);
          if (values.length === 0) return [];
          const present = values.filter((v) => v !== null);
          // a lone non-null value passes as it is (Java: agg(null, v) = v); nulls are skipped
          const s = present.length === 0 ? null : present.length === 1 ? b64(image(present[0]!.hashes, present[0]!.theta)) : union(present);
          return [{ id: String(id), s }];
        });
        expect(await read(t)).toEqual(expected);
        await commit(t, [], undefined, true);
        expect(await read(t)).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });

  it("retractions: refused with Java's message, ignored with fields.s.ignore-retract", async () => {
    const t = await table(OPTIONS);
    await commit(t, [{ id: "1", s: b64(image([1n << 50n])) }]);
    await commit(t, [{ id: "1", s: b64(image([2n << 50n])) }], [1]);
    await expect(read(t)).rejects.toMatchObject({
      code: "UNSUPPORTED",
      message: "Aggregate function 'theta_sketch' (column s) does not support retraction, If you allow this function to ignore retraction messages, you can configure 'fields.s.ignore-retract'='true'.",
    });
    const dv = await table({ ...OPTIONS, "deletion-vectors.enabled": "true" });
    const write = await dv.newWrite({ commitUser: "u" });
    await expect(write.write(rowsToBatch(FIELDS, [{ id: "1", s: null }]), { rowKinds: [3] })).rejects.toMatchObject({ code: "UNSUPPORTED", message: expect.stringContaining("'theta_sketch' (column s) does not support retraction") });
    await write.close();
    const ignoring = await table({ ...OPTIONS, "fields.s.ignore-retract": "true" });
    await commit(ignoring, [{ id: "1", s: b64(image([1n << 50n])) }]);
    await commit(ignoring, [{ id: "1", s: b64(image([2n << 50n])) }, { id: "1", s: b64(image([3n << 50n])) }], [1, 0]);
    expect(await read(ignoring)).toEqual([{ id: "1", s: b64(image([1n << 50n, 3n << 50n])) }]);
  });

  it("refuses a non-VARBINARY column and hll_sketch; malformed sketch bytes fail the read and the compaction, which commits nothing", async () => {
    const fields: FieldLike[] = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "m", type: "INT" },
    ];
    const failure = async (options: Record<string, string>, f: FieldLike[], row: OracleRow) => {
      const created = await table(options, f).catch((e: unknown) => e);
      return created instanceof Error ? created : commit(created as Table, [row], undefined, false, f).catch((e: unknown) => e);
    };
    expect(await failure({ bucket: "1", "merge-engine": "aggregation", "fields.m.aggregate-function": "theta_sketch" }, fields, { id: "1", m: 1 })).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringContaining("Data type for theta sketch column must be 'VarBinaryType' but was 'INT'."),
    });
    expect(await failure({ bucket: "1", "merge-engine": "aggregation", "fields.m.aggregate-function": "hll_sketch" }, fields, { id: "1", m: 1 })).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringContaining("Data type for hll sketch column must be 'VarBinaryType' but was 'INT'."),
    });
    const t = await table(OPTIONS);
    const bad = image([1n << 50n, 2n << 50n]);
    bad[6] = 1; // another seed's hash
    await commit(t, [{ id: "1", s: b64(image([1n << 50n])) }]);
    await commit(t, [{ id: "1", s: b64(bad) }]);
    const message = expect.stringContaining("aggregate function theta_sketch of column s: theta sketch of seed hash");
    await expect(read(t)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message });
    const before = (await t.latestSnapshot())?.id;
    await expect(commit(t, [], undefined, true)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message });
    expect((await t.latestSnapshot())?.id).toBe(before);
  });

  it("hll_sketch: sketches in LIST mode merge (model); a malformed HLL-mode image fails the read and the compaction, which commits nothing", async () => {
    const t = await table({ ...OPTIONS, "fields.s.aggregate-function": "hll_sketch" });
    // LIST images (lgK 12, HLL_4): coupons in arrival order; the union keeps the gadget's order, duplicates dropped
    const list = (coupons: number[]) => {
      const out = new Uint8Array(8 + 4 * coupons.length);
      out.set([2, 1, 7, 12, 3, coupons.length === 0 ? 0x0c : 0x08, coupons.length, 0]);
      coupons.forEach((c, i) => new DataView(out.buffer).setInt32(8 + 4 * i, c, true));
      return out;
    };
    const coupon = (slot: number, value: number) => (value << 26) | slot;
    await commit(t, [{ id: "1", s: b64(list([coupon(5, 1), coupon(9, 2)])) }, { id: "2", s: b64(list([coupon(1, 1)])) }]);
    await commit(t, [{ id: "1", s: b64(list([coupon(9, 2), coupon(3, 4)])) }]);
    // Java: Union.heapify(input) takes the input's coupons first, then the accumulator's
    const expected = [
      { id: "1", s: b64(list([coupon(9, 2), coupon(3, 4), coupon(5, 1)])) },
      { id: "2", s: b64(list([coupon(1, 1)])) },
    ];
    expect(await read(t)).toEqual(expected);
    await commit(t, [], undefined, true);
    expect(await read(t)).toEqual(expected);
    // an HLL_4 image whose register 3 is an exception missing from its (empty) exception table
    const malformed = new Uint8Array(40 + 2048);
    malformed.set([10, 1, 7, 12, 0, 0x08, 0, 2]);
    malformed[41] = 0xf0;
    await commit(t, [{ id: "2", s: b64(malformed) }]);
    const message = expect.stringContaining("aggregate function hll_sketch of column s: HLL sketch image (input) of 2088 bytes: SlotNo not found: 3");
    await expect(read(t)).rejects.toMatchObject({ code: "CORRUPT_FILE", message });
    const before = (await t.latestSnapshot())?.id;
    await expect(commit(t, [], undefined, true)).rejects.toMatchObject({ code: "CORRUPT_FILE", message });
    expect((await t.latestSnapshot())?.id).toBe(before);
  });
});
