// Streaming reads (`Table.newStreamScan`, `Table.streamRead`), as Java Paimon 1.4.2's
// DataTableStreamScan: exact rows (with row kinds) of every plan for append and primary-key tables
// (changelog-producer none / input / lookup), COMPACT snapshots skipped, overwrite snapshots,
// every scan.mode, consumers (saved, restored, kept by expiry, validated), expired snapshots.
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { main } from "../../src/cli/main.js";
import type { StreamTableScan } from "../../src/scan/stream-scan.js";
import { parseSnapshotJson, snapshotToJson } from "../../src/spec/snapshot.js";
import { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { RealtimeContext } from "../../src/index.js";
import { cleanupDirs, expectCode, makeTable, tempDir } from "../realtime/helpers.js";

afterAll(cleanupDirs);

const KINDS = ["+I", "-U", "+U", "-D"];
let counter = 0;

async function create(pk: boolean, options: Record<string, string> = {}): Promise<Table> {
  const catalog = await Catalog.open(tempDir("paimon-rt-stream-"));
  await catalog.createDatabase("db", { ignoreIfExists: true });
  return catalog.createTable(`db.t${counter++}`, {
    fields: [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "v", type: "STRING" },
    ],
    primaryKeys: pk ? ["id"] : [],
    options: { bucket: pk ? "1" : "-1", ...options },
  });
}

type Rec = [number, string, RowKind?];

function batch(rows: readonly Rec[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: rows.length, data: BigInt64Array.from(rows, (r) => BigInt(r[0])) }),
    v: arrow.vectorFromArray(
      rows.map((r) => r[1]),
      new arrow.Utf8(),
    ).data[0]!,
  });
}

async function put(table: Table, rows: readonly Rec[], overwrite = false): Promise<number> {
  const w = await table.newWrite({ commitUser: "u", overwrite });
  if (rows.length > 0) await w.write(batch(rows), table.schema.primaryKeys.length > 0 ? { rowKinds: rows.map((r) => r[2] ?? RowKind.INSERT) } : {});
  const c = table.newCommit({ commitUser: "u" });
  const id = overwrite ? await c.overwrite(await w.prepareCommit()) : await c.commit(await w.prepareCommit());
  await w.close();
  return id!;
}

async function compact(table: Table): Promise<void> {
  const w = await table.newWrite({ commitUser: "u" });
  await w.compact({ full: true });
  await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  await w.close();
}

/** The next plan's snapshot id and rows ("+I|1|a"), sorted. */
async function next(table: Table, scan: StreamTableScan): Promise<{ snapshotId: number | null; rows: string[] }> {
  const p = await scan.plan();
  const t = await table.newRead({ withRowKind: true }).toArrow(p.splits);
  const rows = (t.toArray() as Array<{ _VALUE_KIND: number; id: bigint; v: string }>).map((r) => `${KINDS[r._VALUE_KIND]}|${r.id}|${r.v}`).sort();
  return { snapshotId: p.snapshotId, rows };
}

