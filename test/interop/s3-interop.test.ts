/**
 * Java Paimon and paimon-rt share tables on a real S3 server (Ceph RGW from scripts/s3-server.sh):
 *   a. paimon-rt writes a partitioned append table and a primary-key table to `s3://bucket/…`;
 *      Java Paimon (paimon-s3, its S3 filesystem from Maven Central) reads exactly those rows, at the
 *      latest snapshot and by time travel;
 *   b. Java writes both kinds of table to `s3://`; paimon-rt reads exactly Java's rows, appends /
 *      upserts a commit of its own, and Java reads the combined table;
 *   c. a deletion-vector PK table on `s3://`: Java deletes, updates and compacts; paimon-rt reads,
 *      deletes a row of Java's compacted file (a deletion vector of its own), and Java reads the result;
 *   d. a real-time append table committed with progress (and a crash + recovery) on `s3://`: Java
 *      reads each snapshot's rows exactly up to the offsets committed with it.
 * The Java oracle takes endpoint and credentials from the same AWS_* variables as paimon-rt.
 * Skips with a printed reason when the S3 server's environment or the Java oracle is missing.
 */
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { RealtimeContext, RealtimeSnapshotOffsets, Table as TableClass } from "../../src/index.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { freshS3Root, s3TestBucket } from "../fs/s3-server.js";
import { arrowToRows, rowsToBatch, type FieldLike } from "./convert.js";
import { type OracleRow, javaOracleUnavailable, readTables, sortRows, writeTables } from "./oracle/harness.js";
import { makeTable, range, rtBatch } from "../realtime/helpers.js";

const noJava = javaOracleUnavailable();
const skipReason =
  s3TestBucket === null ? "no S3 server environment (start one: eval \"$(scripts/s3-server.sh start)\")" : noJava;
if (skipReason) console.warn(`[s3-interop] skipping Java Paimon on s3:// tests: ${skipReason}`);

const SLOW = 180_000;

const APPEND_FIELDS: FieldLike[] = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "name", type: "STRING" },
  { name: "price", type: "DECIMAL(10, 2)" },
  { name: "day", type: "DATE" },
  { name: "dt", type: "STRING" },
];
const APPEND_COMMITS: OracleRow[][] = [
  [
    { id: "1", name: "apple", price: "1.20", day: "2024-05-01", dt: "2024-05-01" },
    { id: "2", name: "beet", price: null, day: "2024-05-02", dt: "2024-05-02" },
    { id: "3", name: null, price: "-99999999.99", day: null, dt: "2024-05-01" },
  ],
  [
    { id: "4", name: "ä ö ü", price: "0.05", day: "1970-01-01", dt: "2024-05-02" },
    { id: "5", name: "", price: "99999999.99", day: "2099-12-31", dt: "2024-05-03" },
  ],
];

const PK_FIELDS: FieldLike[] = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
  { name: "n", type: "INT" },
];
/** Later commits update keys of earlier ones: readers must merge to the last value per key. */
const PK_COMMITS: OracleRow[][] = [
  [
    { dt: "a", id: "1", v: "one", n: 1 },
    { dt: "a", id: "2", v: "two", n: 2 },
    { dt: "b", id: "1", v: "b-one", n: 10 },
  ],
  [
    { dt: "a", id: "2", v: "two-updated", n: 22 },
    { dt: "b", id: "3", v: "b-three", n: null },
  ],
];
const PK_OPTIONS = { bucket: "2" };

/** Last row per primary key (dt, id), in commit order: what a merge-on-read must return. */
function mergedByKey(commits: OracleRow[][]): OracleRow[] {
  const byKey = new Map<string, OracleRow>();
  for (const rows of commits) for (const r of rows) byKey.set(`${r.dt}/${r.id}`, r);
  return sortRows([...byKey.values()]);
}

async function writeWithRt(table: Table, fields: FieldLike[], rows: OracleRow[], user: string): Promise<number | null> {
  const write = await table.newWrite({ commitUser: user });
  await write.write(rowsToBatch(fields, rows));
  const messages = await write.prepareCommit();
  await write.close();
  return table.newCommit({ commitUser: user }).commit(messages);
}

