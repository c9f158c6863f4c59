// Avro "zstandard" blocks are decompressed by the zstd module (spec/zstd.ts) once it is loaded
// and the frame declares its content size, else by fzstd (frames of streaming compressors such
// as Java's declare none). Same records either way; corrupt blocks report fzstd's error as before.
import { afterEach, expect, it, vi } from "vitest";

const fzstdCalls = vi.hoisted(() => ({ n: 0 }));
vi.mock("fzstd", async (original) => {
  const m = await original<typeof import("fzstd")>();
  return { ...m, decompress: (data: Uint8Array, out?: Uint8Array) => (fzstdCalls.n++, m.decompress(data, out)) };
});

const { compileSchema, META_SCHEMA, MAGIC, readContainer } = await import("../../src/spec/avro.js");
const { AvroWriter, encodeAvro, writeContainer } = await import("../../src/spec/avro-write.js");
const { declaredContentSize, loadZstd, loadedZstd } = await import("../../src/spec/zstd.js");

afterEach(() => {
  fzstdCalls.n = 0;
});

const MAGIC_BYTES = [0x28, 0xb5, 0x2f, 0xfd];

it("declaredContentSize reads the Frame_Content_Size field of every width, after the window and dictionary id fields", async () => {
  expect(declaredContentSize(new Uint8Array([...MAGIC_BYTES, 0x20, 200, 0, 0]))).toBe(200); // single segment, 1 byte
  expect(declaredContentSize(new Uint8Array([...MAGIC_BYTES, 0x40, 0x58, 0x34, 0x12, 0]))).toBe(0x1234 + 256); // window byte, 2 bytes (+256)
  expect(declaredContentSize(new Uint8Array([...MAGIC_BYTES, 0x81, 0x58, 0x07, 0x78, 0x56, 0x34, 0x12]))).toBe(0x12345678); // window, 1-byte dict id, 4 bytes
  expect(declaredContentSize(new Uint8Array([...MAGIC_BYTES, 0xe0, 5, 0, 0, 0, 0, 0, 0, 0]))).toBe(5); // single segment, 8 bytes
  expect(declaredContentSize(new Uint8Array([...MAGIC_BYTES, 0xe0, 0, 0, 0, 0, 1, 0, 0, 0]))).toBeUndefined(); // past 2^31: left to fzstd
  expect(declaredContentSize(new Uint8Array([...MAGIC_BYTES, 0x00, 0x58, 1, 0, 0]))).toBeUndefined(); // none declared (streaming)
  expect(declaredContentSize(new Uint8Array([...MAGIC_BYTES, 0x40, 0x58, 0x34]))).toBeUndefined(); // truncated
  expect(declaredContentSize(new Uint8Array([0x28, 0xb5, 0x2f, 0xfe, 0x20, 1]))).toBeUndefined(); // no zstd magic
  const codec = (await loadZstd())!;
  const content = new Uint8Array(70_000).map((_, i) => (i * 7) & 0xff);
  expect(declaredContentSize(codec.compress(content, 3))).toBe(70_000);
});

const TYPE = compileSchema({ type: "record", name: "r", fields: [{ name: "a", type: "long" }, { name: "s", type: "string" }] });
const RECORDS = Array.from({ length: 500 }, (_, i) => ({ a: BigInt(i * 1000), s: `row-${i}-${"x".repeat(i % 17)}` }));

/** An Avro container of RECORDS in one zstandard block whose frame is `frame(block bytes)`. */
function container(frame: (block: Uint8Array) => Uint8Array): Uint8Array {
  const out = new AvroWriter();
  out.writeRaw(MAGIC);
  encodeAvro(META_SCHEMA, new Map([["avro.schema", new TextEncoder().encode(JSON.stringify(TYPE.schema))], ["avro.codec", new TextEncoder().encode("zstandard")]]), out);
  const sync = new Uint8Array(16).fill(7);
  out.writeRaw(sync);
  const block = new AvroWriter();
  for (const r of RECORDS) encodeAvro(TYPE, r, block);
  const data = frame(block.bytes().slice());
  out.writeLong(RECORDS.length);
  out.writeLong(data.length);
  out.writeRaw(data);
  out.writeRaw(sync);
  return out.bytes().slice();
}

/** A zstd frame of raw blocks that declares no content size (as streaming compressors write). */
function streamingFrame(content: Uint8Array): Uint8Array {
  const parts = [...MAGIC_BYTES, 0x00, 0x58]; // no size, no dictionary; window 8 MiB
  for (let at = 0; at < content.length || at === 0; at += 65536) {
    const n = Math.min(65536, content.length - at);
    const header = ((at + n >= content.length ? 1 : 0) | (n << 3)) >>> 0; // raw block
    parts.push(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff, ...content.subarray(at, at + n));
    if (at + n >= content.length) break;
  }
  return new Uint8Array(parts);
}

it("zstandard blocks that declare their size are decompressed by the loaded zstd module, others by fzstd: the same records", async () => {
  const codec = (await loadZstd())!;
  expect(loadedZstd()).toBe(codec);
  const sized = container((b) => codec.compress(b, 3));
  expect(readContainer(sized).records).toEqual(RECORDS);
  expect(fzstdCalls.n).toBe(0);
  const streaming = container(streamingFrame);
  expect(readContainer(streaming).records).toEqual(RECORDS);
  expect(fzstdCalls.n).toBe(1);
  const written = await writeContainer(TYPE, RECORDS, { codec: "zstandard" }); // the writer's frames declare their size
  fzstdCalls.n = 0;
  expect(readContainer(written).records).toEqual(RECORDS);
  expect(fzstdCalls.n).toBe(0);
});

it("a corrupt zstandard block that declares its size still fails with fzstd's error", async () => {
  const codec = (await loadZstd())!;
  const bytes = container((b) => {
    const f = codec.compress(b, 3);
    f.fill(0xff, 12, 40); // damage the compressed blocks
    return f;
  });
  expect(() => readContainer(bytes)).toThrow();
  expect(fzstdCalls.n).toBe(1);
});

it("a block whose frame declares more than 64 MiB is left to fzstd: the shared wasm memory is not grown for it", async () => {
  const codec = (await loadZstd())!;
  const wasmCalls = vi.spyOn(codec, "decompress");
  // a raw-block frame declaring 64 MiB + 1 bytes but holding 16: fzstd reports the mismatch
  const content = new Uint8Array(16).fill(3);
  const size = (64 << 20) + 1;
  const frame = new Uint8Array([...MAGIC_BYTES, 0xa0, size & 0xff, (size >> 8) & 0xff, (size >> 16) & 0xff, (size >>> 24) & 0xff, 1 | (16 << 3), 0, 0, ...content]);
  expect(declaredContentSize(frame)).toBe(size);
  const bytes = container(() => frame);
  expect(() => readContainer(bytes)).toThrow();
  expect(fzstdCalls.n).toBe(1);
  expect(wasmCalls).not.toHaveBeenCalled();
  wasmCalls.mockRestore();
});
