/**
 * `record-level.expire-time` + `record-level.time-field` with Java Paimon 1.4.2
 * (RecordLevelExpire): Java and paimon-rt write the same primary-key tables (time fields INT
 * seconds, BIGINT seconds and milliseconds, TIMESTAMP(3), TIMESTAMP_LTZ(6); a full-compaction
 * changelog table) and drop exactly the same expired rows where Java does: at compaction, never at
 * read. paimon-rt compacts Java's table and Java reads the result; a shortened expire time makes
 * a full compaction of one max-level file rewrite it (Java's isExpireFile by value stats). Bad
 * time fields fail with Java's messages. Skips with a printed reason when scripts/setup-oracles.sh
 * has not been run.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike } from "./convert.js";
import { rtCommitRows } from "./rt-commit.js";
import { tempDirs } from "../support/temp-dirs.js";
import { javaOracleUnavailable, type OracleRow, type OracleSpec, readTables, runBatch, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping record-level expire interop: ${noJava}`);
const SLOW = 600_000;
const tempDir = tempDirs("paimon-rt-record-level-expire-interop-");

const NOW = Math.floor(Date.now() / 1000);
const HOUR = 3600;
const DAY = 24 * HOUR;
type Unit = "int" | "bigint_s" | "bigint_ms" | "ts3" | "ltz6";
const TYPES: Record<Unit, string> = { int: "INT", bigint_s: "BIGINT", bigint_ms: "BIGINT", ts3: "TIMESTAMP(3)", ltz6: "TIMESTAMP_LTZ(6)" };
/** The oracle encoding of `seconds` in the time field of `unit`. */
function encode(unit: Unit, seconds: number | null): unknown {
  if (seconds === null) return null;
  if (unit === "int") return seconds;
  if (unit === "bigint_s") return String(seconds);
  if (unit === "bigint_ms") return String(BigInt(seconds) * 1000n + 123n);
  return String(BigInt(seconds) * 1_000_000_000n + 456_000_000n); // nanos
}
// (id, seconds or null, expired with a 1 day expiry)
const TIMES: Array<[number, number | null, boolean]> = [
  [1, NOW - 2 * DAY, true],
  [2, NOW - HOUR, false],
  [3, null, false],
  [4, NOW - 30 * DAY, true],
  [5, NOW + HOUR, false],
  [6, NOW - DAY - 6 * HOUR, true],
];
const fieldsOf = (unit: Unit): FieldLike[] => [
  { name: "id", type: "INT NOT NULL" },
  { name: "t", type: TYPES[unit] },
  { name: "v", type: "STRING" },
];
const rowOf = (unit: Unit, id: number, seconds: number | null, v: string): OracleRow => ({ id, t: encode(unit, seconds), v });
// commit 1: every row; commit 2: id 1 refreshed, id 2 updated with an old time
const RECORDS: Array<Array<[number, number | null, string]>> = [TIMES.map(([id, sec]) => [id, sec, `a${id}`]), [[1, NOW - HOUR, "b1"], [2, NOW - 3 * DAY, "b2"]]];
const COMMITS = (unit: Unit): OracleRow[][] => RECORDS.map((c) => c.map(([id, sec, v]) => rowOf(unit, id, sec, v)));
/**
 * The table after merging: with `expire`, as Java's compaction reader, expired RECORDS are dropped
 * before the merge (so id 2's expired update leaves its older, live row).
 */
function expectedAfter(unit: Unit, expire: boolean): OracleRow[] {
  const m = new Map<number, OracleRow>();
  for (const c of RECORDS) for (const [id, sec, v] of c) if (!expire || sec === null || NOW <= sec + DAY) m.set(id, rowOf(unit, id, sec, v));
  return [...m.values()];
}

interface Case {
  name: string;
  unit: Unit;
  options: Record<string, string>;
}
const CASES: Case[] = [
  ...(Object.keys(TYPES) as Unit[]).map((unit) => ({ name: unit, unit, options: {} })),
  { name: "full_changelog", unit: "int" as Unit, options: { "changelog-producer": "full-compaction" } },
];
const specOf = (c: Case): OracleSpec => ({ fields: fieldsOf(c.unit), primaryKeys: ["id"], options: { bucket: "1", "record-level.expire-time": "1 d", "record-level.time-field": "t", ...c.options } });

