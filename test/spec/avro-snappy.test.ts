// Avro snappy blocks (raw snappy + big-endian CRC-32 of the content) are read by snappyjs's
// decompressor alone; malformed blocks are CORRUPT_FILE, never a TypeError or a wrong record.
import { expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { compileSchema, crc32, MAGIC, META_SCHEMA, readContainer } from "../../src/spec/avro.js";
import { AvroWriter, encodeAvro, writeContainer } from "../../src/spec/avro-write.js";

const TYPE = compileSchema({ type: "record", name: "r", fields: [{ name: "a", type: "long" }, { name: "s", type: "string" }] });
const RECORDS = Array.from({ length: 300 }, (_, i) => ({ a: BigInt(i * 3), s: `row-${i % 13}-${"y".repeat(i % 9)}` }));

/** An Avro container of RECORDS in one snappy block whose bytes are `block` (compressed + CRC). */
function container(block: Uint8Array): Uint8Array {
  const out = new AvroWriter();
  out.writeRaw(MAGIC);
  encodeAvro(META_SCHEMA, new Map([["avro.schema", new TextEncoder().encode(JSON.stringify(TYPE.schema))], ["avro.codec", new TextEncoder().encode("snappy")]]), out);
  const sync = new Uint8Array(16).fill(9);
  out.writeRaw(sync);
  out.writeLong(RECORDS.length);
  out.writeLong(block.length);
  out.writeRaw(block);
  out.writeRaw(sync);
  return out.bytes().slice();
}

function withCrc(compressed: number[], content: Uint8Array): Uint8Array {
  const crc = crc32(content);
  return new Uint8Array([...compressed, crc >>> 24, (crc >>> 16) & 0xff, (crc >>> 8) & 0xff, crc & 0xff]);
}

function corrupt(bytes: Uint8Array): PaimonError {
  try {
    readContainer(bytes);
  } catch (e) {
    expect(e).toBeInstanceOf(PaimonError);
    return e as PaimonError;
  }
  throw new Error("read without an error");
}

it("snappy containers written by us read back exactly", async () => {
  const bytes = await writeContainer(TYPE, RECORDS, { codec: "snappy" });
  expect(readContainer(bytes).records).toEqual(RECORDS);
});

it("a malformed length, a copy before the start, a short block and a CRC mismatch are CORRUPT_FILE", () => {
  const content = new Uint8Array([1, 2, 3, 4]);
  expect(corrupt(container(withCrc([0xff, 0xff, 0xff, 0xff, 0xff, 0xff], content))).code).toBe("CORRUPT_FILE"); // length varint never ends
  expect(corrupt(container(withCrc([8, 0x01 | (4 << 2) * 0, 0x09, 0x05], content))).code).toBe("CORRUPT_FILE"); // copy reaching before the start
  expect(corrupt(container(withCrc([8, 3 << 2, 1, 2], content))).code).toBe("CORRUPT_FILE"); // literal of 4 with 2 bytes
  expect(corrupt(container(withCrc([4, 3 << 2, 1, 2, 3, 5], content))).message).toMatch(/CRC mismatch/); // valid block, other content
  expect(corrupt(container(new Uint8Array([1, 2, 3]))).code).toBe("CORRUPT_FILE"); // no room for the CRC
});
