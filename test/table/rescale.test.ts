// Table.rescale (Java's rescale procedure, src/commit/rescale.ts) and the strict commit mode it
// commits in (`commit.strict-mode.last-safe-snapshot`, Java's StrictModeChecker).
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { FileIO } from "../../src/fs/file-io.js";
import type { ManifestEntry } from "../../src/spec/manifest.js";
import type { Table } from "../../src/table/table.js";
import { RowKind } from "../../src/write/table-write.js";
import { createPkTable, readRows, type Row, writeCommit } from "../pk/helpers.js";
import { freshWarehouse } from "../support/warehouses.js";

const row = (dt: string, id: number, v: string): Row => ({ dt, id: BigInt(id), name: "a", v, n: null });
const rows = (dt: string, ids: number[], tag: string) => ids.map((i) => row(dt, i, `${tag}${i}`));
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

async function liveEntries(table: Table): Promise<ManifestEntry[]> {
  const latest = await table.latestSnapshot();
  return latest ? table.manifestStore.liveEntries(latest) : [];
}

async function compactCommit(table: Table): Promise<void> {
  const write = await table.newWrite({ commitUser: "compactor" });
  try {
    await write.compact({});
    await table.newCommit({ commitUser: "compactor" }).commit(await write.prepareCommit());
  } finally {
    await write.close();
  }
}

/** Every file path and snapshot file under the table, to compare "nothing changed". */
async function tree(table: Table): Promise<string[]> {
  const io: FileIO = table.fileIO;
  const walk = async (dir: string): Promise<string[]> => {
    const out: string[] = [];
    for (const s of await io.listStatus(dir).catch(() => [])) out.push(...(s.isDir ? await walk(s.path) : [s.path]));
    return out;
  };
  return (await walk(table.location)).sort();
}

