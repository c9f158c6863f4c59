/**
 * `bucket-function.type` (mod, hive) with Java Paimon 1.4.2: Java and paimon-rt write the same
 * rows into the same fixed-bucket tables and every row lands in the same bucket (compared row by
 * row through each bucket's splits); Java reads paimon-rt's tables exactly, and its bucket-pruned
 * point lookups (Java's BucketSelector uses the table's bucket function) find every row; Java's
 * and paimon-rt's errors for a mod bucket key that is not one INT/BIGINT column agree.
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike } from "./convert.js";
import { ALL_TYPES, allTypesRow, nullRow } from "./data-file-rows.js";
import { rtCommitRows } from "./rt-commit.js";
import { tempDirs } from "../support/temp-dirs.js";
import { javaOracleUnavailable, type OracleRow, type OracleSpec, readTables, runBatch, sortRows, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping bucket-function interop: ${noJava}`);
const SLOW = 600_000;
const tempDir = tempDirs("paimon-rt-bucket-function-interop-");

const NAMES = ["id", "b", "t", "sm", "i", "l", "f", "d", "dec5", "dec18", "dec38", "s", "vc", "by", "dt", "tm"];
const FIELDS: FieldLike[] = ALL_TYPES.filter((f) => NAMES.includes(f.name));
const pick = (r: OracleRow): OracleRow => Object.fromEntries(Object.entries(r).filter(([k]) => NAMES.includes(k)));
// every type's values: negative and positive, nulls, -0.0 / NaN, decimals with trailing zeros, empty strings
const SPECIAL: OracleRow[] = [
  { id: 100, f: "-0.0", d: "-0.0", dec5: "10.00", dec18: "-100.0000", dec38: "0.0000000000", s: "", vc: "", by: "", i: -2147483648, l: "-9223372036854775808" },
  { id: 101, f: "NaN", d: "NaN", dec5: "0.10", dec18: "0.0000", dec38: "-1.0000000000", s: "a", vc: "x", i: 2147483647, l: "9223372036854775807", t: -128, sm: -32768 },
  { id: 102, f: "Infinity", d: "-Infinity", dec5: "-999.99", dec18: "99999999999999.9999", dec38: "9999999999999999999999999999.9999999999", dt: "1970-01-01", tm: 0, vc: "y" },
];
const ROWS: OracleRow[] = [...Array.from({ length: 40 }, (_, i) => pick(allTypesRow(i + 1))), ...[41, 42].map((i) => nullRow(i)), ...SPECIAL];

const HIVE_KEYS = ["b", "t", "sm", "i", "l", "f", "d", "dec5", "dec18", "dec38", "s", "by", "dt", "tm", "i,s,dec38,l"];
const PK_FIELDS: FieldLike[] = [
  { name: "k", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
];
const PK_ROWS: OracleRow[] = Array.from({ length: 30 }, (_, i) => ({ k: String((i - 15) * 1000000007), v: `v${i}` }));

interface Case {
  name: string;
  fields: FieldLike[];
  spec: OracleSpec;
  rows: OracleRow[];
  key: string;
}
const CASES: Case[] = [
  ...HIVE_KEYS.map((k, n) => ({ name: `hive_${n}`, fields: FIELDS, spec: { fields: FIELDS, options: { bucket: "5", "bucket-key": k, "bucket-function.type": "hive" } }, rows: ROWS, key: "id" })),
  { name: "mod_int", fields: FIELDS, spec: { fields: FIELDS, options: { bucket: "7", "bucket-key": "i", "bucket-function.type": "MOD" } }, rows: ROWS, key: "id" },
  { name: "mod_bigint", fields: FIELDS, spec: { fields: FIELDS, options: { bucket: "6", "bucket-key": "l", "bucket-function.type": "mod" } }, rows: ROWS, key: "id" },
  { name: "pk_mod", fields: PK_FIELDS, spec: { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "4", "bucket-function.type": "mod" } }, rows: PK_ROWS, key: "k" },
  { name: "pk_hive", fields: PK_FIELDS, spec: { fields: PK_FIELDS, primaryKeys: ["k"], options: { bucket: "3", "bucket-function.type": "hive" } }, rows: PK_ROWS, key: "k" },
];

/** `key value → bucket` of every row of the table's latest snapshot, read split by split. */
async function bucketsByRow(table: Table, key: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const split of (await table.newScan().plan()).splits) {
    if (split.kind !== "data") throw new Error(`unexpected split ${split.kind}`);
    for (const r of arrowToRows(await table.newRead().toArrow([split]))) {
      const k = String(r[key]);
      if (k in out) throw new Error(`row ${k} in two buckets`);
      out[k] = split.bucket;
    }
  }
  return out;
}