/** One commit of rows with their row kinds. */
async function commitWithRt(table: Table, fields: FieldLike[], rows: OracleRow[], kinds: RowKind[], user: string): Promise<number | null> {
  const write = await table.newWrite({ commitUser: user });
  await write.write(rowsToBatch(fields, rows), { rowKinds: kinds });
  const messages = await write.prepareCommit();
  await write.close();
  return table.newCommit({ commitUser: user }).commit(messages);
}

async function readWithRt(table: Table, snapshotId?: number): Promise<OracleRow[]> {
  const plan = await table.newScan(snapshotId === undefined ? {} : { snapshotId }).plan();
  return sortRows(arrowToRows(await table.newRead().toArrow(plan.splits)));
}

/** Rows of each read, failing the test with Java's error when a read failed. */
function rowsOf(results: Array<OracleRow[] | Error>): OracleRow[][] {
  return results.map((r) => {
    if (r instanceof Error) throw r;
    return r;
  });
}

if (skipReason) {
  describe.skip(`Java Paimon on s3:// — ${skipReason}`, () => {
    it("needs an S3 server and the Java oracle", () => undefined);
  });
} else {
  describe("Java Paimon and paimon-rt on s3:// (Ceph RGW)", () => {
    it(
      "paimon-rt writes a partitioned append table and a PK table to s3://; Java reads the exact rows",
      async () => {
        const warehouse = freshS3Root("java-reads-rt");
        const catalog = await Catalog.open(warehouse);
        await catalog.createDatabase("db");
        const append = await catalog.createTable("db.append", {
          fields: APPEND_FIELDS.map((f) => ({ name: f.name, type: f.type })),
          partitionKeys: ["dt"],
        });
        const pk = await catalog.createTable("db.pk", {
          fields: PK_FIELDS.map((f) => ({ name: f.name, type: f.type })),
          partitionKeys: ["dt"],
          primaryKeys: ["dt", "id"],
          options: PK_OPTIONS,
        });
        for (const [i, rows] of APPEND_COMMITS.entries()) expect(await writeWithRt(append, APPEND_FIELDS, rows, "rt-append")).toBe(i + 1);
        for (const [i, rows] of PK_COMMITS.entries()) expect(await writeWithRt(pk, PK_FIELDS, rows, "rt-pk")).toBe(i + 1);

        const [appendLatest, appendFirst, pkLatest, pkFirst] = rowsOf(
          await readTables("java", [
            { warehouse, identifier: "db.append", sort: true },
            { warehouse, identifier: "db.append", snapshot: 1, sort: true },
            { warehouse, identifier: "db.pk", sort: true },
            { warehouse, identifier: "db.pk", snapshot: 1, sort: true },
          ]),
        );
        expect(appendLatest).toEqual(sortRows(APPEND_COMMITS.flat()));
        expect(appendFirst).toEqual(sortRows(APPEND_COMMITS[0]));
        expect(pkLatest).toEqual(mergedByKey(PK_COMMITS));
        expect(pkFirst).toEqual(sortRows(PK_COMMITS[0]));
        // paimon-rt agrees with Java on its own table
        expect(await readWithRt(append)).toEqual(appendLatest);
        expect(await readWithRt(pk)).toEqual(pkLatest);
      },
      SLOW,
    );

    it(
      "Java writes append and PK tables to s3://; paimon-rt reads the exact rows and commits more; Java reads them all",
      async () => {
        const warehouse = freshS3Root("rt-reads-java");
        const snapshots = await writeTables("java", warehouse, [
          {
            identifier: "db.append",
            spec: {
              fields: APPEND_FIELDS.map((f) => ({ name: f.name, type: f.type as string })),
              partitionKeys: ["dt"],
              options: { bucket: -1 },
              commits: [APPEND_COMMITS[0]],
            },
          },
          {
            identifier: "db.pk",
            spec: {
              fields: PK_FIELDS.map((f) => ({ name: f.name, type: f.type as string })),
              partitionKeys: ["dt"],
              primaryKeys: ["dt", "id"],
              options: PK_OPTIONS,
              commits: [PK_COMMITS[0]],
            },
          },
        ]);
        expect(snapshots).toEqual([[1], [1]]);

        const catalog = await Catalog.open(warehouse);
        expect(await catalog.listTables("db")).toEqual(["append", "pk"]);
        const append = await catalog.getTable("db.append");
        const pk = await catalog.getTable("db.pk");
        expect(await readWithRt(append)).toEqual(sortRows(APPEND_COMMITS[0]));
        expect(await readWithRt(pk)).toEqual(sortRows(PK_COMMITS[0]));

        expect(await writeWithRt(append, APPEND_FIELDS, APPEND_COMMITS[1], "rt-append")).toBe(2);
        expect(await writeWithRt(pk, PK_FIELDS, PK_COMMITS[1], "rt-pk")).toBe(2);

        const [appendLatest, appendJavaSnapshot, pkLatest] = rowsOf(
          await readTables("java", [
            { warehouse, identifier: "db.append", sort: true },
            { warehouse, identifier: "db.append", snapshot: 1, sort: true },
            { warehouse, identifier: "db.pk", sort: true },
          ]),
        );
        expect(appendLatest).toEqual(sortRows(APPEND_COMMITS.flat()));
        expect(appendJavaSnapshot).toEqual(sortRows(APPEND_COMMITS[0]));
        expect(pkLatest).toEqual(mergedByKey(PK_COMMITS));
        expect(await readWithRt(pk)).toEqual(pkLatest);
      },
      SLOW,
    );

    it(
      "deletion vectors on s3://: Java deletes, updates and compacts; paimon-rt reads and deletes into a deletion vector; Java reads the result",
      async () => {
        const warehouse = freshS3Root("dv");
        const fields: FieldLike[] = [
          { name: "id", type: "BIGINT NOT NULL" },
          { name: "v", type: "STRING" },
        ];
        const snapshots = await writeTables("java", warehouse, [
          {
            identifier: "db.dv",
            spec: {
              fields: fields.map((f) => ({ name: f.name, type: f.type as string })),
              primaryKeys: ["id"],
              options: { bucket: "1", "deletion-vectors.enabled": "true" },
              commits: [
                [
                  { id: "1", v: "a" },
                  { id: "2", v: "b" },
                  { id: "3", v: "c" },
                  { id: "4", v: "d" },
                ],
                [
                  { _kind: "-D", id: "2", v: "b" },
                  { _kind: "+U", id: "3", v: "c2" },
                ],
                { rows: [], compact: true },
              ],
            },
          },
        ]);
        // each write of a DV table is followed by Java's own compaction snapshot (1+2, 3+4), then the full one (5)
        expect(snapshots).toEqual([[2, 4, 5]]);

        const table = await (await Catalog.open(warehouse)).getTable("db.dv");
        expect(await readWithRt(table)).toEqual([
          { id: "1", v: "a" },
          { id: "3", v: "c2" },
          { id: "4", v: "d" },
        ]);
        // a delete plus an insert: like Java, paimon-rt commits them and then compacts level 0
        // (snapshots 6 and 7), marking the deleted row of Java's compacted file in a deletion vector
        // on s3:// that Java must honour
        const id = await commitWithRt(table, fields, [{ id: "1", v: "a" }, { id: "5", v: "e" }], [RowKind.DELETE, RowKind.INSERT], "rt-dv");
        expect(id).toBe(7);
        expect((await table.listSnapshots()).map((x) => x.commitKind)).toEqual(["APPEND", "COMPACT", "APPEND", "COMPACT", "COMPACT", "APPEND", "COMPACT"]);
        const [split] = (await table.newScan().plan()).splits;
        const javaFile = split.files.findIndex((f) => f.level === 5);
        expect(split.files[javaFile].rowCount).toBe(3n);
        expect(split.deletionFiles?.[javaFile]?.path.startsWith(`${warehouse}/db.db/dv/index/`)).toBe(true);
        expect(split.deletionFiles?.[javaFile]?.cardinality).toBe(1n);
        const expected = [
          { id: "3", v: "c2" },
          { id: "4", v: "d" },
          { id: "5", v: "e" },
        ];
        expect(await readWithRt(table)).toEqual(expected);
        const [javaRows] = rowsOf(await readTables("java", [{ warehouse, identifier: "db.dv", sort: true }]));
        expect(javaRows).toEqual(expected);
      },
      SLOW,
    );

    it(
      "paimon-rt commits a real-time append table to s3:// with progress, crashes and recovers; Java reads every snapshot's rows exactly up to its committed offsets",
      async () => {
        const warehouse = freshS3Root("java-reads-rt-progress");
        const table = await makeTable({}, { warehouse, name: "rt", partitioned: true });
        const commit = table.newCommit({ commitUser: "u" });
        const ctx = await RealtimeContext.create();
        const w = await table.newWrite({ commitUser: "u", realtime: ctx });
        await w.write(rtBatch(range(0, 10), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
        await w.write(rtBatch(range(0, 4), { dt: "b", ids: range(100, 104) }), { partition: { dt: "b" }, bucket: 1 });
        const s1 = await commit.commitWithProgress(await w.prepareCommitWithProgress(1), 1);
        await w.refreshCommittedSnapshot(s1);
        await w.write(rtBatch(range(10, 15), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
        expect(await commit.commitWithProgress(await w.prepareCommitWithProgress(2), 2)).toBe(2);
        await w.write(rtBatch(range(15, 20), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 }); // never committed: lost in the crash

        // crash; a new process recovers from the progress committed on s3:// and replays from there
        const recovered = await TableClass.open(table.location);
        expect(await RealtimeSnapshotOffsets.readAllOffsets(recovered)).toEqual([
          { partition: { dt: "a" }, bucket: 0, offset: 15n },
          { partition: { dt: "b" }, bucket: 1, offset: 4n },
        ]);
        const w2 = await recovered.newWrite({ commitUser: "u2", realtime: await RealtimeContext.create() });
        await w2.write(rtBatch(range(15, 18), { dt: "a" }), { partition: { dt: "a" }, bucket: 0 });
        await w2.write(rtBatch([4], { dt: "b", ids: [104] }), { partition: { dt: "b" }, bucket: 1 });
        expect(await recovered.newCommit({ commitUser: "u2" }).commitWithProgress(await w2.prepareCommitWithProgress(1), 1)).toBe(3);
        await w2.close();

        const idsOf = (rows: OracleRow[]) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);
        const [first, second, latest] = rowsOf(
          await readTables("java", [
            { warehouse, identifier: "db.rt", snapshot: 1, sort: true },
            { warehouse, identifier: "db.rt", snapshot: 2, sort: true },
            { warehouse, identifier: "db.rt", sort: true },
          ]),
        );
        expect(idsOf(first)).toEqual([...range(0, 10), ...range(100, 104)]);
        expect(idsOf(second)).toEqual([...range(0, 15), ...range(100, 104)]);
        expect(idsOf(latest)).toEqual([...range(0, 18), ...range(100, 105)]);
        // Java sees the rows' values as written (no offset column in the data files)
        expect(latest.find((r) => Number(r.id) === 17)).toEqual({ id: "17", name: "n17", v: 8.5, dt: "a" });
        // each snapshot's committed progress matches what Java read from it
        expect(await RealtimeSnapshotOffsets.readAllOffsets(recovered, 1)).toEqual([
          { partition: { dt: "a" }, bucket: 0, offset: 10n },
          { partition: { dt: "b" }, bucket: 1, offset: 4n },
        ]);
        expect(await RealtimeSnapshotOffsets.readAllOffsets(recovered)).toEqual([
          { partition: { dt: "a" }, bucket: 0, offset: 18n },
          { partition: { dt: "b" }, bucket: 1, offset: 5n },
        ]);
      },
      SLOW,
    );
  });
}
