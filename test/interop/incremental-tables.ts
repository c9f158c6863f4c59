// The tables of the incremental and streaming read interop tests: Java writes append and
// primary-key tables (with and without deletion vectors, changelog-producer input and lookup,
// partitioned) over commits with updates, deletes, compactions and overwrites.
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { FieldLike } from "./convert.js";
import { type OracleSpec, writeTables } from "./oracle/harness.js";

export const FIELDS: FieldLike[] = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
];
export const fields = FIELDS.map((f) => ({ name: f.name, type: f.type }));

/** Commits of rows (with `_kind` for primary-key tables), some with a compaction or an overwrite. */
export function commits(pk: boolean): NonNullable<OracleSpec["commits"]> {
  const r = (dt: string, id: number, v: string, kind?: string) => (kind && pk ? { _kind: kind, dt, id, v } : { dt, id, v });
  return [
    [r("a", 1, "one"), r("a", 2, "two"), r("b", 3, "three")],
    [r("a", 1, "uno"), r("b", 4, "four"), r("a", 2, "two", "-D")],
    { rows: [r("b", 3, "tres"), r("a", 5, "five")], compact: true },
    [r("a", 6, "six"), r("b", 4, "four", "-D"), r("a", 1, "eins")],
    { rows: [r("a", 7, "seven"), r("b", 8, "eight")], overwrite: { dt: "b" } },
    [r("a", 9, "nine"), r("a", 5, "fünf")],
  ];
}

export interface Case {
  name: string;
  pk: boolean;
  options: Record<string, string>;
  partitioned?: boolean;
}

export const CASES: Case[] = [
  { name: "append", pk: false, options: { bucket: "2", "bucket-key": "id" } },
  { name: "append_partitioned", pk: false, options: { bucket: "1", "bucket-key": "id" }, partitioned: true },
  { name: "pk", pk: true, options: { bucket: "1" } },
  { name: "pk_dv", pk: true, options: { bucket: "2", "deletion-vectors.enabled": "true" } },
  { name: "pk_input", pk: true, options: { bucket: "1", "changelog-producer": "input" } },
  { name: "pk_lookup", pk: true, options: { bucket: "1", "changelog-producer": "lookup" } },
  { name: "pk_partitioned", pk: true, options: { bucket: "2" }, partitioned: true },
];

export function specOf(c: Case): OracleSpec {
  const primaryKeys = c.pk ? (c.partitioned ? ["dt", "id"] : ["id"]) : undefined;
  // (an overwrite of partition dt=b; of the whole table when not partitioned)
  const all = commits(c.pk).map((x) => (!c.partitioned && !Array.isArray(x) && x.overwrite ? { rows: x.rows, overwrite: true } : x));
  return { fields, primaryKeys, partitionKeys: c.partitioned ? ["dt"] : undefined, options: c.options, commits: all };
}

/**
 * Inside a describe: before its tests, Java writes `cases` as `<db>.<name>` into a new temporary
 * warehouse (removed after them); `ready` gets the warehouse and each case's snapshot count.
 */
export function javaWrittenTables(db: string, cases: readonly Case[], prefix: string, ready: (warehouse: string, counts: number[]) => void): void {
  let warehouse = "";
  beforeAll(async () => {
    warehouse = await fsp.mkdtemp(path.join(os.tmpdir(), prefix));
    const written = await writeTables("java", warehouse, cases.map((c) => ({ identifier: `${db}.${c.name}`, spec: specOf(c) })));
    ready(warehouse, written.map((ids) => Math.max(...ids.filter((x): x is number => x !== null))));
  }, 900_000);
  afterAll(async () => {
    if (warehouse) await fsp.rm(warehouse, { recursive: true, force: true });
  });
}
