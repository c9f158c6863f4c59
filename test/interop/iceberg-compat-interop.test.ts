/**
 * Iceberg compatibility metadata (`metadata.iceberg.storage`): paimon-rt's commits write the
 * Iceberg metadata Java Paimon 1.4.2's IcebergCommitCallback writes. pyiceberg (pinned in
 * oracle/requirements.txt) reads our tables' Iceberg view and returns the rows our Paimon read
 * returns; it reads Java-written tables alike (harness sanity); Java continues committing to our
 * table and we to Java's with the Iceberg view staying right; our metadata JSON, manifest lists
 * and manifests match Java's for the same commits field by field (uuids, times, paths and
 * lengths aside). Skips when the oracles are missing.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import type { Table } from "../../src/table/table.js";
import { readContainer } from "../../src/spec/avro.js";
import { arrowToRows } from "./convert.js";
import { rtCommitRows } from "./rt-commit.js";
import { tempDirs } from "../support/temp-dirs.js";
import { javaOracleUnavailable, parseJsonLines, pypaimonUnavailable, readTables, runBatch, sortRows, VENV_PYTHON, writeTables, type OracleRow } from "./oracle/harness.js";

const missing = javaOracleUnavailable() ?? pypaimonUnavailable();
if (missing) console.log(`skipping iceberg-compat interop: ${missing}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-iceberg-interop-");
const ID = "db.t";

const PYICEBERG_READ = `
import json, sys
try:
    from pyiceberg.table import StaticTable
except ImportError:
    print("NO_PYICEBERG"); sys.exit(0)
t = StaticTable.from_metadata(sys.argv[1])
for r in t.scan().to_arrow().to_pylist():
    print(json.dumps({k: (str(v) if v is not None else None) for k, v in r.items()}))
`;

function pyiceberg(metadataFile: string): Promise<OracleRow[] | null> {
  return new Promise((resolve, reject) =>
    execFile(VENV_PYTHON, ["-c", PYICEBERG_READ, metadataFile], { env: { ...process.env, TZ: "UTC" }, maxBuffer: 1 << 26 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`pyiceberg failed: ${stderr}`));
      resolve(stdout.trim() === "NO_PYICEBERG" ? null : parseJsonLines(stdout));
    }),
  );
}

const PYICEBERG_REFS = `
import json, sys
try:
    from pyiceberg.table import StaticTable
except ImportError:
    print("NO_PYICEBERG"); sys.exit(0)
t = StaticTable.from_metadata(sys.argv[1])
refs = {name: ref.snapshot_id for name, ref in t.metadata.refs.items() if name != "main"}
rows = {name: sorted(str(r["id"]) for r in t.scan(snapshot_id=sid).to_arrow().to_pylist()) for name, sid in refs.items()}
print(json.dumps({"refs": refs, "rows": rows}))
`;

/** pyiceberg's tags (refs but main) of a metadata file: name → snapshot id, and the ids of the rows each tag reads. */
function pyicebergRefs(metadataFile: string): Promise<{ refs: Record<string, number>; rows: Record<string, string[]> } | null> {
  return new Promise((resolve, reject) =>
    execFile(VENV_PYTHON, ["-c", PYICEBERG_REFS, metadataFile], { env: { ...process.env, TZ: "UTC" }, maxBuffer: 1 << 26 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`pyiceberg failed: ${stderr}`));
      resolve(stdout.trim() === "NO_PYICEBERG" ? null : JSON.parse(stdout));
    }),
  );
}

const SPEC = {
  fields: [
    { name: "id", type: "BIGINT NOT NULL" },
    { name: "v", type: "STRING" },
    { name: "dt", type: "STRING" },
  ],
  partitionKeys: ["dt"],
  options: { bucket: "-1", "metadata.iceberg.storage": "table-location", "file.format": "parquet" },
};
/** The commits both writers make: two appends, then an overwrite of partition x. */
const COMMITS = [
  [{ id: "1", v: "a", dt: "x" }, { id: "2", v: null, dt: "y" }],
  [{ id: "3", v: "c", dt: "x" }],
  { rows: [{ id: "4", v: "d", dt: "x" }], overwrite: { dt: "x" } },
];

const norm = (rows: OracleRow[]) => sortRows(rows.map((r) => ({ id: String(r.id), v: r.v ?? null, dt: r.dt ?? null })));

