import { type Dirent, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { parseAge } from "../../src/commit/orphan-files.js";
import { parseRemoveOrphansArgs, removeOrphansCommand } from "../../src/cli/remove-orphans.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { RealtimeContext } from "../../src/index.js";
import { makeTable, range, rtBatch } from "../realtime/helpers.js";
import { createPkTable, readRows as pkReadRows, type Row, writeCommit as pkWriteCommit } from "../pk/helpers.js";
import { freshWarehouse, listFilesUnder, warehousesOnS3 } from "../support/warehouses.js";

// Tests of local-only behaviour (symbolic links, file ages set with utimes) skip when
// test/fs/s3-suites-append.test.ts re-runs this file on s3://.
const localOnly = it.skipIf(warehousesOnS3());

const pkRow = (id: number, v: string): Row => ({ dt: id % 2 === 0 ? "a" : "b", id: BigInt(id), name: "k", v, n: id });
const pkRows = (n: number, tag: string): Row[] => Array.from({ length: n }, (_, i) => pkRow(i, `${tag}${i}`));

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "paimon-rt-orphans-"));
  dirs.push(d);
  return d;
}

const DAY = 24 * 60 * 60 * 1000;

function batch(ids: number[], dts: string[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
    name: arrow.vectorFromArray(ids.map((i) => `n${i}`), new arrow.Utf8()).data[0],
    dt: arrow.vectorFromArray(dts, new arrow.Utf8()).data[0],
  });
}

/** Every file (not symlink) under `dir`, relative to it, sorted. */
function listFiles(dir: string): string[] {
  // A walk that never enters symbolic links (Bun's recursive readdir follows linked directories).
  const out: string[] = [];
  const walk = (sub: string) => {
    for (const d of readdirSync(join(dir, sub), { withFileTypes: true }) as Dirent[]) {
      const rel = sub === "" ? d.name : join(sub, d.name);
      if (d.isDirectory()) walk(rel);
      else if (d.isFile()) out.push(rel);
    }
  };
  walk("");
  return out.sort();
}

/** Makes every file under `dir` look `ageMs` old. */
function age(dir: string, ageMs: number): void {
  const when = new Date(Date.now() - ageMs);
  for (const f of listFiles(dir)) utimesSync(join(dir, f), when, when);
}

async function rows(table: Table, snapshotId?: number): Promise<string[]> {
  const plan = await table.newScan(snapshotId === undefined ? {} : { snapshotId }).plan();
  const t = await table.newRead().toArrow(plan.splits);
  return t
    .toArray()
    .map((r) => `${r.id}|${r.dt}`)
    .sort();
}

async function writeCommit(table: Table, ids: number[], dts: string[]): Promise<void> {
  const w = await table.newWrite({ commitUser: "u" });
  await w.write(batch(ids, dts));
  await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
  await w.close();
}

