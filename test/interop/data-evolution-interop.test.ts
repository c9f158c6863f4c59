/**
 * Data-evolution tables (`data-evolution.enabled`) with Java Paimon 1.4.2: Java writes full rows,
 * then new values of some columns for whole row ranges (`withWriteType`, as Spark's MERGE INTO on
 * such tables), and paimon-rt reads exactly Java's rows (plain, projected, filtered, partitions,
 * `$row_tracking`). Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import fc from "fast-check";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { col } from "../../src/predicate/predicate.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, rowsToBatch } from "./convert.js";
import { tempDirs } from "../support/temp-dirs.js";
import { batchOutput, javaOracleUnavailable, type OracleRow, type OracleSpec, parseJsonLines, runBatch, sortRows, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping data evolution interop: ${noJava}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-data-evolution-interop-");
const OPTIONS = { "row-tracking.enabled": "true", "data-evolution.enabled": "true" };

async function rowsOf(t: Table, read: Parameters<Table["newRead"]>[0] = {}, scan: Parameters<Table["newScan"]>[0] = {}): Promise<OracleRow[]> {
  return sortRows(arrowToRows(await t.newRead(read).toArrow((await t.newScan(scan).plan()).splits)));
}

describe.skipIf(noJava !== null)("data evolution with Java", () => {
  it(
    "paimon-rt reads Java's partial-column updates merged by row id",
    async () => {
      const wh = tempDir();
      const spec: OracleSpec = {
        fields: [
          { name: "dt", type: "STRING NOT NULL" },
          { name: "id", type: "INT" },
          { name: "a", type: "STRING" },
          { name: "b", type: "BIGINT" },
        ],
        partitionKeys: ["dt"],
        options: OPTIONS,
        commits: [
          { rows: [{ dt: "x", id: 1, a: "a1", b: "10" }, { dt: "x", id: 2, a: "a2", b: "20" }, { dt: "x", id: 3, a: null, b: "30" }] },
          { rows: [{ dt: "y", id: 4, a: "a4", b: "40" }, { dt: "y", id: 5, a: "a5", b: null }] },
          { updateColumns: ["b"], ranges: [{ firstRowId: 0, rows: [{ b: "11" }, { b: null }, { b: "31" }] }] },
          { updateColumns: ["a", "b"], ranges: [{ firstRowId: 0, rows: [{ a: "z1", b: "12" }, { a: "z2", b: "22" }, { a: "z3", b: "32" }] }, { firstRowId: 3, rows: [{ a: "w4", b: "44" }, { a: null, b: "55" }] }] },
          { updateColumns: ["a"], ranges: [{ firstRowId: 0, rows: [{ a: "q1" }, { a: "q2" }, { a: "q3" }] }] },
        ],
      };
      await writeTables("java", wh, [{ identifier: "db.t", spec }]);
      const results = await runBatch("java", [
        ["read", wh, "db.t", "--sort"],
        ["read", wh, "db.t$row_tracking", "--sort"],
      ]);
      const [javaRows, javaTracking] = results.map((x) => sortRows(parseJsonLines(batchOutput(x))));
      expect(javaRows).toEqual(
        sortRows([
          { dt: "x", id: 1, a: "q1", b: "12" },
          { dt: "x", id: 2, a: "q2", b: "22" },
          { dt: "x", id: 3, a: "q3", b: "32" },
          { dt: "y", id: 4, a: "w4", b: "44" },
          { dt: "y", id: 5, a: null, b: "55" },
        ]),
      );
      // _SEQUENCE_NUMBER: the newest file of each range (snapshot 5 rewrote a of range 0, snapshot 4 both columns of range 3)
      expect(javaTracking.map((r) => [r._ROW_ID, r._SEQUENCE_NUMBER])).toEqual([
        ["0", "5"],
        ["1", "5"],
        ["2", "5"],
        ["3", "4"],
        ["4", "4"],
      ]);
      const catalog = await Catalog.open(wh);
      const t = await catalog.getTable("db.t");
      expect(await rowsOf(t)).toEqual(javaRows);
      const rt = await catalog.getTable("db.t$row_tracking");
      expect(await rowsOf(rt)).toEqual(javaTracking);
    },
    SLOW,
  );
});

/** A random history: appends (one partition a commit), maybe ADD COLUMN c, then column updates of whole ranges. */
interface History {
  appends: Array<{ dt: string; rows: Array<{ id: number; a: string | null; b: number | null }> }>;
  addColumn: boolean;
  updates: Array<{ columns: string[]; ranges: Array<{ file: number; values: Array<Array<string | number | null>> }> }>;
  projection: string[];
  trackingProjection: string[];
  filter: { column: "id" | "b"; op: ">" | "<=" | "="; value: number };
}

