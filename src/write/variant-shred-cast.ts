// Java Paimon 1.4.2's castShredded (VariantShreddingWriter with PaimonShreddedResultBuilder,
// numeric scale changes allowed) writing straight into Arrow column builders of the shredded
// group: which part of a variant goes to `typed_value` and which stays in `value`.
// - a scalar goes to typed_value when its variant type matches (integers of any width to an
//   integer column they fit, or to a decimal column they fit at its scale; decimals to a decimal
//   column they fit exactly at its scale, or to an integer column when integral and in range;
//   booleans, strings, doubles and floats only to their own type); otherwise its bytes
//   stay in `value` (a variant null too);
// - an array under an array schema: an element group per element; an object under an object
//   schema: a group per schema field (a missing field has value and typed_value null), the fields
//   not in the schema kept in `value` as an object with the row's metadata ids (shallow copy);
// - anything else: its bytes in `value`.
import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { ARRAY, arrayLayout, byteAt, metadataKey, OBJECT, objectLayout, readUnsigned, scalarAt, VariantBuilder, type VariantFieldEntry, valueSize } from "../spec/variant-encoding.js";
import type { ShredLevel, ShredScalar } from "./variant-shred-schema.js";

/** Growable validity of one column (a byte per slot until finished). */
class Validity {
  private bits = new Uint8Array(64);
  length = 0;
  nulls = 0;

  push(valid: boolean): void {
    if (this.length === this.bits.length) {
      const grown = new Uint8Array(this.bits.length * 2);
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[this.length++] = valid ? 1 : 0;
    if (!valid) this.nulls++;
  }

  bitmap(): Uint8Array {
    const out = new Uint8Array((this.length + 7) >> 3);
    for (let i = 0; i < this.length; i++) if (this.bits[i]) out[i >> 3]! |= 1 << (i & 7);
    return out;
  }
}

/** Growable bytes of a binary / string column, with its offsets. */
class BinaryColumn {
  readonly validity = new Validity();
  private bytes = new Uint8Array(256);
  private size = 0;
  private offsets: number[] = [0];

  append(value: Uint8Array, from = 0, to = value.length): void {
    const n = to - from;
    if (this.size + n > this.bytes.length) {
      let capacity = this.bytes.length * 2;
      while (capacity < this.size + n) capacity *= 2;
      const grown = new Uint8Array(capacity);
      grown.set(this.bytes.subarray(0, this.size));
      this.bytes = grown;
    }
    this.bytes.set(value.subarray(from, to), this.size);
    this.size += n;
    this.offsets.push(this.size);
    this.validity.push(true);
  }

  appendNull(): void {
    this.offsets.push(this.size);
    this.validity.push(false);
  }

  finish(type: arrow.DataType): arrow.Data {
    if (this.size > 0x7fffffff) throw new PaimonError("UNSUPPORTED", "a shredded VARIANT column chunk over 2 GiB");
    return arrow.makeData({ type: type as arrow.Binary, length: this.validity.length, nullCount: this.validity.nulls, nullBitmap: this.validity.bitmap(), valueOffsets: Int32Array.from(this.offsets), data: this.bytes.slice(0, this.size) });
  }
}

const utf8 = new TextEncoder();

/** A typed scalar column: values kept in a plain array (numbers, bigints or byte strings) until finished. */
class ScalarColumn {
  readonly validity = new Validity();
  private readonly values: Array<number | bigint | boolean> = [];
  private readonly binary: BinaryColumn | null;

  constructor(readonly target: ShredScalar) {
    this.binary = target.kind === "string" ? new BinaryColumn() : null;
  }

  appendNull(): void {
    if (this.binary) return this.binary.appendNull();
    this.values.push(0);
    this.validity.push(false);
  }

  append(v: number | bigint | boolean): void {
    this.values.push(v);
    this.validity.push(true);
  }

  appendBytes(bytes: Uint8Array): void {
    this.binary!.append(bytes);
  }