describe("Table.rescale", () => {
  it("fixed-bucket table: after alterTable bucket 2 → 4, rescale of one partition rewrites it into 4 buckets in one OVERWRITE; the other keeps 2", async () => {
    const first = await createPkTable({ bucket: 2 });
    const catalog = await Catalog.open(first.location.replace(/\/db\.db\/[^/]+$/, ""));
    await writeCommit(first, "w", [{ rows: [...rows("p1", range(40), "a"), ...rows("p2", range(10), "b")] }]);
    await writeCommit(first, "w", [{ rows: rows("p1", [3, 4], "c"), kinds: [RowKind.UPDATE_AFTER, RowKind.DELETE] }]);
    const before = await readRows(first);
    const table = await catalog.alterTable(first.identifier, [{ kind: "setOption", key: "bucket", value: "4" }]);
    const id = await table.rescale({ commitUser: "rescaler", partition: { dt: "p1" } });
    const snapshot = await table.snapshot(id!);
    expect([snapshot.commitKind, snapshot.commitUser]).toEqual(["OVERWRITE", "rescaler"]);
    expect(await readRows(table)).toEqual(before);
    const entries = await liveEntries(table);
    const p1 = entries.filter((e) => e.file.fileName && e.totalBuckets === 4);
    expect(new Set(p1.map((e) => e.bucket))).toEqual(new Set([0, 1, 2, 3]));
    expect(p1.reduce((n, e) => n + Number(e.file.rowCount), 0)).toBe(39); // 40 keys, one deleted
    expect(entries.filter((e) => e.totalBuckets === 2).reduce((n, e) => n + Number(e.file.rowCount), 0)).toBe(10); // p2 untouched
    // p1 takes ordinary writes with the new count again; p2 (old count) still needs its own rescale
    await writeCommit(table, "w", [{ rows: rows("p1", [100], "d") }]);
    await expect(writeCommit(table, "w", [{ rows: rows("p2", [100], "d") }])).rejects.toThrow(/cannot write partition .* with the new bucket count 4: its files have bucket count 2/);
    await table.rescale({ commitUser: "rescaler", partition: { dt: "p2" } });
    await writeCommit(table, "w", [{ rows: rows("p2", [100], "d") }]);
    expect((await readRows(table)).length).toBe(before.length + 2);
    expect(new Set((await liveEntries(table)).map((e) => e.totalBuckets))).toEqual(new Set([4]));
  });

  it("postpone-bucket table: the partition is rewritten into bucketNum buckets, and later compactions keep that count", async () => {
    const table = await createPkTable({ bucket: -2, "postpone.default-bucket-num": 1 });
    await writeCommit(table, "w", [{ rows: [...rows("p1", range(30), "a"), ...rows("p2", range(5), "b")] }]);
    await compactCommit(table);
    const before = await readRows(table);
    expect(new Set((await liveEntries(table)).map((e) => e.totalBuckets))).toEqual(new Set([1]));
    await table.rescale({ commitUser: "rescaler", bucketNum: 3, partition: { dt: "p1" } });
    expect(await readRows(table)).toEqual(before);
    const totals = (await liveEntries(table)).map((e) => [e.totalBuckets, Number(e.file.rowCount)] as const);
    expect(totals.filter(([t]) => t === 3).reduce((n, [, r]) => n + r, 0)).toBe(30);
    expect(totals.filter(([t]) => t === 1).reduce((n, [, r]) => n + r, 0)).toBe(5);
    // new postponed rows of p1 compact into its 3 buckets
    await writeCommit(table, "w", [{ rows: rows("p1", [7, 31], "c") }]);
    await compactCommit(table);
    const live = await liveEntries(table);
    expect(live.some((e) => e.bucket === -2)).toBe(false);
    expect(new Set(live.filter((e) => e.totalBuckets === 3).map((e) => e.bucket))).toEqual(new Set([0, 1, 2]));
    expect(live.filter((e) => e.totalBuckets !== 3).map((e) => [e.totalBuckets, e.file.rowCount])).toEqual([[1, 5n]]); // p2
    const after = await readRows(table);
    expect(after.filter((r) => r.dt === "p1").length).toBe(31);
    expect(after.find((r) => r.dt === "p1" && r.id === 7n)!.v).toBe("c7");
    expect(after.length).toBe(before.length + 1);
  });

  it("refuses what Java refuses, and what would lose rows, with nothing changed", async () => {
    const empty = await createPkTable({ bucket: -2 });
    await expect(empty.rescale({ commitUser: "r", bucketNum: 2 })).rejects.toThrow(`rescale of ${empty.identifier}: Table ${empty.identifier} has no snapshot. No need to rescale.`);

    const postpone = await createPkTable({ bucket: -2 });
    await writeCommit(postpone, "w", [{ rows: rows("p1", range(5), "a") }]);
    const treeBefore = await tree(postpone);
    await expect(postpone.rescale({ commitUser: "r" })).rejects.toThrow("When rescaling postpone bucket tables, you must provide the resulting bucket number.");
    // rows still in the postpone bucket: a batch read does not see them, the overwrite would delete them
    await expect(postpone.rescale({ commitUser: "r", bucketNum: 2 })).rejects.toThrow(/1 file\(s\) of the table are still in the postpone bucket; compact the table first/);
    expect(await tree(postpone)).toEqual(treeBefore);
    await compactCommit(postpone);
    const compacted = await tree(postpone);
    await expect(postpone.rescale({ commitUser: "r", bucketNum: 2, partition: { dt: "nope" } })).rejects.toThrow("The specified partition does not have any data files. No need to rescale.");
    for (const bad of [0, -1, 1.5, "2" as unknown as number]) await expect(postpone.rescale({ commitUser: "r", bucketNum: bad })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(postpone.rescale({ commitUser: "r", bucketNum: 2, partition: { nope: "x" } })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(await tree(postpone)).toEqual(compacted);

    const dv = await createPkTable({ bucket: 2, "deletion-vectors.enabled": true, "write-only": true });
    await writeCommit(dv, "w", [{ rows: rows("p1", range(5), "a") }]);
    const dvTree = await tree(dv);
    await expect(dv.rescale({ commitUser: "r" })).rejects.toThrow(/level-0 file\(s\) of the table are not compacted yet; compact first/);
    expect(await tree(dv)).toEqual(dvTree);

    const realtime = await createPkTable({ bucket: 2, "realtime.enabled": true });
    await writeCommit(realtime, "w", [{ rows: rows("p1", range(5), "a") }]);
    await expect(realtime.rescale({ commitUser: "r", bucketNum: 4 })).rejects.toThrow(`rescale of ${realtime.identifier}: a real-time table (realtime.enabled=true) keeps its offset progress per partition-bucket; a rescale would reset it while keeping the rows`);
    expect((await realtime.latestSnapshot())!.id).toBe(1);

    const dynamic = await createPkTable({ bucket: -1 });
    await writeCommit(dynamic, "w", [{ rows: rows("p1", range(5), "a") }]);
    await expect(dynamic.rescale({ commitUser: "r", bucketNum: 2 })).rejects.toMatchObject({ code: "UNSUPPORTED" });
    expect((await dynamic.latestSnapshot())!.id).toBe(1);
  });
});

describe("Table.rescale with a spec naming some partition keys", () => {
  it("rescales every matching partition in one snapshot, as Java's PartitionPredicate.fromMap; the others keep their count", async () => {
    const catalog = await Catalog.open(freshWarehouse(() => `memory://rescale-${process.pid}-${Math.random().toString(36).slice(2)}`, "rescale"));
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: [{ name: "dt", type: "STRING NOT NULL" }, { name: "hr", type: "INT NOT NULL" }, { name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], partitionKeys: ["dt", "hr"], primaryKeys: ["dt", "hr", "id"], options: { bucket: -2 } });
    const arrow = await import("apache-arrow");
    const keys = [] as Array<[string, number, number]>;
    for (const dt of ["d1", "d2"]) for (const hr of [1, 2]) for (let id = 0; id < 6; id++) keys.push([dt, hr, id]);
    const w = await table.newWrite({ commitUser: "w" });
    await w.write(
      new arrow.RecordBatch({
        dt: arrow.vectorFromArray(keys.map((k) => k[0]), new arrow.Utf8()).data[0]!,
        hr: arrow.makeData({ type: new arrow.Int32(), data: Int32Array.from(keys.map((k) => k[1])) }),
        id: arrow.makeData({ type: new arrow.Int64(), data: BigInt64Array.from(keys.map((k) => BigInt(k[2]))) }),
        v: arrow.vectorFromArray(keys.map((k) => k.join("-")), new arrow.Utf8()).data[0]!,
      }),
    );
    await table.newCommit({ commitUser: "w" }).commit(await w.prepareCommit());
    await w.close();
    await compactCommit(table);
    const read = async () => (await table.newRead().toArrow((await table.newScan().plan()).splits)).toArray().map((r) => String(r.v)).sort();
    const before = await read();
    expect(before.length).toBe(24);
    const id = await table.rescale({ commitUser: "r", bucketNum: 2, partition: { dt: "d1" } });
    expect((await table.snapshot(id!)).commitKind).toBe("OVERWRITE");
    expect(await read()).toEqual(before);
    const totals = new Map<string, Set<number>>();
    for (const e of await liveEntries(table)) {
      const [dt, hr] = (await import("../../src/spec/binary-row.js")).fromBinaryRow(e.partition.subarray(4), table.partitionFields.map((f) => f.type));
      const k = `${dt}/${hr}`;
      (totals.get(k) ?? totals.set(k, new Set()).get(k)!).add(e.totalBuckets);
    }
    expect([...totals].map(([k, v]) => [k, [...v]]).sort()).toEqual([["d1/1", [2]], ["d1/2", [2]], ["d2/1", [1]], ["d2/2", [1]]]);
  });
});

describe("commit.strict-mode.last-safe-snapshot", () => {
  async function strictTable(): Promise<{ table: Table; catalog: Catalog }> {
    const catalog = await Catalog.open(freshWarehouse(() => `memory://strict-${process.pid}-${Math.random().toString(36).slice(2)}`, "strict"));
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", { fields: [{ name: "dt", type: "STRING NOT NULL" }, { name: "id", type: "BIGINT NOT NULL" }, { name: "name", type: "STRING NOT NULL" }, { name: "v", type: "STRING" }, { name: "n", type: "INT" }], partitionKeys: ["dt"], primaryKeys: ["dt", "id", "name"], options: { bucket: 1 } });
    return { table, catalog };
  }

  it("fails a commit after another user's COMPACT or OVERWRITE, or another user's APPEND before an overwrite (Java's messages)", async () => {
    const { table, catalog } = await strictTable();
    await writeCommit(table, "a", [{ rows: rows("p1", [1], "x") }]); // 1
    const strict = await catalog.alterTable("db.t", [{ kind: "setOption", key: "commit.strict-mode.last-safe-snapshot", value: "1" }]);
    await writeCommit(table, "b", [{ rows: rows("p1", [2], "x") }]); // 2: APPEND of another user
    await writeCommit(strict, "a", [{ rows: rows("p1", [3], "x") }]); // an APPEND after an APPEND: fine (3)
    // an overwrite after another user's APPEND to a real bucket fails
    await writeCommit(table, "b", [{ rows: rows("p1", [4], "x") }]); // 4
    const ow = await strict.newWrite({ commitUser: "a", overwrite: true });
    await ow.write((await import("../pk/helpers.js")).toBatch(rows("p1", [5], "y")));
    const messages = await ow.prepareCommit();
    await expect(strict.newCommit({ commitUser: "a" }).overwrite(messages)).rejects.toThrow(
      "When trying to commit snapshot 5, commit user a has found a APPEND snapshot (id: 2) by another user b which committed files to fixed bucket. Giving up committing as commit.strict-mode.last-safe-snapshot is set.",
    );
    // another user's COMPACT fails any commit
    await compactCommit(table); // 5, by "compactor"
    await expect(writeCommit(strict, "a", [{ rows: rows("p1", [6], "x") }])).rejects.toThrow(
      "When trying to commit snapshot 6, commit user a has found a COMPACT snapshot (id: 5) by another user compactor. Giving up committing as commit.strict-mode.last-safe-snapshot is set.",
    );
    expect((await table.latestSnapshot())!.id).toBe(5);
    // a safe snapshot past them: commits again
    const later = await catalog.alterTable("db.t", [{ kind: "setOption", key: "commit.strict-mode.last-safe-snapshot", value: "5" }]);
    await writeCommit(later, "a", [{ rows: rows("p1", [6], "x") }]);
    expect((await table.latestSnapshot())!.id).toBe(6);
  });

  it("rescale fails with COMMIT_CONFLICT, nothing committed, when another user compacts while it writes", async () => {
    const { table } = await strictTable();
    await writeCommit(table, "w", [{ rows: rows("p1", range(20), "a") }]);
    await writeCommit(table, "w", [{ rows: rows("p1", range(5), "b") }]);
    // the other user's COMPACT lands while the rescale writes its first data file
    const io = table.fileIO;
    const writeFile = io.writeFile.bind(io);
    let raced = false;
    (io as { writeFile: FileIO["writeFile"] }).writeFile = async (path: string, data: Uint8Array, ...rest: unknown[]) => {
      if (!raced && path.includes("/bucket-") && /data-.*\.parquet$/.test(path)) {
        raced = true;
        await compactCommit(table);
      }
      return (writeFile as (...a: unknown[]) => Promise<void>)(path, data, ...rest);
    };
    try {
      await expect(table.rescale({ commitUser: "rescaler" })).rejects.toMatchObject({ code: "COMMIT_CONFLICT" });
    } finally {
      (io as { writeFile: FileIO["writeFile"] }).writeFile = writeFile;
    }
    expect(raced).toBe(true);
    const latest = (await table.latestSnapshot())!;
    expect([latest.id, latest.commitKind]).toEqual([3, "COMPACT"]);
    expect((await readRows(table)).length).toBe(20);
  });

  it("an option value that is not a snapshot id is INVALID_ARGUMENT", async () => {
    const { table, catalog } = await strictTable();
    await writeCommit(table, "a", [{ rows: rows("p1", [1], "x") }]);
    const strict = await catalog.alterTable("db.t", [{ kind: "setOption", key: "commit.strict-mode.last-safe-snapshot", value: "one" }]);
    await expect(writeCommit(strict, "a", [{ rows: rows("p1", [2], "x") }])).rejects.toBeInstanceOf(PaimonError);
    expect((await table.latestSnapshot())!.id).toBe(1);
  });
});
