// Thrift compact protocol, parsed into a tree that keeps every field's wire type so it can be
// edited and written back byte-compatible. Used to read Parquet footers (FileMetaData) and to
// build pruned footers for projected reads. Errors are plain `Error`s; callers wrap them.

import { keepShape } from "../kernel/shapes.js";

export const T_STOP = 0;
export const T_TRUE = 1;
export const T_FALSE = 2;
export const T_BYTE = 3;
export const T_I16 = 4;
export const T_I32 = 5;
export const T_I64 = 6;
export const T_DOUBLE = 7;
export const T_BINARY = 8;
export const T_LIST = 9;
export const T_SET = 10;
export const T_MAP = 11;
export const T_STRUCT = 12;

/** A struct: fields in wire order. */
export interface TStruct {
  fields: TField[];
}
export interface TField {
  id: number;
  /** Wire type (T_TRUE/T_FALSE both mean bool; normalized to T_TRUE here). */
  type: number;
  value: TValue;
}
export interface TList {
  elemType: number;
  items: TValue[];
}
export interface TMap {
  keyType: number;
  valueType: number;
  entries: Array<[TValue, TValue]>;
}
export type TValue = boolean | number | bigint | Uint8Array | TStruct | TList | TMap;

const MAX_DEPTH = 64;

class Reader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  byte(): number {
    if (this.pos >= this.end) throw new Error("thrift: unexpected end of data");
    return this.buf[this.pos++]!;
  }

  varint32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      if (shift < 28) result |= (b & 0x7f) << shift;
      else result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
      if (shift > 35) throw new Error("thrift: varint too long");
    }
    return result >>> 0;
  }

  varint64(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 70n) throw new Error("thrift: varint too long");
    }
    return result;
  }

  zigzag32(): number {
    const n = this.varint32();
    return (n >>> 1) ^ -(n & 1);
  }

  zigzag64(): bigint {
    const n = this.varint64();
    return (n >> 1n) ^ -(n & 1n);
  }

  bytes(len: number): Uint8Array {
    if (len < 0 || this.pos + len > this.end) throw new Error("thrift: binary length out of range");
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
}
keepShape(new Reader(new Uint8Array(0), 0, 0));

function readValue(r: Reader, type: number, depth: number): TValue {
  switch (type) {
    case T_TRUE:
      return true;
    case T_FALSE:
      return false;
    case T_BYTE: {
      const b = r.byte();
      return (b << 24) >> 24;
    }
    case T_I16:
    case T_I32:
      return r.zigzag32();
    case T_I64:
      return r.zigzag64();
    case T_DOUBLE: {
      const b = r.bytes(8);
      return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, true);
    }
    case T_BINARY:
      return r.bytes(r.varint32());
    case T_LIST:
    case T_SET: {
      const header = r.byte();
      let size = header >> 4;
      const elemType = header & 0x0f;
      if (size === 15) size = r.varint32();
      if (size > r.end - r.pos) throw new Error("thrift: list size out of range");
      const items: TValue[] = new Array(size);
      for (let i = 0; i < size; i++) {
        if (elemType === T_TRUE || elemType === T_FALSE) items[i] = r.byte() === T_TRUE;
        else items[i] = readValue(r, elemType, depth + 1);
      }
      return { elemType: elemType === T_FALSE ? T_TRUE : elemType, items };
    }
    case T_MAP: {
      const size = r.varint32();
      if (size > r.end - r.pos) throw new Error("thrift: map size out of range");
      if (size === 0) return { keyType: 0, valueType: 0, entries: [] };
      const kv = r.byte();
      const keyType = kv >> 4;
      const valueType = kv & 0x0f;
      const entries: Array<[TValue, TValue]> = [];
      for (let i = 0; i < size; i++) entries.push([readValue(r, keyType, depth + 1), readValue(r, valueType, depth + 1)]);
      return { keyType, valueType, entries };
    }
    case T_STRUCT:
      return readStruct(r, depth + 1);
    default:
      throw new Error(`thrift: unknown field type ${type}`);
  }
}

function readStruct(r: Reader, depth: number): TStruct {
  if (depth > MAX_DEPTH) throw new Error("thrift: nesting too deep");
  const fields: TField[] = [];
  let last = 0;
  for (;;) {
    const header = r.byte();
    const type = header & 0x0f;
    if (type === T_STOP) break;
    const delta = header >> 4;
    const id = delta === 0 ? r.zigzag32() : last + delta;
    last = id;
    const value = readValue(r, type, depth);
    fields.push({ id, type: type === T_FALSE ? T_TRUE : type, value });
  }
  return { fields };
}

/** Parses one struct from `buf[start, end)`; returns it and the position after it. */
export function parseStruct(buf: Uint8Array, start = 0, end = buf.length): { value: TStruct; end: number } {
  const r = new Reader(buf, start, end);
  const value = readStruct(r, 0);
  return { value, end: r.pos };
}

