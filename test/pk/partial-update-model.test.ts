// Randomized model test of merge-engine=partial-update with sequence groups (two groups, one with
// two sequence fields; sum / last_non_null_value aggregators inside them; a free column), random
// nulls, row kinds +I/-U/+U/-D and full compactions; and of remove-record-on-delete. The reference
// is Java's PartialUpdateMergeFunction.add / getResult written out plainly over JS rows, applied
// with the structure Java applies it in: each commit's write buffer is merged per key into one
// level-0 record, reads merge a key's records, a full compaction keeps the merged record (or drops
// it when it is a DELETE). PU_MODEL_SEED replays a failing run.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "../interop/convert.js";
import { runs } from "../support/fc-runs.js";

type V = number | null;
/** Columns: id | s1 a b | s2 s3 c e | d */
const NAMES = ["id", "s1", "a", "b", "s2", "s3", "c", "e", "d"];
const FIELDS: FieldLike[] = NAMES.map((name, i) => ({ name, type: i === 0 ? "INT NOT NULL" : "INT" }));
const GROUP_OPTIONS = {
  "fields.s1.sequence-group": "a,b",
  "fields.s2,s3.sequence-group": "c,e",
  "fields.b.aggregate-function": "sum",
  "fields.e.aggregate-function": "last_non_null_value",
};
interface Rec {
  kind: number; // 0 +I, 1 -U, 2 +U, 3 -D
  seq: number;
  v: V[];
}
interface Config {
  groups: number[][]; // sequence columns
  groupOf: number[]; // column -> group, -1
  sum: Set<number>;
  lnn: Set<number>;
  removeOnDelete: boolean;
  removeOnGroup: Set<number>; // sequence columns
}
const GROUPS: Config = { groups: [[1], [4, 5]], groupOf: [-1, 0, 0, 0, 1, 1, 1, 1, -1], sum: new Set([3]), lnn: new Set([7]), removeOnDelete: false, removeOnGroup: new Set() };

