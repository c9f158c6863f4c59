/**
 * BLOB columns of data-evolution tables with Java Paimon 1.4.2: Java writes `(id, name, picture
 * BLOB)` tables (random bytes, sizes around `blob.target-file-size` so blob files roll; nulls;
 * two BLOB columns; descriptor fields), and paimon-rt reads exactly Java's bytes: plain, projected
 * (blob files not opened), filtered, time travel, `blob-as-descriptor=true` (Java's serialized
 * descriptors, byte-equal), `$row_tracking`. A corrupt blob file is CORRUPT_FILE naming it; a
 * descriptor pointing outside the table is UNSUPPORTED naming the URI. paimon-rt writes: the same
 * blob files (byte for byte) and metadata as Java's for the same rows, which Java (and pypaimon)
 * read, Java keeps writing, and paimon-rt compacts as Java's coordinator does (and the other way
 * round). Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { FileIO } from "../../src/fs/file-io.js";
import { LocalFileIO } from "../../src/fs/local-file-io.js";
import { col } from "../../src/predicate/predicate.js";
import type { Table } from "../../src/table/table.js";
import { serializeBlobDescriptor } from "../../src/format/blob-file.js";
import { arrowToRows } from "./convert.js";
import { tempDirs } from "../support/temp-dirs.js";
import { batchOutput, javaOracleUnavailable, type OracleRow, type OracleSpec, parseJsonLines, runBatch, sortRows, writeTables } from "./oracle/harness.js";
import { failure } from "../table/helpers.js";
import * as arrow from "apache-arrow";
import type { DataFileMeta } from "../../src/spec/manifest.js";
import { pypaimonUnavailable, readTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping blob interop: ${noJava}`);
const SLOW = 300_000;
const tempDir = tempDirs("paimon-rt-blob-interop-");
const OPTIONS = { "row-tracking.enabled": "true", "data-evolution.enabled": "true", "blob.target-file-size": "3 kb" };

/** Deterministic pseudo-random bytes (xorshift), `seed` picks the sequence. */
function bytesOf(seed: number, length: number): string {
  const out = Buffer.alloc(length);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out.toString("base64");
}

async function rowsOf(t: Table, read: Parameters<Table["newRead"]>[0] = {}): Promise<OracleRow[]> {
  return sortRows(arrowToRows(await t.newRead(read).toArrow((await t.newScan().plan()).splits)));
}

