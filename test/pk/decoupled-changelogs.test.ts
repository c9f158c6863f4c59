// Decoupled changelogs (Java 1.4.2 ExpireSnapshotsImpl with changelog.num-retained.* /
// changelog.time-retained above the snapshot retention, ExpireChangelogImpl): expired snapshots
// become changelog/changelog-<id> files, keeping exactly the files reading their changes needs,
// until the changelogs expire in turn.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FileStoreTable } from "../../src/table/file-store-table.js";
import type { Table } from "../../src/table/table.js";
import { listChangelogIds, tryGetChangelog } from "../../src/table/changelogs.js";
import { createPkTable, readRows, type Row, writeCommit } from "./helpers.js";
import { runs } from "../support/fc-runs.js";

const r = (id: number, v: string): Row => ({ dt: "p1", id: BigInt(id), name: "a", v, n: 1 });
const ft = (t: Table) => t as unknown as FileStoreTable;

/** Every file under the table's bucket directories (data and changelog files), by name. */
async function bucketFiles(table: Table): Promise<string[]> {
  const io = ft(table).fileIO;
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const s of await io.listStatus(dir)) {
      if (s.isDir) await walk(s.path);
      else out.push(s.name);
    }
  };
  for (const s of await io.listStatus(table.location)) if (s.isDir && s.name.startsWith("dt=")) await walk(s.path);
  return out.sort();
}

async function manifestFiles(table: Table): Promise<string[]> {
  return (await ft(table).fileIO.listStatus(`${table.location}/manifest`)).map((s) => s.name).sort();
}

const snapshotIds = async (t: Table) => (await t.listSnapshots()).map((s) => s.id);
const changelogIds = (t: Table) => listChangelogIds(ft(t).snapshotManager);