const norm = (rows: OracleRow[]) => rows.map((r) => ({ id: Number(r.id), t: r.t === null || r.t === undefined ? null : String(r.t), v: r.v })).sort((a, b) => a.id - b.id);
const rtRows = async (t: Table) => norm(arrowToRows(await t.newRead().toArrow((await t.newScan().plan()).splits)));

describe.skipIf(noJava !== null)("record-level expiry with Java", () => {
  it(
    "expired rows are dropped by compaction as Java drops them, for every time-field type",
    async () => {
      const javaWh = tempDir();
      const rtWh = tempDir();
      // Java: two commits, then a compaction of the existing bucket; "_cross" tables get no compaction (paimon-rt compacts them)
      await writeTables("java", javaWh, [
        ...CASES.map((c) => ({ identifier: `db.${c.name}`, spec: { ...specOf(c), commits: [...COMMITS(c.unit), { rows: [], compact: true }] } })),
        ...CASES.map((c) => ({ identifier: `db.${c.name}_cross`, spec: { ...specOf(c), commits: COMMITS(c.unit) } })),
      ]);
      const catalog = await Catalog.open(rtWh);
      await catalog.createDatabase("db");
      const javaCatalog = await Catalog.open(javaWh);
      for (const c of CASES) {
        const spec = specOf(c);
        const t = await catalog.createTable(`db.${c.name}`, { fields: spec.fields as FieldLike[] as Array<{ name: string; type: string }>, primaryKeys: ["id"], options: spec.options as Record<string, string> });
        for (const rows of COMMITS(c.unit)) await rtCommitRows(t, fieldsOf(c.unit), rows);
        // merge-on-read never expires
        expect(await rtRows(t), c.name).toEqual(norm(expectedAfter(c.unit, false)));
        await rtCommitRows(t, fieldsOf(c.unit), [], { compact: true });
        const cross = await javaCatalog.getTable(`db.${c.name}_cross`);
        expect(await rtRows(cross), c.name).toEqual(norm(expectedAfter(c.unit, false)));
        await rtCommitRows(cross, fieldsOf(c.unit), [], { compact: true });
      }
      const reads = await readTables("java", CASES.flatMap((c) => [
        { warehouse: javaWh, identifier: `db.${c.name}` },
        { warehouse: rtWh, identifier: `db.${c.name}` },
        { warehouse: javaWh, identifier: `db.${c.name}_cross` },
      ]));
      for (const [i, c] of CASES.entries()) {
        const expected = norm(expectedAfter(c.unit, true));
        expect(norm(reads[3 * i] as OracleRow[]), `Java's own ${c.name}`).toEqual(expected);
        expect(norm(reads[3 * i + 1] as OracleRow[]), `Java reads paimon-rt's ${c.name}`).toEqual(expected);
        expect(norm(reads[3 * i + 2] as OracleRow[]), `Java reads ${c.name} compacted by paimon-rt`).toEqual(expected);
        expect(await rtRows(await javaCatalog.getTable(`db.${c.name}`)), `paimon-rt reads Java's ${c.name}`).toEqual(expected);
      }
      // the full-compaction changelogs: the same row count in both
      const changelog = async (t: Table) => (await t.latestSnapshot())!.changelogRecordCount;
      expect(await changelog(await catalog.getTable("db.full_changelog"))).toBe(await changelog(await javaCatalog.getTable("db.full_changelog")));
    },
    SLOW,
  );

  it(
    "a shorter expire time makes a full compaction rewrite the max-level file with expired rows (Java's isExpireFile)",
    async () => {
      const javaWh = tempDir();
      const rtWh = tempDir();
      const unit: Unit = "bigint_ms";
      const spec: OracleSpec = { fields: fieldsOf(unit), primaryKeys: ["id"], options: { bucket: "1", "record-level.expire-time": "3650 d", "record-level.time-field": "t" } };
      const rows = TIMES.map(([id, s]) => rowOf(unit, id, s, `a${id}`));
      await writeTables("java", javaWh, [{ identifier: "db.t", spec: { ...spec, commits: [rows, { rows: [], compact: true }] } }]);
      const catalog = await Catalog.open(rtWh);
      await catalog.createDatabase("db");
      const t = await catalog.createTable("db.t", { fields: fieldsOf(unit) as Array<{ name: string; type: string }>, primaryKeys: ["id"], options: spec.options as Record<string, string> });
      await rtCommitRows(t, fieldsOf(unit), rows, { compact: true });
      expect(await rtRows(t)).toEqual(norm(rows));
      // one file at the max level in both; then the expire time becomes 1 d and a full compaction runs again
      const results = await runBatch("java", [["set-options", javaWh, "db.t", "record-level.expire-time=1 d"]]);
      expect(results[0]!.ok).toBe(true);
      await writeTables("java", javaWh, [{ identifier: "db.t", spec: { commits: [{ rows: [], compact: true }] } }]);
      const altered = await catalog.alterTable("db.t", [{ kind: "setOption", key: "record-level.expire-time", value: "1 d" }]);
      await rtCommitRows(altered, fieldsOf(unit), [], { compact: true });
      const expected = norm(rows.filter((r) => !TIMES.find(([id]) => id === r.id)![2]));
      const reads = await readTables("java", [{ warehouse: javaWh, identifier: "db.t" }, { warehouse: rtWh, identifier: "db.t" }]);
      expect(norm(reads[0] as OracleRow[])).toEqual(expected);
      expect(norm(reads[1] as OracleRow[])).toEqual(expected);
      const files = async (tb: Table) => (await tb.newScan().plan()).splits.flatMap((s) => (s.kind === "data" ? s.files.map((f) => [f.level, f.rowCount]) : []));
      expect(await files(await catalog.getTable("db.t"))).toEqual(await files(await (await Catalog.open(javaWh)).getTable("db.t")));
    },
    SLOW,
  );

  it(
    "bad time fields fail as in Java, nothing written",
    async () => {
      const wh = tempDir();
      const fields: FieldLike[] = [{ name: "id", type: "INT NOT NULL" }, { name: "t", type: "STRING" }];
      const bad: Array<[string, Record<string, string>, string]> = [
        ["no_field", { "record-level.expire-time": "1 d" }, "You should set time field for record-level expire."],
        ["unknown_field", { "record-level.expire-time": "1 d", "record-level.time-field": "ts" }, "Can not find time field ts for record level expire."],
        ["string_field", { "record-level.expire-time": "1 d", "record-level.time-field": "t" }, "The record level time field type should be one of INT, BIGINT, or TIMESTAMP, but field type is STRING."],
      ];
      const dir = await mkdtemp(`${tempDir()}/spec-`);
      const commands = await Promise.all(bad.map(async ([name, options], i) => {
        await writeFile(`${dir}/${i}.json`, JSON.stringify({ fields, primaryKeys: ["id"], options: { bucket: "1", ...options }, commits: [[{ id: 1, t: "x" }]] }));
        return ["write", wh, `db.${name}`, `${dir}/${i}.json`];
      }));
      const results = await runBatch("java", commands);
      const catalog = await Catalog.open(tempDir());
      await catalog.createDatabase("db");
      for (const [i, [name, options, message]] of bad.entries()) {
        expect(results[i]!.ok, name).toBe(false);
        expect((results[i] as { error: string }).error, name).toContain(message);
        const t = await catalog.createTable(`db.${name}`, { fields: fields as Array<{ name: string; type: string }>, primaryKeys: ["id"], options: { bucket: "1", ...options } });
        const e = await t.newWrite({ commitUser: "u" }).then(() => null, (err: unknown) => err as PaimonError);
        expect([e?.code, e?.message], name).toEqual(["INVALID_ARGUMENT", message]);
        expect(await t.latestSnapshot()).toBeNull();
      }
    },
    SLOW,
  );
});