const value = (column: string): fc.Arbitrary<string | number | null> =>
  column === "a" ? fc.option(fc.constantFrom("p", "q", "r", "s"), { nil: null }) : column === "id" ? fc.integer({ min: 0, max: 9 }) : fc.option(fc.integer({ min: -5, max: 60 }), { nil: null });

const historyArb: fc.Arbitrary<History> = fc
  .record({
    appends: fc.array(fc.record({ dt: fc.constantFrom("x", "y"), rows: fc.array(fc.record({ id: fc.integer({ min: 0, max: 9 }), a: fc.option(fc.constantFrom("a", "b", "c"), { nil: null }), b: fc.option(fc.integer({ min: 0, max: 50 }), { nil: null }) }), { minLength: 1, maxLength: 3 }) }), { minLength: 1, maxLength: 3 }),
    addColumn: fc.boolean(),
  })
  .chain(({ appends, addColumn }) => {
    const columns = ["id", "a", "b", ...(addColumn ? ["c"] : [])];
    const update = fc.record({ columns: fc.subarray(columns, { minLength: 1 }), files: fc.uniqueArray(fc.integer({ min: 0, max: appends.length - 1 }), { minLength: 1, maxLength: 2 }) }).chain(({ columns: cols, files }) =>
      fc.tuple(...files.map((file) => fc.array(fc.tuple(...cols.map((c) => value(c === "c" ? "b" : c))), { minLength: appends[file].rows.length, maxLength: appends[file].rows.length }).map((values) => ({ file, values })))).map((ranges) => ({ columns: cols, ranges })),
    );
    const all = ["dt", ...columns];
    return fc.record({
      appends: fc.constant(appends),
      addColumn: fc.constant(addColumn),
      updates: fc.array(update, { minLength: 1, maxLength: 4 }),
      projection: fc.shuffledSubarray(all, { minLength: 1 }),
      trackingProjection: fc.shuffledSubarray([...all, "_ROW_ID", "_SEQUENCE_NUMBER"], { minLength: 1 }),
      filter: fc.record({ column: fc.constantFrom("id" as const, "b" as const), op: fc.constantFrom(">" as const, "<=" as const, "=" as const), value: fc.integer({ min: -1, max: 50 }) }),
    });
  });

const encode = (column: string, v: string | number | null): unknown => (v === null ? null : column === "b" ? String(v) : v);

/** The rows a history leaves (the model: each row's columns as last written). */
function modelRows(h: History): OracleRow[] {
  const rows: OracleRow[] = [];
  const first: number[] = [];
  for (const c of h.appends) {
    first.push(rows.length);
    for (const r of c.rows) rows.push({ dt: c.dt, id: r.id, a: r.a, b: encode("b", r.b), ...(h.addColumn ? { c: null } : {}) });
  }
  for (const u of h.updates) for (const r of u.ranges) r.values.forEach((vs, i) => u.columns.forEach((c, k) => (rows[first[r.file] + i][c] = encode(c === "c" ? "b" : c, vs[k]))));
  return sortRows(rows);
}

