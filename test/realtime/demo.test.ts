import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inspectTable } from "../../src/cli/inspect.js";
import { checkpointLine, DEMO_MAX_COLUMNS, type DemoState, runRealtimeDemo, statusBlock } from "../../src/cli/realtime-demo.js";

describe("real-time demo", () => {
  it("pk mode: an upsert/delete stream; every query sees exactly the live keys, the disk-only read every live key once with its last value", async () => {
    const warehouse = mkdtempSync(join(tmpdir(), "rt-pk-demo-"));
    try {
      const lines: string[] = [];
      const keysPerBucket = 3000;
      const result = await runRealtimeDemo({ warehouse, seconds: 3, mode: "pk", keysPerBucket, log: (l) => lines.push(l), maxRowsPerSecond: 40_000, checkpointMs: 800, batchRows: 1024 });
      expect(result.mismatches).toEqual([]);
      expect(result.exitCode).toBe(0);
      expect(result.queries).toBeGreaterThan(0);
      expect(lines[0]).toBe(`real-time PK demo: table demo.events (4 buckets) in ${warehouse}`);
      expect(lines[1]).toBe("upserts over 3,000 keys per bucket, every tenth event a delete");
      // offsets per bucket = written / 4 (each round writes one batch per bucket); live keys follow from them
      const perBucket = result.rowsWritten / 4;
      let live = 0;
      for (let k = 0; k < keysPerBucket; k++) {
        if (perBucket <= k) continue;
        const last = k + keysPerBucket * Math.floor((perBucket - 1 - k) / keysPerBucket);
        if (last % 10 !== 9) live++;
      }
      expect(result.rowsOnDisk).toBe(live * 4);
      expect(lines.slice(-2)).toEqual([`verified: disk-only read: ${(live * 4).toLocaleString("en-US")} keys, 0 missing, 0 duplicated, 0 stray, 0 stale`, "OK: every live key once, with its last value"]);
    } finally {
      rmSync(warehouse, { recursive: true, force: true });
    }
  }, 90_000);


  it("ingests, queries, checkpoints and verifies every row exactly once, in plain lines of at most 80 columns", async () => {
    const warehouse = mkdtempSync(join(tmpdir(), "paimon-rt-demo-test-"));
    try {
      const lines: string[] = [];
      const run = () => runRealtimeDemo({ warehouse, seconds: 3, log: (l) => lines.push(l), cliCommand: "node dist/cli/main.js", maxRowsPerSecond: 100_000, checkpointMs: 800, batchRows: 1024 });
      await run();
      lines.length = 0;
      // A second run replaces the table: the same name, only this run's rows.
      const result = await run();
      expect(result.mismatches).toEqual([]);
      expect(result.exitCode).toBe(0);
      expect(result.rowsWritten).toBeGreaterThan(0);
      expect(result.rowsOnDisk).toBe(result.rowsWritten);
      // at least one commit (on a loaded machine one checkpoint can outlast the 3 s of ingestion)
      expect(result.snapshots).toBeGreaterThanOrEqual(1);
      expect(result.tableIdentifier).toBe("demo.events");
      expect(result.tableLocation).toBe(join(warehouse, "demo.db", "events"));

      // Plain output: no terminal control codes, every line within 80 columns.
      expect(lines.filter((l) => l.length > DEMO_MAX_COLUMNS || l.includes("\x1b"))).toEqual([]);
      expect(lines[0]).toBe(`real-time demo: table demo.events (4 buckets) in ${warehouse}`);
      expect(lines[1]).toBe("ingest for 3 s; checkpoint every 0.8 s; a query every 0.25 s");
      // one line per checkpoint (the final one included); the last commit holds every row
      expect(lines.filter((l) => /^ *\d+\.\ds checkpoint \d+: /.test(l)).length).toBe(lines.indexOf(lines.find((l) => l.startsWith("ingested "))!) - 2);
      const checkpoints = lines.filter((l) => /^ *\d+\.\ds checkpoint \d+: snapshot/.test(l));
      expect(checkpoints.length).toBe(result.snapshots);
      expect(checkpoints[checkpoints.length - 1]).toMatch(new RegExp(`checkpoint \\d+: snapshot ${result.snapshots}, ${result.rowsWritten.toLocaleString("en-US")} rows, \\d+ ms, `));
      // ingest is rows over wall-clock time (at least the 3 s of ingestion), as printed
      expect(result.ingestRowsPerSecond).toBeLessThanOrEqual(result.rowsWritten / 3);
      const ingested = lines.find((l) => l.startsWith("ingested "))!;
      const [, rows, secs] = /^ingested ([\d,]+) rows in ([\d.]+) s: /.exec(ingested)!;
      expect(Number(rows.replace(/,/g, ""))).toBe(result.rowsWritten);
      expect(Number(secs)).toBeGreaterThanOrEqual(3);
      expect(Math.abs(result.ingestRowsPerSecond * Number(secs) - result.rowsWritten)).toBeLessThanOrEqual(result.ingestRowsPerSecond * 0.05);
      expect(ingested).toBe(`ingested ${rows} rows in ${secs} s: ${(result.ingestRowsPerSecond / 1000).toFixed(0)}k rows/s (wall clock)`);

      // The last lines (CI shows three): the exact inspect command, the verification, the verdict.
      const tail = lines.slice(-4);
      expect(tail[0]).toBe("the table stays; look at what it holds with:");
      expect(tail[1]).toBe(`  node dist/cli/main.js inspect ${join(warehouse, "demo.db", "events")}`);
      expect(tail[2]).toBe(`verified: disk-only read: ${result.rowsWritten.toLocaleString("en-US")} rows, 0 missing, 0 duplicated, 0 stray`);
      expect(tail[3]).toBe("OK: every row exactly once");
      const inspected = tail[1].slice("  node dist/cli/main.js inspect ".length);
      expect(existsSync(inspected)).toBe(true);
      const inspectLines: string[] = [];
      await inspectTable(inspected, (l) => inspectLines.push(l));
      expect(inspectLines[0]).toBe(`table demo.events at ${inspected}`);
    } finally {
      rmSync(warehouse, { recursive: true, force: true });
    }
  }, 90_000);

  it("in a terminal redraws one status block in place", async () => {
    const lines: string[] = [];
    const result = await runRealtimeDemo({ seconds: 2, live: true, log: (l) => lines.push(l), maxRowsPerSecond: 50_000, checkpointMs: 700, batchRows: 1024 });
    expect(result.exitCode).toBe(0);
    const block = lines.filter((l) => l.includes("\x1b[2K"));
    // five-line blocks; every block after the first starts by moving the cursor up over the previous one
    expect(block.length % 5).toBe(0);
    expect(block.length).toBeGreaterThanOrEqual(10);
    for (let i = 0; i < block.length; i += 5) {
      expect(block[i].startsWith(i === 0 ? "\r\x1b[2K[" : "\x1b[5A\r\x1b[2K[")).toBe(true);
      for (let k = 1; k < 5; k++) expect(block[i + k].startsWith("\r\x1b[2K")).toBe(true);
    }
    const visibleText = (l: string) => l.replace(/\x1b\[\d*[AK]|\r/g, "");
    expect(lines.map(visibleText).filter((l) => l.length > DEMO_MAX_COLUMNS)).toEqual([]);
    // the final block shows the same wall-clock ingest rate as the summary, and the end state
    const finalBlock = block.slice(-5).map(visibleText);
    expect(finalBlock[0]).toMatch(/^\[#{24}\] +\d+\.\d s {2}done$/);
    const summaryRate = / rows in [\d.]+ s: (.+ rows\/s) \(wall clock\)$/.exec(lines.find((l) => l.startsWith("ingested "))!)![1];
    expect(finalBlock[1]).toBe(`written   ${result.rowsWritten.toLocaleString("en-US").padStart(12)} rows   ingest ${summaryRate} (wall clock)`);
    expect(finalBlock[2]).toMatch(new RegExp(`^visible   ${result.rowsWritten.toLocaleString("en-US").padStart(12)} rows   0 not yet committed`));
    // a temporary warehouse is removed, so no inspect command is offered
    expect(lines.some((l) => l.includes(" inspect "))).toBe(false);
    expect(lines[lines.length - 1]).toBe("OK: every row exactly once");
  }, 60_000);

  it("status block and checkpoint lines fit 80 columns even for large figures", () => {
    const state: DemoState = {
      // an hour-long run (--seconds 3600) near the default rate cap, with slow checkpoints
      elapsedMs: 3_599_900,
      phase: "verifying: disk-only read …",
      ingestMs: 3_599_900,
      checkpointCommitted: true,
      written: 1_439_999_999,
      visible: 1_439_999_999,
      committed: 1_439_000_000,
      checkpoint: 9_999,
      snapshot: 9_999,
      checkpointMs: 99_999,
      queryMs: 99_999,
      metrics: {
        realtimeBuildingMemoryBytes: 1e11,
        realtimeSealedMemoryBytes: 1e11,
        realtimeTotalMemoryBytes: 2e11,
        realtimeBuildingRowCount: 999_999_999,
        realtimeSealedRowCount: 999_999_999,
        realtimeTotalRowCount: 1_999_999_998,
      },
    };
    const lines = [...statusBlock(state, 3600), checkpointLine(state)];
    const idle = { ...state, checkpointCommitted: false };
    lines.push(...statusBlock(idle, 3600), checkpointLine(idle));
    expect(checkpointLine(idle)).toBe(" 3600s checkpoint 9999: nothing new since snapshot 9999");
    expect(lines.filter((l) => l.length > DEMO_MAX_COLUMNS)).toEqual([]);
    expect(lines[1]).toBe("written   1,439,999,999 rows   ingest 400k rows/s (wall clock)");
  });
});