describe.skipIf(noJava !== null)("bucket-function.type with Java", () => {
  it(
    "mod and hive: every row in Java's bucket; Java reads paimon-rt's tables and finds each row by bucket-pruned lookup",
    async () => {
      const javaWh = tempDir();
      const rtWh = tempDir();
      await writeTables("java", javaWh, CASES.map((c) => ({ identifier: `db.${c.name}`, spec: { ...c.spec, commits: [c.rows.slice(0, 20), c.rows.slice(20)] } })));
      const catalog = await Catalog.open(rtWh);
      await catalog.createDatabase("db");
      const javaCatalog = await Catalog.open(javaWh);
      for (const c of CASES) {
        const t = await catalog.createTable(`db.${c.name}`, { fields: c.fields.map((f) => ({ name: f.name, type: f.type as string })), primaryKeys: c.spec.primaryKeys, options: c.spec.options as Record<string, string> });
        await rtCommitRows(t, c.fields, c.rows.slice(0, 20));
        await rtCommitRows(t, c.fields, c.rows.slice(20));
        const rtBuckets = await bucketsByRow(t, c.key);
        const javaBuckets = await bucketsByRow(await javaCatalog.getTable(`db.${c.name}`), c.key);
        expect(Object.keys(rtBuckets).length, c.name).toBe(c.rows.length);
        expect(rtBuckets, c.name).toEqual(javaBuckets);
        expect(new Set(Object.values(rtBuckets)).size, `${c.name} spreads rows`).toBeGreaterThan(1);
      }
      // Java reads paimon-rt's tables; point lookups on the bucket key go through Java's bucket pruning
      const full = await readTables("java", CASES.map((c) => ({ warehouse: rtWh, identifier: `db.${c.name}`, sort: true })));
      const javaOwn = await readTables("java", CASES.map((c) => ({ warehouse: javaWh, identifier: `db.${c.name}`, sort: true })));
      CASES.forEach((c, i) => expect(full[i], c.name).toEqual(javaOwn[i]));
      const lookups = CASES.filter((c) => c.name === "mod_int" || c.name === "hive_4" || c.name === "hive_10" || c.name.startsWith("pk_")).flatMap((c) => {
        const column = c.name === "mod_int" ? "i" : c.name === "hive_4" ? "l" : c.name === "hive_10" ? "s" : "k";
        return c.rows.filter((r) => r[column] !== undefined && r[column] !== null).map((r) => ({ c, r, column }));
      });
      const found = await readTables("java", lookups.map(({ c, r, column }) => ({ warehouse: rtWh, identifier: `db.${c.name}`, filterEq: [[column, r[column]]] as Array<[string, unknown]>, executeFilter: true, sort: true })));
      lookups.forEach(({ c, r, column }, i) => {
        const expected = sortRows(c.rows.filter((x) => x[column] === r[column]));
        expect((found[i] as OracleRow[]).map((x) => String(x[c.key])).sort(), `${c.name} ${column}=${String(r[column])}`).toEqual(expected.map((x) => String(x[c.key])).sort());
      });
    },
    SLOW,
  );

  it(
    "a mod bucket key that is not one INT or BIGINT column fails as in Java, nothing written",
    async () => {
      const wh = tempDir();
      const bad: Array<[string, Record<string, string>, string]> = [
        ["mod_string", { bucket: "2", "bucket-key": "s", "bucket-function.type": "mod" }, "bucket key type must be INT or BIGINT in mod bucket function, but got STRING"],
        ["mod_two", { bucket: "2", "bucket-key": "i,l", "bucket-function.type": "mod" }, "bucket key must have exactly one field in mod bucket function"],
      ];
      const results = await runBatch("java", await Promise.all(bad.map(async ([name, options]) => {
        const { writeFile, mkdtemp } = await import("node:fs/promises");
        const dir = await mkdtemp(`${tempDir()}/spec-`);
        const file = `${dir}/spec.json`;
        await writeFile(file, JSON.stringify({ fields: FIELDS, options, commits: [[pick(allTypesRow(1))]] }));
        return ["write", wh, `db.${name}`, file];
      })));
      const catalog = await Catalog.open(tempDir());
      await catalog.createDatabase("db");
      for (const [i, [name, options, message]] of bad.entries()) {
        expect(results[i]!.ok).toBe(false);
        expect((results[i] as { error: string }).error).toContain(message);
        const t = await catalog.createTable(`db.${name}`, { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), options });
        const e = await t.newWrite({ commitUser: "u" }).then(() => null, (err: unknown) => err as PaimonError);
        expect(e).toBeInstanceOf(PaimonError);
        expect([e!.code, e!.message]).toEqual(["INVALID_ARGUMENT", message]);
        expect(await t.latestSnapshot()).toBeNull();
      }
    },
    SLOW,
  );
});
