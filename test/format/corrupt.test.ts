import { describe, expect, it } from "vitest";
import {
  parquetWasmRestarts,
  readParquet,
  readParquetStatistics,
  withParquetWasm,
  writeParquet,
  type RandomAccessSource,
} from "../../src/format/index.js";
import { PaimonError } from "../../src/error.js";
import { DataTypes as T } from "../../src/spec/types.js";
import { batch, tableColumn } from "./helpers.js";

const F = T.FIELD;
const fields = [F(0, "id", T.BIGINT()), F(1, "s", T.STRING()), F(2, "d", T.DOUBLE())];
const ids = Array.from({ length: 3000 }, (_, i) => BigInt(i));
const rows = { id: ids, s: ids.map((i) => `value-${i}`), d: ids.map((i) => Number(i) / 3) };

async function expectCorrupt(p: Promise<unknown>, name: string) {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(PaimonError);
  expect((e as PaimonError).code).toBe("CORRUPT_FILE");
  expect((e as PaimonError).message).toContain(name);
}

describe("corrupt files", () => {
  it("truncated, garbage and empty files give CORRUPT_FILE naming the file", async () => {
    const file = await writeParquet(fields, batch(fields, rows), { compression: "zstd" });
    const name = "data-bad.parquet";
    for (const cut of [1, 7, 100, Math.floor(file.fileSize / 2), file.fileSize - 1]) {
      await expectCorrupt(readParquet(file.bytes.subarray(0, cut), { fileName: name }), name);
      await expectCorrupt(readParquetStatistics(file.bytes.subarray(0, cut), name), name);
    }
    const garbage = new Uint8Array(5000).map((_, i) => (i * 131 + 7) & 0xff);
    await expectCorrupt(readParquet(garbage, { fileName: name }), name);
    await expectCorrupt(readParquet(new Uint8Array(0), { fileName: name }), name);
    // Garbage that ends in a valid-looking magic.
    const fake = garbage.slice();
    fake.set([8, 0, 0, 0, 0x50, 0x41, 0x52, 0x31], fake.length - 8);
    fake.set([0x50, 0x41, 0x52, 0x31], 0);
    await expectCorrupt(readParquet(fake, { fileName: name }), name);
  });

  it("corrupted pages inside a valid footer fail cleanly, and reads keep working", async () => {
    const file = await writeParquet(fields, batch(fields, rows), { compression: "zstd" });
    const dataEnd = file.fileSize - 8 - new DataView(file.bytes.buffer, file.bytes.byteOffset).getUint32(file.fileSize - 8, true);
    let failures = 0;
    for (let pos = 4; pos < dataEnd; pos += Math.max(1, Math.floor(dataEnd / 40))) {
      const bad = file.bytes.slice();
      for (let i = pos; i < Math.min(pos + 16, dataEnd); i++) bad[i] ^= 0xa5;
      try {
        await readParquet(bad, { fields, fileName: `page-${pos}.parquet` });
      } catch (e) {
        failures++;
        expect(e).toBeInstanceOf(PaimonError);
        expect((e as PaimonError).code).toBe("CORRUPT_FILE");
        expect((e as PaimonError).message).toContain(`page-${pos}.parquet`);
      }
    }
    expect(failures).toBeGreaterThan(0);
    const ok = await readParquet(file.bytes, { fields });
    expect(tableColumn(ok, "id", T.BIGINT())).toEqual(ids);
  });

  it("a wasm panic replaces the instance instead of killing the process", async () => {
    const before = parquetWasmRestarts();
    // Documented parquet-rs panic: dictionary encoding passed as a plain encoding.
    await expect(
      withParquetWasm((pw) => {
        new pw.WriterPropertiesBuilder().setEncoding(pw.Encoding.RLE_DICTIONARY);
      }),
    ).rejects.toBeInstanceOf(WebAssembly.RuntimeError);
    expect(parquetWasmRestarts()).toBe(before + 1);
    // The next operations run on a fresh instance.
    const file = await writeParquet(fields, batch(fields, rows));
    const t = await readParquet(file.bytes, { fields });
    expect(t.numRows).toBe(3000);
  });

  it("I/O errors and short reads of a random-access source are IO_ERROR, not crashes", async () => {
    const file = await writeParquet(fields, batch(fields, rows));
    const failing: RandomAccessSource = {
      size: file.fileSize,
      name: "s3://bucket/f.parquet",
      read: async (offset, length) => {
        if (offset < 100) throw new Error("connection reset");
        return file.bytes.slice(offset, offset + length);
      },
    };
    await expect(readParquet(failing, { fields })).rejects.toMatchObject({ code: "IO_ERROR" });
    const short: RandomAccessSource = { size: file.fileSize, read: async (o, l) => file.bytes.slice(o, o + l - 1) };
    await expect(readParquet(short, { fields })).rejects.toMatchObject({ code: "IO_ERROR" });
  });
});