describe("decoupled changelogs", () => {
  it("changelog-producer input: expired snapshots become changelogs keeping their changelog files, which go when the changelog expires", async () => {
    const table = await createPkTable({ bucket: 1, "changelog-producer": "input", "num-sorted-run.compaction-trigger": 10, "snapshot.num-retained.max": 2, "snapshot.num-retained.min": 1, "changelog.num-retained.max": 4 });
    const changelogOf = new Map<number, string[]>();
    const manifestsOf = new Map<number, string[]>();
    for (let i = 1; i <= 6; i++) {
      const id = (await writeCommit(table, "u", [{ rows: [r(1, `v${i}`)] }]))!;
      expect(id).toBe(i);
      const s = await table.snapshot(id);
      changelogOf.set(id, (await ft(table).manifestStore.changelogEntries(s)).map((e) => e.file.fileName));
      manifestsOf.set(id, [s.changelogManifestList!, ...(await ft(table).manifestStore.readManifestList(s.changelogManifestList!)).map((m) => m.fileName)]);
      if (id === 4) {
        // snapshots 1, 2 expired (num-retained.max 2): changelogs, the snapshot JSON as it was
        expect(await snapshotIds(table)).toEqual([3, 4]);
        expect(await changelogIds(table)).toEqual([1, 2]);
      }
    }
    // commit 6: snapshots 1..4 expired; changelogs 1, 2 past changelog.num-retained.max 4 expired
    expect(await snapshotIds(table)).toEqual([5, 6]);
    expect(await changelogIds(table)).toEqual([3, 4]);
    const c3 = (await tryGetChangelog(ft(table).snapshotManager, 3))!;
    expect(c3.id).toBe(3);
    expect(c3.changelogManifestList).toBe(manifestsOf.get(3)![0]);
    const files = await bucketFiles(table);
    for (const id of [3, 4, 5, 6]) for (const f of changelogOf.get(id)!) expect(files).toContain(f);
    for (const id of [1, 2]) for (const f of changelogOf.get(id)!) expect(files).not.toContain(f);
    const manifests = await manifestFiles(table);
    for (const id of [3, 4, 5, 6]) for (const f of manifestsOf.get(id)!) expect(manifests).toContain(f);
    for (const id of [1, 2]) for (const f of manifestsOf.get(id)!) expect(manifests).not.toContain(f);
    const hint = async (name: string) => (await ft(table).fileIO.readFile(`${table.location}/changelog/${name}`).then((b) => new TextDecoder().decode(b)));
    expect(await hint("EARLIEST")).toBe("3");
    expect(await hint("LATEST")).toBe("4");
    // orphan cleanup keeps what the changelogs use
    expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted).toEqual([]);
  });

  it("changelog-producer none: compacted-away APPEND files stay for the changelog until it expires, compaction outputs go with the snapshot", async () => {
    const options = { bucket: 1, "snapshot.num-retained.max": 1, "snapshot.num-retained.min": 1, "changelog.num-retained.max": 10, "changelog.time-retained": "1 d", "write-only": true };
    const table = await createPkTable(options);
    const ms = ft(table).manifestStore;
    const added = async (id: number) => (await ms.readManifestList((await table.snapshot(id)).deltaManifestList).then((l) => Promise.all(l.map((m) => ms.readManifest(m.fileName))))).flat().filter((e) => e.kind === 0).map((e) => e.file.fileName);
    // 1 APPEND A1; 2 APPEND A2, 3 COMPACT A1+A2 -> C3; 4 APPEND A4, 5 COMPACT C3+A4 -> C5
    expect(await writeCommit(table, "u", [{ rows: [r(1, "a")] }])).toBe(1);
    expect(await writeCommit(table, "u", [{ rows: [r(2, "b")] }], { compact: true })).toBe(3);
    expect(await writeCommit(table, "u", [{ rows: [r(3, "c")] }], { compact: true })).toBe(5);
    const [a1, a2, c3, a4, c5] = [...(await added(1)), ...(await added(2)), ...(await added(3)), ...(await added(4)), ...(await added(5))];
    const lists4 = [(await table.snapshot(4)).baseManifestList, (await table.snapshot(4)).deltaManifestList];
    const lists2 = [(await table.snapshot(2)).baseManifestList, (await table.snapshot(2)).deltaManifestList];
    expect(await bucketFiles(table)).toEqual([a1, a2, c3, a4, c5].sort());
    expect(await table.newCommit({ commitUser: "u" }).expireSnapshots({ olderThanMs: 0 })).toBe(4);
    expect(await snapshotIds(table)).toEqual([5]);
    expect(await changelogIds(table)).toEqual([1, 2, 3, 4]);
    // the APPEND files the compactions deleted stay (the changelogs' deltas); C3 (COMPACT) went
    expect(await bucketFiles(table)).toEqual([a1, a2, a4, c5].sort());
    // and the changelogs' base and delta manifest lists
    for (const l of [...lists2, ...lists4]) expect(await manifestFiles(table)).toContain(l);
    expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted).toEqual([]);
    // changelog retention down to 2 (still above the snapshots'): changelogs 1..3 expire, 4 (the
    // latest changelog, which Java always keeps) stays; changelog 3's delta deleted A1 and A2
    await new Promise((resolve) => setTimeout(resolve, 5));
    const shorter = table.copy({ "changelog.num-retained.max": 2, "changelog.time-retained": "1 ms" });
    expect(await shorter.newCommit({ commitUser: "u" }).expireSnapshots({ olderThanMs: 0 })).toBe(0);
    expect(await changelogIds(table)).toEqual([4]);
    expect(await bucketFiles(table)).toEqual([a4, c5].sort());
    for (const l of lists2) expect(await manifestFiles(table)).not.toContain(l);
    for (const l of lists4) expect(await manifestFiles(table)).toContain(l);
    expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted).toEqual([]);
  });

  it("stream reads continue through the long-lived changelogs of expired snapshots (Java NextSnapshotFetcher), from the earliest changelog", async () => {
    const table = await createPkTable({ bucket: 1, "changelog-producer": "input", "num-sorted-run.compaction-trigger": 10, "snapshot.num-retained.max": 2, "snapshot.num-retained.min": 1, "changelog.num-retained.max": 4 });
    for (let i = 1; i <= 6; i++) await writeCommit(table, "u", [{ rows: [r(1, `v${i}`)] }]);
    expect(await snapshotIds(table)).toEqual([5, 6]);
    expect(await changelogIds(table)).toEqual([3, 4]);
    const stream = async (t: Table, restore?: number) => {
      const scan = await t.newStreamScan();
      if (restore !== undefined) scan.restore(restore);
      const read = t.newRead({ withRowKind: true });
      const out: Array<[number | null, string[]]> = [];
      for (let i = 0; i < 6; i++) {
        const p = await scan.plan();
        const rows = (await read.toArrow(p.splits)).toArray().map((x) => `${["+I", "-U", "+U", "-D"][x._VALUE_KIND as number]}${x.v}`);
        out.push([p.snapshotId, rows]);
      }
      return out;
    };
    // from snapshot 1: starts at the earliest changelog, 3
    const expected: Array<[number | null, string[]]> = [[null, []], [3, ["+Iv3"]], [4, ["+Iv4"]], [5, ["+Iv5"]], [6, ["+Iv6"]], [null, []]];
    expect(await stream(table.copy({ "scan.mode": "from-snapshot", "scan.snapshot-id": 1 }))).toEqual(expected);
    // from-timestamp searches the changelogs too: the time of changelog 4 starts at 4
    const c4 = (await tryGetChangelog(ft(table).snapshotManager, 4))!;
    expect((await stream(table.copy({ "scan.mode": "from-timestamp", "scan.timestamp-millis": c4.timeMillis })))[1]).toEqual([4, ["+Iv4"]]);
    expect((await stream(table.copy({ "scan.mode": "from-timestamp", "scan.timestamp-millis": 1 })))[1]).toEqual([3, ["+Iv3"]]);
    expect(await stream(table, 3)).toEqual([[3, ["+Iv3"]], [4, ["+Iv4"]], [5, ["+Iv5"]], [6, ["+Iv6"]], [null, []], [null, []]]);
    // a consumer's progress held in a changelog continues there
    await ft(table).fileIO.writeFile(`${table.location}/consumer/consumer-job`, JSON.stringify({ nextSnapshot: 4 }));
    expect((await stream(table.copy({ "consumer-id": "job" }))).slice(0, 2)).toEqual([[null, []], [4, ["+Iv4"]]]);
    // incremental batch reads, as Java's IncrementalDeltaStartingScanner, need the range within the snapshots
    await expect(table.copy({ "incremental-between": "3,6" }).newScan().plan()).rejects.toMatchObject({ code: "NOT_FOUND" });
    // not decoupled (changelog retention no longer above the snapshots'): the snapshot has expired
    const coupled = table.copy({ "changelog.num-retained.max": 2 });
    await expect(stream(coupled, 3)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("rollback to a tag of an expired snapshot deletes the changelogs after it and the files only they kept (Java RollbackHelper)", async () => {
    const table = await createPkTable({ bucket: 1, "changelog-producer": "input", "num-sorted-run.compaction-trigger": 10, "snapshot.num-retained.max": 2, "snapshot.num-retained.min": 1, "changelog.num-retained.max": 10 });
    const changelogOf = new Map<number, string[]>();
    for (let i = 1; i <= 6; i++) {
      const id = (await writeCommit(table, "u", [{ rows: [r(i, `v${i}`)] }]))!;
      changelogOf.set(id, (await ft(table).manifestStore.changelogEntries(await table.snapshot(id))).map((e) => e.file.fileName));
      if (id === 2) await table.createTag("t2", 2);
    }
    expect(await snapshotIds(table)).toEqual([5, 6]);
    expect(await changelogIds(table)).toEqual([1, 2, 3, 4]);
    await table.rollbackToTag("t2");
    expect(await snapshotIds(table)).toEqual([2]);
    // changelog 2 stays beside the restored snapshot 2, as in Java
    expect(await changelogIds(table)).toEqual([1, 2]);
    const files = await bucketFiles(table);
    for (const id of [1, 2]) for (const f of changelogOf.get(id)!) expect(files).toContain(f);
    for (const id of [3, 4, 5, 6]) for (const f of changelogOf.get(id)!) expect(files).not.toContain(f);
    expect(new TextDecoder().decode(await ft(table).fileIO.readFile(`${table.location}/changelog/LATEST`))).toBe("2");
    expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted).toEqual([]);
    expect((await readRows(table)).map((x) => x.v)).toEqual(["v1", "v2"]);
  });

  it("model: random commits, compactions and expiries keep contiguous snapshots and changelogs, and a stream from snapshot 1 reads every retained commit's rows, no file missing or orphaned", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("input", "none"),
        fc.array(fc.oneof(fc.record({ kind: fc.constant("commit" as const), n: fc.integer({ min: 1, max: 3 }), compact: fc.boolean() }), fc.record({ kind: fc.constant("expire" as const), snapMax: fc.integer({ min: 1, max: 3 }), extra: fc.integer({ min: 1, max: 4 }) })), { minLength: 1, maxLength: 10 }),
        async (producer, ops) => {
          const table = await createPkTable({ bucket: 1, "changelog-producer": producer, "num-sorted-run.compaction-trigger": 50, "snapshot.num-retained.max": 3, "snapshot.num-retained.min": 1, "changelog.num-retained.max": 5 });
          // model: the rows each APPEND snapshot added (distinct keys, inserts only), the live rows
          const appended = new Map<number, string[]>();
          const live: string[] = [];
          let key = 0;
          for (const op of ops) {
            if (op.kind === "commit") {
              const rows = Array.from({ length: op.n }, () => r(++key, `k${key}`));
              await writeCommit(table, "u", [{ rows }], { compact: op.compact });
              const latest = (await table.latestSnapshot())!;
              appended.set(latest.commitKind === "COMPACT" ? latest.id - 1 : latest.id, rows.map((x) => `+I${x.v}`));
              live.push(...rows.map((x) => x.v!));
            } else {
              if ((await table.latestSnapshot()) === null) continue;
              const latest = (await table.latestSnapshot())!.id;
              const before = await changelogIds(table);
              const snapBefore = await snapshotIds(table);
              await table.copy({ "snapshot.num-retained.max": op.snapMax, "changelog.num-retained.max": op.snapMax + op.extra }).newCommit({ commitUser: "u" }).expireSnapshots();
              const snaps = await snapshotIds(table);
              expect(snaps).toEqual(snapBefore.filter((id) => id > latest - op.snapMax));
              // Java ExpireChangelogImpl: from latest - retainMax + 1 on, never the latest changelog
              const all = [...before, ...snapBefore.filter((id) => id < snaps[0]!)];
              const from = all.length === 0 ? null : Math.min(Math.max(latest - op.snapMax - op.extra + 1, all[0]!), all[all.length - 1]!);
              expect(await changelogIds(table)).toEqual(all.filter((id) => from !== null && id >= from));
            }
            const snaps = await snapshotIds(table);
            const changelogs = await changelogIds(table);
            expect(snaps).toEqual(Array.from({ length: snaps.length }, (_, i) => snaps[0]! + i));
            if (changelogs.length > 0) expect(changelogs).toEqual(Array.from({ length: snaps[0]! - changelogs[0]! }, (_, i) => changelogs[0]! + i));
            // a stream from snapshot 1 starts at the earliest changelog and reads every APPEND commit since
            const scan = await table.copy({ "scan.snapshot-id": 1 }).newStreamScan();
            const read = table.newRead({ withRowKind: true });
            const got: Array<[number, string[]]> = [];
            for (let i = 0; i < 40; i++) {
              const p = await scan.plan();
              if (p.snapshotId === null && i > 0) break;
              if (p.snapshotId !== null) got.push([p.snapshotId, (await read.toArrow(p.splits)).toArray().map((x) => `${["+I", "-U", "+U", "-D"][x._VALUE_KIND as number]}${x.v}`).sort()]);
            }
            const start = changelogs[0] ?? snaps[0]!;
            expect(got).toEqual([...appended].filter(([id]) => id >= start).map(([id, rows]) => [id, [...rows].sort()]));
            expect((await readRows(table)).map((x) => x.v).sort()).toEqual([...live].sort());
            expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted).toEqual([]);
          }
        },
      ),
      { numRuns: runs(25) },
    );
  }, 300_000);
});
