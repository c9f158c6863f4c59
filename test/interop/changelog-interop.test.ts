/**
 * changelog-producer interop with Java Paimon 1.4.2: paimon-rt writes primary-key tables with
 * `input`, `lookup` (with and without deletion vectors, first-row, row-deduplicate) and
 * `full-compaction` changelog producers; Java writes a twin table with the same commits. Java
 * reads both as batch reads and as incremental changelog reads (`incremental-between` with
 * `incremental-between-scan-mode=changelog`, row kinds included) commit by commit, and the two
 * tables give exactly the same rows. Then Java continues paimon-rt's table and paimon-rt
 * continues Java's with the same commits, and the changelogs of those commits are again the
 * same. Skips cleanly when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { Table } from "../../src/table/table.js";
import type { FieldLike } from "./convert.js";
import { type KindRow, rtCommitRows } from "./rt-commit.js";
import { batchOutput, javaOracleUnavailable, type OracleRow, type OracleSpec, parseJsonLines, runBatch, sortRows, writeTables } from "./oracle/harness.js";
import { rng } from "../pk/helpers.js";

const noJava = javaOracleUnavailable();
const SLOW = 900_000;
const DB = "cl";

const FIELDS: FieldLike[] = [
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "v", type: "STRING" },
  { name: "n", type: "BIGINT" },
];

interface Case {
  name: string;
  options: Record<string, string>;
  kinds: string[];
  /** Commits (0-based) written with a full compaction. */
  compactAt: number[];
  /**
   * paimon-rt commits with identifiers 1, 2, … and no explicit compaction: its
   * `full-compaction.delta-commits` schedule must compact at the `compactAt` commits, as Java's twin is.
   */
  scheduled?: boolean;
}

