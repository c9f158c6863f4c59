/** Roaring64Bitmap bytes for tests (Java RoaringBitmap 1.2.1's native layout, see src/kernel/roaring64.ts). */
const hex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));

/**
 * A bitmap of one 48-bit high key (one leaf, one array container of sorted distinct `values`) laid
 * out as Java writes it; `bad` replaces parts to corrupt it.
 */
export function oneKeyRoaring64(high: bigint, values: number[], bad: { keySize?: number; slot?: number; slots?: number; nodeType?: number } = {}): Uint8Array {
  const key = Buffer.alloc(8);
  key.writeBigUInt64BE(high << 16n);
  const container = Buffer.alloc(6 + values.length * 2);
  container.writeUInt8(2, 0);
  container.writeInt32LE(values.length, 1);
  values.forEach((v, i) => container.writeUInt16LE(v, 5 + i * 2));
  const le32 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    return b;
  };
  return new Uint8Array(
    Buffer.concat([
      hex("01"),
      le32(bad.keySize ?? 1),
      le32(0),
      Buffer.from([bad.nodeType ?? 4, 0, 0, 0]),
      key.subarray(0, 6),
      le32(bad.slot ?? 0),
      le32(0),
      le32(1),
      hex("fe"),
      le32(bad.slots ?? 1),
      hex("01"),
      container.subarray(0, 5 + values.length * 2),
      le32(1),
      le32(0),
      le32(0),
      le32(0),
    ]),
  );
}
