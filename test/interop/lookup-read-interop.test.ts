/**
 * Merge reads of Java-written lookup tables (`changelog-producer=lookup`, `force-lookup=true`)
 * with merge functions: Java's lookup compaction writes a key's merged row (level 0 merged with
 * the key's looked-up row) at a level above the one still holding the older row, and its reads
 * take only a key's lowest positive level with level 0 (LookupMergeFunction). Folding every level
 * counted the older rows twice (a sum read 14 where Java reads 10). paimon-rt writes such tables
 * as Java does (level 0 compacted every commit, merged with the key's looked-up row): its twin of
 * each table, written with the same commits, and its continuation of Java's table read (in Java
 * and in paimon-rt) exactly as Java's own table and Java's continuation of paimon-rt's.
 *
 * Skips cleanly (with a printed reason) when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { col } from "../../src/predicate/predicate.js";
import { arrowToRows } from "./convert.js";
import { javaOracleUnavailable, type OracleRow, readTables, sortRows, writeTables } from "./oracle/harness.js";
import { rtCommitRows } from "./rt-commit.js";

const unavailable = javaOracleUnavailable();
if (unavailable) console.warn(`[lookup-read-interop] skipping: ${unavailable}`);
const SLOW = 300_000;

const FIELDS = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "n", type: "BIGINT" },
  { name: "s", type: "STRING" },
];

/** A large first commit (a level-5 file), then small ones: each is compacted to a level above with the key's looked-up row merged in. */
function commits(): OracleRow[][] {
  const first = Array.from({ length: 3000 }, (_, i) => ({ id: String(i + 1), n: "1", s: `s${i + 1}` }));
  return [first, [{ id: "1", n: "2", s: null }], [{ id: "2", n: "5", s: "two" }], [{ id: "1", n: "7", s: null }, { id: "3000", n: "4", s: "last" }]];
}

const CASES: Array<[string, Record<string, string>]> = [
  ["lookup_sum", { "changelog-producer": "lookup", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "fields.s.aggregate-function": "last_non_null_value" }],
  ["force_lookup_sum", { "force-lookup": "true", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "fields.s.aggregate-function": "last_non_null_value" }],
  ["lookup_partial_update", { "changelog-producer": "lookup", "merge-engine": "partial-update" }],
  ["force_lookup_partial_update", { "force-lookup": "true", "merge-engine": "partial-update" }],
];

/** Commits continuing a table: updates of keys at every level, new keys. */
const MORE: OracleRow[][] = [[{ id: "1", n: "1", s: "again" }, { id: "2", n: "1", s: null }], [{ id: "3001", n: "3", s: "new" }, { id: "1", n: "1", s: null }], [{ id: "3000", n: "6", s: null }]];

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-lookup-read-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

describe.skipIf(unavailable !== null)("merge reads of Java-written lookup tables", () => {
  it(
    "read a key's lowest positive level with level 0, as Java's LookupMergeFunction; paimon-rt writes and continues them as Java",
    async () => {
      const wh = path.join(root, "wh");
      await writeTables("java", wh, CASES.map(([name, options]) => ({ identifier: `db.${name}`, spec: { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", ...options }, commits: commits() } })));
      const java = await readTables("java", CASES.map(([name]) => ({ warehouse: wh, identifier: `db.${name}`, sort: true })));
      const catalog = await Catalog.open(wh);
      for (const [i, [name]] of CASES.entries()) {
        const expected = java[i];
        if (expected instanceof Error) throw expected;
        const table = await catalog.getTable(`db.${name}`);
        // the layout that matters: keys 1, 2 and 3000 at two positive levels
        const files = await catalog.getTable(`db.${name}$files`);
        const levels = new Set(arrowToRows(await files.newRead({ projection: ["level"] }).toArrow((await files.newScan().plan()).splits)).map((r) => r.level));
        expect(levels.size).toBeGreaterThan(1);
        const plan = await table.newScan().plan();
        expect(sortRows(arrowToRows(await table.newRead().toArrow(plan.splits)))).toEqual(sortRows(expected));
        if (name.endsWith("_sum")) expect(expected.find((r) => r.id === "1")).toEqual({ id: "1", n: "10", s: "s1" });
        // a key filter and a projection merge the same way
        const one = await table.newRead({ filter: col("id").eq(2n), projection: ["id", "n"] }).toArrow((await table.newScan({ filter: col("id").eq(2n) }).plan()).splits);
        expect(arrowToRows(one).filter((r) => r.id === "2")).toEqual([{ id: "2", n: expected.find((r) => r.id === "2")!.n }]);
      }
      // paimon-rt's twins (same commits), then each writer continues the other's table
      for (const [name, options] of CASES) {
        const twin = await catalog.createTable(`db.rt_${name}`, { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", ...options } });
        for (const rows of commits()) await rtCommitRows(twin, FIELDS, rows);
      }
      const twins = await readTables("java", CASES.map(([name]) => ({ warehouse: wh, identifier: `db.rt_${name}`, sort: true })));
      for (const [i, [name]] of CASES.entries()) {
        expect(twins[i], `${name}: Java reads paimon-rt's twin`).toEqual(java[i]);
        const twin = await catalog.getTable(`db.rt_${name}`);
        expect(sortRows(arrowToRows(await twin.newRead().toArrow((await twin.newScan().plan()).splits))), `${name}: paimon-rt reads its twin`).toEqual(sortRows(java[i] as OracleRow[]));
        const files = await catalog.getTable(`db.rt_${name}$files`);
        const levels = new Set(arrowToRows(await files.newRead({ projection: ["level"] }).toArrow((await files.newScan().plan()).splits)).map((r) => r.level));
        expect(levels.size, `${name}: the twin has several levels too`).toBeGreaterThan(1);
        for (const rows of MORE) await rtCommitRows(await catalog.getTable(`db.${name}`), FIELDS, rows);
      }
      await writeTables("java", wh, CASES.map(([name]) => ({ identifier: `db.rt_${name}`, spec: { commits: MORE } })));
      const continued = await readTables("java", CASES.flatMap(([name]) => [`db.${name}`, `db.rt_${name}`].map((identifier) => ({ warehouse: wh, identifier, sort: true }))));
      for (const [i, [name]] of CASES.entries()) {
        const [ofJava, ofRt] = [continued[2 * i], continued[2 * i + 1]];
        if (ofJava instanceof Error) throw ofJava;
        expect(ofJava, `${name}: Java's table continued by paimon-rt, as paimon-rt's continued by Java`).toEqual(ofRt);
        const table = await catalog.getTable(`db.${name}`);
        expect(sortRows(arrowToRows(await table.newRead().toArrow((await table.newScan().plan()).splits))), `${name}: paimon-rt reads the continued table`).toEqual(sortRows(ofJava));
      }
    },
    SLOW,
  );
});
