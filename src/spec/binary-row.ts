// Paimon BinaryRow: the binary row layout used for partitions, key/stat rows in
// manifests, and bucket hashing. Little-endian, 8-byte slots, strings of up to 7
// bytes inline, everything else in a variable part padded to 8 bytes.
// Layout reference: ../shared/reference/paimon-format.md §5.

const TEXT = new TextEncoder();

/** Bytes used by the null bit set (with the 8-bit header) for `arity` fields. */
export function nullBitsSizeInBytes(arity: number): number {
  return Math.floor((arity + 63 + 8) / 64) * 8;
}

/** Whether DECIMAL(precision) is stored compactly as an unscaled int64. */
export function isCompactDecimal(precision: number): boolean {
  return precision <= 18;
}

/** Whether TIMESTAMP(precision) is stored compactly as epoch millis. */
export function isCompactTimestamp(precision: number): boolean {
  return precision <= 3;
}

/**
 * Writes one BinaryRow field by field, as Java's `BinaryRowWriter` does (zeroed
 * buffer, canonical padding), so equal rows give equal bytes and equal hashes.
 * Reusable: `reset()` starts the next row in the same buffer.
 */
export class BinaryRowWriter {
  readonly arity: number;
  private readonly fixedSize: number;
  private readonly nullBytes: number;
  private buffer: Uint8Array;
  private view: DataView;
  private cursor: number;

  constructor(arity: number) {
    this.arity = arity;
    this.nullBytes = nullBitsSizeInBytes(arity);
    this.fixedSize = this.nullBytes + 8 * arity;
    this.buffer = new Uint8Array(Math.max(64, this.fixedSize));
    this.view = new DataView(this.buffer.buffer);
    this.cursor = this.fixedSize;
  }

  /** Clears the row (all fields zero, not null) for reuse. */
  reset(): this {
    this.buffer.fill(0, 0, this.cursor);
    this.cursor = this.fixedSize;
    return this;
  }

  /** Sets the RowKind byte of the header (0 INSERT for partitions, keys and stats). */
  setRowKind(kind: number): this {
    this.buffer[0] = kind;
    return this;
  }

  private slot(pos: number): number {
    return this.nullBytes + 8 * pos;
  }

  private ensure(extra: number): void {
    const need = this.cursor + extra;
    if (need <= this.buffer.length) return;
    const next = new Uint8Array(Math.max(need, this.buffer.length * 2));
    next.set(this.buffer);
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  private setNullBit(pos: number): void {
    const bit = pos + 8;
    this.buffer[bit >> 3] |= 1 << (bit & 7);
  }

  /** Marks a field null (for non-compact DECIMAL/TIMESTAMP use the typed writers with null). */
  setNullAt(pos: number): this {
    this.setNullBit(pos);
    this.view.setBigUint64(this.slot(pos), 0n, true);
    return this;
  }

  writeBoolean(pos: number, v: boolean): this {
    this.buffer[this.slot(pos)] = v ? 1 : 0;
    return this;
  }

  writeByte(pos: number, v: number): this {
    this.view.setInt8(this.slot(pos), v);
    return this;
  }

  writeShort(pos: number, v: number): this {
    this.view.setInt16(this.slot(pos), v, true);
    return this;
  }

  /** INT, DATE (days since epoch), TIME (millis of day). */
  writeInt(pos: number, v: number): this {
    this.view.setInt32(this.slot(pos), v, true);
    return this;
  }

  /** BIGINT, compact TIMESTAMP (millis), compact DECIMAL (unscaled). */
  writeLong(pos: number, v: bigint): this {
    this.view.setBigInt64(this.slot(pos), v, true);
    return this;
  }

  writeFloat(pos: number, v: number): this {
    this.view.setFloat32(this.slot(pos), v, true);
    return this;
  }

  writeDouble(pos: number, v: number): this {
    this.view.setFloat64(this.slot(pos), v, true);
    return this;
  }

  /** CHAR/VARCHAR/STRING (a JS string is UTF-8 encoded) and BINARY/VARBINARY/BYTES. */
  writeBinary(pos: number, value: Uint8Array | string): this {
    const bytes = typeof value === "string" ? TEXT.encode(value) : value;
    const slot = this.slot(pos);
    if (bytes.length <= 7) {
      this.buffer.set(bytes, slot);
      this.buffer[slot + 7] = 0x80 | bytes.length;
      return this;
    }
    const padded = (bytes.length + 7) & ~7;
    this.ensure(padded);
    this.buffer.set(bytes, this.cursor);
    this.setOffsetAndSize(pos, this.cursor, bytes.length);
    this.cursor += padded;
    return this;
  }

  /**
   * TIMESTAMP / TIMESTAMP_LTZ: compact (p <= 3) as millis in the slot, otherwise
   * millis in the variable part and the nano-of-millisecond in the slot. `null`
   * keeps the 8-byte reservation, as Java does for non-compact timestamps.
   */
  writeTimestamp(pos: number, value: { millis: bigint; nanoOfMillisecond: number } | null, precision: number): this {
    if (isCompactTimestamp(precision)) {
      return value === null ? this.setNullAt(pos) : this.writeLong(pos, value.millis);
    }
    this.ensure(8);
    if (value === null) {
      this.setNullBit(pos);
      this.setOffsetAndSize(pos, this.cursor, 0);
    } else {
      this.view.setBigInt64(this.cursor, value.millis, true);
      this.setOffsetAndSize(pos, this.cursor, value.nanoOfMillisecond);
    }
    this.cursor += 8;
    return this;
  }

  /**
   * DECIMAL(precision): compact as the unscaled int64; otherwise 16 reserved bytes
   * holding `BigInteger.toByteArray()` of the unscaled value (kept when null).
   */
  writeDecimal(pos: number, unscaled: bigint | null, precision: number): this {
    if (isCompactDecimal(precision)) {
      return unscaled === null ? this.setNullAt(pos) : this.writeLong(pos, unscaled);
    }
    this.ensure(16);
    if (unscaled === null) {
      this.setNullBit(pos);
      this.setOffsetAndSize(pos, this.cursor, 0);
    } else {
      const bytes = bigIntToTwosComplement(unscaled);
      if (bytes.length > 16) throw new RangeError(`decimal unscaled value ${unscaled} needs more than 16 bytes`);
      this.buffer.set(bytes, this.cursor);
      this.setOffsetAndSize(pos, this.cursor, bytes.length);
    }
    this.cursor += 16;
    return this;
  }

  private setOffsetAndSize(pos: number, offset: number, size: number): void {
    this.view.setBigUint64(this.slot(pos), (BigInt(offset) << 32n) | BigInt(size), true);
  }

  /** Size of the row written so far. */
  get sizeInBytes(): number {
    return this.cursor;
  }

  /** A view of the row's bytes (valid until the next write or reset). */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.cursor);
  }

  /** A copy of the row's bytes. */
  toBytes(): Uint8Array {
    return this.buffer.slice(0, this.cursor);
  }
}

/** `BigInteger.toByteArray()`: the shortest big-endian two's-complement encoding. */
export function bigIntToTwosComplement(v: bigint): Uint8Array {
  let bytes = 1;
  while (v < -(1n << BigInt(8 * bytes - 1)) || v >= 1n << BigInt(8 * bytes - 1)) bytes++;
  const out = new Uint8Array(bytes);
  let u = BigInt.asUintN(8 * bytes, v);
  for (let i = bytes - 1; i >= 0; i--) {
    out[i] = Number(u & 0xffn);
    u >>= 8n;
  }
  return out;
}