async function rtWrite(table: Table, rows: Array<{ id: number; v: string | null; dt: string }>, overwrite?: Record<string, unknown>): Promise<number> {
  const w = await table.newWrite({ commitUser: "rt", overwrite: overwrite !== undefined } as never);
  await w.write(
    new arrow.RecordBatch({
      id: arrow.vectorFromArray(rows.map((r) => BigInt(r.id)), new arrow.Int64()).data[0]!,
      v: arrow.vectorFromArray(rows.map((r) => r.v), new arrow.Utf8()).data[0]!,
      dt: arrow.vectorFromArray(rows.map((r) => r.dt), new arrow.Utf8()).data[0]!,
    }),
  );
  const c = table.newCommit({ commitUser: "rt" });
  const id = overwrite ? await c.overwrite(await w.prepareCommit(), overwrite) : await c.commit(await w.prepareCommit());
  await w.close();
  return id!;
}

async function rtRead(table: Table): Promise<OracleRow[]> {
  return norm(arrowToRows(await table.newRead().toArrow((await table.newScan().plan()).splits)));
}

const metadataDir = (wh: string) => join(wh, "db.db", "t", "metadata");
const latestMetadata = (wh: string) => join(metadataDir(wh), `v${readFileSync(join(metadataDir(wh), "version-hint.text"), "utf8")}.metadata.json`);

/** The metadata JSON without what differs between two writers of the same commits. */
function comparableMetadata(file: string): unknown {
  const m = JSON.parse(readFileSync(file, "utf8"));
  delete m["table-uuid"];
  delete m["last-updated-ms"];
  delete m.location;
  for (const s of m.snapshots) {
    delete s["timestamp-ms"];
    s["manifest-list"] = "<list>";
  }
  return m;
}