describe("removeOrphanFiles (Java remove_orphan_files)", () => {
  localOnly("deletes the files of a killed writer and interrupted writes, keeps everything any snapshot references", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", {
      fields: [
        { name: "id", type: "BIGINT" },
        { name: "name", type: "STRING" },
        { name: "dt", type: "STRING" },
      ],
      partitionKeys: ["dt"],
      options: { "file-index.bloom-filter.columns": "name", "file-index.bloom-filter.name.items": 10, "file-index.in-manifest-threshold": "1 b" },
    });
    await writeCommit(table, [1, 2], ["x", "y"]);
    await writeCommit(table, [3], ["x"]);
    // Snapshot 3 replaces partition x: its old files are still referenced by snapshots 1 and 2.
    const ow = await table.newWrite({ commitUser: "o" });
    await ow.write(batch([10], ["x"]));
    await table.newCommit({ commitUser: "o" }).overwrite(await ow.prepareCommit(), { dt: "x" });
    const snapshotRows = [await rows(table, 1), await rows(table, 2), await rows(table)];
    const referenced = listFiles(table.location);

    // A writer killed before its commit leaves data files (and their file indexes) behind.
    const killed = await table.newWrite({ commitUser: "k" });
    await killed.write(batch([100, 101], ["x", "z"]));
    const lost = await killed.prepareCommit();
    const paths = table.paths;
    const killedFiles = lost.flatMap((m) => m.data.dataIncrement.newFiles.flatMap((f) => paths.dataFilesOf(m.data.partition, m.data.bucket, f).map((p) => relative(table.location, p))));
    expect(killedFiles.map((f) => f.split("/")[0] + "/" + f.split(".").pop()).sort()).toEqual(["dt=x/index", "dt=x/parquet", "dt=z/index", "dt=z/parquet"]);
    // Leftovers of a commit that died after writing manifests, and of interrupted atomic writes.
    const leftovers = ["manifest/manifest-dead-0", "manifest/manifest-list-dead-1", "index/index-dead-0", "snapshot/.snapshot-4.0b1c.tmp", "schema/.schema-1.77aa.tmp", "dt=y/bucket-0/.data-dead.parquet.5e5e.tmp"];
    for (const f of leftovers) {
      mkdirSync(dirname(join(table.location, f)), { recursive: true });
      writeFileSync(join(table.location, f), "x".repeat(10));
    }
    // A symbolic link in a bucket directory pointing outside the table, and a sibling directory.
    const outside = join(tempDir(), "victim.parquet");
    writeFileSync(outside, "keep me");
    symlinkSync(outside, join(table.location, "dt=y", "bucket-0", "link.parquet"));
    const outsideDir = tempDir();
    mkdirSync(join(outsideDir, "bucket-0"));
    writeFileSync(join(outsideDir, "bucket-0", "data-victim.parquet"), "keep me");
    age(outsideDir, 2 * DAY);
    symlinkSync(outsideDir, join(table.location, "dt=w"));
    // A table directory that is a link (here statistics/) is not listed either.
    const outsideStats = tempDir();
    writeFileSync(join(outsideStats, "stats-victim"), "keep me");
    age(outsideStats, 2 * DAY);
    symlinkSync(outsideStats, join(table.location, "statistics"));
    writeFileSync(join(table.location, "..", "neighbour.parquet"), "keep me");
    age(table.location, 2 * DAY);
    // A file of a commit that is still in progress: recent, so kept by the age guard.
    writeFileSync(join(table.location, "manifest", "manifest-in-progress-0"), "y");

    const orphans = [...killedFiles, ...leftovers].sort();
    const dry = await table.removeOrphanFiles({ dryRun: true });
    expect(dry.deleted).toEqual(orphans);
    expect(dry.bytes).toBe(orphans.reduce((n, f) => n + readFileSync(join(table.location, f)).length, 0));
    for (const f of orphans) expect(existsSync(join(table.location, f))).toBe(true);

    const result = await table.removeOrphanFiles();
    expect(result).toEqual(dry);
    expect(listFiles(table.location)).toEqual([...referenced, "manifest/manifest-in-progress-0"].sort());
    expect(readFileSync(outside, "utf8")).toBe("keep me");
    expect(lstatSync(join(table.location, "dt=y", "bucket-0", "link.parquet")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(outsideDir, "bucket-0", "data-victim.parquet"), "utf8")).toBe("keep me");
    expect(readFileSync(join(outsideStats, "stats-victim"), "utf8")).toBe("keep me");
    expect(readFileSync(join(table.location, "..", "neighbour.parquet"), "utf8")).toBe("keep me");
    expect([await rows(table, 1), await rows(table, 2), await rows(table)]).toEqual(snapshotRows);
    expect(snapshotRows[2]).toEqual(["10|x", "2|y"]);

    // Nothing left to delete; without the age guard the in-progress file goes too.
    expect(await table.removeOrphanFiles()).toEqual({ deleted: [], bytes: 0 });
    expect(await table.removeOrphanFiles({ olderThanMs: 0 })).toEqual({ deleted: ["manifest/manifest-in-progress-0"], bytes: 1 });
    expect(listFiles(table.location)).toEqual(referenced);
    // Commits still work on the cleaned table.
    await writeCommit(table, [4], ["y"]);
    expect(await rows(table)).toEqual(["10|x", "2|y", "4|y"]);
  });

  it("primary-key table with deletion vectors: a compaction that lost its commit leaves files that abort or removeOrphanFiles delete", async () => {
    for (const cleanup of ["abort", "removeOrphanFiles"] as const) {
      const table = await createPkTable({ bucket: 1, "deletion-vectors.enabled": "true" }, { warehouse: freshWarehouse(tempDir, "orphans-pk") });
      const listFiles = (dir: string) => listFilesUnder(table.fileIO, dir);
      await pkWriteCommit(table, "base", [{ rows: pkRows(20, "s") }]);
      await pkWriteCommit(table, "base", [{ rows: [pkRow(2, "u2"), pkRow(5, "u5")] }]);
      await pkWriteCommit(table, "base", [{ rows: [pkRow(3, "u3")] }], { compact: "minor" });
      const compaction = async (user: string) => {
        const w = await table.newWrite({ commitUser: user });
        await w.compact({ full: true });
        const messages = await w.prepareCommit();
        await w.close();
        return messages;
      };
      const beforeCompaction = await listFiles(table.location);
      const c1 = await compaction("c1");
      const c2 = await compaction("c2");
      await table.newCommit({ commitUser: "c1" }).commit(c1);
      const expected = await pkReadRows(table);
      expect((await table.newCommit({ commitUser: "c2" }).commit(c2).catch((e) => e)).code).toBe("COMMIT_CONFLICT");
      // The loser's manifests are gone; its compaction output (data and index files) is the caller's.
      const paths = table.paths;
      const outputOf = (messages: typeof c2) =>
        messages
          .flatMap((m) => [
            ...m.data.compactIncrement.compactAfter.flatMap((f) => paths.dataFilesOf(m.data.partition, m.data.bucket, f)),
            ...m.data.compactIncrement.newIndexFiles.map((f) => table.paths.index(f.fileName)),
          ])
          .map((p) => relative(table.location, p));
      const c1Output = outputOf(c1);
      // Files a compaction only moves to a higher level stay shared with the table.
      const c2Only = outputOf(c2)
        .filter((f) => !beforeCompaction.includes(f) && !c1Output.includes(f))
        .sort();
      expect(c2Only.length).toBeGreaterThan(0);
      const committed = (await listFiles(table.location)).filter((f) => !c2Only.includes(f));
      expect(committed.length).toBe((await listFiles(table.location)).length - c2Only.length);
      if (cleanup === "abort") await table.newCommit({ commitUser: "c2" }).abort(c2);
      else expect((await table.removeOrphanFiles({ olderThanMs: 0 })).deleted).toEqual(c2Only);
      expect(await listFiles(table.location)).toEqual(committed);
      expect(await pkReadRows(table)).toEqual(expected);
    }
  });

  localOnly("keeps the offsets file of the committed real-time progress, deletes unreferenced ones", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    const w = await table.newWrite({ commitUser: "u", realtime: ctx });
    const commit = table.newCommit({ commitUser: "u" });
    await w.write(rtBatch(range(0, 4)), { bucket: 0 });
    await commit.commitWithProgress(await w.prepareCommitWithProgress(1), 1);
    await w.write(rtBatch(range(4, 8)), { bucket: 0 });
    await commit.commitWithProgress(await w.prepareCommitWithProgress(2), 2);
    const metadata = join(table.location, "metadata");
    const committed = readdirSync(metadata).sort();
    expect(committed.length).toBe(2);
    writeFileSync(join(metadata, "dead-writer.offsets"), "{}");
    age(table.location, 2 * DAY);
    expect((await table.removeOrphanFiles()).deleted).toEqual(["metadata/dead-writer.offsets"]);
    expect(readdirSync(metadata).sort()).toEqual(committed);
    const restarted = await RealtimeContext.create();
    const r = await table.newWrite({ commitUser: "u", realtime: restarted });
    await r.write(rtBatch(range(8, 9)), { bucket: 0 });
    await expect(commit.commitWithProgress(await r.prepareCommitWithProgress(3), 3)).resolves.toBe(3);
  });

  it("rejects a bad age", async () => {
    const table = await makeTable();
    for (const bad of [-1, Number.NaN, Infinity]) {
      const err = await table.removeOrphanFiles({ olderThanMs: bad }).catch((e) => e);
      expect([err instanceof PaimonError, err.code]).toEqual([true, "INVALID_ARGUMENT"]);
    }
    expect(parseAge("1d")).toBe(DAY);
    expect(parseAge("2h")).toBe(2 * 60 * 60 * 1000);
    expect(parseAge("30m")).toBe(30 * 60 * 1000);
    expect(parseAge("0")).toBe(0);
    for (const bad of ["", "5", "1w", "-1d", "1 day"]) expect(() => parseAge(bad)).toThrow(PaimonError);
  });

  localOnly("paimon-rt remove-orphans prints what it deletes and a summary", async () => {
    const warehouse = tempDir();
    const catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }] });
    await writeCommit(table, [1], ["x"]);
    writeFileSync(join(table.location, "manifest", "manifest-dead-0"), "abc");
    age(table.location, 3 * 60 * 60 * 1000);
    const lines: string[] = [];
    expect(parseRemoveOrphansArgs(["t", "--dry-run", "--older-than", "2h"])).toEqual({ location: "t", olderThan: "2h", dryRun: true });
    expect(parseRemoveOrphansArgs(["t"])).toEqual({ location: "t", dryRun: false });
    for (const bad of [[], ["--dry-run"], ["t", "--older-than"], ["t", "--older-than", "2 weeks"], ["t", "--force"], ["t", "u"]]) {
      expect(() => parseRemoveOrphansArgs(bad)).toThrow(PaimonError);
    }
    await removeOrphansCommand(parseRemoveOrphansArgs([table.location, "--older-than", "4h"]), (l) => lines.push(l));
    expect(lines).toEqual([`deleted 0 orphan files (0 bytes) of ${table.location}`]);
    lines.length = 0;
    await removeOrphansCommand({ location: table.location, olderThan: "2h", dryRun: true }, (l) => lines.push(l));
    expect(lines).toEqual(["would delete manifest/manifest-dead-0", `would delete 1 orphan file (3 bytes) of ${table.location} (dry run: nothing deleted)`]);
    expect(existsSync(join(table.location, "manifest", "manifest-dead-0"))).toBe(true);
    lines.length = 0;
    await removeOrphansCommand({ location: table.location, olderThan: "2h", dryRun: false }, (l) => lines.push(l));
    expect(lines).toEqual(["deleted manifest/manifest-dead-0", `deleted 1 orphan file (3 bytes) of ${table.location}`]);
    expect(existsSync(join(table.location, "manifest", "manifest-dead-0"))).toBe(false);
    expect(await rows(table)).toEqual(["1|x"]);
  });
});