  finish(type: arrow.DataType): arrow.Data {
    if (this.binary) return this.binary.finish(type);
    const t = this.target;
    const length = this.validity.length;
    let data: ArrayBufferView;
    switch (t.kind) {
      case "boolean": {
        const bits = new Uint8Array((length + 7) >> 3);
        this.values.forEach((v, i) => {
          if (v === true) bits[i >> 3]! |= 1 << (i & 7);
        });
        data = bits;
        break;
      }
      case "int":
        data = t.bits === 64 ? BigInt64Array.from(this.values, (v) => BigInt(v as number | bigint)) : (t.bits === 8 ? Int8Array : t.bits === 16 ? Int16Array : Int32Array).from(this.values as number[]);
        break;
      case "float":
        data = Float32Array.from(this.values as number[]);
        break;
      case "double":
        data = Float64Array.from(this.values as number[]);
        break;
      case "decimal": {
        // 128-bit two's complement, little-endian words
        const words = new Uint32Array(length * 4);
        this.values.forEach((v, i) => {
          let u = BigInt.asUintN(128, BigInt(v as number | bigint));
          for (let w = 0; w < 4; w++, u >>= 32n) words[i * 4 + w] = Number(u & 0xffffffffn);
        });
        data = words;
        break;
      }
      default:
        throw new Error(`unreachable scalar ${t.kind}`);
    }
    return arrow.makeData({ type: type as arrow.Int, length, nullCount: this.validity.nulls, nullBitmap: this.validity.bitmap(), data: data as Int32Array });
  }
}

/** The columns of one shredded group (a row's variant, an object field's or an array element's). */
export class ShreddedGroup {
  readonly validity = new Validity();
  readonly metadata: BinaryColumn | null;
  readonly value = new BinaryColumn();
  readonly scalar: ScalarColumn | null;
  /** typed_value of an object: its validity and a group per schema field. */
  readonly objectValidity: Validity | null;
  readonly fields: ShreddedGroup[] | null;
  /** typed_value of an array: its validity, element offsets and the element groups. */
  readonly listValidity: Validity | null;
  readonly listOffsets: number[] | null;
  readonly element: ShreddedGroup | null;

  constructor(readonly level: ShredLevel) {
    this.metadata = level.topLevel ? new BinaryColumn() : null;
    this.scalar = level.scalar && new ScalarColumn(level.scalar);
    this.objectValidity = level.objectFields && new Validity();
    this.fields = level.objectFields && level.objectFields.map((f) => new ShreddedGroup(f.level));
    this.listValidity = level.arrayElement && new Validity();
    this.listOffsets = level.arrayElement && [0];
    this.element = level.arrayElement && new ShreddedGroup(level.arrayElement);
  }

  /** A null group (a null variant), or (`valid`) a group whose value and typed_value are null (a missing object field). */
  appendEmpty(valid: boolean): void {
    this.validity.push(valid);
    this.metadata?.appendNull();
    this.value.appendNull();
    this.appendTypedNull();
  }

  private appendTypedNull(): void {
    this.scalar?.appendNull();
    if (this.fields) {
      this.objectValidity!.push(false);
      for (const f of this.fields) f.appendEmpty(false);
    }
    if (this.element) {
      this.listValidity!.push(false);
      this.listOffsets!.push(this.listOffsets![this.listOffsets!.length - 1]!);
    }
  }

  /** The shredded group's Arrow data, `type` being its Arrow struct (shreddedParquetField's). */
  finish(type: arrow.Struct): arrow.Data {
    const children = type.children.map((f) => {
      if (f.name === "metadata") return this.metadata!.finish(f.type);
      if (f.name === "value") return this.value.finish(f.type);
      if (this.scalar) return this.scalar.finish(f.type);
      if (this.fields) {
        const struct = f.type as arrow.Struct;
        const kids = this.fields.map((g, i) => g.finish(struct.children[i]!.type as arrow.Struct));
        return arrow.makeData({ type: struct, length: this.objectValidity!.length, nullCount: this.objectValidity!.nulls, nullBitmap: this.objectValidity!.bitmap(), children: kids });
      }
      const list = f.type as arrow.List;
      const child = this.element!.finish(list.children[0]!.type as arrow.Struct);
      return arrow.makeData({ type: list, length: this.listValidity!.length, nullCount: this.listValidity!.nulls, nullBitmap: this.listValidity!.bitmap(), valueOffsets: Int32Array.from(this.listOffsets!), child });
    });
    return arrow.makeData({ type, length: this.validity.length, nullCount: this.validity.nulls, nullBitmap: this.validity.bitmap(), children });
  }

  /**
   * Java's castShredded of the variant value at `pos` of `value` (`metadata`: the row's
   * dictionary, kept as is at the top level and for the ids of leftover object fields).
   */
  append(value: Uint8Array, metadata: Uint8Array, pos: number): void {
    this.validity.push(true);
    if (this.metadata) this.metadata.append(metadata);
    const basic = byteAt(value, pos) & 3;
    if (this.element && basic === ARRAY) {
      const a = arrayLayout(value, pos);
      for (let i = 0; i < a.size; i++) this.element.append(value, metadata, a.dataStart + readUnsigned(value, a.offsetStart + a.offsetSize * i, a.offsetSize));
      this.listValidity!.push(true);
      this.listOffsets!.push(this.listOffsets![this.listOffsets!.length - 1]! + a.size);
      this.value.appendNull();
      this.scalar?.appendNull();
      return;
    }
    if (this.fields && basic === OBJECT) {
      this.appendObject(value, metadata, pos);
      return;
    }
    if (this.scalar && this.appendTyped(this.scalar, value, pos)) {
      this.value.appendNull();
      return;
    }
    this.value.append(value, pos, pos + valueSize(value, pos));
    this.appendTypedNull();
  }