describe("stream scan: follow-up plans", () => {
  it("append table, latest-full: the latest snapshot's rows, then each APPEND snapshot's rows; COMPACT skipped; empty while nothing is new", async () => {
    const t = await create(false, { "compaction.min.file-num": "2" });
    await put(t, [[1, "a"]]);
    await put(t, [[2, "b"]]);
    const scan = await t.newStreamScan();
    expect(scan.checkpoint()).toBeNull();
    expect(await next(t, scan)).toEqual({ snapshotId: 2, rows: ["+I|1|a", "+I|2|b"] });
    expect(scan.checkpoint()).toBe(3);
    expect(await next(t, scan)).toEqual({ snapshotId: null, rows: [] });
    await put(t, [[3, "c"], [4, "d"]]);
    await compact(t);
    expect((await t.latestSnapshot())!.commitKind).toBe("COMPACT");
    expect(await next(t, scan)).toEqual({ snapshotId: 3, rows: ["+I|3|c", "+I|4|d"] });
    expect(await next(t, scan)).toEqual({ snapshotId: null, rows: [] });
    expect(scan.checkpoint()).toBe(5);
    await put(t, [[5, "e"]]);
    expect(await next(t, scan)).toEqual({ snapshotId: 5, rows: ["+I|5|e"] });
  });

  it("primary key, changelog-producer none: merged rows first, then each APPEND snapshot's records with their kinds; COMPACT skipped", async () => {
    const t = await create(true);
    await put(t, [[1, "a"], [2, "b"]]);
    await put(t, [[1, "a2"]]);
    const scan = await t.newStreamScan();
    expect(await next(t, scan)).toEqual({ snapshotId: 2, rows: ["+I|1|a2", "+I|2|b"] });
    await put(t, [[2, "b", RowKind.DELETE], [3, "c"], [1, "a3", RowKind.UPDATE_AFTER]]);
    await compact(t);
    await put(t, [[4, "d"]]);
    expect(await next(t, scan)).toEqual({ snapshotId: 3, rows: ["+I|3|c", "+U|1|a3", "-D|2|b"] });
    expect(await next(t, scan)).toEqual({ snapshotId: 5, rows: ["+I|4|d"] });
    expect(await next(t, scan)).toEqual({ snapshotId: null, rows: [] });
  });

  it("primary key, changelog-producer input: the changelog files as written", async () => {
    const t = await create(true, { "changelog-producer": "input" });
    await put(t, [[1, "a"]]);
    const scan = await t.copy({ "scan.mode": "latest" }).newStreamScan();
    expect(await next(t, scan)).toEqual({ snapshotId: null, rows: [] });
    expect(scan.checkpoint()).toBe(2);
    await put(t, [[1, "a", RowKind.UPDATE_BEFORE], [1, "b", RowKind.UPDATE_AFTER], [2, "x"]]);
    await put(t, [[2, "x", RowKind.DELETE]]);
    expect(await next(t, scan)).toEqual({ snapshotId: 2, rows: ["+I|2|x", "+U|1|b", "-U|1|a"] });
    expect(await next(t, scan)).toEqual({ snapshotId: 3, rows: ["-D|2|x"] });
  });

  it("primary key, changelog-producer lookup: the COMPACT snapshots' changelogs (-U/+U of updates); the first plan reads levels above 0", async () => {
    const t = await create(true, { "changelog-producer": "lookup" });
    await put(t, [[1, "a"], [2, "b"]]);
    expect((await t.latestSnapshot())!.commitKind).toBe("COMPACT");
    const scan = await t.newStreamScan();
    const first = await next(t, scan);
    expect(first.rows).toEqual(["+I|1|a", "+I|2|b"]);
    await put(t, [[1, "a2"], [2, "b", RowKind.DELETE], [3, "c"]]);
    const latest = (await t.latestSnapshot())!.id;
    expect(await next(t, scan)).toEqual({ snapshotId: latest, rows: ["+I|3|c", "+U|1|a2", "-D|2|b", "-U|1|a"] });
    expect(await next(t, scan)).toEqual({ snapshotId: null, rows: [] });
  });

  it("OVERWRITE snapshots: skipped by default; with streaming-read-append-overwrite their added rows; with streaming-read-overwrite (primary key) the deleted rows retracted and the new ones added", async () => {
    const a = await create(false);
    await put(a, [[1, "a"]]);
    const plain = await a.newStreamScan();
    const withOverwrite = await a.copy({ "streaming-read-append-overwrite": "true" }).newStreamScan();
    await next(a, plain);
    await next(a, withOverwrite);
    await put(a, [[2, "b"]], true);
    await put(a, [[3, "c"]]);
    expect(await next(a, plain)).toEqual({ snapshotId: 3, rows: ["+I|3|c"] });
    expect(await next(a, withOverwrite)).toEqual({ snapshotId: 2, rows: ["+I|2|b"] });
    expect(await next(a, withOverwrite)).toEqual({ snapshotId: 3, rows: ["+I|3|c"] });

    const p = await create(true);
    await put(p, [[1, "a"], [2, "b"]]);
    const scan = await p.copy({ "streaming-read-overwrite": "true" }).newStreamScan();
    await next(p, scan);
    await put(p, [[2, "b2"], [3, "c"]], true);
    expect(await next(p, scan)).toEqual({ snapshotId: 2, rows: ["+I|2|b2", "+I|3|c", "-D|1|a", "-D|2|b"] });
    await expectCode(async () => (await create(true, { "changelog-producer": "lookup", "streaming-read-overwrite": "true" })).newStreamScan(), "INVALID_ARGUMENT");
  });
});