/** A FileIO that records every path it reads (to show which files a read opens). */
function recording(io: FileIO, opened: Set<string>): FileIO {
  return new Proxy(io, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (key === "readRange" || key === "readFile") return (p: string, ...rest: unknown[]) => (opened.add(path.basename(p)), (v as (...a: unknown[]) => unknown).call(target, p, ...rest));
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

describe.skipIf(noJava !== null)("BLOB columns with Java", () => {
  it(
    "paimon-rt reads Java's blob files exactly: rolled files, nulls, two BLOB columns, projections, filters, time travel, descriptors, $row_tracking",
    async () => {
      const wh = tempDir();
      const sizes = [0, 1, 700, 2500, 3100, 90, 5000, 17, 1200, 2999];
      const first = sizes.map((n, i) => ({ id: i, name: `n${i}`, picture: i === 3 ? null : bytesOf(i + 1, n), thumb: i % 4 === 1 ? null : bytesOf(100 + i, (i * 37) % 300) }));
      const second = [0, 1, 2].map((i) => ({ id: 10 + i, name: null, picture: bytesOf(50 + i, 1000 * i + 3), thumb: null }));
      const spec: OracleSpec = {
        fields: [
          { name: "id", type: "INT" },
          { name: "name", type: "STRING" },
          { name: "picture", type: "BLOB" },
          { name: "thumb", type: "BLOB" },
        ],
        options: OPTIONS,
        commits: [{ rows: first }, { rows: second }],
      };
      await writeTables("java", wh, [{ identifier: "db.t", spec }]);
      const results = await runBatch("java", [
        ["read", wh, "db.t", "--sort"],
        ["read", wh, "db.t", "--sort", "--option", "blob-as-descriptor=true"],
        ["read", wh, "db.t", "--sort", "--snapshot", "1"],
        ["read", wh, "db.t$row_tracking", "--sort"],
      ]);
      const [javaRows, javaDescriptors, javaFirst, javaTracking] = results.map((x) => sortRows(parseJsonLines(batchOutput(x))));
      expect(javaRows).toEqual(sortRows([...first, ...second]));
      expect(javaFirst).toEqual(sortRows(first));
      const bucket = path.join(wh, "db.db", "t", "bucket-0");
      const files = (await fsp.readdir(bucket)).sort();
      // blob files rolled at 3 kb: several per column and data file
      expect(files.filter((f) => f.endsWith(".parquet")).length).toBe(2);
      expect(files.filter((f) => f.endsWith(".blob")).length).toBeGreaterThan(4);

      const catalog = await Catalog.open(wh);
      const t = await catalog.getTable("db.t");
      expect(await rowsOf(t)).toEqual(javaRows);
      expect(await rowsOf(t, { batchSize: 3 })).toEqual(javaRows);
      expect(await rowsOf(t.copy({ "blob-as-descriptor": "true" }))).toEqual(javaDescriptors);
      expect(await rowsOf(t.copy({ "scan.snapshot-id": "1" }))).toEqual(javaFirst);
      expect(await rowsOf(await catalog.getTable("db.t$row_tracking"))).toEqual(javaTracking);
      // descriptors name the blob file, the value's offset and length (Java's path string)
      const d = Buffer.from(javaDescriptors.find((r) => r.id === 0)!.picture as string, "base64");
      expect(d.subarray(13, d.length - 16).toString()).toMatch(new RegExp(`^${bucket}/data-.*\\.blob$`));

      // projections: only the columns asked; without a BLOB column no blob file is opened
      const opened = new Set<string>();
      const spy = await Catalog.open(wh, { fileIO: recording(new LocalFileIO(), opened) });
      const ts = await spy.getTable("db.t");
      expect(await rowsOf(ts, { projection: ["name", "id"] })).toEqual(sortRows(javaRows.map((r) => ({ name: r.name, id: r.id }))));
      expect([...opened].filter((f) => f.endsWith(".blob"))).toEqual([]);
      expect([...opened].filter((f) => f.endsWith(".parquet")).length).toBe(2);
      expect(await rowsOf(ts, { projection: ["thumb", "id"], batchSize: 4 })).toEqual(sortRows(javaRows.map((r) => ({ thumb: r.thumb, id: r.id }))));
      expect(await rowsOf(ts, { projection: ["picture"] })).toEqual(sortRows(javaRows.map((r) => ({ picture: r.picture }))));

      // filters on other columns (exact), and on a BLOB column (null or not)
      expect(await rowsOf(t, { filter: col("id").gt(6), predicateFilter: true })).toEqual(javaRows.filter((r) => (r.id as number) > 6));
      expect(await rowsOf(t, { projection: ["id"], filter: col("picture").isNull(), predicateFilter: true })).toEqual([{ id: 3 }]);
      opened.clear();
      expect(await rowsOf(ts, { projection: ["picture"], filter: col("id").eq(12), predicateFilter: true })).toEqual([{ picture: second[2].picture }]);
      // (the filter ran first: only the kept row's blob file was read, besides the blob files' indexes)
      expect([...opened].filter((f) => f.endsWith(".blob")).length).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    "a corrupt blob file is CORRUPT_FILE naming it; a projection without its column still reads",
    async () => {
      const wh = tempDir();
      const rows = [0, 1, 2].map((i) => ({ id: i, name: `n${i}`, picture: bytesOf(i + 7, 200) }));
      await writeTables("java", wh, [{ identifier: "db.t", spec: { fields: [{ name: "id", type: "INT" }, { name: "name", type: "STRING" }, { name: "picture", type: "BLOB" }], options: OPTIONS, commits: [{ rows }] } }]);
      const bucket = path.join(wh, "db.db", "t", "bucket-0");
      const blob = (await fsp.readdir(bucket)).find((f) => f.endsWith(".blob"))!;
      const bytes = await fsp.readFile(path.join(bucket, blob));
      const t = await (await Catalog.open(wh)).getTable("db.t");
      expect(await rowsOf(t)).toEqual(rows);
      // a flipped value byte: the entry's CRC32 fails
      const flipped = Buffer.from(bytes);
      flipped[4 + 200 + 16 + 10] ^= 0xff;
      await fsp.writeFile(path.join(bucket, blob), flipped);
      const e = await failure(() => rowsOf(t));
      expect(e.code).toBe("CORRUPT_FILE");
      expect(e.message).toBe(`blob file ${path.join(bucket, blob)}: entry of row 1: CRC32 mismatch`);
      expect(await rowsOf(t, { projection: ["id", "name"] })).toEqual(rows.map(({ id, name }) => ({ id, name })));
      // a bad footer version
      const badVersion = Buffer.from(bytes);
      badVersion[badVersion.length - 1] = 2;
      await fsp.writeFile(path.join(bucket, blob), badVersion);
      expect((await failure(() => rowsOf(t))).message).toBe(`blob file ${path.join(bucket, blob)}: unsupported version 2 (Java 1.4.2 writes 1)`);
    },
    SLOW,
  );

  it(
    "descriptor fields: bytes returned as descriptors, values read inside the table only (a URI outside is UNSUPPORTED naming it)",
    async () => {
      const wh = tempDir();
      const outside = tempDir();
      const tableDir = path.join(wh, "db.db", "t");
      await fsp.mkdir(path.join(tableDir, "assets"), { recursive: true });
      const inside = path.join(tableDir, "assets", "image.bin");
      await fsp.writeFile(inside, Buffer.from(bytesOf(3, 300), "base64"));
      const far = path.join(outside, "secret.bin");
      await fsp.writeFile(far, Buffer.from("not for paimon-rt"));
      const desc = (uri: string, offset: number, length: number) => Buffer.from(serializeBlobDescriptor(uri, offset, length)).toString("base64");
      const spec: OracleSpec = {
        fields: [
          { name: "id", type: "INT" },
          { name: "ref", type: "BLOB" },
        ],
        options: { ...OPTIONS, "blob-descriptor-field": "ref" },
        commits: [{ rows: [{ id: 1, ref: desc(inside, 10, 100) }, { id: 2, ref: null }] }, { rows: [{ id: 3, ref: desc(far, 0, 4) }] }],
      };
      await writeTables("java", wh, [{ identifier: "db.t", spec }]);
      const [javaRows, javaDescriptors] = (await runBatch("java", [["read", wh, "db.t", "--sort"], ["read", wh, "db.t", "--sort", "--option", "blob-as-descriptor=true"]])).map((x) => sortRows(parseJsonLines(batchOutput(x))));
      expect((await fsp.readdir(path.join(tableDir, "bucket-0"))).filter((f) => f.endsWith(".blob"))).toEqual([]);
      expect(javaRows[0]).toEqual({ id: 1, ref: Buffer.from(bytesOf(3, 300), "base64").subarray(10, 110).toString("base64") });
      const t = await (await Catalog.open(wh)).getTable("db.t");
      expect(await rowsOf(t.copy({ "blob-as-descriptor": "true" }))).toEqual(javaDescriptors);
      expect(await rowsOf(t, { filter: col("id").lt(3), predicateFilter: true })).toEqual(javaRows.slice(0, 2));
      const e = await failure(() => rowsOf(t));
      expect(e.code).toBe("UNSUPPORTED");
      expect(e.message).toBe(`table db.t column ref: blob descriptor URI ${JSON.stringify(far)} is outside table directory ${tableDir}; paimon-rt reads no file outside the table (read with blob-as-descriptor=true for the descriptor)`);
    },
    SLOW,
  );

  const FIELDS = [
    { name: "id", type: "INT" },
    { name: "name", type: "STRING" },
    { name: "picture", type: "BLOB" },
    { name: "thumb", type: "BLOB" },
  ];
  /** Oracle rows (BLOB values base64) as one Arrow batch of `names`. */
  function batchOf(rows: OracleRow[], names = ["id", "name", "picture", "thumb"]): arrow.RecordBatch {
    const column = (n: string) =>
      n === "id"
        ? arrow.vectorFromArray(rows.map((r) => r.id as number), new arrow.Int32()).data[0]
        : n === "name"
          ? arrow.vectorFromArray(rows.map((r) => r.name as string | null), new arrow.Utf8()).data[0]
          : arrow.vectorFromArray(rows.map((r) => (r[n] === null ? null : Uint8Array.from(Buffer.from(r[n] as string, "base64")))), new arrow.Binary()).data[0];
    return new arrow.RecordBatch(Object.fromEntries(names.map((n) => [n, column(n)])));
  }
  async function writeRt(t: Table, commits: OracleRow[][]): Promise<void> {
    for (const rows of commits) {
      const w = await t.newWrite({ commitUser: "rt" });
      await w.write(batchOf(rows, Object.keys(rows[0])));
      await t.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
      await w.close();
    }
  }
  async function compactRt(t: Table): Promise<void> {
    const w = await t.newWrite({ commitUser: "rt" });
    await w.compact();
    await t.newCommit({ commitUser: "rt" }).commit(await w.prepareCommit());
    await w.close();
  }
  /** The live files of a table as compared with Java's: name counters, rows, row ids, sequence numbers, columns, stats (not parquet sizes or creation times). */
  async function filesOf(t: Table): Promise<Array<Record<string, unknown>>> {
    const snapshot = (await t.snapshotManager.latestSnapshot())!;
    const hexOf = (b: Uint8Array) => Buffer.from(b).toString("hex");
    return (await t.manifestStore.liveEntries(snapshot)).map(({ file: f }: { file: DataFileMeta }) => ({
      name: f.fileName.replace(/^data-[0-9a-f-]{36}-/, ""),
      size: f.fileName.endsWith(".blob") ? f.fileSize : null,
      rows: f.rowCount,
      firstRowId: f.firstRowId,
      seq: [f.minSequenceNumber, f.maxSequenceNumber],
      writeCols: f.writeCols,
      stats: [hexOf(f.valueStats.minValues), hexOf(f.valueStats.maxValues), f.valueStats.nullCounts, f.valueStatsCols],
      source: f.fileSource,
      schemaId: f.schemaId,
      extra: [f.extraFiles, f.embeddedIndex, f.externalPath, f.deleteRowCount, f.level],
    }));
  }
  async function blobBytes(wh: string, table: string): Promise<Buffer[]> {
    const t = await (await Catalog.open(wh)).getTable(table);
    const entries = await t.manifestStore.liveEntries((await t.snapshotManager.latestSnapshot())!);
    const dir = path.join(wh, "db.db", table.slice(3), "bucket-0");
    return Promise.all(entries.filter((e) => e.file.fileName.endsWith(".blob")).map((e) => fsp.readFile(path.join(dir, e.file.fileName))));
  }

  it(
    "paimon-rt writes Java's blob files byte for byte and Java's metadata; Java and pypaimon read them; Java keeps writing; compactions either way read identically",
    async () => {
      const wh = tempDir();
      const sizes = [0, 1, 700, 2500, 3100, 90, 5000, 17, 1200, 2999];
      const first = sizes.map((n, i) => ({ id: i, name: `n${i}`, picture: i === 3 ? null : bytesOf(i + 1, n), thumb: i % 4 === 1 ? null : bytesOf(100 + i, (i * 37) % 300) }));
      const second = [0, 1, 2].map((i) => ({ id: 10 + i, name: null, picture: bytesOf(50 + i, 1000 * i + 3), thumb: null }));
      const third = [0, 1].map((i) => ({ id: 20 + i, name: `j${i}`, picture: bytesOf(70 + i, 1500), thumb: bytesOf(80 + i, 10) }));
      const options = { ...OPTIONS, "compaction.min.file-num": "2" };
      // Java writes db.j and db.c; paimon-rt writes db.r with the same rows
      await writeTables("java", wh, [
        { identifier: "db.j", spec: { fields: FIELDS, options, commits: [{ rows: first }, { rows: second }] } },
        { identifier: "db.c", spec: { fields: FIELDS, options, commits: [{ rows: first }, { rows: second }] } },
      ]);
      const catalog = await Catalog.open(wh);
      await catalog.createTable("db.r", { fields: FIELDS, options });
      const r = await catalog.getTable("db.r");
      await writeRt(r, [first, second]);
      const j = await catalog.getTable("db.j");
      expect(await filesOf(r)).toEqual(await filesOf(j));
      expect(await blobBytes(wh, "db.r")).toEqual(await blobBytes(wh, "db.j"));
      const [rs, js] = [(await r.snapshotManager.latestSnapshot())!, (await j.snapshotManager.latestSnapshot())!];
      expect([rs.nextRowId, rs.totalRecordCount, rs.deltaRecordCount]).toEqual([js.nextRowId, js.totalRecordCount, js.deltaRecordCount]);

      const expected = sortRows([...first, ...second]);
      const [javaR, javaRSmall] = (await runBatch("java", [["read", wh, "db.r", "--sort"], ["read", wh, "db.r", "--sort", "--snapshot", "1"]])).map((x) => sortRows(parseJsonLines(batchOutput(x))));
      expect(javaR).toEqual(expected);
      expect(javaRSmall).toEqual(sortRows(first));
      expect(await rowsOf(r)).toEqual(expected);

      const noPy = pypaimonUnavailable();
      if (noPy) console.log(`skipping the pypaimon read of blob tables: ${noPy}`);
      else {
        const [py] = await readTables("pypaimon", [{ warehouse: wh, identifier: "db.r", sort: true }]);
        expect(py).toEqual(expected);
      }

      // Java keeps writing paimon-rt's table; paimon-rt reads and compacts it; Java reads the result
      await writeTables("java", wh, [{ identifier: "db.r", spec: { commits: [{ rows: third }] } }]);
      const all = sortRows([...first, ...second, ...third]);
      expect(await rowsOf(await catalog.getTable("db.r"))).toEqual(all);
      await compactRt(await catalog.getTable("db.r"));
      // Java's compaction of its own table and paimon-rt's of Java's: the same files
      await writeTables("java", wh, [{ identifier: "db.j", spec: { commits: [{ dataEvolutionCompact: true }] } }]);
      await compactRt(await catalog.getTable("db.c"));
      const compactedJ = await filesOf(await catalog.getTable("db.j"));
      expect(await filesOf(await catalog.getTable("db.c"))).toEqual(compactedJ);
      expect(compactedJ.filter((f) => !(f.name as string).endsWith(".blob")).map((f) => [f.rows, f.firstRowId, f.seq, f.writeCols])).toEqual([[13n, 0n, [1n, 2n], ["id", "name"]]]);
      const reads = (await runBatch("java", [["read", wh, "db.r", "--sort"], ["read", wh, "db.c", "--sort"], ["read", wh, "db.c$row_tracking", "--sort"], ["read", wh, "db.j$row_tracking", "--sort"]])).map((x) => sortRows(parseJsonLines(batchOutput(x))));
      expect(reads[0]).toEqual(all);
      expect(reads[1]).toEqual(expected);
      expect(reads[2]).toEqual(reads[3]);
      expect(await rowsOf(await catalog.getTable("db.c"))).toEqual(expected);
      // Java keeps writing the table paimon-rt compacted
      await writeTables("java", wh, [{ identifier: "db.c", spec: { commits: [{ rows: third }] } }]);
      expect(await rowsOf(await catalog.getTable("db.c"))).toEqual(all);
    },
    SLOW,
  );

  it(
    "paimon-rt writes descriptor fields as Java does: Java reads the bytes and the same descriptors",
    async () => {
      const wh = tempDir();
      const outside = tempDir();
      const tableDir = path.join(wh, "db.db", "t");
      const fields = [
        { name: "id", type: "INT" },
        { name: "ref", type: "BLOB" },
        { name: "picture", type: "BLOB" },
      ];
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase("db");
      const t = await catalog.createTable("db.t", { fields, options: { ...OPTIONS, "blob-descriptor-field": "ref" } });
      await fsp.mkdir(path.join(tableDir, "assets"), { recursive: true });
      const inside = path.join(tableDir, "assets", "image.bin");
      await fsp.writeFile(inside, Buffer.from(bytesOf(3, 300), "base64"));
      const far = path.join(outside, "x.bin");
      await fsp.writeFile(far, Buffer.from("outside"));
      const desc = (uri: string, offset: number, length: number) => Buffer.from(serializeBlobDescriptor(uri, offset, length)).toString("base64");
      const rows = [
        { id: 1, ref: desc(inside, 10, 100), picture: bytesOf(9, 4000) },
        { id: 2, ref: null, picture: null },
        { id: 3, ref: desc(far, 0, 7), picture: bytesOf(10, 5) },
      ];
      await writeRt(t, [rows]);
      const bucket = path.join(tableDir, "bucket-0");
      expect((await fsp.readdir(bucket)).filter((f) => f.endsWith(".blob")).length).toBe(2); // picture only, rolled at 3 kb
      const [javaRows, javaDescriptors] = (await runBatch("java", [["read", wh, "db.t", "--sort"], ["read", wh, "db.t", "--sort", "--option", "blob-as-descriptor=true"]])).map((x) => sortRows(parseJsonLines(batchOutput(x))));
      expect(javaRows).toEqual([
        { id: 1, ref: Buffer.from(bytesOf(3, 300), "base64").subarray(10, 110).toString("base64"), picture: rows[0].picture },
        { id: 2, ref: null, picture: null },
        { id: 3, ref: Buffer.from("outside").toString("base64"), picture: rows[2].picture },
      ]);
      expect(await rowsOf(t.copy({ "blob-as-descriptor": "true" }))).toEqual(javaDescriptors);
      expect(javaDescriptors.map((r) => r.ref)).toEqual(rows.map((r) => r.ref));
      expect(await rowsOf(t, { filter: col("id").lt(3), predicateFilter: true })).toEqual(javaRows.slice(0, 2));
      // compaction copies the descriptors (not the bytes they point at) into the new file
      await writeRt(t, [[{ id: 4, ref: desc(inside, 0, 5), picture: null }]]);
      await compactRt(t.copy({ "compaction.min.file-num": "2" }));
      const compacted = await (await Catalog.open(wh)).getTable("db.t");
      expect((await compacted.snapshotManager.latestSnapshot())!.commitKind).toBe("COMPACT");
      const [javaAfter, javaAfterDescriptors] = (await runBatch("java", [["read", wh, "db.t", "--sort"], ["read", wh, "db.t", "--sort", "--option", "blob-as-descriptor=true"]])).map((x) => sortRows(parseJsonLines(batchOutput(x))));
      expect(javaAfter).toEqual([...javaRows, { id: 4, ref: Buffer.from(bytesOf(3, 300), "base64").subarray(0, 5).toString("base64"), picture: null }]);
      expect(javaAfterDescriptors.map((r) => r.ref)).toEqual([...rows.map((r) => r.ref), desc(inside, 0, 5)]);
      expect(await rowsOf(compacted.copy({ "blob-as-descriptor": "true" }))).toEqual(javaAfterDescriptors);
    },
    SLOW,
  );
});
