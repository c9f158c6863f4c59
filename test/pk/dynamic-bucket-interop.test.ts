/**
 * Dynamic bucket mode (bucket = -1 primary-key tables) between paimon-rt and Java Paimon 1.4.2
 * (the Java oracle assigns buckets with HashBucketAssigner, one assigner, and writes with
 * write(row, bucket)):
 *
 *  - the same commits written by Java into one table and by paimon-rt into another give the same
 *    bucket for every key and identical HASH index files (same hashes per partition-bucket);
 *  - then each continues the other's table with the same keys and new ones (upserts, deletes, a
 *    partition overwrite, which assigns that partition afresh): still identical, no key in two
 *    buckets, existing keys keep their bucket, and Java and paimon-rt read exactly the model's
 *    rows from both tables.
 *
 * Skips cleanly (with a printed reason) when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "../interop/convert.js";
import { javaOracleUnavailable, type OracleRow, type OracleSpec, readTables, sortRows, writeTables } from "../interop/oracle/harness.js";
import { bucketsOfKeys, hashIndexes } from "./dynamic-bucket-helpers.js";
import { rng } from "./helpers.js";

const noJava = javaOracleUnavailable();
if (noJava) console.warn(`[dynamic-bucket-interop] skipping: ${noJava}`);
const SLOW = 300_000;
const DB = "dyn";

const FIELDS: FieldLike[] = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "name", type: "STRING NOT NULL" },
  { name: "v", type: "STRING" },
];
const PK = ["dt", "id", "name"];
type Kind = "+I" | "+U" | "-D";
/** A commit's rows; `overwrite` (static partition overwrite of that partition) on the array object. */
type Commit = Array<OracleRow & { _kind: Kind }> & { overwrite?: Record<string, string> };
const KIND: Record<Kind, RowKind> = { "+I": RowKind.INSERT, "+U": RowKind.UPDATE_AFTER, "-D": RowKind.DELETE };

/** Commits of upserts and deletes over a small key space in two partitions. */
function scenario(seed: number, commits: number, perCommit: number, ids: number): Commit[] {
  const rand = rng(seed);
  const out: Commit[] = [];
  for (let c = 0; c < commits; c++) {
    const rows: Commit = [];
    for (let i = 0; i < perCommit; i++) {
      const kind: Kind = rand() < 0.15 ? "-D" : rand() < 0.5 ? "+U" : "+I";
      rows.push({ dt: rand() < 0.6 ? "2024-01-01" : "2024-01-02", id: String(Math.floor(rand() * ids)), name: ["a", "b", "ü"][Math.floor(rand() * 3)], v: `c${c}-${i}`, _kind: kind });
    }
    out.push(rows);
  }
  return out;
}

const keyOf = (r: OracleRow) => `${r.dt}|${r.id}|${r.name}`;

function model(commits: readonly Commit[]): OracleRow[] {
  const m = new Map<string, OracleRow>();
  for (const c of commits) {
    if (c.overwrite) for (const [k, r] of m) if (r.dt === c.overwrite.dt) m.delete(k);
    for (const { _kind, ...row } of c) {
      if (_kind === "-D") m.delete(keyOf(row));
      else m.set(keyOf(row), row);
    }
  }
  return sortRows([...m.values()]);
}

async function rtWrite(table: Table, commits: readonly Commit[]): Promise<void> {
  for (const c of commits) {
    const write = await table.newWrite({ commitUser: "rt", overwrite: c.overwrite !== undefined });
    await write.write(rowsToBatch(FIELDS, c.map(({ _kind, ...r }) => r)), { rowKinds: c.map((r) => KIND[r._kind]) });
    const commit = table.newCommit({ commitUser: "rt" });
    if (c.overwrite) await commit.overwrite(await write.prepareCommit(), c.overwrite);
    else await commit.commit(await write.prepareCommit());
    await write.close();
  }
}

async function rtRead(table: Table): Promise<OracleRow[]> {
  const plan = await table.newScan().plan();
  return sortRows(arrowToRows(await table.newRead().toArrow(plan.splits)));
}

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-dynamic-bucket-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

interface Case {
  name: string;
  options: Record<string, string>;
  first: Commit[];
  second: Commit[];
}

/** An overwrite of partition `dt` with the inserts of `rows` that fall in it (Java: SimpleHashBucketAssigner, an empty index). */
function overwriteOf(dt: string, rows: Commit): Commit {
  const c: Commit = rows.filter((r) => r.dt === dt && r._kind !== "-D");
  c.overwrite = { dt };
  return c;
}

const row = (dt: string, id: number, v: string, kind: Kind = "+I") => ({ dt, id: String(id), name: "a", v, _kind: kind });

const CASES: Case[] = [
  // no `bucket` option: Java's default for a primary-key table is dynamic bucket mode
  { name: "target4", options: { "dynamic-bucket.target-row-num": "4" }, first: scenario(1, 3, 40, 12), second: [...scenario(2, 2, 40, 16), overwriteOf("2024-01-02", scenario(5, 1, 12, 16)[0]!), ...scenario(6, 1, 40, 16)] },
  { name: "target3_dv", options: { "dynamic-bucket.target-row-num": "3", "deletion-vectors.enabled": "true" }, first: scenario(3, 2, 30, 10), second: scenario(4, 2, 30, 14) },
  {
    // max-buckets 2: once 2024-01-01 has used bucket 1, the writer's largest bucket is the bound, so
    // a new key of a full 2024-01-02 bucket 0 goes to a random existing bucket, of which it has one
    // (Java's assigner-wide maxBucketId); the next writer starts at 0 and opens bucket 1 there
    name: "max_buckets",
    options: { bucket: "-1", "dynamic-bucket.target-row-num": "2", "dynamic-bucket.max-buckets": "2" },
    first: [[row("2024-01-01", 1, "x"), row("2024-01-01", 2, "x"), row("2024-01-01", 3, "x"), row("2024-01-02", 1, "x"), row("2024-01-02", 2, "x"), row("2024-01-02", 3, "x")]],
    second: [[row("2024-01-02", 4, "y"), row("2024-01-02", 1, "y", "-D"), row("2024-01-01", 1, "y")]],
  },
];

