/**
 * BLOB columns of data-evolution tables with Java Paimon 1.4.2: Java writes `(id, name, picture
 * BLOB)` tables (random bytes, sizes around `blob.target-file-size` so blob files roll; nulls;
 * two BLOB columns; descriptor fields), and paimon-rt reads exactly Java's bytes: plain, projected
 * (blob files not opened), filtered, time travel, `blob-as-descriptor=true` (Java's serialized
 * descriptors, byte-equal), `$row_tracking`. A corrupt blob file is CORRUPT_FILE naming it; a
 * descriptor pointing outside the table is UNSUPPORTED naming the URI. Skips with a printed reason
 * when scripts/setup-oracles.sh has not been run.
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
});
