// The table setup of the real-time append-deduplicate mode (seed 000 "Append deduplicate",
// "Mode-specific Setup", "Schema Changes"; issue 11 "Table setup"): every requirement is checked at
// create, alter and load with an error naming what is missing; _REALTIME_OFFSET keeps its name and
// type; the key may be renamed (bucket-key and the key option follow, files of the old schema stay
// readable); ordinary row writes are refused while an ordinary writer may compact.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { schemaToJson } from "../../src/spec/schema.js";
import { Table } from "../../src/table/table.js";
import { checkDeduplicateTable } from "../../src/table/dedup-check.js";
import { failure } from "./helpers.js";
import { DEDUP_OPTIONS } from "../realtime/dedup-helpers.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const OPTIONS = DEDUP_OPTIONS;
const FIELDS = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "_REALTIME_OFFSET", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
];

async function catalog(): Promise<{ dir: string; catalog: Catalog }> {
  const dir = mkdtempSync(join(tmpdir(), "paimon-rt-dedup-table-"));
  dirs.push(dir);
  const c = await Catalog.open(dir);
  await c.createDatabase("db");
  return { dir, catalog: c };
}

const without = (key: string) => Object.fromEntries(Object.entries(OPTIONS).filter(([k]) => k !== key));

describe("append deduplicate table setup", () => {
  it("accepts the seed's example and reports the key and offset fields", async () => {
    const { catalog: c } = await catalog();
    const t = await c.createTable("db.t", { fields: FIELDS, options: OPTIONS });
    const layout = checkDeduplicateTable(t.schema, t.identifier)!;
    expect([layout.keyField.name, layout.offsetField.name, layout.offsetField.id]).toEqual(["id", "_REALTIME_OFFSET", 1]);
    expect(checkDeduplicateTable((await c.createTable("db.plain", { fields: FIELDS, options: { bucket: "1", "bucket-key": "id" } })).schema, "db.plain")).toBeNull();
  });

  const cases: Array<[string, { fields?: Array<{ name: string; type: string }>; options?: Record<string, string>; primaryKeys?: string[]; partitionKeys?: string[] }, string, string]> = [
    ["a primary key", { primaryKeys: ["id"] }, "INVALID_ARGUMENT", "must not have a primary key (it has [id]); realtime.deduplicate-key-fields is for append tables"],
    ["two key fields", { options: { ...OPTIONS, "realtime.deduplicate-key-fields": "id,v" } }, "INVALID_ARGUMENT", "realtime.deduplicate-key-fields must name exactly one deduplicate key field, got 'id,v'"],
    ["an unknown key field", { options: { ...OPTIONS, "realtime.deduplicate-key-fields": "nope", "bucket-key": "id" } }, "INVALID_ARGUMENT", "deduplicate key field nope (realtime.deduplicate-key-fields) does not exist"],
    ["the offset as key", { options: { ...OPTIONS, "realtime.deduplicate-key-fields": "_REALTIME_OFFSET" } }, "INVALID_ARGUMENT", "the offset field _REALTIME_OFFSET cannot be used as the deduplicate key"],
    ["a nullable key", { fields: [{ name: "id", type: "BIGINT" }, FIELDS[1], FIELDS[2]] }, "INVALID_ARGUMENT", "deduplicate key field id must be non-null (NOT NULL)"],
    ["a nested key", { fields: [{ name: "id", type: "ROW<a INT> NOT NULL" }, FIELDS[1], FIELDS[2]], options: { ...OPTIONS, "bucket-key": "v" } }, "INVALID_ARGUMENT", "deduplicate key field id must not be nested (it is ROW)"],
    ["no offset column", { fields: [FIELDS[0], FIELDS[2]], options: { ...without("file-index.bitmap.columns") } }, "INVALID_ARGUMENT", "needs a column _REALTIME_OFFSET BIGINT NOT NULL"],
    ["a nullable offset column", { fields: [FIELDS[0], { name: "_REALTIME_OFFSET", type: "BIGINT" }, FIELDS[2]] }, "INVALID_ARGUMENT", "column _REALTIME_OFFSET must be BIGINT NOT NULL"],
    ["an INT offset column", { fields: [FIELDS[0], { name: "_REALTIME_OFFSET", type: "INT NOT NULL" }, FIELDS[2]] }, "INVALID_ARGUMENT", "column _REALTIME_OFFSET must be BIGINT NOT NULL"],
    ["dynamic buckets", { options: { ...without("bucket-key"), bucket: "-1" } }, "INVALID_ARGUMENT", "needs a fixed bucket count (bucket > 0), got bucket = -1"],
    ["a bucket key outside the key", { options: { ...OPTIONS, "bucket-key": "id,v" } }, "INVALID_ARGUMENT", "bucket-key [id, v] must use only the deduplicate key field id (not v)"],
    ["no deletion vectors", { options: without("deletion-vectors.enabled") }, "INVALID_ARGUMENT", "needs deletion-vectors.enabled = true"],
    ["64-bit deletion vectors", { options: { ...OPTIONS, "deletion-vectors.bitmap64": "true" } }, "INVALID_ARGUMENT", "needs deletion-vectors.bitmap64 = false (persisted deletion vectors must be 32-bit)"],
    ["no offset index", { options: without("file-index.bitmap.columns") }, "INVALID_ARGUMENT", "needs an exact offset index: file-index.bitmap.columns must include _REALTIME_OFFSET"],
    [
      "only a bloom filter on the offset",
      { options: { ...without("file-index.bitmap.columns"), "file-index.bloom-filter.columns": "_REALTIME_OFFSET" } },
      "INVALID_ARGUMENT",
      "needs an exact offset index: file-index.bitmap.columns must include _REALTIME_OFFSET (a bloom-filter index is approximate: insufficient)",
    ],
    // (data evolution: it needs row tracking, which a bucketed table cannot have: INVALID_ARGUMENT at create, Java's SchemaValidation)
  ];
  for (const [what, spec, code, message] of cases) {
    it(`refuses ${what} at create, and nothing is created`, async () => {
      const { catalog: c } = await catalog();
      const e = await failure(() => c.createTable("db.t", { fields: spec.fields ?? FIELDS, options: spec.options ?? OPTIONS, primaryKeys: spec.primaryKeys, partitionKeys: spec.partitionKeys }));
      expect([e.code, e.message]).toEqual([code, `append deduplicate table db.t: ${message}`]);
      expect(await c.tableExists("db.t")).toBe(false);
    });
  }

  it("refuses alterations that break a requirement, and checks again at load", async () => {
    const { dir, catalog: c } = await catalog();
    const t = await c.createTable("db.t", { fields: FIELDS, options: OPTIONS });
    const e = await failure(() => c.alterTable("db.t", [{ kind: "setOption", key: "deletion-vectors.bitmap64", value: "true" }]));
    expect([e.code, e.message]).toEqual(["INVALID_ARGUMENT", "append deduplicate table db.t: needs deletion-vectors.bitmap64 = false (persisted deletion vectors must be 32-bit)"]);
    const removed = await failure(() => c.alterTable("db.t", [{ kind: "removeOption", key: "file-index.bitmap.columns" }]));
    expect(removed.message).toBe("append deduplicate table db.t: needs an exact offset index: file-index.bitmap.columns must include _REALTIME_OFFSET");
    // A schema written by another engine without the offset index: loading the table refuses it.
    const broken = { ...t.schema, id: 1, options: without("file-index.bitmap.columns") };
    await t.fileIO.writeFile(join(dir, "db.db", "t", "schema", "schema-1"), new TextEncoder().encode(schemaToJson(broken)));
    for (const load of [() => c.getTable("db.t"), () => Table.open(join(dir, "db.db", "t"))]) {
      const atLoad = await failure(load);
      expect([atLoad.code, atLoad.message]).toEqual(["INVALID_ARGUMENT", "append deduplicate table db.t: needs an exact offset index: file-index.bitmap.columns must include _REALTIME_OFFSET"]);
    }
  });

  it("keeps _REALTIME_OFFSET's name and type", async () => {
    const { catalog: c } = await catalog();
    await c.createTable("db.t", { fields: FIELDS, options: OPTIONS });
    const changes = [
      [{ kind: "renameColumn", name: "_REALTIME_OFFSET", newName: "offset" }, "renamed"],
      [{ kind: "dropColumn", name: "_REALTIME_OFFSET" }, "dropped"],
      [{ kind: "updateColumnType", name: "_REALTIME_OFFSET", type: "DOUBLE NOT NULL" }, "retyped"],
    ] as const;
    for (const [change, verb] of changes) {
      const e = await failure(() => c.alterTable("db.t", [change]));
      expect([e.code, e.message]).toEqual(["UNSUPPORTED", `_REALTIME_OFFSET of append deduplicate table db.t cannot be ${verb}`]);
    }
    expect((await c.getTable("db.t")).schema.id).toBe(0);
  });

  it("lets the key be renamed: bucket-key and the key option follow, files of the old schema stay readable and compactable; ordinary row writes are refused", async () => {
    const { catalog: c } = await catalog();
    // Rows written before the table became a deduplicate table (ordinary writes are refused after).
    const before = await c.createTable("db.t", { fields: FIELDS, options: without("realtime.deduplicate-key-fields") });
    for (const ids of [[1, 2, 3], [4, 5]]) {
      const w = await before.newWrite({ commitUser: "u" });
      await w.write(
        new arrow.RecordBatch({
          id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, nullCount: 0, data: BigInt64Array.from(ids.map(BigInt)) }),
          _REALTIME_OFFSET: arrow.makeData({ type: new arrow.Int64(), length: ids.length, nullCount: 0, data: BigInt64Array.from(ids.map((i) => BigInt(i * 10))) }),
          v: arrow.vectorFromArray(ids.map((i) => `v${i}`), new arrow.Utf8()).data[0],
        }),
      );
      await before.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    }
    await c.alterTable("db.t", [{ kind: "setOption", key: "realtime.deduplicate-key-fields", value: "id" }]);
    const t = await c.alterTable("db.t", [{ kind: "renameColumn", name: "id", newName: "key" }]);
    expect([t.options["bucket-key"], t.options["realtime.deduplicate-key-fields"]]).toEqual(["key", "key"]);
    expect(checkDeduplicateTable(t.schema, t.identifier)!.keyField).toEqual({ id: 0, name: "key", type: { kind: "BIGINT", nullable: false } });
    const rows = (await t.newRead().toArrow((await t.newScan().plan()).splits)).toArray().map((r) => `${r.key}:${r._REALTIME_OFFSET}`);
    expect(rows.sort()).toEqual(["1:10", "2:20", "3:30", "4:40", "5:50"]);
    const w = await t.newWrite({ commitUser: "u" });
    const refused = await failure(() => w.write(new arrow.RecordBatch({ key: arrow.makeData({ type: new arrow.Int64(), length: 0, data: new BigInt64Array(0) }) })));
    expect([refused.code, refused.message]).toEqual(["UNSUPPORTED", "ordinary row writes into append deduplicate table db.t are not supported; write through a real-time writer (newWrite with a realtime context)"]);
    await w.compact();
    const compacted = await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    expect((await t.snapshot(compacted!)).commitKind).toBe("COMPACT");
    const files = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).map((e) => e.file);
    expect(files.every((f) => f.embeddedIndex !== null || f.extraFiles.length > 0)).toBe(true); // the offset index is rebuilt
    const after = (await t.newRead().toArrow((await t.newScan().plan()).splits)).toArray().map((r) => `${r.key}:${r._REALTIME_OFFSET}`);
    expect(after.sort()).toEqual(rows.sort());
  });
});