describe.skipIf(noJava !== null)("data evolution with Java, random histories", () => {
  it(
    "paimon-rt's reads (all, projected, exactly filtered, $row_tracking) equal Java's of the same table",
    async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(historyArb, async (h) => {
          const wh = tempDir();
          const id = `db.t${n++}`;
          const first: number[] = [];
          let next = 0;
          for (const c of h.appends) {
            first.push(next);
            next += c.rows.length;
          }
          // one oracle process: create and append, maybe ADD COLUMN c, update columns, read
          const file = (name: string, content: unknown): Promise<string> => fsp.writeFile(path.join(wh, name), JSON.stringify(content)).then(() => path.join(wh, name));
          const appends: OracleSpec = { fields: [{ name: "dt", type: "STRING NOT NULL" }, { name: "id", type: "INT" }, { name: "a", type: "STRING" }, { name: "b", type: "BIGINT" }], partitionKeys: ["dt"], options: OPTIONS, commits: h.appends.map((c) => ({ rows: c.rows.map((r) => ({ dt: c.dt, id: r.id, a: r.a, b: encode("b", r.b) })) })) };
          const updates: OracleSpec = { commits: h.updates.map((u) => ({ updateColumns: u.columns, ranges: u.ranges.map((r) => ({ firstRowId: first[r.file], rows: r.values.map((vs) => Object.fromEntries(u.columns.map((c, k) => [c, encode(c === "c" ? "b" : c, vs[k])]))) })) })) };
          const literal = h.filter.column === "b" ? `"${h.filter.value}"` : String(h.filter.value);
          const filterArgs = ["--filter", h.filter.column, h.filter.op, literal];
          const results = await runBatch("java", [
            ["write", wh, id, await file("appends.json", appends)],
            ...(h.addColumn ? [["alter", wh, id, await file("alter.json", [{ kind: "addColumn", name: "c", type: "BIGINT" }])]] : []),
            ["write", wh, id, await file("updates.json", updates)],
            ["read", wh, id, "--sort"],
            ["read", wh, id, "--sort", "--project", h.projection.join(",")],
            ["read", wh, id, "--sort", ...filterArgs],
            ["read", wh, id, "--sort", ...filterArgs, "--execute-filter"],
            ["read", wh, `${id}$row_tracking`, "--sort", "--project", h.trackingProjection.join(",")],
          ]);
          results.forEach(batchOutput);
          results.splice(0, results.length - 5);
          const [all, projected, pruned, filtered, tracking] = results.map((x) => sortRows(parseJsonLines(batchOutput(x))));
          expect(all).toEqual(modelRows(h));
          const catalog = await Catalog.open(wh);
          const t = await catalog.getTable(id);
          const lit = h.filter.column === "b" ? BigInt(h.filter.value) : h.filter.value;
          const predicate = h.filter.op === ">" ? col(h.filter.column).gt(lit) : h.filter.op === "<=" ? col(h.filter.column).le(lit) : col(h.filter.column).eq(lit);
          expect({ h, rows: await rowsOf(t) }).toEqual({ h, rows: all });
          expect({ h, rows: await rowsOf(t, { projection: h.projection }) }).toEqual({ h, rows: projected });
          // a filter that only prunes prunes nothing here (no per-file stats of data-evolution tables): Java's group pruning keeps a subset
          const unpruned = await rowsOf(t, {}, { filter: predicate });
          expect({ h, rows: unpruned }).toEqual({ h, rows: all });
          for (const row of pruned) expect(all).toContainEqual(row);
          expect({ h, rows: await rowsOf(t, { filter: predicate, predicateFilter: true }, { filter: predicate }) }).toEqual({ h, rows: filtered });
          const rt = await catalog.getTable(`${id}$row_tracking`);
          expect({ h, rows: await rowsOf(rt, { projection: h.trackingProjection }) }).toEqual({ h, rows: tracking });
        }),
        { numRuns: 10, seed: 90 },
      );
    },
    SLOW,
  );
});

/** Per live file of the latest snapshot: [partition bytes, firstRowId, rowCount, minSeq, maxSeq, fileSource, writeCols], sorted. */
async function fileMetas(t: Table): Promise<unknown[]> {
  const entries = await t.manifestStore.liveEntries((await t.latestSnapshot())!);
  return entries.map((e) => [e.partition.join(","), e.file.firstRowId, e.file.rowCount, e.file.minSequenceNumber, e.file.maxSequenceNumber, e.file.fileSource, e.file.writeCols]).sort((a, b) => (JSON.stringify(a, (_k, v) => (typeof v === "bigint" ? String(v).padStart(8, "0") : v)) < JSON.stringify(b, (_k, v) => (typeof v === "bigint" ? String(v).padStart(8, "0") : v)) ? -1 : 1));
}

const FIELDS = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "INT" },
  { name: "a", type: "STRING" },
  { name: "b", type: "BIGINT" },
];
const APPENDS: OracleRow[][] = [
  [{ dt: "x", id: 1, a: "a1", b: "10" }, { dt: "x", id: 2, a: "a2", b: "20" }, { dt: "x", id: 3, a: null, b: "30" }],
  [{ dt: "y", id: 4, a: "a4", b: "40" }, { dt: "y", id: 5, a: "a5", b: null }],
];
const UPDATES: Array<{ updateColumns: string[]; ranges: Array<{ firstRowId: number; rows: OracleRow[] }> }> = [
  { updateColumns: ["b"], ranges: [{ firstRowId: 0, rows: [{ b: "11" }, { b: null }, { b: "31" }] }] },
  { updateColumns: ["b", "a"], ranges: [{ firstRowId: 0, rows: [{ a: "z1", b: "12" }, { a: "z2", b: "22" }, { a: "z3", b: "32" }] }, { firstRowId: 3, rows: [{ a: "w4", b: "44" }, { a: null, b: "55" }] }] },
];

