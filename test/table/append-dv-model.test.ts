// Randomized model test of append deletion-vector tables: random sequences of appends, deletions
// by file position and full / minor compactions (fixed and unaware buckets), compared after every
// step with a model holding the rows of every live file in order.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { commitRowDeletions } from "../../src/commit/append-deletions.js";
import { readParquetBatches } from "../../src/format/parquet-reader.js";
import { fileIOSource } from "../../src/format/source.js";
import type { Table } from "../../src/table/table.js";
import { runs } from "../support/fc-runs.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

type Op = { kind: "append"; rows: number } | { kind: "delete"; file: number; picks: number[] } | { kind: "compact"; full: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("append" as const), rows: fc.integer({ min: 1, max: 12 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("delete" as const), file: fc.nat(), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const), full: fc.boolean() }) },
);

async function liveRowsByFile(t: Table): Promise<Array<{ name: string; rows: number }>> {
  const latest = await t.latestSnapshot();
  if (!latest) return [];
  const entries = await t.manifestStore.liveEntries(latest);
  return entries.map((e) => ({ name: e.file.fileName, rows: Number(e.file.rowCount), seq: e.file.minSequenceNumber })).sort((a, b) => Number(a.seq - b.seq));
}

async function tableIds(t: Table): Promise<number[]> {
  if (!(await t.latestSnapshot())) return [];
  const col = (await t.newRead().toArrow((await t.newScan().plan()).splits)).getChild("id")!;
  return Array.from(col.toArray() as BigInt64Array, Number).sort((a, b) => a - b);
}

describe("append deletion vectors against a model", () => {
  for (const bucket of [1, -1]) {
    it(`appends, positional deletions and compactions keep exactly the undeleted rows (bucket = ${bucket})`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 3, maxLength: 9 }), async (ops) => {
          const dir = mkdtempSync(join(tmpdir(), "paimon-rt-append-dv-model-"));
          dirs.push(dir);
          const catalog = await Catalog.open(dir);
          await catalog.createDatabase("db");
          const t = await catalog.createTable("db.t", {
            fields: [{ name: "id", type: "BIGINT" }],
            options: { bucket, ...(bucket > 0 ? { "bucket-key": "id" } : {}), "deletion-vectors.enabled": true, "compaction.min.file-num": 2 },
          });
          // Model: live ids in the table; deleting position p of a file removes the p-th row the file was written with.
          const fileContents = new Map<string, number[]>();
          const deleted = new Set<number>();
          let next = 0;
          for (const op of ops) {
            if (op.kind === "append") {
              const ids = Array.from({ length: op.rows }, () => next++);
              const w = await t.newWrite({ commitUser: "w" });
              await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }) }), bucket > 0 ? { bucket: 0 } : {});
              await t.newCommit({ commitUser: "w" }).commit(await w.prepareCommit());
            } else if (op.kind === "delete") {
              const files = await liveRowsByFile(t);
              if (files.length === 0) continue;
              const file = files[op.file % files.length];
              const positions = op.picks.map((p) => p % file.rows);
              await commitRowDeletions(t, "d", [{ bucket: 0, fileName: file.name, positions }]);
              for (const p of positions) deleted.add(fileContents.get(file.name)![p]);
            } else {
              const w = await t.newWrite({ commitUser: "c" });
              await w.compact({ full: op.full });
              await t.newCommit({ commitUser: "c" }).commit(await w.prepareCommit());
            }
            // Learn the contents of new files (appends, compaction outputs) from what the table reads per file.
            for (const f of await liveRowsByFile(t)) {
              if (fileContents.has(f.name)) continue;
              fileContents.set(f.name, await rawIds(t, f.name));
            }
            const expected = Array.from({ length: next }, (_, i) => i).filter((i) => !deleted.has(i));
            expect(await tableIds(t)).toEqual(expected);
          }
          // Compacted files hold only undeleted rows, in write order.
          for (const f of await liveRowsByFile(t)) {
            const ids = fileContents.get(f.name)!;
            expect([...ids].sort((a, b) => a - b)).toEqual(ids);
          }
        }),
        { numRuns: runs(25) },
      );
    }, 240_000);
  }
});

/** The ids a data file holds, deleted rows included (read without its deletion vector). */
async function rawIds(t: Table, fileName: string): Promise<number[]> {
  const entry = (await t.manifestStore.liveEntries((await t.latestSnapshot())!)).find((e) => e.file.fileName === fileName)!;
  const source = await fileIOSource(t.fileIO, t.paths.dataFile(t.paths.bucketDir("", entry.bucket), entry.file), Number(entry.file.fileSize));
  const out: number[] = [];
  for await (const b of readParquetBatches(source, { fields: t.schema.fields, mapBy: "id", batchSize: 4096 })) out.push(...Array.from(b.getChildAt(0)!.toArray() as BigInt64Array, Number));
  return out;
}
