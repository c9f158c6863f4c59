// The merge of a PK union read (PrimaryKeySplitReader.readWithMemory): committed files merged
// with memory runs by key, highest sequence number winning, deletes dropped. When the files'
// sequence ranges are disjoint and below every memory sequence number, `_SEQUENCE_NUMBER` is not
// decoded (each file's rows are ordered by its maximum); otherwise the real numbers decide.
// Exact rows against a model built from every version's real sequence number, both ways.
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import * as arrow from "apache-arrow";
import { PrimaryKeySplitReader } from "../../src/read/merge-read.js";
import { type KvBatch, readKvFile } from "../../src/read/kv-file-reader.js";
import { readArrowField } from "../../src/format/arrow-types.js";
import { SEQUENCE_NUMBER_FIELD } from "../../src/table/primary-key.js";
import type { DataSplit } from "../../src/scan/split.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { cleanupDirs, makeTable } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

afterAll(cleanupDirs);

interface Version {
  key: number;
  seq: bigint;
  kind: number;
  name: string;
}

/** [id, name, v, dt] rows of `versions` (a table batch without the offset column). */
function tableBatch(versions: readonly Version[]): arrow.RecordBatch {
  const n = versions.length;
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: n, data: BigInt64Array.from(versions, (v) => BigInt(v.key)) }),
    name: arrow.vectorFromArray(
      versions.map((v) => v.name),
      new arrow.Utf8(),
    ).data[0],
    v: arrow.makeData({ type: new arrow.Float64(), length: n, data: Float64Array.from(versions, (v) => v.key / 2) }),
    dt: arrow.vectorFromArray(
      versions.map(() => "d1"),
      new arrow.Utf8(),
    ).data[0],
  });
}

/** Every row of the split's files with its stored sequence number and row kind. */
async function fileVersions(table: Table, split: DataSplit): Promise<Version[]> {
  const out: Version[] = [];
  for (const f of split.files) {
    for await (const c of readKvFile(table.fileIO, table.paths.dataFile(split.bucketPath, f), f, table.schema.fields, { batchSize: 1 << 20 })) {
      const ids = c.batch.getChild("id")!.toArray() as BigInt64Array;
      const names = c.batch.getChild("name")!.toArray() as string[];
      for (let i = 0; i < c.batch.numRows; i++) out.push({ key: Number(ids[i]), seq: c.sequence[i], kind: c.kinds[i], name: names[i] });
    }
  }
  return out;
}

const commitArb = fc.array(fc.record({ key: fc.integer({ min: 0, max: 40 }), del: fc.boolean() }), { minLength: 1, maxLength: 30 });
const memoryArb = fc.array(fc.array(fc.record({ key: fc.integer({ min: 0, max: 45 }), del: fc.boolean(), seq: fc.integer({ min: 0, max: 200 }) }), { minLength: 1, maxLength: 12 }), { maxLength: 4 });

describe("PK union read merge", () => {
  it.each([
    ["memory newer than every file: sequence numbers not decoded", true],
    ["memory sequence numbers among the files': real numbers decide", false],
  ])("%s", async (_name, above) => {
    await fc.assert(
      fc.asyncProperty(fc.array(commitArb, { minLength: 1, maxLength: 3 }), memoryArb, async (commits, memoryRuns) => {
        const table = await makeTable({ bucket: 1, "realtime.enabled": false }, { primaryKeys: ["id"] });
        for (const [c, rows] of commits.entries()) {
          const w = await table.newWrite({ commitUser: "u" });
          await w.write(tableBatch(rows.map((r) => ({ key: r.key, seq: 0n, kind: 0, name: `c${c}-${r.key}` }))), { bucket: 0, rowKinds: rows.map((r) => (r.del ? RowKind.DELETE : RowKind.INSERT)) });
          await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
          await w.close();
        }
        const plan = await table.newScan().plan();
        expect(plan.splits).toHaveLength(1);
        const split = plan.splits[0] as DataSplit;
        const committed = await fileVersions(table, split);
        const fileMax = split.files.reduce((m, f) => (f.maxSequenceNumber > m ? f.maxSequenceNumber : m), -1n);
        // memory sequence numbers: above every file's, or anywhere in the files' range (equal
        // numbers go to memory, then to the later run and row, as in the kernel)
        const seqOf = (r: number): bigint => (above ? fileMax + 1n + BigInt(r) : BigInt(r) % (fileMax + 3n));
        const memory: KvBatch[] = [];
        const memoryVersions: Version[][] = [];
        for (const [m, rows] of memoryRuns.entries()) {
          const versions = rows.map((r) => ({ key: r.key, seq: seqOf(r.seq), kind: r.del ? RowKind.DELETE : RowKind.INSERT, name: `m${m}-${r.key}` }));
          versions.sort((a, b) => a.key - b.key || (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
          memoryVersions.push(versions);
          memory.push({ batch: tableBatch(versions), sequence: BigInt64Array.from(versions, (v) => v.seq), kinds: Int8Array.from(versions, (v) => v.kind) });
        }
        // model: per key the version with the highest sequence number
        const winner = new Map<number, Version>();
        for (const v of [...committed, ...memoryVersions.flat()]) {
          const w = winner.get(v.key);
          if (!w || v.seq > w.seq || (v.seq === w.seq && v.name.startsWith("m"))) winner.set(v.key, v);
        }
        const expected = [...winner.values()]
          .filter((v) => v.kind === RowKind.INSERT || v.kind === RowKind.UPDATE_AFTER)
          .sort((a, b) => a.key - b.key)
          .map((v) => ({ id: v.key, name: v.name }));

        const fields = table.schema.fields;
        const reader = new PrimaryKeySplitReader(table, { fields, schema: new arrow.Schema(fields.map(readArrowField)), filter: null, batchSize: 7, withRowKind: false });
        // twice: the second read keeps the decoded chunks it asks for again
        for (let round = 0; round < 2; round++) {
          const got: Array<{ id: number; name: string }> = [];
          for await (const b of reader.readWithMemory(split, memory)) {
            const ids = b.getChild("id")!.toArray() as BigInt64Array;
            const names = b.getChild("name")!.toArray() as string[];
            for (let i = 0; i < b.numRows; i++) got.push({ id: Number(ids[i]), name: names[i] });
          }
          expect(got).toEqual(expected);
        }
        // which files' sequence column was decoded: those with retract rows (their row kinds are
        // needed) and all when the real numbers decide
        const decoded = split.files.map((f) => table.chunkCache.get(`${Number(f.fileSize)}|0|1|${String(readArrowField(SEQUENCE_NUMBER_FIELD).type)}|${table.paths.dataFile(split.bucketPath, f)}`) !== undefined);
        const memoryAbove = memoryVersions.flat().every((v) => v.seq > fileMax);
        const disjoint = split.files
          .map((f) => [f.minSequenceNumber, f.maxSequenceNumber] as const)
          .sort((a, b) => (a[0] < b[0] ? -1 : 1))
          .every((r, i, all) => i === 0 || r[0] > all[i - 1][1]);
        expect(decoded).toEqual(split.files.map((f) => !(memoryAbove && disjoint) || f.deleteRowCount !== 0n));
      }),
      { numRuns: runs(25) },
    );
  });
});
