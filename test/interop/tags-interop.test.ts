/**
 * Tags and time travel with Java Paimon 1.4.2: Java creates tags (`Table.createTag`) on a table
 * Java and paimon-rt both wrote; paimon-rt expires snapshots and rolls back; Java reads every
 * remaining tag exactly afterwards (and paimon-rt does through `scan.tag-name`); `scan.snapshot-id`
 * / `scan.tag-name` / `scan.timestamp-millis` set in the table's options (by Java's ALTER TABLE
 * SET or paimon-rt's alterTable) make both read the same rows. Tags renamed and replaced by one are
 * read by the other; tags paimon-rt's commits create and expire (`tag.automatic-creation`,
 * `tag.num-retained-max`, `tag.default-time-retained`, under a clock the test sets) are the ones
 * Java lists, and Java's commits continue the same series (and the other way round).
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Snapshot } from "../../src/spec/snapshot.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows } from "./convert.js";
import { tempDirs } from "../support/temp-dirs.js";
import { batchOutput, javaOracleUnavailable, type OracleRow, parseJsonLines, runBatch, sortRows, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping tags interop: ${noJava}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-tags-interop-");

const ID = "db.tagged";
const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const rowsOf = (list: number[]): OracleRow[] => list.map((id) => ({ id, v: `v${id}` }));
const norm = (rows: OracleRow[]) => sortRows(rows.map((r) => ({ id: Number(r.id), v: r.v ?? null })));

async function rtWrite(table: Table, list: number[], overwrite = false): Promise<number> {
  const w = await table.newWrite({ commitUser: "rt", overwrite } as never);
  await w.write(
    new arrow.RecordBatch({
      id: arrow.makeData({ type: new arrow.Int64(), length: list.length, data: BigInt64Array.from(list, BigInt) }),
      v: arrow.vectorFromArray(list.map((i) => `v${i}`), new arrow.Utf8()).data[0],
    }),
  );
  const c = table.newCommit({ commitUser: "rt" });
  const id = overwrite ? await c.overwrite(await w.prepareCommit()) : await c.commit(await w.prepareCommit());
  await w.close();
  return id!;
}

async function rtRead(table: Table): Promise<OracleRow[]> {
  return norm(arrowToRows(await table.newRead().toArrow((await table.newScan().plan()).splits)));
}

/** Runs Java commands in one JVM; each command's stdout. */
async function java(commands: string[][]): Promise<string[]> {
  return (await runBatch("java", commands)).map((r) => {
    if (!r.ok && /unknown command (create-tag|tags|set-options|rename-tag|replace-tag)/.test(r.error)) throw new Error(`the Java oracle was built before its tag commands: run scripts/setup-oracles.sh --java-only (${r.error})`);
    return batchOutput(r);
  });
}
const javaRead = (wh: string, extra: string[] = []) => ["read", wh, ID, "--sort", ...extra];

