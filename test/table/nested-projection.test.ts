import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { RealtimeContext } from "../../src/realtime/index.js";
import { toArrowType, parseDataType } from "../../src/spec/types.js";
import type { Table } from "../../src/table/table.js";
import { expectCode } from "../realtime/helpers.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const ADDR = "ROW<city STRING, geo ROW<lat DOUBLE, lon DOUBLE>>";

function batch(ids: number[], withOffsets = false): arrow.RecordBatch {
  const addrType = toArrowType(parseDataType(ADDR)) as arrow.Struct;
  const values = ids.map((i) => (i % 3 === 2 ? null : { city: i % 3 === 1 ? null : `c${i}`, geo: i === 3 ? null : { lat: i + 0.5, lon: -i } }));
  const addr = arrow.vectorFromArray(values, addrType).data[0];
  const cols: Record<string, arrow.Data> = {};
  if (withOffsets) cols._REALTIME_OFFSET = arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) });
  cols.id = arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) });
  cols.addr = addr;
  return new arrow.RecordBatch(cols);
}

const expected = (ids: number[]) =>
  ids.map((i) => ({ "addr.geo.lat": i % 3 === 2 || i === 3 ? null : i + 0.5, id: BigInt(i), "addr.city": i % 3 === 0 ? `c${i}` : null }));

async function table(options: Record<string, string | number | boolean>, primaryKeys: string[] = []): Promise<Table> {
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-nested-"));
  dirs.push(dir);
  const catalog = await Catalog.open(dir);
  await catalog.createDatabase("db");
  return catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "addr", type: ADDR }], primaryKeys, options });
}

const projection = ["addr.geo.lat", "id", "addr.city"];
const rowsOf = (t: arrow.Table) => t.toArray().map((r) => r.toJSON()).sort((a, b) => Number(a.id) - Number(b.id));

describe("nested projection", () => {
  for (const [name, options, pk] of [
    ["append", {}, []],
    ["primary-key", { bucket: 1 }, ["id"]],
  ] as const) {
    it(`cuts ROW fields out of ${name} tables, NULL rows giving NULL fields`, async () => {
      const t = await table(options, [...pk]);
      const w = await t.newWrite({ commitUser: "u" });
      await w.write(batch([0, 1, 2, 3, 4, 5, 6]));
      await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      const read = t.newRead({ projection });
      expect(read.outputSchema.fields.map((f) => f.name)).toEqual(projection);
      expect(rowsOf(await read.toArrow((await t.newScan().plan()).splits))).toEqual(expected([0, 1, 2, 3, 4, 5, 6]));
    });
  }

  it("works on real-time memory tails", async () => {
    const t = await table({ bucket: 1, "bucket-key": "id", "realtime.enabled": true });
    const ctx = await RealtimeContext.create();
    const w = await t.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(batch([0, 1, 2, 3], true), { bucket: 0 });
    const plan = await t.newScan({ realtime: ctx }).plan();
    expect(rowsOf(await t.newRead({ realtime: ctx, projection }).toArrow(plan.splits))).toEqual(expected([0, 1, 2, 3]));
    await w.refreshCommittedSnapshot(await w.prepareCommitWithProgress(1).then((p) => t.newCommit({ commitUser: "u" }).commitWithProgress(p, 1)));
    // committed: the nested fields were written with the table's field ids (read by id)
    expect(rowsOf(await t.newRead({ projection }).toArrow((await t.newScan().plan()).splits))).toEqual(expected([0, 1, 2, 3]));
    expect(rowsOf(await t.newRead({ realtime: ctx, projection }).toArrow((await t.newScan({ realtime: ctx }).plan()).splits))).toEqual(expected([0, 1, 2, 3]));
    await w.close();
  });

  it.each([
    ["PK MOR", {}],
    ["PK DV", { "deletion-vectors.enabled": true }],
  ] as const)("works on real-time %s union reads (disk merged with memory, without the key projected too)", async (_name, options) => {
    const t = await table({ bucket: 1, "realtime.enabled": true, ...options }, ["id"]);
    const ctx = await RealtimeContext.create();
    const w = await t.newWrite({ commitUser: "u", realtime: ctx });
    await w.write(batch([0, 1, 2, 3], true), { bucket: 0 });
    const s = await w.prepareCommitWithProgress(1).then((p) => t.newCommit({ commitUser: "u" }).commitWithProgress(p, 1));
    await w.refreshCommittedSnapshot(s);
    // offsets 4..: delete id 2 (committed), insert 4 and 5, then delete 5 (memory only)
    const next = batch([2, 4, 5, 5], true);
    const offsets = arrow.makeData({ type: new arrow.Int64(), length: 4, data: BigInt64Array.from([4n, 5n, 6n, 7n]) });
    await w.write(new arrow.RecordBatch({ _REALTIME_OFFSET: offsets, id: next.getChild("id")!.data[0], addr: next.getChild("addr")!.data[0] }), { bucket: 0, rowKinds: [3, 0, 0, 3] });
    const union = async (projected: string[]) => (await t.newRead({ realtime: ctx, projection: projected }).toArrow((await t.newScan({ realtime: ctx }).plan()).splits)).toArray().map((r) => r.toJSON());
    expect((await union(projection)).sort((a, b) => Number(a.id) - Number(b.id))).toEqual(expected([0, 1, 3, 4]));
    expect((await union(["addr.geo.lat"])).map((r) => r["addr.geo.lat"])).toEqual(expected([0, 1, 3, 4]).map((r) => r["addr.geo.lat"]));
    await w.prepareCommitWithProgress(2).then((p) => t.newCommit({ commitUser: "u" }).commitWithProgress(p, 2));
    await w.close();
  });

  it("refuses selecting MAP keys and VARIANT fields as UNSUPPORTED, in ordinary and real-time reads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "paimon-rt-nested-"));
    dirs.push(dir);
    const catalog = await Catalog.open(dir);
    await catalog.createDatabase("db");
    const fields = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "m", type: "MAP<STRING, BIGINT>" },
      { name: "va", type: "VARIANT" },
    ];
    const t = await catalog.createTable("db.mv", { fields, primaryKeys: ["id"], options: { bucket: 1, "realtime.enabled": true } });
    const ctx = await RealtimeContext.create();
    for (const realtime of [undefined, ctx]) {
      const m = await expectCode(() => t.newRead({ realtime, projection: ["id", "m.k"] }), "UNSUPPORTED");
      expect(m.message).toBe("projection m.k of db.mv: selecting MAP keys is not supported; project the whole MAP column m");
      const v = await expectCode(() => t.newRead({ realtime, projection: ["va.a"] }), "UNSUPPORTED");
      expect(v.message).toBe("projection va.a of db.mv: VARIANT field access is not supported; project the whole VARIANT column va");
      expect(t.newRead({ realtime, projection: ["m", "va"] }).outputSchema.fields.map((f) => f.name)).toEqual(["m", "va"]);
    }
  });

  it("rejects unknown paths and paths through non-ROW columns", async () => {
    const t = await table({});
    for (const bad of ["addr.nope", "id.x", "nope.x", "addr.city.x"]) {
      expect(() => t.newRead({ projection: [bad] })).toThrow(PaimonError);
    }
  });
});