// ---------------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------------

class Writer {
  buf = new Uint8Array(1024);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b & 0xff;
  }

  varint32(n: number): void {
    n >>>= 0;
    while (n >= 0x80) {
      this.byte((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    this.byte(n);
  }

  varint64(n: bigint): void {
    while (n >= 0x80n) {
      this.byte(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.byte(Number(n));
  }

  zigzag32(n: number): void {
    this.varint32((n << 1) ^ (n >> 31));
  }

  zigzag64(n: bigint): void {
    this.varint64(BigInt.asUintN(64, (n << 1n) ^ (n >> 63n)));
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
}
keepShape(new Writer());

function writeValue(w: Writer, type: number, value: TValue): void {
  switch (type) {
    case T_TRUE:
    case T_FALSE:
      // Only reached for collection elements; struct fields encode bools in the header.
      w.byte(value ? T_TRUE : T_FALSE);
      return;
    case T_BYTE:
      w.byte(value as number);
      return;
    case T_I16:
    case T_I32:
      w.zigzag32(value as number);
      return;
    case T_I64:
      w.zigzag64(typeof value === "bigint" ? value : BigInt(value as number));
      return;
    case T_DOUBLE: {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setFloat64(0, value as number, true);
      w.bytes(b);
      return;
    }
    case T_BINARY: {
      const b = value as Uint8Array;
      w.varint32(b.length);
      w.bytes(b);
      return;
    }
    case T_LIST:
    case T_SET: {
      const l = value as TList;
      const n = l.items.length;
      if (n < 15) w.byte((n << 4) | l.elemType);
      else {
        w.byte(0xf0 | l.elemType);
        w.varint32(n);
      }
      for (const item of l.items) writeValue(w, l.elemType, item);
      return;
    }
    case T_MAP: {
      const m = value as TMap;
      w.varint32(m.entries.length);
      if (m.entries.length === 0) return;
      w.byte((m.keyType << 4) | m.valueType);
      for (const [k, v] of m.entries) {
        writeValue(w, m.keyType, k);
        writeValue(w, m.valueType, v);
      }
      return;
    }
    case T_STRUCT:
      writeStruct(w, value as TStruct);
      return;
    default:
      throw new Error(`thrift: cannot write type ${type}`);
  }
}

function writeStruct(w: Writer, s: TStruct): void {
  let last = 0;
  for (const f of s.fields) {
    const wireType = f.type === T_TRUE || f.type === T_FALSE ? (f.value ? T_TRUE : T_FALSE) : f.type;
    const delta = f.id - last;
    if (delta > 0 && delta <= 15) w.byte((delta << 4) | wireType);
    else {
      w.byte(wireType);
      w.zigzag32(f.id);
    }
    last = f.id;
    if (wireType !== T_TRUE && wireType !== T_FALSE) writeValue(w, f.type, f.value);
  }
  w.byte(T_STOP);
}

/** Serializes a struct with the compact protocol. */
export function serializeStruct(s: TStruct): Uint8Array {
  const w = new Writer();
  writeStruct(w, s);
  return w.buf.slice(0, w.pos);
}

// ---------------------------------------------------------------------------------------------
// Accessors
// ---------------------------------------------------------------------------------------------

export function getField(s: TStruct, id: number): TField | undefined {
  for (const f of s.fields) if (f.id === id) return f;
  return undefined;
}

export function getValue(s: TStruct, id: number): TValue | undefined {
  return getField(s, id)?.value;
}

export function getStruct(s: TStruct, id: number): TStruct | undefined {
  const v = getValue(s, id);
  return v !== undefined && typeof v === "object" && "fields" in v ? v : undefined;
}

export function getList(s: TStruct, id: number): TValue[] | undefined {
  const v = getValue(s, id);
  return v !== undefined && typeof v === "object" && "items" in v ? v.items : undefined;
}

export function getNumber(s: TStruct, id: number): number | undefined {
  const v = getValue(s, id);
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  return undefined;
}

export function getBytes(s: TStruct, id: number): Uint8Array | undefined {
  const v = getValue(s, id);
  return v instanceof Uint8Array ? v : undefined;
}

/** Sets (or adds, keeping ascending id order) field `id`. */
export function setField(s: TStruct, id: number, type: number, value: TValue): void {
  const existing = getField(s, id);
  if (existing) {
    existing.type = type;
    existing.value = value;
    return;
  }
  const f: TField = { id, type, value };
  const at = s.fields.findIndex((x) => x.id > id);
  if (at < 0) s.fields.push(f);
  else s.fields.splice(at, 0, f);
}

export function removeFields(s: TStruct, ...ids: number[]): void {
  s.fields = s.fields.filter((f) => !ids.includes(f.id));
}