const specOf = (options: Record<string, string>, commits: readonly Commit[], withFields: boolean): OracleSpec => ({
  ...(withFields ? { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), partitionKeys: ["dt"], primaryKeys: PK } : {}),
  options,
  commits: commits.map((rows) => ({ rows: [...rows], ...(rows.overwrite ? { overwrite: rows.overwrite } : {}) })),
});

/** Every visible key in exactly one bucket; the buckets by key. */
async function keyBuckets(table: Table): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [k, buckets] of await bucketsOfKeys(table, PK)) {
    expect(buckets, `${table.identifier}: buckets of ${k}`).toHaveLength(1);
    out.set(k, buckets[0]!);
  }
  return out;
}

describe.skipIf(noJava !== null)("dynamic bucket interop with Java", () => {
  it(
    "Java and paimon-rt assign the same buckets and write the same HASH indexes, and continue each other's tables",
    async () => {
      const wh = path.join(root, "wh");
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase(DB);
      // Java writes <name>_java; paimon-rt writes <name>_rt with the same commits
      await writeTables("java", wh, CASES.map((c) => ({ identifier: `${DB}.${c.name}_java`, spec: specOf(c.options, c.first, true) })));
      const tables = new Map<string, { java: Table; rt: Table }>();
      for (const c of CASES) {
        const rt = await catalog.createTable(`${DB}.${c.name}_rt`, { fields: FIELDS, partitionKeys: ["dt"], primaryKeys: PK, options: c.options });
        await rtWrite(rt, c.first);
        const java = await catalog.getTable(`${DB}.${c.name}_java`);
        expect(java.coreOptions.bucket).toBe(-1);
        tables.set(c.name, { java, rt });
        const expected = model(c.first);
        expect(await rtRead(java), `${c.name}: paimon-rt reads Java's table`).toEqual(expected);
        expect(await rtRead(rt)).toEqual(expected);
        const javaIndex = await hashIndexes(java);
        expect(javaIndex.size, `${c.name}: Java wrote HASH indexes`).toBeGreaterThan(c.name === "max_buckets" ? 2 : 3);
        expect(await hashIndexes(rt), `${c.name}: HASH index files`).toEqual(javaIndex);
        expect(await keyBuckets(rt), `${c.name}: key buckets`).toEqual(await keyBuckets(java));
        for (const t of [java, rt]) {
          // manifest entries of dynamic-bucket files carry totalBuckets = -1 (Java's writers: the table's bucket option)
          const entries = await t.manifestStore.liveEntries((await t.latestSnapshot())!);
          expect(new Set(entries.map((e) => e.totalBuckets)), `${t.identifier}: totalBuckets`).toEqual(new Set([-1]));
        }
        if (c.name === "max_buckets") {
          expect([...javaIndex].map(([k, h]) => [k, h.length])).toEqual(expect.arrayContaining([['["2024-01-01"]|0', 2], ['["2024-01-01"]|1', 1], ['["2024-01-02"]|0', 3]]));
        }
      }
      // paimon-rt continues Java's table, Java continues paimon-rt's
      const before = new Map<string, Map<string, number>>();
      for (const c of CASES) before.set(c.name, await keyBuckets(tables.get(c.name)!.java));
      for (const c of CASES) await rtWrite(tables.get(c.name)!.java, c.second);
      await writeTables("java", wh, CASES.map((c) => ({ identifier: `${DB}.${c.name}_rt`, spec: specOf(c.options, c.second, false) })));
      for (const c of CASES) {
        const { java, rt } = tables.get(c.name)!;
        const expected = model([...c.first, ...c.second]);
        expect(await rtRead(java), `${c.name}: Java's table continued by paimon-rt`).toEqual(expected);
        expect(await rtRead(rt), `${c.name}: paimon-rt's table continued by Java`).toEqual(expected);
        const buckets = await keyBuckets(java);
        // an overwrite assigns its partition afresh; elsewhere a key keeps its bucket
        const overwritten = new Set(c.second.flatMap((x) => (x.overwrite ? [x.overwrite.dt] : [])));
        for (const [k, b] of before.get(c.name)!) {
          if (buckets.has(k) && !overwritten.has(JSON.parse(k)[0])) expect(buckets.get(k), `${c.name}: ${k} keeps its bucket`).toBe(b);
        }
        expect(await keyBuckets(rt), `${c.name}: key buckets after continuing`).toEqual(buckets);
        expect(await hashIndexes(rt), `${c.name}: HASH index files after continuing`).toEqual(await hashIndexes(java));
        if (c.name === "max_buckets") expect([...(await hashIndexes(java)).keys()]).toContain('["2024-01-02"]|1');
      }
      const reads = await readTables("java", CASES.flatMap((c) => [`${c.name}_java`, `${c.name}_rt`].map((t) => ({ warehouse: wh, identifier: `${DB}.${t}`, sort: true }))));
      CASES.forEach((c, i) => {
        for (const res of [reads[2 * i], reads[2 * i + 1]]) {
          if (res instanceof Error) throw res;
          expect(sortRows(res), `${c.name}: Java reads`).toEqual(model([...c.first, ...c.second]));
        }
      });
    },
    SLOW,
  );
});
