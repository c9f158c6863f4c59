/**
 * Cross-partition upsert (bucket = -1, primary key without the partition field: Java
 * BucketMode.KEY_DYNAMIC) between paimon-rt and Java Paimon 1.4.2. The Java oracle routes rows as
 * GlobalIndexAssigner.processInput with one assigner (IndexBootstrap, the crosspartition
 * BucketAssigner, the merge engine's ExistingProcessor; an in-memory map for its RocksDB key
 * index) and writes with write(row, bucket):
 *
 *  - the same commits written by Java into one table and by paimon-rt into another read as the
 *    model (each key live in one partition with its last value) and put every key in the same
 *    partition and bucket;
 *  - then each continues the other's table (keys moving between partitions, deletes, new keys):
 *    still the model, still the same (partition, bucket) per key, read by both.
 *
 * Skips cleanly (with a printed reason) when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike } from "./convert.js";
import { rtCommitRows } from "./rt-commit.js";
import { javaOracleUnavailable, type OracleRow, type OracleSpec, readTables, sortRows, writeTables } from "./oracle/harness.js";
import { rng } from "../pk/helpers.js";

const noJava = javaOracleUnavailable();
if (noJava) console.warn(`[cross-partition-interop] skipping: ${noJava}`);
const SLOW = 300_000;
const DB = "xp";

const FIELDS: FieldLike[] = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
  { name: "n", type: "INT" },
];
type Kind = "+I" | "+U" | "-U" | "-D";
type Commit = Array<OracleRow & { _kind: Kind }>;
type Engine = "deduplicate" | "partial-update" | "aggregation" | "first-row";

/** Commits over a small key space in three partitions; retractions only for deduplicate. */
function scenario(seed: number, engine: Engine, commits: number, perCommit: number, ids: number): Commit[] {
  const rand = rng(seed);
  const out: Commit[] = [];
  for (let c = 0; c < commits; c++) {
    const rows: Commit = [];
    for (let i = 0; i < perCommit; i++) {
      const x = rand();
      const kind: Kind = engine !== "deduplicate" ? "+I" : x < 0.12 ? "-D" : x < 0.18 ? "-U" : x < 0.5 ? "+U" : "+I";
      rows.push({ dt: ["2024-01-01", "2024-01-02", "2024-01-03"][Math.floor(rand() * 3)], id: String(Math.floor(rand() * ids)), v: rand() < 0.2 ? null : `c${c}-${i}`, n: rand() < 0.2 ? null : Math.floor(rand() * 100), _kind: kind });
    }
    out.push(rows);
  }
  return out;
}

/** The rows Java's ExistingProcessor leaves: a key in one partition (aggregation: n summed, v last non-null). */
function model(engine: Engine, commits: readonly Commit[]): OracleRow[] {
  const m = new Map<string, OracleRow>();
  for (const c of commits) {
    for (const { _kind, ...row } of c) {
      const old = m.get(row.id as string);
      if (engine === "deduplicate") {
        if (_kind === "-D" || _kind === "-U") m.delete(row.id as string);
        else m.set(row.id as string, row);
      } else if (engine === "first-row") {
        if (!old) m.set(row.id as string, row);
      } else if (!old) m.set(row.id as string, row);
      else {
        const n = engine === "aggregation" ? (row.n === null ? old.n : old.n === null ? row.n : (old.n as number) + (row.n as number)) : (row.n ?? old.n);
        m.set(row.id as string, { dt: old.dt, id: row.id, v: row.v ?? old.v, n });
      }
    }
  }
  return sortRows([...m.values()]);
}

async function rtWrite(table: Table, commits: readonly Commit[]): Promise<void> {
  for (const c of commits) await rtCommitRows(table, FIELDS, c);
}

async function rtRead(table: Table): Promise<OracleRow[]> {
  const plan = await table.newScan().plan();
  return sortRows(arrowToRows(await table.newRead().toArrow(plan.splits)));
}

/** Every visible key's partition and bucket (a key read twice fails). */
async function placeOfKeys(table: Table): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const split of (await table.newScan().plan()).splits) {
    for (const r of arrowToRows(await table.newRead({ projection: ["id"] }).toArrow([split]))) {
      const id = String(r.id);
      expect(out.has(id), `${table.identifier}: key ${id} in two places`).toBe(false);
      out.set(id, `${JSON.stringify(split.partition)}|${split.bucket}`);
    }
  }
  return out;
}

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-cross-partition-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

interface Case {
  name: string;
  engine: Engine;
  options: Record<string, string>;
  first: Commit[];
  second: Commit[];
}