describe.skipIf(noJava !== null)("data evolution: paimon-rt writes, Java reads and compacts", () => {
  it(
    "full-row appends and writeColumns give Java's files; Java reads paimon-rt's table as paimon-rt does, also after Java's DataEvolutionCompactCoordinator compacted it",
    async () => {
      const wh = tempDir();
      await writeTables("java", wh, [{ identifier: "db.j", spec: { fields: FIELDS, partitionKeys: ["dt"], options: OPTIONS, commits: [...APPENDS.map((rows) => ({ rows })), ...UPDATES] } }]);
      const catalog = await Catalog.open(wh);
      // (compaction.min.file-num 2: Java's DataEvolutionCompactCoordinator then compacts both partitions)
      const r = await catalog.createTable("db.r", { fields: FIELDS, partitionKeys: ["dt"], options: { ...OPTIONS, "compaction.min.file-num": "2" } });
      for (const rows of APPENDS) {
        const w = await r.newWrite({ commitUser: "u" });
        await w.write(rowsToBatch(FIELDS, rows));
        await r.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
        await w.close();
      }
      for (const u of UPDATES) {
        const w = await r.newWrite({ commitUser: "u" });
        const fields = u.updateColumns.map((n) => FIELDS.find((f) => f.name === n)!);
        for (const range of u.ranges) await w.writeColumns(BigInt(range.firstRowId), rowsToBatch(fields, range.rows));
        await r.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
        await w.close();
      }
      const j = await catalog.getTable("db.j");
      // the same files: ids, sequence numbers, sources and write columns (Java keeps the update's column order)
      const javaFiles = await fileMetas(j);
      expect(await fileMetas(r)).toEqual(javaFiles.map((f) => { const c = (f as unknown[]).slice(); c[6] = c[6] === null ? null : FIELDS.map((x) => x.name).filter((n) => (c[6] as string[]).includes(n)); return c; }));
      expect(javaFiles.length).toBe(5);
      const byRowId = [
        { dt: "x", id: 1, a: "z1", b: "12" },
        { dt: "x", id: 2, a: "z2", b: "22" },
        { dt: "x", id: 3, a: "z3", b: "32" },
        { dt: "y", id: 4, a: "w4", b: "44" },
        { dt: "y", id: 5, a: null, b: "55" },
      ];
      const expected = sortRows(byRowId);
      const trackingOf = (seqs: string[]) => sortRows(byRowId.map((row, i) => ({ ...row, _ROW_ID: String(i), _SEQUENCE_NUMBER: seqs[i] })));
      const [javaOfRt, javaTrackingOfRt, javaOwn] = (await runBatch("java", [
        ["read", wh, "db.r", "--sort"],
        ["read", wh, "db.r$row_tracking", "--sort"],
        ["read", wh, "db.j", "--sort"],
      ])).map((x) => sortRows(parseJsonLines(batchOutput(x))));
      expect(javaOwn).toEqual(expected);
      expect(javaOfRt).toEqual(expected);
      expect(javaTrackingOfRt).toEqual(trackingOf(["4", "4", "4", "4", "4"]));
      expect(await rowsOf(r)).toEqual(expected);
      expect(await rowsOf(await catalog.getTable("db.r$row_tracking"))).toEqual(trackingOf(["4", "4", "4", "4", "4"]));

      // Java compacts paimon-rt's table: one file per range, which paimon-rt reads
      await writeTables("java", wh, [{ identifier: "db.r", spec: { commits: [{ dataEvolutionCompact: true }] } }]);
      const compacted = await catalog.getTable("db.r");
      const snapshot = (await compacted.latestSnapshot())!;
      expect([snapshot.id, snapshot.commitKind, snapshot.nextRowId]).toEqual([5, "COMPACT", 5n]);
      expect((await fileMetas(compacted)).map((f) => (f as unknown[]).slice(1))).toEqual([
        [0n, 3n, 1n, 4n, 0, null],
        [3n, 2n, 2n, 4n, 0, null],
      ]);
      const [javaCompacted] = (await runBatch("java", [["read", wh, "db.r$row_tracking", "--sort"]])).map((x) => sortRows(parseJsonLines(batchOutput(x))));
      expect(javaCompacted).toEqual(trackingOf(["4", "4", "4", "4", "4"]));
      expect(await rowsOf(await catalog.getTable("db.r$row_tracking"))).toEqual(javaCompacted);
      expect(await rowsOf(compacted)).toEqual(expected);
    },
    SLOW,
  );
});