describe("stream scan: scan.mode", () => {
  async function fiveSnapshots(): Promise<Table> {
    const t = await create(false);
    for (let i = 1; i <= 5; i++) {
      await put(t, [[i, `v${i}`]]);
      await new Promise((r) => setTimeout(r, 3)); // distinct snapshot times
    }
    return t;
  }

  it("latest / from-snapshot / from-snapshot-full / from-timestamp / compacted-full / full", async () => {
    const t = await fiveSnapshots();
    const latest = await t.copy({ "scan.mode": "latest" }).newStreamScan();
    expect(await next(t, latest)).toEqual({ snapshotId: null, rows: [] });
    expect(latest.checkpoint()).toBe(6);

    const from = await t.copy({ "scan.snapshot-id": 3 }).newStreamScan();
    expect(await next(t, from)).toEqual({ snapshotId: null, rows: [] });
    expect(from.checkpoint()).toBe(3);
    expect(await next(t, from)).toEqual({ snapshotId: 3, rows: ["+I|3|v3"] });
    expect(await next(t, from)).toEqual({ snapshotId: 4, rows: ["+I|4|v4"] });

    const full = await t.copy({ "scan.mode": "from-snapshot-full", "scan.snapshot-id": 3 }).newStreamScan();
    expect(await next(t, full)).toEqual({ snapshotId: 3, rows: ["+I|1|v1", "+I|2|v2", "+I|3|v3"] });
    expect(await next(t, full)).toEqual({ snapshotId: 4, rows: ["+I|4|v4"] });

    // from-timestamp: after the newest snapshot strictly earlier than the time
    const s4 = await t.snapshot(4);
    const ts = await t.copy({ "scan.timestamp-millis": s4.timeMillis }).newStreamScan();
    expect(await next(t, ts)).toEqual({ snapshotId: null, rows: [] });
    expect(ts.checkpoint()).toBe(4);
    const early = await t.copy({ "scan.mode": "from-timestamp", "scan.timestamp-millis": 1 }).newStreamScan();
    await next(t, early);
    expect(early.checkpoint()).toBe(1);

    for (const mode of ["full", "latest-full", "compacted-full"]) {
      const s = await t.copy({ "scan.mode": mode }).newStreamScan();
      expect(await next(t, s), mode).toEqual({ snapshotId: 5, rows: ["+I|1|v1", "+I|2|v2", "+I|3|v3", "+I|4|v4", "+I|5|v5"] });
    }
    await compact(t);
    await put(t, [[6, "v6"]]);
    const compacted = await t.copy({ "scan.mode": "compacted-full" }).newStreamScan();
    expect((await next(t, compacted)).snapshotId).toBe(6);
    expect(await next(t, compacted)).toEqual({ snapshotId: 7, rows: ["+I|6|v6"] });
  });

  it("refuses incremental and tag starts (Java's messages); a table without snapshots plans nothing until its first snapshot", async () => {
    const t = await create(false);
    const empty = await t.newStreamScan();
    expect(await next(t, empty)).toEqual({ snapshotId: null, rows: [] });
    expect(empty.checkpoint()).toBeNull();
    const latest = await t.copy({ "scan.mode": "latest" }).newStreamScan();
    await next(t, latest);
    await put(t, [[1, "a"]]);
    expect(await next(t, empty)).toEqual({ snapshotId: 1, rows: ["+I|1|a"] });
    // (latest, opened without snapshots: from the first)
    expect(await next(t, latest)).toEqual({ snapshotId: null, rows: [] });
    expect(latest.checkpoint()).toBe(1);
    expect(await next(t, latest)).toEqual({ snapshotId: 1, rows: ["+I|1|a"] });
    await t.createTag("tg", 1);
    const tag = t.copy({ "scan.tag-name": "tg" }).newStreamScan();
    expect((await expectCode(tag, "INVALID_ARGUMENT")).message).toContain("Cannot scan from tag in streaming mode.");
    await expectCode((await t.atSnapshot(1)).newStreamScan(), "UNSUPPORTED");
    const inc = t.copy({ "incremental-between": "0,1" }).newStreamScan();
    expect((await expectCode(inc, "INVALID_ARGUMENT")).message).toContain("Cannot read incremental in streaming mode.");
  });
});

