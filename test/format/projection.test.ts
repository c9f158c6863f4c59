import { describe, expect, it } from "vitest";
import { readParquet, readParquetFooter, writeParquet, type RandomAccessSource } from "../../src/format/index.js";
import { DataTypes as T, notNull } from "../../src/spec/types.js";
import { batch, tableColumn } from "./helpers.js";

const F = T.FIELD;

/** A random-access source over bytes that records every range read. */
function recording(bytes: Uint8Array, name = "mem://t/data-1.parquet") {
  const reads: Array<[number, number]> = [];
  const src: RandomAccessSource = {
    size: bytes.length,
    name,
    read: async (offset, length) => {
      reads.push([offset, length]);
      return bytes.slice(offset, offset + length);
    },
  };
  return { src, reads };
}

describe("projection and field-id mapping", () => {
  const fields = [
    F(0, "id", notNull(T.BIGINT())),
    F(1, "name", T.STRING()),
    F(2, "payload", T.STRING()),
    F(3, "r", T.ROW([F(10, "a", T.INT()), F(11, "b", T.STRING())])),
  ];
  const n = 20000;
  const ids = Array.from({ length: n }, (_, i) => BigInt(i));
  const data = batch(fields, {
    id: ids,
    name: ids.map((i) => `n${i}`),
    payload: ids.map((i) => `payload-${i}-`.repeat(8)),
    r: ids.map((i) => ({ a: Number(i), b: i % 2n ? null : "b" })),
  });

  it("fetches and decodes only the requested columns", async () => {
    const file = await writeParquet(fields, data, { rowGroupRows: 5000, compression: "none" });
    const footer = await readParquetFooter(file.bytes);
    const { src, reads } = recording(file.bytes);
    const t = await readParquet(src, { fields: [fields[1]!, fields[0]!] });
    expect(t.schema.fields.map((f) => f.name)).toEqual(["name", "id"]);
    expect(tableColumn(t, "id", T.BIGINT())).toEqual(ids);
    expect(tableColumn(t, "name", T.STRING())[12345]).toBe("n12345");
    // Every byte read is either the footer tail or a chunk of "id"/"name".
    const allowed = footer.rowGroups.flatMap((rg) => [rg.chunks[0]!, rg.chunks[1]!]);
    const payloadChunks = footer.rowGroups.map((rg) => rg.chunks[2]!);
    const dataEnd = footer.size - 8 - footer.metadataLength;
    let dataBytes = 0;
    for (const [off, len] of reads) {
      if (off + len > dataEnd - 1 && off >= footer.size - 64 * 1024) continue; // footer read
      dataBytes += len;
      for (const p of payloadChunks) expect(off + len <= p.start || off >= p.start + p.length).toBe(true);
    }
    expect(dataBytes).toBe(allowed.reduce((s, c) => s + c.length, 0));
    expect(dataBytes).toBeLessThan(file.fileSize / 3);
  });

  it("maps added, renamed and dropped columns by field id", async () => {
    // Schema v0: id(0), name(1), payload(2), r(3). Schema v1: payload dropped, name renamed to
    // "title", new column "score"(4) added, nested r.b renamed and r.c(12) added.
    const file = await writeParquet(fields, data);
    const v1 = [
      F(4, "score", T.DOUBLE()),
      F(0, "id", notNull(T.BIGINT())),
      F(1, "title", T.STRING()),
      F(3, "r", T.ROW([F(11, "bee", T.STRING()), F(12, "c", T.BIGINT()), F(10, "a", T.INT())])),
    ];
    const t = await readParquet(file.bytes, { fields: v1 });
    expect(t.schema.fields.map((f) => f.name)).toEqual(["score", "id", "title", "r"]);
    expect(t.numRows).toBe(n);
    expect(tableColumn(t, "score", T.DOUBLE()).every((v) => v === null)).toBe(true);
    expect(tableColumn(t, "title", T.STRING())[7]).toBe("n7");
    const r = tableColumn(t, "r", v1[3]!.type);
    expect(r[2]).toEqual({ bee: "b", c: null, a: 2 });
    expect(r[3]).toEqual({ bee: null, c: null, a: 3 });
    // By name instead: "title" is missing, "id" found.
    const byName = await readParquet(file.bytes, { fields: v1, mapBy: "name" });
    expect(tableColumn(byName, "title", T.STRING()).every((v) => v === null)).toBe(true);
    // Only missing columns: row count preserved, nothing decoded.
    const only = await readParquet(file.bytes, { fields: [F(9, "new", T.INT())], batchSize: 4096 });
    expect(only.numRows).toBe(n);
    expect(only.batches.every((b) => b.numRows <= 4096)).toBe(true);
  });

  it("maps by the names of the file's own schema when matching by name (files without field ids)", async () => {
    // pypaimon writes no Parquet field ids; Java then finds columns under their names in the
    // schema the file was written with (its _SCHEMA_ID), by field id.
    const file = await writeParquet(fields, data);
    const v2 = [F(0, "id", notNull(T.BIGINT())), F(1, "title", T.STRING()), F(5, "payload", T.INT())]; // payload dropped and re-added
    const t = await readParquet(file.bytes, { fields: v2, mapBy: "name", fileFields: fields });
    expect(tableColumn(t, "title", T.STRING())[7]).toBe("n7");
    expect(tableColumn(t, "payload", T.INT()).every((v) => v === null)).toBe(true);
    expect(tableColumn(t, "id", T.BIGINT())[3]).toBe(3n);
  });

  it("widens types on read (INT -> BIGINT, FLOAT -> DOUBLE, TIMESTAMP(3) -> TIMESTAMP(6))", async () => {
    const old = [F(0, "a", T.INT()), F(1, "f", T.FLOAT()), F(2, "ts", T.TIMESTAMP(3))];
    const file = await writeParquet(old, batch(old, { a: [1, null, -5], f: [1.5, null, 2], ts: [1700000000123n, null, -1n] }));
    const next = [F(0, "a", T.BIGINT()), F(1, "f", T.DOUBLE()), F(2, "ts", T.TIMESTAMP(6))];
    const t = await readParquet(file.bytes, { fields: next });
    expect(tableColumn(t, "a", T.BIGINT())).toEqual([1n, null, -5n]);
    expect(tableColumn(t, "f", T.DOUBLE())).toEqual([1.5, null, 2]);
    expect(tableColumn(t, "ts", T.TIMESTAMP(6))).toEqual([1700000000123000n, null, -1000n]);
    await expect(readParquet(file.bytes, { fields: [F(0, "a", T.STRING())] })).rejects.toMatchObject({ code: "UNSUPPORTED" });
  });

  it("validates options", async () => {
    const file = await writeParquet(fields.slice(0, 2), batch(fields.slice(0, 2), { id: [1n], name: ["x"] }));
    await expect(readParquet(file.bytes, { rowGroups: [3] })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(readParquet(file.bytes, { columns: ["nope"] })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(readParquet(file.bytes, { batchSize: 0 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