  private appendObject(value: Uint8Array, metadata: Uint8Array, pos: number): void {
    const schema = this.level.objectIndex!;
    const fields = this.fields!;
    const o = objectLayout(value, pos);
    const matched = new Uint8Array(fields.length);
    let rest: VariantBuilder | null = null;
    let entries: VariantFieldEntry[] | null = null;
    for (let i = 0; i < o.size; i++) {
      const id = readUnsigned(value, o.idStart + o.idSize * i, o.idSize);
      const key = metadataKey(metadata, id);
      const fieldPos = o.dataStart + readUnsigned(value, o.offsetStart + o.offsetSize * i, o.offsetSize);
      const index = schema.get(key);
      if (index !== undefined) {
        // (Java fails on a duplicate key the same way: the field would be written twice)
        if (matched[index]) throw new PaimonError("INVALID_ARGUMENT", `Invalid VARIANT input: duplicate object key ${JSON.stringify(key)}`);
        matched[index] = 1;
        fields[index]!.append(value, metadata, fieldPos);
      } else {
        rest ??= new VariantBuilder();
        entries ??= [];
        entries.push({ key, id, offset: rest.writePos });
        rest.appendRaw(value, fieldPos);
      }
    }
    for (let i = 0; i < fields.length; i++) if (!matched[i]) fields[i]!.appendEmpty(true);
    this.objectValidity!.push(true);
    if (rest) {
      rest.finishObject(0, entries!);
      this.value.append(rest.valueBytes());
    } else {
      this.value.appendNull();
    }
    this.scalar?.appendNull();
    if (this.element) {
      this.listValidity!.push(false);
      this.listOffsets!.push(this.listOffsets![this.listOffsets!.length - 1]!);
    }
  }

  /** Java's tryTypedShred: whether the scalar at `pos` went to the typed column. */
  private appendTyped(column: ScalarColumn, value: Uint8Array, pos: number): boolean {
    const basic = byteAt(value, pos) & 3;
    if (basic === OBJECT || basic === ARRAY) return false;
    const s = scalarAt(value, pos);
    const t = column.target;
    switch (s.kind) {
      case "long":
        if (t.kind === "int") return fitsInt(s.v, t.bits) && (column.append(t.bits === 64 ? s.v : Number(s.v)), true);
        if (t.kind === "decimal") {
          const scaled = s.v * 10n ** BigInt(t.scale);
          return digits(scaled) <= t.precision && (column.append(scaled), true);
        }
        return false;
      case "decimal":
        if (t.kind === "decimal") {
          if (digits(s.unscaled) <= t.precision && s.scale === t.scale) return column.append(s.unscaled), true;
          // another scale when no digit is lost
          const rescaled = rescale(s.unscaled, s.scale, t.scale);
          return rescaled !== null && digits(rescaled) <= t.precision && (column.append(rescaled), true);
        }
        if (t.kind === "int") {
          const integral = rescale(s.unscaled, s.scale, 0);
          return integral !== null && fitsInt(integral, t.bits) && (column.append(t.bits === 64 ? integral : Number(integral)), true);
        }
        return false;
      case "boolean":
        return t.kind === "boolean" && (column.append(s.v), true);
      case "string":
        // (Java goes through a String: malformed UTF-8 comes out replaced)
        return t.kind === "string" && (column.appendBytes(utf8.encode(s.v)), true);
      case "double":
        return t.kind === "double" && (column.append(s.v), true);
      case "float":
        return t.kind === "float" && (column.append(s.v), true);
      default:
        // null, dates, timestamps, binaries, UUIDs: no typed column Paimon writes holds them
        return false;
    }
  }
}

function fitsInt(v: bigint, bits: 8 | 16 | 32 | 64): boolean {
  return BigInt.asIntN(bits, v) === v;
}

/** Decimal digits of `v` (BigDecimal.precision of its unscaled value: 1 for 0). */
export function digits(v: bigint): number {
  return (v < 0n ? -v : v).toString().length;
}

/** `unscaled` × 10^-from as an unscaled value at scale `to`, or null when that loses digits. */
function rescale(unscaled: bigint, from: number, to: number): bigint | null {
  if (to >= from) return unscaled * 10n ** BigInt(to - from);
  const divisor = 10n ** BigInt(from - to);
  return unscaled % divisor === 0n ? unscaled / divisor : null;
}