describe("stream scan: consumers and expiry", () => {
  it("notifyCheckpointComplete saves Java's consumer JSON; a new scan with the same id continues from it; consumer.ignore-progress starts over", async () => {
    const t = await create(false);
    await put(t, [[1, "a"]]);
    const c = t.copy({ "consumer-id": "job-1" });
    const scan = await c.newStreamScan();
    await next(t, scan);
    await put(t, [[2, "b"]]);
    expect(await next(t, scan)).toEqual({ snapshotId: 2, rows: ["+I|2|b"] });
    expect(existsConsumer(t, "job-1")).toBeNull();
    await scan.notifyCheckpointComplete(scan.checkpoint());
    expect(existsConsumer(t, "job-1")).toBe('{\n  "nextSnapshot" : 3\n}');
    const consumers = await (await t.systemTable("consumers")).newRead().toArrow((await (await t.systemTable("consumers")).newScan().plan()).splits);
    expect(consumers.toArray().map((r) => ({ ...r }))).toEqual([{ consumer_id: "job-1", next_snapshot_id: 3n }]);
    await put(t, [[3, "c"]]);
    const resumed = await c.newStreamScan();
    expect(await next(t, resumed)).toEqual({ snapshotId: null, rows: [] });
    expect(resumed.checkpoint()).toBe(3);
    expect(await next(t, resumed)).toEqual({ snapshotId: 3, rows: ["+I|3|c"] });
    const ignoring = await t.copy({ "consumer-id": "job-1", "consumer.ignore-progress": "true" }).newStreamScan();
    expect((await next(t, ignoring)).rows).toEqual(["+I|1|a", "+I|2|b", "+I|3|c"]);
    // an unchanged progress is written again (as Java: keeps an idle consumer from consumer.expiration-time)
    const file = join(t.location, "consumer", "consumer-job-1");
    utimesSync(file, new Date(2000, 0, 1), new Date(2000, 0, 1));
    await scan.notifyCheckpointComplete(3);
    expect(statSync(file).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    // restore: continue from a checkpoint value
    const restored = await t.newStreamScan();
    restored.restore(2);
    expect(await next(t, restored)).toEqual({ snapshotId: 2, rows: ["+I|2|b"] });
  });

  it("a branch streams its own snapshots and keeps its consumers under branch/branch-<name>/consumer, as Java", async () => {
    const t = await create(false);
    await put(t, [[1, "a"]]);
    await t.createTag("t1", 1);
    await t.createBranch("b", "t1");
    const b = await t.switchToBranch("b");
    await put(b, [[2, "b"]]);
    await put(t, [[3, "main"]]);
    const scan = await b.copy({ "consumer-id": "bc", "scan.snapshot-id": 2 }).newStreamScan();
    await scan.plan();
    expect(await next(b, scan)).toEqual({ snapshotId: 2, rows: ["+I|2|b"] });
    await scan.notifyCheckpointComplete(scan.checkpoint());
    expect(readFileSync(join(t.location, "branch", "branch-b", "consumer", "consumer-bc"), "utf8")).toBe('{\n  "nextSnapshot" : 3\n}');
    expect(existsConsumer(t, "bc")).toBeNull();
    const resumed = await b.copy({ "consumer-id": "bc" }).newStreamScan();
    await resumed.plan();
    expect(resumed.checkpoint()).toBe(3);
  });

  it("consumer.mode at-least-once: each plan saves the progress of the plans before it", async () => {
    const t = await create(false);
    await put(t, [[1, "a"]]);
    const scan = await t.copy({ "consumer-id": "alo", "consumer.mode": "at-least-once" }).newStreamScan();
    await next(t, scan);
    expect(existsConsumer(t, "alo")).toBeNull();
    await put(t, [[2, "b"]]);
    await next(t, scan);
    expect(existsConsumer(t, "alo")).toBe('{\n  "nextSnapshot" : 2\n}');
    await next(t, scan);
    expect(existsConsumer(t, "alo")).toBe('{\n  "nextSnapshot" : 3\n}');
    await expectCode(async () => t.copy({ "consumer.mode": "sometimes" }).newStreamScan(), "INVALID_ARGUMENT");
  });

  it("scan.bounded.watermark: the stream ends at the first snapshot with a larger watermark (endOfScan)", async () => {
    const w = await create(false);
    for (let i = 1; i <= 4; i++) await put(w, [[i, `v${i}`]]);
    // (watermarks as a Flink job's commits record them)
    for (const [id, mark] of [[2, 10n], [3, 20n], [4, 30n]] as const) {
      const file = join(w.location, "snapshot", `snapshot-${id}`);
      writeFileSync(file, snapshotToJson({ ...parseSnapshotJson(readFileSync(file, "utf8")), watermark: mark }));
    }
    const t = await Table.open(w.location);
    const scan = await t.copy({ "scan.snapshot-id": 1, "scan.bounded.watermark": 15 }).newStreamScan();
    await scan.plan();
    expect(await next(t, scan)).toEqual({ snapshotId: 1, rows: ["+I|1|v1"] });
    expect(await next(t, scan)).toEqual({ snapshotId: 2, rows: ["+I|2|v2"] });
    const end = await scan.plan();
    expect(end).toEqual({ snapshotId: null, splits: [], endOfScan: true });
    expect((await scan.plan()).endOfScan).toBe(true);
    // a full start past the bound ends at once
    const full = await t.copy({ "scan.bounded.watermark": 15 }).newStreamScan();
    expect((await full.plan()).splits.length).toBeGreaterThan(0);
    expect((await full.plan()).endOfScan).toBe(true);
    const streamed: number[] = [];
    for await (const b of t.copy({ "scan.snapshot-id": 1, "scan.bounded.watermark": 25 }).streamRead({ pollIntervalMs: 1 })) streamed.push(b.numRows);
    expect(streamed).toEqual([1, 1, 1]);
    await expectCode(async () => t.copy({ "scan.bounded.watermark": "x" }).newStreamScan(), "INVALID_ARGUMENT");
  });

  it("streaming.read.snapshot.delay: a snapshot is planned once it is that old", async () => {
    const t = await create(false);
    await put(t, [[1, "a"]]);
    const delayed = await t.copy({ "streaming.read.snapshot.delay": "1 h" }).newStreamScan();
    const prompt = await t.copy({ "streaming.read.snapshot.delay": "0 ms" }).newStreamScan();
    await next(t, delayed);
    await next(t, prompt);
    await put(t, [[2, "b"]]);
    expect(await next(t, delayed)).toEqual({ snapshotId: null, rows: [] });
    expect(delayed.checkpoint()).toBe(2);
    expect(await next(t, prompt)).toEqual({ snapshotId: 2, rows: ["+I|2|b"] });
  });

  it("expiry keeps the consumer's next snapshot; without a consumer the next snapshot expires and the plan is NOT_FOUND", async () => {
    const t = await create(false);
    for (let i = 1; i <= 3; i++) await put(t, [[i, `v${i}`]]);
    const kept = await t.copy({ "consumer-id": "keeper" }).newStreamScan();
    const lost = await t.newStreamScan();
    await next(t, kept);
    await next(t, lost);
    await kept.notifyCheckpointComplete(2); // as if only snapshot 1 was processed
    kept.restore(2);
    lost.restore(2);
    for (let i = 4; i <= 6; i++) await put(t, [[i, `v${i}`]]);
    await t.newCommit({ commitUser: "u" }).expireSnapshots({ retainMin: 1, retainMax: 1, olderThanMs: 0 });
    expect((await t.snapshot(2)).id).toBe(2); // the consumer holds it
    expect(await next(t, kept)).toEqual({ snapshotId: 2, rows: ["+I|2|v2"] });
    await kept.notifyCheckpointComplete(kept.checkpoint());
    await t.newCommit({ commitUser: "u" }).expireSnapshots({ retainMin: 1, retainMax: 1, olderThanMs: 0 });
    await expectCode(t.snapshot(2), "NOT_FOUND");
    lost.restore(2);
    const e = await expectCode(lost.plan(), "NOT_FOUND");
    expect(e.message).toContain("The snapshot with id 2 has expired.");
    // an expired start snapshot: the scan starts at the earliest (Java: max(start, earliest))
    const from = await t.copy({ "scan.snapshot-id": 1 }).newStreamScan();
    await next(t, from);
    expect(from.checkpoint()).toBe(3);
    expect(await next(t, from)).toEqual({ snapshotId: 3, rows: ["+I|3|v3"] });
  });

  it("consumer ids that are no plain file name are INVALID_ARGUMENT, nothing written", async () => {
    const t = await create(false);
    await put(t, [[1, "a"]]);
    for (const id of ["", "../x", "a/b", "a\\b", "x".repeat(300)]) {
      await expectCode(async () => t.copy({ "consumer-id": id }).newStreamScan(), "INVALID_ARGUMENT");
    }
    expect((await (t as unknown as { fileIO: { listStatus(p: string): Promise<unknown[]> } }).fileIO.listStatus(join(t.location, "consumer"))).length).toBe(0);
    const scan = await t.newStreamScan();
    await expectCode(async () => scan.restore(0), "INVALID_ARGUMENT");
    await expectCode(scan.notifyCheckpointComplete(-1), "INVALID_ARGUMENT");
  });
});

describe("streamRead", () => {
  it("yields each plan's batches with row kinds, polls for new snapshots, saves the consumer, and stops on abort", async () => {
    const t = await create(true);
    await put(t, [[1, "a"]]);
    const controller = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const b of t.copy({ "consumer-id": "reader" }).streamRead({ pollIntervalMs: 5, signal: controller.signal })) {
        for (const r of b.toArray() as unknown as Array<{ _VALUE_KIND: number; id: bigint; v: string }>) seen.push(`${KINDS[r._VALUE_KIND]}|${r.id}|${r.v}`);
      }
    })();
    await waitFor(() => seen.length === 1);
    await put(t, [[1, "b", RowKind.UPDATE_AFTER], [2, "c"]]);
    await waitFor(() => seen.length === 3);
    await waitFor(() => existsConsumer(t, "reader") === '{\n  "nextSnapshot" : 3\n}');
    controller.abort();
    await done;
    expect(seen.slice(0, 1)).toEqual(["+I|1|a"]);
    expect(seen.slice(1).sort()).toEqual(["+I|2|c", "+U|1|b"]);
  });

  it("append tables read with withRowKind: +I rows (incremental reads too)", async () => {
    const t = await create(false);
    await put(t, [[1, "a"]]);
    await put(t, [[2, "b"]]);
    const c = t.copy({ "incremental-between": "1,2" });
    const rows = (await c.newRead({ withRowKind: true }).toArrow((await c.newScan().plan()).splits)).toArray().map((r) => ({ ...r }));
    expect(rows).toEqual([{ _VALUE_KIND: 0, id: 2n, v: "b" }]);
    // (a real-time read of an append table has no row kinds for its memory rows: still refused)
    const rt = await makeTable({}, {});
    const ctx = await RealtimeContext.create();
    expect((await expectCode(async () => rt.newRead({ realtime: ctx, withRowKind: true }), "UNSUPPORTED")).message).toContain("primary-key tables only");
    const projected = (await t.newRead({ withRowKind: true, projection: ["v"] }).toArrow((await t.newScan().plan()).splits)).toArray().map((r) => ({ ...r }));
    expect(projected.sort((x, y) => (x.v < y.v ? -1 : 1))).toEqual([
      { _VALUE_KIND: 0, v: "a" },
      { _VALUE_KIND: 0, v: "b" },
    ]);
  });
});

