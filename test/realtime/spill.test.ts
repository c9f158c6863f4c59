import { spawnSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { col, RealtimeContext } from "../../src/index.js";
import { readSpillFile, writeSpillFile } from "../../src/realtime/spill.js";
import { cleanupDirs, expectCode, makeTable, range, readIds, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);

const spillFiles = (dir: string) => readdirSync(dir).filter((f) => f.startsWith("paimon-rt-spill-"));

describe("spill of sealed segments", () => {
  it("spills on seal to zstd Arrow IPC, serves reads and prepare from the file, deletes it when released", async () => {
    const table = await makeTable({ "realtime.spill-enabled": true, "realtime.store.stats-mode": "full" });
    const tmp = tempDir("paimon-rt-spill-");
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
    await w.write(rtBatch(range(0, 1000)), { bucket: 0 });
    // a view taken before the spill keeps the memory representation
    const oldPlan = await table.newScan({ realtime: ctx }).plan();
    const memBefore = ctx.getMetrics();
    await w.seal();
    expect(spillFiles(tmp)).toHaveLength(1);
    const m = ctx.getMetrics();
    expect(m.realtimeSealedRowCount).toBe(1000);
    expect(m.realtimeBuildingRowCount).toBe(0);
    expect(m.realtimeSealedMemoryBytes).toBeLessThan(memBefore.realtimeBuildingMemoryBytes / 10); // only statistics stay resident
    await w.write(rtBatch(range(1000, 1010)), { bucket: 0 });
    expect(await readIds(table, { ctx })).toEqual(range(0, 1010));
    expect(await readIds(table, { ctx, filter: col("id").ge(1005), predicateFilter: true })).toEqual(range(1005, 1010));
    expect((await table.newRead({ realtime: ctx }).toArrow(oldPlan.splits)).numRows).toBe(1000);
    // a reader holding the spilled view keeps the file alive across refresh
    const plan = await table.newScan({ realtime: ctx }).plan();
    const reader = await table.newRead({ realtime: ctx }).createReader(plan.splits);
    const p = await w.prepareCommitWithProgress(1); // reads the spilled segment
    expect(p[0].offsetRange).toEqual({ begin: 0n, end: 1010n });
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(p, 1);
    await w.refreshCommittedSnapshot(s);
    expect(ctx.getMetrics().realtimeTotalRowCount).toBe(0);
    expect(spillFiles(tmp)).toHaveLength(1);
    let n = 0;
    for await (const b of reader) n += b.numRows;
    expect(n).toBe(1010);
    await reader.close();
    expect(spillFiles(tmp)).toHaveLength(0);
    expect(await readIds(table)).toEqual(range(0, 1010));
    await w.close();
  });

  it("a failed spill keeps the segment in memory and invalidates the context", async () => {
    const table = await makeTable({ "realtime.spill-enabled": true });
    const dir = tempDir();
    const notADir = join(dir, "file");
    writeFileSync(notADir, "x");
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: notADir });
    await w.write(rtBatch(range(0, 10)), { bucket: 0 });
    const plan = await table.newScan({ realtime: ctx }).plan();
    await expectCode(w.seal(), "CONTEXT_INVALIDATED");
    const m = ctx.getMetrics();
    expect(m.realtimeSealedRowCount).toBe(10);
    expect(m.realtimeSealedMemoryBytes).toBeGreaterThan(0);
    await expectCode(w.write(rtBatch([10]), { bucket: 0 }), "CONTEXT_INVALIDATED");
    await expectCode(() => table.newScan({ realtime: ctx }).plan(), "CONTEXT_INVALIDATED");
    await expectCode(() => table.newRead({ realtime: ctx }).createReader(plan.splits), "CONTEXT_INVALIDATED");
    expect(readdirSync(dir)).toEqual(["file"]);
  });

  it("spill-compression none and repeated seals", async () => {
    const table = await makeTable({ "realtime.spill-enabled": true, "spill-compression": "none" });
    const tmp = tempDir();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
    for (let i = 0; i < 3; i++) {
      await w.write(rtBatch(range(i * 5, i * 5 + 5)), { bucket: 1 });
      await w.seal();
    }
    await w.seal(); // nothing to seal
    expect(spillFiles(tmp)).toHaveLength(3);
    expect(await readIds(table, { ctx })).toEqual(range(0, 15));
    const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.refreshCommittedSnapshot(s);
    expect(spillFiles(tmp)).toHaveLength(0);
    await w.close();
    await ctx.close();
  });

  it("a new real-time writer on the directory removes spill files of dead processes, never a live one's", async () => {
    const table = await makeTable({ "realtime.spill-enabled": true, "spill-compression": "none" });
    const tmp = tempDir();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
    await w.write(rtBatch(range(0, 5)), { bucket: 0 });
    await w.seal();
    const [mine] = spillFiles(tmp);
    const owner = /^paimon-rt-spill-(\d+)@([^-]*)-/.exec(mine)!;
    expect(Number(owner[1])).toBe(process.pid);
    // A process that ran and exited: its pid names no live process any more.
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid!;
    const as = (pid: number, host = owner[2]) => mine.replace(owner[0], `paimon-rt-spill-${pid}@${host}-`);
    const dead = as(deadPid);
    const live = as(process.ppid); // the parent process is alive
    const otherHost = as(deadPid, "elsewhere.example");
    const oldUnowned = "paimon-rt-spill-0b9e2c1d.arrow";
    const newUnowned = "paimon-rt-spill-7f00aa11.arrow";
    for (const f of [dead, live, otherHost, oldUnowned, newUnowned]) copyFileSync(join(tmp, mine), join(tmp, f));
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    utimesSync(join(tmp, oldUnowned), twoDaysAgo, twoDaysAgo);
    const other = await RealtimeContext.create();
    const w2 = await table.newWrite({ commitUser: "v", realtime: other, tempDirectory: tmp });
    expect(spillFiles(tmp).sort()).toEqual([mine, live, otherHost, newUnowned].sort());
    // The live writer still reads its spilled segment.
    expect(await readIds(table, { ctx })).toEqual(range(0, 5));
    await w2.close();
    await other.close();
    await ctx.close(); // releases the live writer's spill file
    expect(spillFiles(tmp).sort()).toEqual([live, otherHost, newUnowned].sort());
  });

  for (const compression of ["zstd", "none"]) {
    it(`a segment of several MB spills in chunks (${compression}) and reads, filters and prepares back exactly`, async () => {
      const table = await makeTable({ "realtime.spill-enabled": true, "spill-compression": compression, "realtime.store.stats-mode": "full" });
      const tmp = tempDir();
      const ctx = await RealtimeContext.create();
      const w = await table.newWrite({ commitUser: "u", realtime: ctx, tempDirectory: tmp });
      const rows = 16 * 4096; // ~2.6 MB of Arrow data: two chunks
      for (let from = 0; from < rows; from += 4096) await w.write(rtBatch(range(from, from + 4096)), { bucket: 0 });
      await w.seal();
      expect(spillFiles(tmp)).toHaveLength(1);
      const file = readFileSync(join(tmp, spillFiles(tmp)[0]));
      const chunks: number[] = []; // batches per chunk, from the chunk headers
      for (let at = 0; at < file.length; at += 12 + file.readUInt32LE(at)) chunks.push(file.readUInt32LE(at + 4));
      expect(chunks.length).toBe(2);
      expect(chunks.reduce((a, b) => a + b, 0)).toBe(16);
      expect(await readIds(table, { ctx })).toEqual(range(0, rows));
      expect(await readIds(table, { ctx, filter: col("id").ge(rows - 3), predicateFilter: true })).toEqual(range(rows - 3, rows));
      const s = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
      await w.refreshCommittedSnapshot(s);
      expect(spillFiles(tmp)).toHaveLength(0);
      expect(await readIds(table)).toEqual(range(0, rows));
      await w.close();
      await ctx.close();
    });
  }

  it("reads only the chunks holding wanted batches; a damaged file is CORRUPT_FILE naming it", async () => {
    const tmp = tempDir();
    const batches = Array.from({ length: 12 }, (_, k) => rtBatch(range(k * 8192, (k + 1) * 8192)));
    const info = await writeSpillFile(tmp, batches, "zstd", 1);
    const read = async (path: string, wanted?: (i: number) => boolean) => {
      const out: Array<[number, number]> = [];
      for await (const { index, batch } of readSpillFile(path, wanted)) out.push([index, Number(batch.getChildAt(1)!.get(0))]);
      return out;
    };
    const all = await read(info.path);
    expect(all).toEqual(batches.map((_, k) => [k, k * 8192]));
    const lastOnly = await read(info.path, (i) => i === 11);
    expect(lastOnly.length).toBeLessThan(12); // earlier chunks were skipped, not decoded
    expect(lastOnly[lastOnly.length - 1]).toEqual([11, 11 * 8192]);
    expect(lastOnly).toEqual(all.slice(12 - lastOnly.length));
    const bytes = readFileSync(info.path);
    const damaged = (name: string, edit: (b: Buffer) => Buffer) => {
      const path = join(tmp, name);
      writeFileSync(path, edit(Buffer.from(bytes)));
      return path;
    };
    const cases = [
      damaged("truncated", (b) => b.subarray(0, b.length - 5)),
      damaged("short-header", (b) => b.subarray(0, 7)),
      damaged("codec", (b) => ((b[8] = 7), b)),
      damaged("count", (b) => (b.writeUInt32LE(b.readUInt32LE(4) + 1, 4), b)),
      damaged("payload", (b) => (b.fill(0x55, 12, 40), b)),
    ];
    for (const path of cases) {
      const err = await expectCode(read(path), "CORRUPT_FILE");
      expect(err.message).toContain(path);
    }
  });
});