const CASES: Case[] = [
  // no `bucket` option: Java's default for a primary-key table is dynamic bucket, here cross-partition
  { name: "dedup", engine: "deduplicate", options: { "dynamic-bucket.target-row-num": "3" }, first: scenario(1, "deduplicate", 3, 30, 14), second: scenario(2, "deduplicate", 3, 30, 18) },
  { name: "dedup_dv", engine: "deduplicate", options: { bucket: "-1", "dynamic-bucket.target-row-num": "4", "deletion-vectors.enabled": "true" }, first: scenario(3, "deduplicate", 2, 30, 12), second: scenario(4, "deduplicate", 2, 30, 16) },
  { name: "partial", engine: "partial-update", options: { bucket: "-1", "merge-engine": "partial-update", "dynamic-bucket.target-row-num": "3" }, first: scenario(5, "partial-update", 2, 25, 12), second: scenario(6, "partial-update", 2, 25, 16) },
  { name: "agg", engine: "aggregation", options: { bucket: "-1", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "fields.v.aggregate-function": "last_non_null_value", "dynamic-bucket.target-row-num": "3" }, first: scenario(7, "aggregation", 2, 25, 12), second: scenario(8, "aggregation", 2, 25, 16) },
  { name: "first", engine: "first-row", options: { bucket: "-1", "merge-engine": "first-row", "dynamic-bucket.target-row-num": "3" }, first: scenario(9, "first-row", 2, 25, 12), second: scenario(10, "first-row", 2, 25, 16) },
];

const specOf = (options: Record<string, string>, commits: readonly Commit[], withFields: boolean): OracleSpec => ({
  ...(withFields ? { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), partitionKeys: ["dt"], primaryKeys: ["id"] } : {}),
  options,
  commits: commits.map((rows) => ({ rows: [...rows] })),
});

describe.skipIf(noJava !== null)("cross-partition upsert interop with Java", () => {
  it(
    "Java and paimon-rt route keys to the same partition-buckets and continue each other's tables",
    async () => {
      const wh = path.join(root, "wh");
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase(DB);
      await writeTables("java", wh, CASES.map((c) => ({ identifier: `${DB}.${c.name}_java`, spec: specOf(c.options, c.first, true) })));
      const tables = new Map<string, { java: Table; rt: Table }>();
      for (const c of CASES) {
        const rt = await catalog.createTable(`${DB}.${c.name}_rt`, { fields: FIELDS, partitionKeys: ["dt"], primaryKeys: ["id"], options: c.options });
        await rtWrite(rt, c.first);
        const java = await catalog.getTable(`${DB}.${c.name}_java`);
        expect(java.coreOptions.bucket).toBe(-1);
        tables.set(c.name, { java, rt });
        const expected = model(c.engine, c.first);
        expect(await rtRead(java), `${c.name}: paimon-rt reads Java's table`).toEqual(expected);
        expect(await rtRead(rt), `${c.name}: paimon-rt's table`).toEqual(expected);
        const places = await placeOfKeys(java);
        expect(new Set([...places.values()].map((p) => p.split("|")[1])).size, `${c.name}: several buckets`).toBeGreaterThan(1);
        expect(await placeOfKeys(rt), `${c.name}: key partition-buckets`).toEqual(places);
        for (const t of [java, rt]) {
          const snap = (await t.latestSnapshot())!;
          expect(new Set((await t.manifestStore.liveEntries(snap)).map((e) => e.totalBuckets)), `${t.identifier}: totalBuckets`).toEqual(new Set([-1]));
          expect((await t.manifestStore.indexEntries(snap)).filter((e) => e.indexFile.indexType === "HASH"), `${t.identifier}: no HASH index`).toEqual([]);
        }
      }
      // paimon-rt continues Java's table, Java continues paimon-rt's
      for (const c of CASES) await rtWrite(tables.get(c.name)!.java, c.second);
      await writeTables("java", wh, CASES.map((c) => ({ identifier: `${DB}.${c.name}_rt`, spec: specOf(c.options, c.second, false) })));
      for (const c of CASES) {
        const { java, rt } = tables.get(c.name)!;
        const expected = model(c.engine, [...c.first, ...c.second]);
        expect(await rtRead(java), `${c.name}: Java's table continued by paimon-rt`).toEqual(expected);
        expect(await rtRead(rt), `${c.name}: paimon-rt's table continued by Java`).toEqual(expected);
        expect(await placeOfKeys(rt), `${c.name}: key partition-buckets after continuing`).toEqual(await placeOfKeys(java));
      }
      const reads = await readTables("java", CASES.flatMap((c) => [`${c.name}_java`, `${c.name}_rt`].map((t) => ({ warehouse: wh, identifier: `${DB}.${t}`, sort: true }))));
      CASES.forEach((c, i) => {
        for (const res of [reads[2 * i], reads[2 * i + 1]]) {
          if (res instanceof Error) throw res;
          expect(sortRows(res), `${c.name}: Java reads`).toEqual(model(c.engine, [...c.first, ...c.second]));
        }
      });
    },
    SLOW,
  );
});