describe("paimon-rt read --follow", () => {
  it("prints the rows with their kinds, then each new snapshot's changes; --limit ends it; --snapshot is refused", async () => {
    const t = await create(true);
    await put(t, [[1, "a"]]);
    const out: string[] = [];
    const done = main(["read", t.location, "--follow", "--format", "json", "--limit", "3", "--option", "consumer-id=cli"], { out: (l) => out.push(l), err: (l) => out.push(l) });
    await waitFor(() => out.length === 1);
    await put(t, [[2, "b"], [1, "a", RowKind.DELETE]]);
    expect(await done).toBe(0);
    expect(out[0]).toBe('{"_kind":"+I","id":1,"v":"a"}');
    expect(out[1].split("\n").sort()).toEqual(['{"_kind":"+I","id":2,"v":"b"}', '{"_kind":"-D","id":1,"v":"a"}']);
    expect(existsConsumer(t, "cli")).toBe('{\n  "nextSnapshot" : 2\n}');
    const e = await expectCode(main(["read", t.location, "--follow", "--snapshot", "1"], { out: () => undefined, err: () => undefined }), "INVALID_ARGUMENT");
    expect(e.message).toContain("--follow streams the table itself");
  });

  it("deletion-vector tables: the first plan reads level 0 too (as Java's stream scan; batch scans skip it)", async () => {
    const t = await create(true, { "deletion-vectors.enabled": "true", "write-only": "true" });
    await put(t, [[1, "a"], [2, "b"]]);
    await put(t, [[1, "a2"]]);
    expect((await t.newRead().toArrow((await t.newScan().plan()).splits)).numRows).toBe(0); // (batch: level 0 skipped)
    const scan = await t.newStreamScan();
    expect(await next(t, scan)).toEqual({ snapshotId: 2, rows: ["+I|1|a2", "+I|2|b"] });
  });
});

function existsConsumer(t: Table, id: string): string | null {
  try {
    return readFileSync(join(t.location, "consumer", `consumer-${id}`), "utf8");
  } catch {
    return null;
  }
}

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}