const retract = (k: number) => k === 1 || k === 3;
function cmpSeq(seq: number[], x: V[], row: V[]): number {
  for (const c of seq) {
    const a = x[c];
    const b = row[c];
    if (a === null && b === null) continue;
    if (a === null) return -1;
    if (b === null) return 1;
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}
// (INT arithmetic; `| 0` also keeps -0 out, which Java's int has not)
const sum = (a: V, b: V) => (a === null ? b : b === null ? a : (a + b) | 0);
const minus = (a: V, b: V) => (a === null ? (b === null ? null : -b | 0) : b === null ? a : (a - b) | 0);

/** Java PartialUpdateMergeFunction over one key's records (ReducerMergeFunctionWrapper: one record passes). */
function javaFold(recs: Rec[], cfg: Config): Rec {
  if (recs.length === 1) return recs[0];
  let row: V[] = new Array(NAMES.length).fill(null);
  let latest = 0;
  let meetInsert = false;
  let filled = false;
  let deleted = false;
  for (const r of recs) {
    deleted = false;
    if (retract(r.kind)) {
      if (!filled) {
        row = [...r.v];
        filled = true;
      }
      latest = r.seq;
      if (cfg.groups.length > 0) {
        const done = new Set<number>();
        const empty = new Set<number>();
        for (let c = 0; c < row.length && !deleted; c++) {
          const g = cfg.groupOf[c];
          if (g < 0) continue;
          const seq = cfg.groups[g];
          if (empty.has(g) || seq.every((s) => r.v[s] === null)) {
            empty.add(g);
            continue;
          }
          const agg = cfg.sum.has(c) || cfg.lnn.has(c);
          if (cmpSeq(seq, r.v, row) >= 0) {
            if (seq.includes(c)) {
              for (const s of seq) {
                if (done.has(s)) continue;
                if (r.kind === 3 && cfg.removeOnGroup.has(s)) {
                  deleted = true;
                  row = [...r.v];
                  break;
                }
                row[s] = r.v[s];
                done.add(s);
              }
            } else if (!agg) row[c] = null;
            else if (cfg.sum.has(c)) row[c] = minus(row[c], r.v[c]);
            else if (r.v[c] !== null) row[c] = null; // last_non_null_value retract
          } else if (cfg.sum.has(c)) row[c] = minus(row[c], r.v[c]);
          else if (cfg.lnn.has(c) && r.v[c] !== null) row[c] = null;
        }
        continue;
      }
      if (cfg.removeOnDelete) {
        if (r.kind === 3) {
          deleted = true;
          row = [...r.v];
        }
        continue;
      }
      throw new Error("model: retraction without groups");
    }
    latest = r.seq;
    const empty = new Set<number>();
    for (let c = 0; c < row.length; c++) {
      const g = cfg.groupOf[c];
      if (g < 0) {
        if (r.v[c] !== null) row[c] = r.v[c];
        continue;
      }
      const seq = cfg.groups[g];
      if (empty.has(g) || seq.every((s) => r.v[s] === null)) {
        empty.add(g);
        continue;
      }
      if (cmpSeq(seq, r.v, row) >= 0) {
        if (seq.includes(c)) for (const s of seq) row[s] = r.v[s];
        else if (cfg.sum.has(c)) row[c] = sum(row[c], r.v[c]);
        else if (cfg.lnn.has(c)) row[c] = r.v[c] ?? row[c];
        else row[c] = r.v[c];
      } else if (cfg.sum.has(c)) row[c] = sum(r.v[c], row[c]);
      else if (cfg.lnn.has(c)) row[c] = row[c] ?? r.v[c];
    }
    meetInsert = true;
    filled = true;
  }
  return { kind: deleted || !meetInsert ? 3 : 0, seq: latest, v: row };
}

interface Commit {
  rows: Rec[]; // seq: order within the commit
  compact: boolean;
}

/** The model table: per key the compacted record (if any) and each commit's merged record since. */
function modelRead(commits: Commit[], cfg: Config): V[][] {
  const runs = new Map<number, Rec[]>();
  let seq = 0;
  const foldAll = (recs: Rec[]) => javaFold(recs, cfg);
  for (const c of commits) {
    const byKey = new Map<number, Rec[]>();
    for (const r of c.rows) {
      const rec = { ...r, seq: seq++ };
      const k = r.v[0] as number;
      byKey.set(k, [...(byKey.get(k) ?? []), rec]);
    }
    for (const [k, recs] of byKey) runs.set(k, [...(runs.get(k) ?? []), foldAll(recs)]);
    if (c.compact) {
      for (const [k, recs] of runs) {
        const r = foldAll(recs);
        if (r.kind === 1 || r.kind === 3) runs.delete(k);
        else runs.set(k, [{ ...r, kind: r.kind }]);
      }
    }
  }
  const out: V[][] = [];
  for (const recs of runs.values()) {
    const r = foldAll(recs);
    if (r.kind !== 1 && r.kind !== 3) out.push(r.v);
  }
  return out.sort((x, y) => (x[0] as number) - (y[0] as number));
}

let n = 0;
async function run(options: Record<string, string>, commits: Commit[]): Promise<V[][]> {
  const catalog = await Catalog.open(`memory://pu-model-${process.pid}-${n++}`);
  await catalog.createDatabase("db", { ignoreIfExists: true });
  const table: Table = await catalog.createTable("db.t", { fields: FIELDS, primaryKeys: ["id"], options: { bucket: "1", "merge-engine": "partial-update", "num-sorted-run.compaction-trigger": "50", ...options } });
  for (const [i, c] of commits.entries()) {
    const write = await table.newWrite({ commitUser: "u" });
    if (c.rows.length > 0) await write.write(rowsToBatch(FIELDS, c.rows.map((r) => Object.fromEntries(NAMES.map((nm, j) => [nm, r.v[j]])))), { rowKinds: c.rows.map((r) => r.kind) });
    if (c.compact) await write.compact({ full: true });
    await table.newCommit({ commitUser: "u" }).commit(await write.prepareCommit(i), i);
    await write.close();
  }
  const rows = arrowToRows(await table.newRead().toArrow((await table.newScan().plan()).splits));
  return rows.map((r) => NAMES.map((nm) => r[nm] as V)).sort((x, y) => (x[0] as number) - (y[0] as number));
}

const cell = (p: number) => fc.oneof({ weight: p, arbitrary: fc.constant(null) }, { weight: 10 - p, arbitrary: fc.integer({ min: 0, max: 3 }) });
const rec = (kinds: number[]) =>
  fc.record({ kind: fc.constantFrom(...kinds), k: fc.integer({ min: 0, max: 3 }), cells: fc.tuple(cell(3), cell(3), cell(3), cell(3), cell(3), cell(3), cell(3), cell(3)) }).map((x): Rec => ({ kind: x.kind, seq: 0, v: [x.k, ...x.cells] }));
const commitsOf = (kinds: number[]) => fc.array(fc.record({ rows: fc.array(rec(kinds), { minLength: 0, maxLength: 8 }), compact: fc.boolean() }), { minLength: 1, maxLength: 5 });
const seed = process.env.PU_MODEL_SEED ? Number(process.env.PU_MODEL_SEED) : undefined;

describe("partial-update model (Java PartialUpdateMergeFunction semantics)", () => {
  it("sequence groups with aggregators, nulls, retractions and full compactions", async () => {
    await fc.assert(
      fc.asyncProperty(commitsOf([0, 0, 0, 1, 2, 3]), async (commits) => {
        expect(await run(GROUP_OPTIONS, commits)).toEqual(modelRead(commits, GROUPS));
      }),
      { numRuns: runs(40), seed },
    );
  }, 240_000);

  it("remove-record-on-sequence-group on the two-field group", async () => {
    const cfg = { ...GROUPS, removeOnGroup: new Set([4, 5]) };
    await fc.assert(
      fc.asyncProperty(commitsOf([0, 0, 1, 3]), async (commits) => {
        expect(await run({ ...GROUP_OPTIONS, "partial-update.remove-record-on-sequence-group": "s2,s3" }, commits)).toEqual(modelRead(commits, cfg));
      }),
      { numRuns: runs(25), seed },
    );
  }, 240_000);

  it("remove-record-on-delete (no groups): last non-null values, a -D removes the row", async () => {
    const cfg: Config = { groups: [], groupOf: NAMES.map(() => -1), sum: new Set(), lnn: new Set(), removeOnDelete: true, removeOnGroup: new Set() };
    await fc.assert(
      fc.asyncProperty(commitsOf([0, 0, 1, 2, 3]), async (commits) => {
        expect(await run({ "partial-update.remove-record-on-delete": "true" }, commits)).toEqual(modelRead(commits, cfg));
      }),
      { numRuns: runs(25), seed },
    );
  }, 240_000);
});