/** Every manifest list and manifest of the current snapshot, paths and lengths aside. */
function comparableManifests(metadataFile: string): unknown {
  const m = JSON.parse(readFileSync(metadataFile, "utf8"));
  const current = m.snapshots.find((s: { "snapshot-id": number }) => s["snapshot-id"] === m["current-snapshot-id"]);
  const dir = join(metadataFile, "..");
  const list = readContainer(readFileSync(join(dir, String(current["manifest-list"]).split("/").pop()!))).records as Array<Record<string, unknown>>;
  return list.map((meta) => {
    const entries = readContainer(readFileSync(join(dir, String(meta.manifest_path).split("/").pop()!))).records as Array<Record<string, any>>;
    return {
      ...meta,
      manifest_path: "<manifest>",
      manifest_length: "<length>",
      entries: entries
        .map((e) => ({ ...e, data_file: { ...e.data_file, file_path: e.data_file.file_path.replace(/^.*\/db\.db\/t\//, "").replace(/data-[^/]*$/, "data-*"), file_size_in_bytes: "<size>" } }))
        .sort((a, b) => (JSON.stringify(a, (_k, v) => (typeof v === "bigint" ? String(v) : v)) < JSON.stringify(b, (_k, v) => (typeof v === "bigint" ? String(v) : v)) ? -1 : 1)),
    };
  });
}

describe.skipIf(missing !== null)("Iceberg compatibility metadata with Java and pyiceberg", () => {
  it("our commits write Java's Iceberg metadata; pyiceberg reads the same rows as Paimon; Java continues", { timeout: SLOW }, async () => {
    const ours = tempDir();
    const theirs = tempDir();
    // Java creates both tables; Java commits to `theirs`, we commit the same to `ours`
    await writeTables("java", ours, [{ identifier: ID, spec: { ...SPEC, commits: [] } }]);
    await writeTables("java", theirs, [{ identifier: ID, spec: { ...SPEC, commits: COMMITS } }]);
    const table = await (await Catalog.open(ours)).getTable(ID);
    expect(await rtWrite(table, [{ id: 1, v: "a", dt: "x" }, { id: 2, v: null, dt: "y" }])).toBe(1);
    expect(await rtWrite(table, [{ id: 3, v: "c", dt: "x" }])).toBe(2);
    expect(await rtWrite(table, [{ id: 4, v: "d", dt: "x" }], { dt: "x" })).toBe(3);

    // (a) pyiceberg reads our Iceberg view: the rows of our Paimon read
    const expected = norm([{ id: "2", v: null, dt: "y" }, { id: "4", v: "d", dt: "x" }]);
    expect(await rtRead(await (await Catalog.open(ours)).getTable(ID))).toEqual(expected);
    const icebergOurs = await pyiceberg(latestMetadata(ours));
    if (icebergOurs === null) return console.log("skipping: pyiceberg is not installed in the oracle venv (scripts/setup-oracles.sh)");
    expect(norm(icebergOurs)).toEqual(expected);
    // (b) and Java's alike
    expect(norm((await pyiceberg(latestMetadata(theirs)))!)).toEqual(expected);

    // (d) the same metadata files as Java's, field by field
    expect(readdirSync(metadataDir(ours)).filter((f) => f.endsWith(".json")).sort()).toEqual(["v3.metadata.json"]);
    expect(readFileSync(join(metadataDir(ours), "version-hint.text"), "utf8")).toBe("3");
    expect(comparableMetadata(latestMetadata(ours))).toEqual(comparableMetadata(latestMetadata(theirs)));
    expect(comparableManifests(latestMetadata(ours))).toEqual(comparableManifests(latestMetadata(theirs)));
    // ... and the same text (Jackson's pretty printer), uuids, times and paths aside
    const text = (wh: string) =>
      readFileSync(latestMetadata(wh), "utf8")
        .replaceAll(wh, "<wh>")
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
        .replace(/("(?:timestamp-ms|last-updated-ms)" : )\d+/g, "$1<ms>");
    expect(text(ours)).toBe(text(theirs));
    // the same files as Java keeps: 3 manifest lists (retention 10), and their manifests
    const avro = (wh: string) => readdirSync(metadataDir(wh)).filter((f) => f.endsWith(".avro")).length;
    expect(avro(ours)).toBe(avro(theirs));

    // (c) Java continues committing to our table: the Iceberg view follows
    await writeTables("java", ours, [{ identifier: ID, spec: { commits: [[{ id: "5", v: "e", dt: "y" }]] } }]);
    const afterJava = norm([...expected, { id: "5", v: "e", dt: "y" }]);
    const [javaRows] = await readTables("java", [{ warehouse: ours, identifier: ID, sort: true }]);
    expect(norm(javaRows as OracleRow[])).toEqual(afterJava);
    expect(norm((await pyiceberg(latestMetadata(ours)))!)).toEqual(afterJava);
    // ... and we continue Java's table
    const theirTable = await (await Catalog.open(theirs)).getTable(ID);
    expect(await rtWrite(theirTable, [{ id: 6, v: "f", dt: "z" }])).toBe(4);
    expect(norm((await pyiceberg(latestMetadata(theirs)))!)).toEqual(norm([...expected, { id: "6", v: "f", dt: "z" }]));
    expect(await rtRead(await (await Catalog.open(theirs)).getTable(ID))).toEqual(norm([...expected, { id: "6", v: "f", dt: "z" }]));
  });

  it("tag changes rewrite the latest Iceberg metadata as Java's tag callback does: pyiceberg sees a created tag without another commit, and no deleted one", { timeout: SLOW }, async () => {
    const ours = tempDir();
    const theirs = tempDir();
    await writeTables("java", ours, [{ identifier: ID, spec: { ...SPEC, commits: [] } }]);
    await writeTables("java", theirs, [{ identifier: ID, spec: { ...SPEC, commits: COMMITS } }]);
    const table = await (await Catalog.open(ours)).getTable(ID);
    await rtWrite(table, [{ id: 1, v: "a", dt: "x" }, { id: 2, v: null, dt: "y" }]);
    await rtWrite(table, [{ id: 3, v: "c", dt: "x" }]);
    await rtWrite(table, [{ id: 4, v: "d", dt: "x" }], { dt: "x" });
    const text = (wh: string) =>
      readFileSync(latestMetadata(wh), "utf8")
        .replaceAll(wh, "<wh>")
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
        .replace(/("(?:timestamp-ms|last-updated-ms)" : )\d+/g, "$1<ms>");
    // the same steps on both tables: ours through Table, Java's through its Table API
    const steps: Array<{ rt: () => Promise<unknown>; java: string[]; refs: Record<string, number>; rows: Record<string, string[]> }> = [
      { rt: () => table.createTag("t1", 2), java: ["create-tag", theirs, ID, "t1", "2"], refs: { t1: 2 }, rows: { t1: ["1", "2", "3"] } },
      { rt: () => table.createTag("t2", 1), java: ["create-tag", theirs, ID, "t2", "1"], refs: { t1: 2, t2: 1 }, rows: { t1: ["1", "2", "3"], t2: ["1", "2"] } },
      { rt: () => table.deleteTag("t1"), java: ["delete-tag", theirs, ID, "t1"], refs: { t2: 1 }, rows: { t2: ["1", "2"] } },
      { rt: () => table.replaceTag("t2", 3), java: ["replace-tag", theirs, ID, "t2", "3"], refs: { t2: 3 }, rows: { t2: ["2", "4"] } },
      { rt: () => table.deleteTag("t2"), java: ["delete-tag", theirs, ID, "t2"], refs: {}, rows: {} },
    ];
    for (const step of steps) {
      await step.rt();
      expect((await runBatch("java", [step.java]))[0]!.ok).toBe(true);
      // no new metadata version: the latest one is rewritten
      expect(readFileSync(join(metadataDir(ours), "version-hint.text"), "utf8")).toBe("3");
      expect(readdirSync(metadataDir(ours)).filter((f) => f.endsWith(".json"))).toEqual(["v3.metadata.json"]);
      expect(comparableMetadata(latestMetadata(ours)), step.java.join(" ")).toEqual(comparableMetadata(latestMetadata(theirs)));
      expect(text(ours)).toBe(text(theirs));
      const seen = await pyicebergRefs(latestMetadata(ours));
      if (seen === null) return console.log("skipping: pyiceberg is not installed in the oracle venv (scripts/setup-oracles.sh)");
      expect(seen).toEqual({ refs: step.refs, rows: step.rows });
    }
    // a tag Java creates on our table reaches the metadata alike; the next commit of ours keeps it
    expect((await runBatch("java", [["create-tag", ours, ID, "j", "3"]]))[0]!.ok).toBe(true);
    expect((await pyicebergRefs(latestMetadata(ours)))!.refs).toEqual({ j: 3 });
    await rtWrite(await (await Catalog.open(ours)).getTable(ID), [{ id: 5, v: "e", dt: "y" }]);
    expect((await pyicebergRefs(latestMetadata(ours)))!.refs).toEqual({ j: 3 });
  });

  it("manifests roll at manifest.target-file-size as Java's (every 1000 entries): the same manifests, pyiceberg reads every row", { timeout: SLOW }, async () => {
    const ours = tempDir();
    const theirs = tempDir();
    const spec = { ...SPEC, options: { ...SPEC.options, "manifest.target-file-size": "1 b" } };
    const rows = Array.from({ length: 2001 }, (_, i) => ({ id: i, v: null, dt: `p${i}` })); // a file per partition
    await writeTables("java", ours, [{ identifier: ID, spec: { ...spec, commits: [] } }]);
    await writeTables("java", theirs, [{ identifier: ID, spec: { ...spec, commits: [rows.map((r) => ({ ...r, id: String(r.id) }))] } }]);
    await rtWrite(await (await Catalog.open(ours)).getTable(ID), rows);
    const counts = (wh: string) => (comparableManifests(latestMetadata(wh)) as Array<{ added_files_count: number; entries: unknown[] }>).map((m) => [m.added_files_count, m.entries.length]);
    expect(counts(ours)).toEqual([[1000, 1000], [1000, 1000], [1, 1]]);
    expect(counts(ours)).toEqual(counts(theirs));
    const read = await pyiceberg(latestMetadata(ours));
    if (read === null) return;
    expect(read.length).toBe(2001);
    expect(new Set(read.map((r) => r.dt)).size).toBe(2001);
  });

  it.each([false, true])("every Iceberg-convertible type, DATE and INT (or DECIMAL: %s) partitions and an added column: Java's schemas, specs, bounds and partition records", { timeout: SLOW }, async (dec) => {
    const ours = tempDir();
    const theirs = tempDir();
    const fields = [
      { name: "id", type: "BIGINT NOT NULL" },
      { name: "pd", type: "DATE" },
      { name: "pi", type: "INT" },
      { name: "pdec", type: "DECIMAL(10, 2)" },
      { name: "b", type: "BOOLEAN" },
      { name: "t", type: "TINYINT" },
      { name: "s", type: "SMALLINT" },
      { name: "f", type: "FLOAT" },
      { name: "d", type: "DOUBLE" },
      { name: "big", type: "DECIMAL(20, 3)" },
      { name: "ts3", type: "TIMESTAMP(3)" },
      { name: "ts6", type: "TIMESTAMP(6)" },
      { name: "ltz", type: "TIMESTAMP_LTZ(6)" },
      { name: "bin", type: "BYTES" },
      { name: "c", type: "CHAR(3)" },
      { name: "arr", type: "ARRAY<INT>" },
      { name: "m", type: "MAP<STRING, BIGINT>" },
      { name: "r", type: "ROW<x INT, y STRING>", description: "a row" },
    ];
    const rows = [
      { id: "1", pd: "2024-01-02", pi: 7, pdec: "1.50", b: true, t: -3, s: 300, f: 1.5, d: -2.25, big: "-12345678901234567.891", ts3: "1700000000123000000", ts6: "1700000000123456000", ltz: "-1000", bin: "AAEC", c: "abc", arr: [1, null], m: [["k", "9"]], r: { x: 1, y: "y" } },
      { id: "2", pd: "2024-01-02", pi: 7, pdec: "1.50", b: false, t: 4, s: -1, f: -0.5, d: 1e300, big: "0.001", ts3: "0", ts6: "1000", ltz: "1700000000000001000", bin: "", c: "xy", arr: [], m: [], r: null },
      { id: "3", pd: null, pi: null, pdec: null },
    ];
    const options = { bucket: "-1", "metadata.iceberg.storage": "table-location", "file.format": "parquet" };
    // DECIMAL partitions: Java writes their manifest values as Avro `bytes` (Iceberg's spec says
    // `fixed`), which pyiceberg 0.12 misreads in Java's tables as in ours: compared with Java only
    const partitionKeys = dec ? ["pdec"] : ["pd", "pi"];
    const spec = { fields, partitionKeys, options };
    const alter = [{ kind: "addColumn", name: "extra", type: "STRING" }];
    const more = [{ id: "4", pd: "2023-12-31", pi: -1, pdec: "-0.01", extra: "e" }];
    await writeTables("java", ours, [{ identifier: ID, spec: { ...spec, commits: [] } }]);
    await writeTables("java", theirs, [{ identifier: ID, spec: { ...spec, commits: [rows] } }]);
    const changes = join(theirs, "alter.json");
    writeFileSync(changes, JSON.stringify(alter));
    expect((await runBatch("java", [["alter", theirs, ID, changes]]))[0]!.ok).toBe(true);
    await writeTables("java", theirs, [{ identifier: ID, spec: { commits: [more] } }]);

    const catalog = await Catalog.open(ours);
    await rtCommitRows(await catalog.getTable(ID), fields, rows);
    await catalog.alterTable(ID, alter as never);
    await rtCommitRows(await catalog.getTable(ID), [...fields, { name: "extra", type: "STRING" }], more);

    expect(comparableMetadata(latestMetadata(ours))).toEqual(comparableMetadata(latestMetadata(theirs)));
    expect(comparableManifests(latestMetadata(ours))).toEqual(comparableManifests(latestMetadata(theirs)));
    const theirsRead = await pyiceberg(latestMetadata(theirs)).catch((e: Error) => e);
    if (dec) return;
    const icebergOurs = await pyiceberg(latestMetadata(ours));
    if (icebergOurs === null) return;
    expect(icebergOurs).toHaveLength(4);
    const byId = (list: OracleRow[]) => [...list].sort((a, b) => Number(a.id) - Number(b.id));
    expect(byId(icebergOurs)).toEqual(byId((await pyiceberg(latestMetadata(theirs)))!));
  });

  it("catches up when an earlier commit wrote no Iceberg metadata (Java's rebuild from all live files)", { timeout: SLOW }, async () => {
    const wh = tempDir();
    await writeTables("java", wh, [{ identifier: ID, spec: { ...SPEC, options: { ...SPEC.options, "metadata.iceberg.storage": "disabled" }, commits: [[{ id: "1", v: "a", dt: "x" }]] } }]);
    expect(existsSync(metadataDir(wh))).toBe(false);
    expect((await runBatch("java", [["set-options", wh, ID, "metadata.iceberg.storage=table-location"]]))[0]!.ok).toBe(true);
    const table = await (await Catalog.open(wh)).getTable(ID);
    expect(await rtWrite(table, [{ id: 2, v: "b", dt: "y" }])).toBe(2);
    expect(readdirSync(metadataDir(wh)).filter((f) => f.endsWith(".json"))).toEqual(["v2.metadata.json"]);
    const rows = await pyiceberg(latestMetadata(wh));
    if (rows === null) return;
    expect(norm(rows)).toEqual(norm([{ id: "1", v: "a", dt: "x" }, { id: "2", v: "b", dt: "y" }]));
  });

  it("primary-key tables: only top-level files (after full compaction) are in the Iceberg view, as Java lists them", { timeout: SLOW }, async () => {
    const ours = tempDir();
    const theirs = tempDir();
    const pk = { fields: SPEC.fields, primaryKeys: ["dt", "id"], partitionKeys: ["dt"], options: { bucket: "1", "metadata.iceberg.storage": "table-location", "file.format": "parquet" } };
    const first = [{ id: "1", v: "a", dt: "x" }, { id: "2", v: "b", dt: "y" }];
    const second = [{ id: "1", v: "a2", dt: "x" }, { id: "3", v: "c", dt: "x" }];
    await writeTables("java", ours, [{ identifier: ID, spec: { ...pk, commits: [] } }]);
    await writeTables("java", theirs, [{ identifier: ID, spec: { ...pk, commits: [first, { rows: second, compact: true }] } }]);
    const table = await (await Catalog.open(ours)).getTable(ID);
    // an uncompacted write: level-0 files, which Java's incremental path leaves out of the Iceberg view
    expect(await rtWrite(table, first.map((r) => ({ ...r, id: Number(r.id) })))).toBe(1);
    const w = await table.newWrite({ commitUser: "rt" });
    const batch = (rows: typeof second) =>
      new arrow.RecordBatch({
        id: arrow.vectorFromArray(rows.map((r) => BigInt(r.id)), new arrow.Int64()).data[0]!,
        v: arrow.vectorFromArray(rows.map((r) => r.v), new arrow.Utf8()).data[0]!,
        dt: arrow.vectorFromArray(rows.map((r) => r.dt), new arrow.Utf8()).data[0]!,
      });
    await w.write(batch(second));
    await w.compact({ partition: { dt: "x" }, bucket: 0, full: true });
    await w.compact({ partition: { dt: "y" }, bucket: 0, full: true });
    const last = await table.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
    await w.close();
    const expected = norm([{ id: "1", v: "a2", dt: "x" }, { id: "2", v: "b", dt: "y" }, { id: "3", v: "c", dt: "x" }]);
    expect(await rtRead(await (await Catalog.open(ours)).getTable(ID))).toEqual(expected);
    const rows = await pyiceberg(latestMetadata(ours));
    if (rows === null) return;
    expect(norm(rows)).toEqual(expected);
    expect(norm((await pyiceberg(latestMetadata(theirs)))!)).toEqual(expected);
    // the same snapshots and current manifests as Java's
    expect(last).toBe(3);
    expect(comparableMetadata(latestMetadata(ours))).toEqual(comparableMetadata(latestMetadata(theirs)));
    expect(comparableManifests(latestMetadata(ours))).toEqual(comparableManifests(latestMetadata(theirs)));
  });

  it("refuses what it does not write, before anything changes: deletion vectors, hive-catalog", { timeout: SLOW }, async () => {
    const wh = tempDir();
    await writeTables("java", wh, [
      { identifier: "db.dv", spec: { ...SPEC, options: { ...SPEC.options, "deletion-vectors.enabled": "true" }, commits: [] } },
      { identifier: "db.hive", spec: { ...SPEC, options: { ...SPEC.options, "metadata.iceberg.storage": "hive-catalog" }, commits: [] } },
    ]);
    const catalog = await Catalog.open(wh);
    for (const [name, message] of [
      ["db.dv", /deletion vectors/],
      ["db.hive", /Hive or REST catalog/],
    ] as const) {
      const table = await catalog.getTable(name);
      const err = await rtWrite(table, [{ id: 1, v: "a", dt: "x" }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PaimonError);
      expect((err as PaimonError).code).toBe("UNSUPPORTED");
      expect((err as PaimonError).message).toMatch(message);
      expect(existsSync(join(wh, "db.db", name.slice(3), "snapshot", "snapshot-1"))).toBe(false);
    }
  });
});