const SMALL = { bucket: "2", "num-sorted-run.compaction-trigger": "3" };
const ALL_KINDS = ["+I", "+I", "+U", "-D", "-U"];
const ALL_CASES: Case[] = [
  { name: "input", options: { "changelog-producer": "input", ...SMALL }, kinds: ALL_KINDS, compactAt: [2] },
  { name: "input_dv", options: { "changelog-producer": "input", "deletion-vectors.enabled": "true", ...SMALL }, kinds: ALL_KINDS, compactAt: [] },
  { name: "input_agg", options: { "changelog-producer": "input", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", ...SMALL }, kinds: ["+I", "+I", "-U", "-D"], compactAt: [3] },
  { name: "lookup", options: { "changelog-producer": "lookup", ...SMALL }, kinds: ALL_KINDS, compactAt: [3] },
  { name: "lookup_dv", options: { "changelog-producer": "lookup", "deletion-vectors.enabled": "true", ...SMALL }, kinds: ALL_KINDS, compactAt: [2] },
  { name: "lookup_dedup_rows", options: { "changelog-producer": "lookup", "changelog-producer.row-deduplicate": "true", "changelog-producer.row-deduplicate-ignore-fields": "n", ...SMALL }, kinds: ALL_KINDS, compactAt: [] },
  { name: "lookup_first_row", options: { "changelog-producer": "lookup", "merge-engine": "first-row", ...SMALL }, kinds: ["+I"], compactAt: [2] },
  // (universal compactions to the max level would give changelog too, but when they happen depends on file sizes in bytes, which differ between the writers)
  { name: "full_compaction", options: { "changelog-producer": "full-compaction", ...SMALL, "num-sorted-run.compaction-trigger": "20" }, kinds: ALL_KINDS, compactAt: [1, 3, 5, 7] },
  { name: "full_compaction_partial_update", options: { "changelog-producer": "full-compaction", "merge-engine": "partial-update", ...SMALL, "num-sorted-run.compaction-trigger": "20" }, kinds: ["+I", "+I", "+U"], compactAt: [1, 3, 5, 7] },
  { name: "full_compaction_agg", options: { "changelog-producer": "full-compaction", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", ...SMALL, "num-sorted-run.compaction-trigger": "20" }, kinds: ["+I", "+I", "-U", "-D"], compactAt: [1, 3, 5, 7] },
  // lookup with merge functions: level-0 records merged with the key's looked-up row (Java's LookupChangelogMergeFunctionWrapper)
  { name: "lookup_partial_update", options: { "changelog-producer": "lookup", "merge-engine": "partial-update", ...SMALL }, kinds: ["+I", "+I", "+U"], compactAt: [3] },
  { name: "lookup_partial_update_dv", options: { "changelog-producer": "lookup", "merge-engine": "partial-update", "deletion-vectors.enabled": "true", ...SMALL }, kinds: ["+I", "+I", "+U"], compactAt: [2] },
  // (a key merged from retractions only is a DELETE row, a tombstone that stays unless a compaction
  // reaches the highest level, which Java's size-ratio pick decides by file bytes: so here with
  // deletion vectors, which drop it, or a full compaction every commit)
  { name: "lookup_partial_update_seq_group_dv", options: { "changelog-producer": "lookup", "merge-engine": "partial-update", "fields.n.sequence-group": "v", "deletion-vectors.enabled": "true", ...SMALL }, kinds: ALL_KINDS, compactAt: [3] },
  { name: "lookup_partial_update_seq_group", options: { "changelog-producer": "lookup", "merge-engine": "partial-update", "fields.n.sequence-group": "v", ...SMALL }, kinds: ALL_KINDS, compactAt: [0, 1, 2, 3, 4, 5, 6, 7, 8] },
  { name: "lookup_partial_update_remove_on_delete", options: { "changelog-producer": "lookup", "merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true", ...SMALL }, kinds: ["+I", "+U", "-D"], compactAt: [2] },
  { name: "lookup_agg", options: { "changelog-producer": "lookup", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", "fields.v.aggregate-function": "last_non_null_value", ...SMALL }, kinds: ["+I", "+I", "-U", "-D"], compactAt: [3] },
  { name: "lookup_agg_dedup_rows", options: { "changelog-producer": "lookup", "changelog-producer.row-deduplicate": "true", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum", ...SMALL }, kinds: ["+I", "+I", "-U", "-D"], compactAt: [] },
  // sequence.field: a key's records merge in (n, sequence number) order, the looked-up older row may
  // win. (Without deletion vectors a retraction that wins stays as a tombstone unless a compaction
  // reaches the highest level, which Java's size-ratio pick decides by file bytes; with them it is
  // always dropped: retractions only there.)
  { name: "lookup_seq", options: { "changelog-producer": "lookup", "sequence.field": "n", ...SMALL }, kinds: ["+I", "+U"], compactAt: [3] },
  { name: "lookup_seq_dv", options: { "changelog-producer": "lookup", "sequence.field": "n", "deletion-vectors.enabled": "true", ...SMALL }, kinds: ALL_KINDS, compactAt: [] },
  { name: "lookup_seq_partial_update", options: { "changelog-producer": "lookup", "sequence.field": "n", "merge-engine": "partial-update", ...SMALL }, kinds: ["+I", "+U"], compactAt: [2] },
  { name: "lookup_seq_desc_agg", options: { "changelog-producer": "lookup", "sequence.field": "n", "sequence.field.sort-order": "descending", "merge-engine": "aggregation", "fields.v.aggregate-function": "max", ...SMALL }, kinds: ["+I", "+U"], compactAt: [4] },
  { name: "lookup_seq_desc_dv", options: { "changelog-producer": "lookup", "sequence.field": "n", "sequence.field.sort-order": "descending", "deletion-vectors.enabled": "true", ...SMALL }, kinds: ALL_KINDS, compactAt: [1] },
  { name: "full_compaction_delta_commits", options: { "changelog-producer": "full-compaction", "full-compaction.delta-commits": "2", ...SMALL, "num-sorted-run.compaction-trigger": "20" }, kinds: ALL_KINDS, compactAt: [1, 3, 5, 7], scheduled: true },
  { name: "full_compaction_seq", options: { "changelog-producer": "full-compaction", "sequence.field": "n", ...SMALL, "num-sorted-run.compaction-trigger": "20" }, kinds: ALL_KINDS, compactAt: [1, 3, 5, 7] },
  { name: "full_compaction_seq_agg", options: { "changelog-producer": "full-compaction", "sequence.field": "n", "merge-engine": "aggregation", "fields.v.aggregate-function": "max", ...SMALL, "num-sorted-run.compaction-trigger": "20" }, kinds: ["+I", "+U"], compactAt: [1, 3, 5, 7] },
];

/** `PAIMON_RT_CHANGELOG_CASES=name,name` runs only those cases (debugging one producer). */
const only = process.env.PAIMON_RT_CHANGELOG_CASES?.split(",");
const CASES = only ? ALL_CASES.filter((c) => only.includes(c.name)) : ALL_CASES;

/** `commits` commits of random rows over few keys (colliding within and across commits), values drawn from a small set (equal rows recur). */
function generate(seed: number, c: Case, commits: number, rowsPerCommit: number): KindRow[][] {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const out: KindRow[][] = [];
  for (let ci = 0; ci < commits; ci++) {
    const rows: KindRow[] = [];
    for (let i = 0; i < rowsPerCommit; i++) {
      rows.push({ _kind: pick(c.kinds), id: String(Math.floor(rand() * 25)), v: pick(["a", "b", null]), n: String(Math.floor(rand() * 4)) });
    }
    out.push(rows);
  }
  return out;
}

/** paimon-rt's commit `index` (0-based) of case `c`. */
function rtCommit(table: Table, c: Case, rows: KindRow[], index: number): Promise<void> {
  return rtCommitRows(table, FIELDS, rows, c.scheduled ? { identifier: index + 1 } : { compact: c.compactAt.includes(index) });
}

function norm(rows: OracleRow[]): OracleRow[] {
  return sortRows(rows.map((r) => Object.fromEntries(["_kind", ...FIELDS.map((f) => f.name)].filter((k) => k in r).map((k) => [k, r[k] ?? null]))));
}

/** Java reads: batch (with kinds) at the latest snapshot and, per commit after the first, the changelog between the commits' last snapshots. */
async function javaReads(wh: string, tables: Array<{ identifier: string; ends: number[] }>): Promise<Array<{ batch: OracleRow[]; changelogs: OracleRow[][] }>> {
  const commands: string[][] = [];
  for (const t of tables) {
    // (batch reads without kinds: a batch read's row kinds are those of whichever stored record won, which depend on the file layout)
    commands.push(["read", wh, t.identifier]);
    for (let i = 1; i < t.ends.length; i++) {
      commands.push(["read", wh, t.identifier, "--with-kind", "--option", `incremental-between=${t.ends[i - 1]},${t.ends[i]}`, "--option", "incremental-between-scan-mode=changelog"]);
    }
  }
  const results = (await runBatch("java", commands)).map((r) => norm(parseJsonLines(batchOutput(r))));
  let at = 0;
  return tables.map((t) => {
    const batch = results[at++];
    const changelogs: OracleRow[][] = [];
    for (let i = 1; i < t.ends.length; i++) changelogs.push(results[at++]);
    return { batch, changelogs };
  });
}

/** Per commit (`ends`: the last snapshot of each), the changelog records of its snapshots (`changelogRecordCount`). */
async function changelogCounts(location: string, ends: number[]): Promise<bigint[]> {
  const table = await Table.open(location);
  const out: bigint[] = [];
  for (let i = 0; i < ends.length; i++) {
    let n = 0n;
    for (let id = i === 0 ? 1 : ends[i - 1] + 1; id <= ends[i]; id++) n += (await table.snapshot(id)).changelogRecordCount ?? 0n;
    out.push(n);
  }
  return out;
}

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-changelog-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

describe.skipIf(noJava !== null)("changelog-producer interop with Java", () => {
  it(
    "Java reads paimon-rt's changelog of every commit exactly as that of its own twin table, and each continues the other's table",
    async () => {
      const wh = path.join(root, "wh");
      const FIRST = 6;
      const data = CASES.map((c) => generate(700 + ALL_CASES.indexOf(c), c, FIRST + 3, 30));
      const spec = (c: Case, commits: KindRow[][], from: number, create: boolean): OracleSpec => ({
        ...(create ? { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), primaryKeys: ["id"], options: c.options } : {}),
        commits: commits.map((rows, i) => ({ rows, compact: c.compactAt.includes(from + i) })),
      });
      // 1. Java writes commits 0..FIRST-1 of every case into j_; paimon-rt the same into r_
      const javaEnds = await writeTables("java", wh, CASES.map((c, i) => ({ identifier: `${DB}.j_${c.name}`, spec: spec(c, data[i].slice(0, FIRST), 0, true) })));
      const catalog = await Catalog.open(wh);
      const rtEnds: number[][] = [];
      for (const [i, c] of CASES.entries()) {
        const table = await catalog.createTable(`${DB}.r_${c.name}`, { fields: FIELDS, primaryKeys: ["id"], options: c.options });
        const ends: number[] = [];
        for (const [ci, rows] of data[i].slice(0, FIRST).entries()) {
          await rtCommit(table, c, rows, ci);
          ends.push((await table.latestSnapshot())!.id);
        }
        rtEnds.push(ends);
      }
      const reads = await javaReads(wh, CASES.flatMap((c, i) => [{ identifier: `${DB}.j_${c.name}`, ends: javaEnds[i] }, { identifier: `${DB}.r_${c.name}`, ends: rtEnds[i] }]));
      for (const [i, c] of CASES.entries()) {
        const [j, r] = [reads[2 * i], reads[2 * i + 1]];
        expect(r.batch, `${c.name}: batch read of paimon-rt's table`).toEqual(j.batch);
        for (let k = 0; k < j.changelogs.length; k++) expect(r.changelogs[k], `${c.name}: changelog of commit ${k + 1}`).toEqual(j.changelogs[k]);
        // the changelog files hold as many records, commit by commit (Java's incremental read of a
        // deletion-vector table returns no changelog rows, of its own tables as of ours)
        const javaCounts = await changelogCounts(path.join(wh, `${DB}.db`, `j_${c.name}`), javaEnds[i]);
        expect(await changelogCounts(path.join(wh, `${DB}.db`, `r_${c.name}`), rtEnds[i]), `${c.name}: changelog records per commit`).toEqual(javaCounts);
        expect(javaCounts.some((x) => x > 0n), `${c.name}: Java produced changelog`).toBe(true);
        if (c.options["deletion-vectors.enabled"] !== "true") expect(j.changelogs.some((x) => x.length > 0), `${c.name}: Java reads changelog`).toBe(true);
      }
      // 2. Java continues paimon-rt's tables, paimon-rt continues Java's (commits FIRST..)
      const more = await writeTables("java", wh, CASES.map((c, i) => ({ identifier: `${DB}.r_${c.name}`, spec: spec(c, data[i].slice(FIRST), FIRST, false) })));
      const rtMore: number[][] = [];
      for (const [i, c] of CASES.entries()) {
        const table = await Table.open(path.join(wh, `${DB}.db`, `j_${c.name}`));
        const ends: number[] = [];
        for (const [k, rows] of data[i].slice(FIRST).entries()) {
          await rtCommit(table, c, rows, FIRST + k);
          ends.push((await table.latestSnapshot())!.id);
        }
        rtMore.push(ends);
      }
      const after = await javaReads(
        wh,
        CASES.flatMap((c, i) => [
          { identifier: `${DB}.j_${c.name}`, ends: [javaEnds[i][FIRST - 1], ...rtMore[i]] },
          { identifier: `${DB}.r_${c.name}`, ends: [rtEnds[i][FIRST - 1], ...more[i]] },
        ]),
      );
      for (const [i, c] of CASES.entries()) {
        const [ofRt, ofJava] = [after[2 * i], after[2 * i + 1]];
        expect(ofRt.batch, `${c.name}: batch read after continuing`).toEqual(ofJava.batch);
        for (let k = 0; k < ofRt.changelogs.length; k++) expect(ofRt.changelogs[k], `${c.name}: changelog of continued commit ${k}`).toEqual(ofJava.changelogs[k]);
      }
    },
    SLOW,
  );
});