describe.skipIf(noJava !== null)("tags and time travel with Java", () => {
  it(
    "Java's tags survive paimon-rt's expiry and rollback, and both read the same rows with scan.* options",
    async () => {
      const wh = tempDir();
      // Java: snapshots 1, 2; paimon-rt: 3 (append), 4 (overwrite: deletes every file); Java: 5
      await writeTables("java", wh, [{ identifier: ID, spec: { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], options: { bucket: 1, "bucket-key": "id" }, commits: [rowsOf(ids(0, 5)), rowsOf(ids(5, 10))] } }]);
      const catalog = await Catalog.open(wh);
      let table = await catalog.getTable(ID);
      expect(await rtWrite(table, ids(10, 15))).toBe(3);
      expect(await rtWrite(table, ids(100, 103), true)).toBe(4);
      await writeTables("java", wh, [{ identifier: ID, spec: { commits: [rowsOf(ids(200, 202))] } }]);
      const expected: Record<string, OracleRow[]> = {
        t1: norm(rowsOf(ids(0, 5))),
        t3: norm(rowsOf(ids(0, 15))),
        t4: norm(rowsOf(ids(100, 103))),
      };
      const latest5 = norm(rowsOf([...ids(100, 103), 200, 201]));
      const created = await java([["create-tag", wh, ID, "t1", "1"], ["create-tag", wh, ID, "t3", "3"], ["create-tag", wh, ID, "t4", "4"], ["tags", wh, ID]]);
      expect(JSON.parse(created[3])).toEqual({ t1: 1, t3: 3, t4: 4 });

      // paimon-rt expires snapshots 1..4 (the overwrite deleted the files of t1 and t3)
      expect(await table.newCommit({ commitUser: "rt" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(4);
      expect((await table.listSnapshots()).map((s) => s.id)).toEqual([5]);
      const afterExpiry = await java([javaRead(wh, ["--tag", "t1"]), javaRead(wh, ["--tag", "t3"]), javaRead(wh, ["--tag", "t4"]), javaRead(wh)]);
      expect(afterExpiry.map((out) => norm(parseJsonLines(out)))).toEqual([expected.t1, expected.t3, expected.t4, latest5]);
      for (const tag of ["t1", "t3", "t4"]) {
        const t = await catalog.alterTable(ID, [{ kind: "setOption", key: "scan.tag-name", value: tag }]);
        expect(await rtRead(t)).toEqual(expected[tag]);
      }
      table = await catalog.alterTable(ID, [{ kind: "removeOption", key: "scan.tag-name" }]);

      // paimon-rt writes snapshot 6, Java tags it, paimon-rt rolls back to 5: t6 goes, the rest stay
      expect(await rtWrite(table, ids(300, 302))).toBe(6);
      await java([["create-tag", wh, ID, "t6", "6"]]);
      await table.rollbackTo(5);
      const afterRollback = await java([["tags", wh, ID], javaRead(wh, ["--tag", "t1"]), javaRead(wh, ["--tag", "t3"]), javaRead(wh, ["--tag", "t4"]), javaRead(wh)]);
      expect(JSON.parse(afterRollback[0])).toEqual({ t1: 1, t3: 3, t4: 4 });
      expect(afterRollback.slice(1).map((out) => norm(parseJsonLines(out)))).toEqual([expected.t1, expected.t3, expected.t4, latest5]);
      expect(await rtRead(table)).toEqual(latest5);

      // time travel in the table's options: Java sets them, then paimon-rt does; both read the same rows
      expect(await rtWrite(table, ids(400, 401))).toBe(6);
      const snap5 = await table.snapshot(5);
      const cases: Array<{ by: "java" | "rt"; options: Record<string, string>; rows: OracleRow[] }> = [
        { by: "java", options: { "scan.snapshot-id": "5" }, rows: latest5 },
        { by: "java", options: { "scan.snapshot-id": "", "scan.tag-name": "t3" }, rows: expected.t3 },
        { by: "rt", options: { "scan.tag-name": "", "scan.timestamp-millis": String(snap5.timeMillis) }, rows: latest5 },
        { by: "rt", options: { "scan.timestamp-millis": "", "scan.mode": "from-snapshot", "scan.tag-name": "t1" }, rows: expected.t1 },
        { by: "java", options: { "scan.mode": "", "scan.tag-name": "", "scan.snapshot-id": "6" }, rows: norm(rowsOf([...ids(100, 103), 200, 201, 400])) },
      ];
      for (const c of cases) {
        if (c.by === "java") {
          await java([["set-options", wh, ID, ...Object.entries(c.options).map(([k, v]) => `${k}=${v}`)]]);
        } else {
          await catalog.alterTable(ID, Object.entries(c.options).map(([key, value]) => (value === "" ? { kind: "removeOption" as const, key } : { kind: "setOption" as const, key, value })));
        }
        const [javaRows] = await java([javaRead(wh)]);
        const rtRows = await rtRead(await catalog.getTable(ID));
        expect({ options: c.options, java: norm(parseJsonLines(javaRows)) }).toEqual({ options: c.options, java: c.rows });
        expect({ options: c.options, rt: rtRows }).toEqual({ options: c.options, rt: c.rows });
      }
    },
    SLOW,
  );

  it(
    "paimon-rt creates tags Java lists and reads; it deletes Java's tag of an expired snapshot and its files, and rolls back to a tag",
    async () => {
      const wh = tempDir();
      // Java: snapshots 1 ([0,5)), 2 (+[5,10)); paimon-rt: 3 (overwrite [100,103)); Java: 4 (+[200,202))
      await writeTables("java", wh, [{ identifier: ID, spec: { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], options: { bucket: 1, "bucket-key": "id" }, commits: [rowsOf(ids(0, 5)), rowsOf(ids(5, 10))] } }]);
      const catalog = await Catalog.open(wh);
      let table = await catalog.getTable(ID);
      expect(await rtWrite(table, ids(100, 103), true)).toBe(3);
      await writeTables("java", wh, [{ identifier: ID, spec: { commits: [rowsOf(ids(200, 202))] } }]);
      table = await catalog.getTable(ID);
      const expected: Record<string, OracleRow[]> = {
        r1: norm(rowsOf(ids(0, 5))),
        j2: norm(rowsOf(ids(0, 10))),
        r3ttl: norm(rowsOf(ids(100, 103))),
        rlatest: norm(rowsOf([...ids(100, 103), 200, 201])),
      };
      await table.createTag("r1", 1);
      await table.createTag("r3ttl", 3, { timeRetainedMs: 86_400_000 });
      await table.createTag("rlatest");
      await java([["create-tag", wh, ID, "j2", "2"]]);
      await expectCodeOf(table.createTag("j2", 1), "ALREADY_EXISTS");
      expect(Object.fromEntries(await table.listTags())).toEqual({ r1: 1, j2: 2, r3ttl: 3, rlatest: 4 });
      const listed = await java([["tags", wh, ID], ...["r1", "j2", "r3ttl", "rlatest"].map((t) => javaRead(wh, ["--tag", t]))]);
      expect(JSON.parse(listed[0])).toEqual({ j2: 2, r1: 1, r3ttl: 3, rlatest: 4 });
      expect(listed.slice(1).map((out) => norm(parseJsonLines(out)))).toEqual([expected.r1, expected.j2, expected.r3ttl, expected.rlatest]);

      // snapshots 1..3 expire; deleting j2 deletes the files only it kept (the data file of [5,10))
      expect(await table.newCommit({ commitUser: "rt" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(3);
      const tagged = async (name: string) => (await table.snapshotManager.tryGetTag(name))!;
      const [f1, f2, f3, f4] = await Promise.all((await Promise.all([tagged("r1"), tagged("j2"), tagged("r3ttl"), table.snapshot(4)])).map((s) => filesOf(table, s)));
      const onlyJ2 = [...f2].filter((p) => !f1.has(p) && !f3.has(p) && !f4.has(p));
      expect(onlyJ2.filter((p) => p.includes("/bucket-0/")).length).toBe(1);
      for (const p of [...f1, ...f2, ...f3, ...f4]) expect(existsSync(p)).toBe(true);
      await table.deleteTag("j2");
      for (const p of onlyJ2) expect(existsSync(p)).toBe(false);
      for (const p of [...f1, ...f3, ...f4]) expect(existsSync(p)).toBe(true);
      const afterDelete = await java([["tags", wh, ID], ...["r1", "r3ttl", "rlatest"].map((t) => javaRead(wh, ["--tag", t])), javaRead(wh)]);
      expect(JSON.parse(afterDelete[0])).toEqual({ r1: 1, r3ttl: 3, rlatest: 4 });
      expect(afterDelete.slice(1).map((out) => norm(parseJsonLines(out)))).toEqual([expected.r1, expected.r3ttl, expected.rlatest, expected.rlatest]);

      // rolling back to r3ttl (snapshot 3 expired) restores snapshot 3; Java reads it as the latest
      await table.rollbackToTag("r3ttl");
      expect((await table.listSnapshots()).map((s) => s.id)).toEqual([3]);
      const afterRollback = await java([["tags", wh, ID], javaRead(wh), javaRead(wh, ["--tag", "r1"])]);
      expect(JSON.parse(afterRollback[0])).toEqual({ r1: 1, r3ttl: 3 });
      expect(afterRollback.slice(1).map((out) => norm(parseJsonLines(out)))).toEqual([expected.r3ttl, expected.r1]);
      // and Java commits on
      await writeTables("java", wh, [{ identifier: ID, spec: { commits: [rowsOf([300])] } }]);
      expect(await rtRead(await catalog.getTable(ID))).toEqual(norm(rowsOf([...ids(100, 103), 300])));
    },
    SLOW,
  );
});

afterEach(() => {
  vi.useRealTimers();
});

describe.skipIf(noJava !== null)("renamed, replaced and automatic tags with Java", () => {
  const schema = { fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "v", type: "STRING" }], options: { bucket: 1, "bucket-key": "id" } };

  it(
    "Java reads the tags paimon-rt renamed and replaced, and paimon-rt reads the ones Java renamed and replaced",
    async () => {
      const wh = tempDir();
      // Java: snapshots 1 ([0,5)), 2 (+[5,10)); paimon-rt: 3 (+[10,15))
      await writeTables("java", wh, [{ identifier: ID, spec: { ...schema, commits: [rowsOf(ids(0, 5)), rowsOf(ids(5, 10))] } }]);
      const catalog = await Catalog.open(wh);
      const table = await catalog.getTable(ID);
      expect(await rtWrite(table, ids(10, 15))).toBe(3);
      const upTo = (n: number) => norm(rowsOf(ids(0, n)));
      await table.createTag("a", 1);
      await table.renameTag("a", "renamed");
      await table.createTag("r", 1);
      await table.replaceTag("r", 3);
      await java([["create-tag", wh, ID, "j", "1"]]);
      await table.renameTag("j", "j-by-rt"); // Java's tag, renamed here
      const listed = await java([["tags", wh, ID], javaRead(wh, ["--tag", "renamed"]), javaRead(wh, ["--tag", "r"]), javaRead(wh, ["--tag", "j-by-rt"])]);
      expect(JSON.parse(listed[0])).toEqual({ renamed: 1, "j-by-rt": 1, r: 3 });
      expect(listed.slice(1).map((out) => norm(parseJsonLines(out)))).toEqual([upTo(5), upTo(15), upTo(5)]);

      // Java renames and replaces, paimon-rt reads
      await java([["rename-tag", wh, ID, "renamed", "by-java"], ["replace-tag", wh, ID, "r", "2"]]);
      expect(Object.fromEntries(await table.listTags())).toEqual({ "by-java": 1, "j-by-rt": 1, r: 2 });
      for (const [tag, rows] of [["by-java", upTo(5)], ["r", upTo(10)]] as const) {
        const t = await catalog.alterTable(ID, [{ kind: "setOption", key: "scan.tag-name", value: tag }]);
        expect({ tag, rows: await rtRead(t) }).toEqual({ tag, rows });
      }
      await expectCodeOf(table.renameTag("by-java", "r"), "ALREADY_EXISTS");
      await expectCodeOf(table.replaceTag("renamed", 1), "NOT_FOUND");
    },
    SLOW,
  );

  it(
    "process-time daily tags: paimon-rt's commits make the tags Java would, Java's commit continues the series, and paimon-rt's continues Java's",
    async () => {
      const wh = tempDir();
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase("db");
      const options = { ...schema.options, "tag.automatic-creation": "process-time", "tag.creation-period": "daily", "tag.num-retained-max": "3", "sink.process-time-zone": "UTC" };
      let table = await catalog.createTable(ID, { ...schema, options });
      vi.useFakeTimers({ toFake: ["Date"] });
      const days = ["2024-01-01T10:00:00Z", "2024-01-02T10:00:00Z", "2024-01-03T10:00:00Z", "2024-01-05T10:00:00Z"];
      for (const [i, at] of days.entries()) {
        vi.setSystemTime(new Date(at));
        expect(await rtWrite(table, [i])).toBe(i + 1);
      }
      vi.useRealTimers();
      const rtTags = { "2024-01-02": 3, "2024-01-04": 4, "2024-01-01": 2 };
      expect(Object.fromEntries(await table.listTags())).toEqual(rtTags);
      const listed = await java([["tags", wh, ID], javaRead(wh, ["--tag", "2024-01-02"])]);
      expect(JSON.parse(listed[0])).toEqual(rtTags);
      expect(norm(parseJsonLines(listed[1]))).toEqual(norm(rowsOf([0, 1, 2])));

      // Java commits now (real clock): its TagAutoCreation reads the series from 2024-01-04, tags
      // the day before its snapshot and keeps 3
      await writeTables("java", wh, [{ identifier: ID, spec: { commits: [rowsOf([100])] } }]);
      const s5 = await table.snapshot(5);
      // (Java's write also compacted the bucket's five files: snapshot 6)
      const next = (await table.listSnapshots()).at(-1)!.id + 1;
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const javaDay = day(s5.timeMillis - 86_400_000);
      const afterJava = { "2024-01-02": 3, "2024-01-04": 4, [javaDay]: 5 };
      expect(JSON.parse((await java([["tags", wh, ID]]))[0])).toEqual(afterJava);
      expect(Object.fromEntries(await table.listTags())).toEqual(afterJava);

      // paimon-rt commits a day after Java's snapshot: the next tag of the series, the oldest goes
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(s5.timeMillis + 86_400_000);
      table = await catalog.getTable(ID);
      expect(await rtWrite(table, [200])).toBe(next);
      vi.useRealTimers();
      const afterRt = { "2024-01-04": 4, [javaDay]: 5, [day(s5.timeMillis)]: next };
      expect(Object.fromEntries(await table.listTags())).toEqual(afterRt);
      const final = await java([["tags", wh, ID], javaRead(wh, ["--tag", day(s5.timeMillis)])]);
      expect(JSON.parse(final[0])).toEqual(afterRt);
      expect(norm(parseJsonLines(final[1]))).toEqual(norm(rowsOf([0, 1, 2, 3, 100, 200])));
    },
    SLOW,
  );

  it(
    "tag expiry by retention reads the other's tagCreateTime: Java's commit expires paimon-rt's tag, paimon-rt's commit Java's; batch tags Java lists",
    async () => {
      const wh = tempDir();
      const options = { ...schema.options, "tag.automatic-creation": "batch", "tag.default-time-retained": "1 d", "sink.process-time-zone": "UTC" };
      await writeTables("java", wh, [{ identifier: ID, spec: { ...schema, options, commits: [rowsOf([1])] } }]);
      await java([["create-tag", wh, ID, "java-tag", "1"]]); // created now, retained 1 d (the table's default)
      const catalog = await Catalog.open(wh);
      const table = await catalog.getTable(ID);
      const t = (await table.snapshot(1)).timeMillis;
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(new Date("2024-01-01T10:00:00Z"));
      await table.createTag("rt-old", 1); // retained 1 d from 2024-01-01
      vi.useRealTimers();
      // Java's commit (no batch tag: only Flink's batch job makes one) expires rt-old
      await writeTables("java", wh, [{ identifier: ID, spec: { commits: [rowsOf([2])] } }]);
      expect(JSON.parse((await java([["tags", wh, ID]]))[0])).toEqual({ "java-tag": 1 });

      // paimon-rt's batch commit half a day later: java-tag stays, the batch tag is made
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(t + 43_200_000);
      expect(await rtWrite(table, [3])).toBe(3);
      const day = (ms: number) => `batch-write-${new Date(ms).toISOString().slice(0, 10)}`;
      expect(Object.fromEntries(await table.listTags())).toEqual({ "java-tag": 1, [day(t + 43_200_000)]: 3 });
      // a day and a half later: java-tag has passed its retention; the first batch tag reaches it exactly and stays
      vi.setSystemTime(t + 129_600_000);
      expect(await rtWrite(table, [4])).toBe(4);
      vi.useRealTimers();
      const expected = { [day(t + 43_200_000)]: 3, [day(t + 129_600_000)]: 4 };
      expect(Object.fromEntries(await table.listTags())).toEqual(expected);
      const listed = await java([["tags", wh, ID], javaRead(wh, ["--tag", day(t + 43_200_000)])]);
      expect(JSON.parse(listed[0])).toEqual(expected);
      expect(norm(parseJsonLines(listed[1]))).toEqual(norm(rowsOf([1, 2, 3])));
    },
    SLOW,
  );
});

/** The data, manifest list and manifest files `s` uses, as absolute paths. */
async function filesOf(table: Table, s: Snapshot): Promise<Set<string>> {
  const out = new Set([join(table.location, "manifest", s.baseManifestList), join(table.location, "manifest", s.deltaManifestList)]);
  for (const m of await table.manifestStore.dataManifests(s)) out.add(join(table.location, "manifest", m.fileName));
  for (const e of await table.manifestStore.liveEntries(s)) out.add(join(table.location, `bucket-${e.bucket}`, e.file.fileName));
  return out;
}

async function expectCodeOf(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toMatchObject({ code });
}
