// Reads Avro data files (Java Paimon's `file.format=avro`, `file.format.per.level`, postpone-bucket
// files) into Arrow record batches. A lazily imported chunk: query bundles that never meet an Avro
// data file do not carry it.
//
// The container (header, blocks, codecs) is src/spec/avro.ts's; the records are decoded here
// straight into column builders over typed arrays (no JS object per row), from the file's writer
// schema as Java's AvroSchemaConverter makes it: nullable types are ["null", T] unions, TINYINT /
// SMALLINT / INT / DATE / TIME(≤3, millis) are int, BIGINT long, TIMESTAMP(0..3) millis and
// TIMESTAMP(4..6) micros in a long (LTZ the same), DECIMAL big-endian unscaled bytes, ROW a record,
// ARRAY an array, MAP with string keys a map, other MAPs and MULTISETs an array of {key, value}
// records (MULTISET<STRING> a map of int). Columns are matched by name in the schema the file was
// written with (its field ids → names, as Java), and cast as Parquet columns are when the type
// changed since (schema evolution).

// (only types are imported: the modules this chunk uses come from the query bundle through
// `AvroReadDeps`, as parquet-flat.ts's do, so bundlers split no shared module out of the bundle
// for this chunk)
import type * as arrow from "apache-arrow";
import type { PaimonError } from "../error.js";
import type { AvroNode, AvroReader, checkBlockEnd, containerBlocks, headerCodec, readContainerHeader } from "../spec/avro.js";
import type { fflateLoaded, loadFflate } from "../spec/fflate.js";
import type { loadZstd } from "../spec/zstd.js";
import type { DataField, DataType, toArrowType, typeToString } from "../spec/types.js";
import type { makeNullData, readArrowField } from "./arrow-types.js";
import type { columnCasts, readAs } from "./parquet-reader.js";
import type { recordBatch } from "../arrow/record-batch.js";

/** What the reader uses of the query bundle (file-formats.ts `readWholeDataFile` passes it). */
export interface AvroReadDeps {
  makeData: typeof arrow.makeData;
  Schema: typeof arrow.Schema;
  PaimonError: typeof PaimonError;
  AvroReader: typeof AvroReader;
  checkBlockEnd: typeof checkBlockEnd;
  containerBlocks: typeof containerBlocks;
  headerCodec: typeof headerCodec;
  readContainerHeader: typeof readContainerHeader;
  fflateLoaded: typeof fflateLoaded;
  loadFflate: typeof loadFflate;
  loadZstd: typeof loadZstd;
  toArrowType: typeof toArrowType;
  typeToString: typeof typeToString;
  makeNullData: typeof makeNullData;
  readArrowField: typeof readArrowField;
  columnCasts: typeof columnCasts;
  readAs: typeof readAs;
  recordBatch: typeof recordBatch;
}

let D: AvroReadDeps;

/** What to read from an Avro data file (as `ParquetReadOptions` with a read schema). */
export interface AvroDataReadOptions {
  /** Paimon fields to return, in this order. */
  fields: readonly DataField[];
  /** Fields of the schema the file was written with: a read field's column is the one named as its id is there. */
  fileFields?: readonly DataField[];
  batchSize: number;
  /** File name for error messages. */
  fileName: string;
}

function corrupt(what: string): PaimonError {
  return new D.PaimonError("CORRUPT_FILE", what);
}

// ---------------------------------------------------------------------------------------------
// Column builders: one value per row appended by `read` (non-null) or `nul`; `finish` hands the
// column out as Arrow data and starts a new one.
// ---------------------------------------------------------------------------------------------

abstract class Builder {
  length = 0;
  nullCount = 0;
  /** One byte per row: 1 valid, 0 null (packed at finish). */
  valid = new Uint8Array(64);

  constructor(readonly type: arrow.DataType) {}

  protected mark(v: number): void {
    if (this.length === this.valid.length) this.valid = grow(this.valid, this.length * 2);
    this.valid[this.length++] = v;
  }

  abstract read(r: AvroReader): void;
  abstract nul(): void;
  abstract finish(): arrow.Data;

  protected bitmap(): Uint8Array | undefined {
    if (this.nullCount === 0) return undefined;
    const n = this.length;
    const bits = new Uint8Array((n + 7) >> 3);
    for (let i = 0; i < n; i++) if (this.valid[i]) bits[i >> 3]! |= 1 << (i & 7);
    return bits;
  }

  protected resetValidity(): void {
    this.length = 0;
    this.nullCount = 0;
  }
}

function grow<T extends Uint8Array | Int8Array | Int16Array | Int32Array | Float32Array | Float64Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(Math.max(size, 16));
  b.set(a);
  return b;
}

type Values = Uint8Array | Int8Array | Int16Array | Int32Array | Float32Array | Float64Array;

/**
 * A fixed-width column: `width` elements of `values` per row (grown by doubling), zeros for nulls.
 * `slot()` makes room for the next row and returns the index of its first element.
 */
abstract class FixedBuilder<T extends Values> extends Builder {
  values: T;
  constructor(
    type: arrow.DataType,
    private readonly make: new (n: number) => T,
    private readonly width: number,
  ) {
    super(type);
    this.values = new make(64 * width);
  }
  protected slot(): number {
    const at = this.length * this.width;
    if (at === this.values.length) this.values = grow(this.values, at * 2);
    return at;
  }
  nul(): void {
    const at = this.slot();
    this.values.fill(0, at, at + this.width);
    this.nullCount++;
    this.mark(0);
  }
  /** The values of the rows so far; a new column starts. */
  protected takeValues(): T {
    const values = this.values.subarray(0, this.length * this.width) as T;
    this.values = new this.make(Math.max(64, this.length) * this.width);
    return values;
  }
  protected data(values: ArrayBufferView): arrow.Data {
    const data = D.makeData({ type: this.type as arrow.Int32, length: this.length, nullCount: this.nullCount, nullBitmap: this.bitmap(), data: values as Int32Array });
    this.resetValidity();
    return data;
  }
  finish(): arrow.Data {
    return this.data(this.takeValues());
  }
}

/** int → Int8 / Int16 / Int32 / DateDay / Time32 (values as Java wrote them). */
class IntBuilder extends FixedBuilder<Int8Array | Int16Array | Int32Array> {
  read(r: AvroReader): void {
    const at = this.slot(); // (before `this.values`: the slot may grow it)
    this.values[at] = r.readInt();
    this.mark(1);
  }
}

/**
 * A zigzag varint long into `out[2 * at]` (low 32 bits) and `out[2 * at + 1]` (high), without a
 * bigint (the Int32Array is the little-endian view of the column's BigInt64Array).
 */
function readLongWords(r: AvroReader, out: Int32Array, at: number): void {
  const buf = r.buf;
  const end = r.end;
  let pos = r.pos;
  let lo = 0;
  let hi = 0;
  let b = 0x80;
  let i = 0;
  for (; i < 4 && b & 0x80; i++) {
    if (pos >= end) throw corrupt(`Unexpected end of Avro data at byte ${pos}`);
    b = buf[pos++]!;
    lo |= (b & 0x7f) << (7 * i);
  }
  if (b & 0x80) {
    if (pos >= end) throw corrupt(`Unexpected end of Avro data at byte ${pos}`);
    b = buf[pos++]!;
    lo |= (b & 0x0f) << 28;
    hi = (b & 0x7f) >>> 4;
    for (i = 0; i < 5 && b & 0x80; i++) {
      if (pos >= end) throw corrupt(`Unexpected end of Avro data at byte ${pos}`);
      b = buf[pos++]!;
      hi |= (b & 0x7f) << (3 + 7 * i);
    }
    if (b & 0x80) throw corrupt(`Avro long longer than 10 bytes at byte ${pos}`);
  }
  r.pos = pos;
  const negative = lo & 1;
  let l = (lo >>> 1) | (hi << 31);
  let h = hi >>> 1;
  if (negative) {
    l = ~l;
    h = ~h;
  }
  out[2 * at] = l;
  out[2 * at + 1] = h;
}

/** long → Int64 / Timestamp (ms, µs as Java wrote them; seconds from millis for TIMESTAMP(0)): two Int32 words per row. */
class LongBuilder extends FixedBuilder<Int32Array> {
  constructor(type: arrow.DataType, private readonly millisToSeconds: boolean) {
    super(type, Int32Array, 2);
  }
  read(r: AvroReader): void {
    const at = this.slot();
    if (this.millisToSeconds) {
      const ms = r.readLong();
      const s = ms / 1000n - (ms % 1000n < 0n ? 1n : 0n); // floor, as Java's Timestamp of precision 0
      this.values[at] = Number(BigInt.asIntN(32, s));
      this.values[at + 1] = Number(BigInt.asIntN(32, s >> 32n));
    } else readLongWords(r, this.values, at >> 1);
    this.mark(1);
  }
  override finish(): arrow.Data {
    const words = this.takeValues();
    return this.data(new BigInt64Array(words.buffer, words.byteOffset, words.length >> 1));
  }
}

class FloatBuilder extends FixedBuilder<Float32Array | Float64Array> {
  constructor(type: arrow.DataType, private readonly double: boolean) {
    super(type, double ? Float64Array : Float32Array, 1);
  }
  read(r: AvroReader): void {
    const at = this.slot();
    this.values[at] = this.double ? r.readDouble() : r.readFloat();
    this.mark(1);
  }
}

/** boolean → Bool (one byte per row here, bit-packed at finish). */
class BoolBuilder extends FixedBuilder<Uint8Array> {
  constructor(type: arrow.DataType) {
    super(type, Uint8Array, 1);
  }
  read(r: AvroReader): void {
    if (r.pos >= r.end) throw corrupt(`Unexpected end of Avro data at byte ${r.pos}`);
    const at = this.slot();
    this.values[at] = r.buf[r.pos++]! !== 0 ? 1 : 0;
    this.mark(1);
  }
  override finish(): arrow.Data {
    const bytes = this.takeValues();
    const bits = new Uint8Array((bytes.length + 7) >> 3);
    for (let i = 0; i < bytes.length; i++) if (bytes[i]) bits[i >> 3]! |= 1 << (i & 7);
    return this.data(bits);
  }
}

/** Big-endian two's-complement unscaled bytes (or fixed) → Decimal128 (16 bytes little endian). */
class DecimalBuilder extends FixedBuilder<Uint8Array> {
  constructor(type: arrow.DataType, private readonly fixed = -1) {
    super(type, Uint8Array, 16);
  }
  read(r: AvroReader): void {
    const at = this.slot();
    const n = this.fixed >= 0 ? this.fixed : r.readLength();
    if (n < 0 || r.pos + n > r.end) throw corrupt(`Unexpected end of Avro data at byte ${r.pos}`);
    if (n > 16) throw corrupt(`Avro decimal of ${n} bytes (at most 16 fit DECIMAL(38))`);
    const buf = r.buf;
    const last = r.pos + n - 1;
    const fill = n > 0 && buf[r.pos]! & 0x80 ? 0xff : 0;
    for (let k = 0; k < 16; k++) this.values[at + k] = k < n ? buf[last - k]! : fill;
    r.pos += n;
    this.mark(1);
  }
  override finish(): arrow.Data {
    const bytes = this.takeValues();
    return this.data(new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2));
  }
}

/** A column with value offsets (Utf8 / Binary / List / Map): each row ends at `end` of its values. */
abstract class OffsetsBuilder extends Builder {
  offsets = new Int32Array(65);
  /** Values (bytes, child rows) so far. */
  end = 0;

  protected push(): void {
    const i = this.length;
    if (i + 1 === this.offsets.length) this.offsets = grow(this.offsets, i * 2 + 2);
    this.offsets[i + 1] = this.end;
  }

  nul(): void {
    this.push();
    this.nullCount++;
    this.mark(0);
  }

  /** The offsets of the rows so far; a new column starts. */
  protected takeOffsets(): Int32Array {
    const offsets = this.offsets.subarray(0, this.length + 1);
    this.offsets = new Int32Array(Math.max(65, this.length + 1));
    this.end = 0;
    return offsets;
  }
}

/** string / bytes / fixed → Utf8 / Binary: the bytes copied as they are (no string made). */
class BytesBuilder extends OffsetsBuilder {
  bytes = new Uint8Array(1024);
  constructor(type: arrow.DataType, private readonly fixed = -1) {
    super(type);
  }
  read(r: AvroReader): void {
    const n = this.fixed >= 0 ? this.fixed : r.readLength();
    if (n < 0 || r.pos + n > r.end) throw corrupt(`Unexpected end of Avro data at byte ${r.pos}`);
    if (this.end + n > this.bytes.length) this.bytes = grow(this.bytes, Math.max(this.bytes.length * 2, this.end + n));
    this.bytes.set(r.buf.subarray(r.pos, r.pos + n), this.end);
    r.pos += n;
    this.end += n;
    this.push();
    this.mark(1);
  }
  finish(): arrow.Data {
    const bytes = this.bytes.subarray(0, this.end);
    this.bytes = new Uint8Array(Math.max(1024, this.end));
    const data = D.makeData({ type: this.type as arrow.Utf8, length: this.length, nullCount: this.nullCount, nullBitmap: this.bitmap(), valueOffsets: this.takeOffsets(), data: bytes });
    this.resetValidity();
    return data;
  }
}

/** Reads one Avro value of a (possibly nullable) column into its builder. */
type Slot = (r: AvroReader) => void;

/** Avro array blocks: count (negative: followed by the block's byte size), items, 0 at the end. */
function readBlocks(r: AvroReader, item: (r: AvroReader) => void): number {
  let total = 0;
  for (;;) {
    let n = r.readLength();
    if (n === 0) return total;
    if (n < 0) {
      n = -n;
      r.readLength();
    }
    for (let i = 0; i < n; i++) item(r);
    total += n;
  }
}

/** array → List; map / array of {key, value} records → Map. */
class ListBuilder extends OffsetsBuilder {
  constructor(
    type: arrow.DataType,
    private readonly child: Builder,
    private readonly item: Slot,
  ) {
    super(type);
  }
  read(r: AvroReader): void {
    this.end += readBlocks(r, this.item);
    this.push();
    this.mark(1);
  }
  finish(): arrow.Data {
    const child = this.child.finish();
    const data = D.makeData({ type: this.type as arrow.List, length: this.length, nullCount: this.nullCount, nullBitmap: this.bitmap(), valueOffsets: this.takeOffsets(), child });
    this.resetValidity();
    return data;
  }
}

/** record → Struct: the writer's fields in its order, each into the child of its name (others skipped). */
class StructBuilder extends Builder {
  constructor(
    type: arrow.DataType,
    private readonly children: Builder[],
    private readonly slots: Slot[],
  ) {
    super(type);
  }
  read(r: AvroReader): void {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) slots[i]!(r);
    this.mark(1);
  }
  /** A row of the children without the struct's own validity (map entries). */
  readEntry(r: AvroReader): void {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) slots[i]!(r);
  }
  nul(): void {
    for (const c of this.children) c.nul();
    this.nullCount++;
    this.mark(0);
  }
  finish(): arrow.Data {
    const children = this.children.map((c) => c.finish());
    const data = D.makeData({ type: this.type as arrow.Struct, length: this.length, nullCount: this.nullCount, nullBitmap: this.bitmap(), children });
    this.resetValidity();
    return data;
  }
}

/** Advances past one value of `node` without keeping it (columns the read does not ask for). */
function skipper(node: AvroNode): Slot {
  switch (node.t) {
    case "null":
      return () => {};
    case "boolean":
      return (r) => void r.readFixed(1);
    case "int":
      return (r) => void r.readInt();
    case "long":
      return (r) => {
        for (let i = 0; ; i++) {
          if (r.pos >= r.end || i >= 10) throw corrupt(`Unexpected end of Avro data at byte ${r.pos}`);
          if ((r.buf[r.pos++]! & 0x80) === 0) return;
        }
      };
    case "float":
      return (r) => skipBytes(r, 4);
    case "double":
      return (r) => skipBytes(r, 8);
    case "bytes":
    case "string":
      return (r) => skipBytes(r, r.readLength());
    case "fixed":
      return (r) => skipBytes(r, node.size);
    case "enum":
      return (r) => void r.readInt();
    case "array": {
      const item = skipper(node.items);
      return (r) => void readBlocks(r, item);
    }
    case "map": {
      const value = skipper(node.values);
      return (r) =>
        void readBlocks(r, (r) => {
          skipBytes(r, r.readLength());
          value(r);
        });
    }
    case "record": {
      const fields = node.fields.map((f) => skipper(f.node));
      return (r) => {
        for (const f of fields) f(r);
      };
    }
    case "union": {
      const branches = node.branches.map(skipper);
      return (r) => {
        const b = branches[r.readInt()];
        if (!b) throw corrupt("Avro union branch out of range");
        b(r);
      };
    }
  }
}

function skipBytes(r: AvroReader, n: number): void {
  if (n < 0 || r.pos + n > r.end) throw corrupt(`Unexpected end of Avro data at byte ${r.pos}`);
  r.pos += n;
}

function mismatch(node: AvroNode, type: DataType, what: string): PaimonError {
  return corrupt(`column ${what}: Avro type ${node.t} does not hold ${D.typeToString(type)}`);
}

/**
 * The builder of a column of Paimon type `type` (Arrow `arrowType`) and the slot reading one
 * value of writer schema `node` into it: a ["null", T] union appends a null for its null branch.
 */
function column(type: DataType, arrowType: arrow.DataType, node: AvroNode, what: string): { builder: Builder; slot: Slot } {
  if (node.t === "union") {
    const nullBranch = node.branches.findIndex((b) => b.t === "null");
    const values = node.branches.filter((b) => b.t !== "null");
    if (values.length !== 1 || node.branches.length > 2) throw corrupt(`column ${what}: Avro union of ${node.branches.map((b) => b.t).join(", ")} is not a nullable type`);
    const valueBranch = node.branches.indexOf(values[0]!);
    const { builder, slot } = column(type, arrowType, values[0]!, what);
    return {
      builder,
      slot: (r) => {
        const b = r.readInt();
        if (b === valueBranch) slot(r);
        else if (b === nullBranch) builder.nul();
        else throw corrupt(`column ${what}: Avro union branch ${b} out of range`);
      },
    };
  }
  const builder = builderFor(type, arrowType, node, what);
  return { builder, slot: (r) => builder.read(r) };
}

function builderFor(type: DataType, arrowType: arrow.DataType, node: AvroNode, what: string): Builder {
  const expect = (...t: AvroNode["t"][]) => {
    if (!t.includes(node.t)) throw mismatch(node, type, what);
  };
  switch (type.kind) {
    case "BOOLEAN":
      expect("boolean");
      return new BoolBuilder(arrowType);
    case "TINYINT":
      expect("int");
      return new IntBuilder(arrowType, Int8Array, 1);
    case "SMALLINT":
      expect("int");
      return new IntBuilder(arrowType, Int16Array, 1);
    case "INT":
    case "DATE":
    case "TIME":
      expect("int");
      return new IntBuilder(arrowType, Int32Array, 1);
    case "BIGINT":
      expect("long");
      return new LongBuilder(arrowType, false);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      expect("long");
      // Java writes millis up to precision 3, micros up to 6 (and refuses more): the Arrow units
      // of those precisions but for 0 (seconds)
      if (type.precision > 6) throw new D.PaimonError("UNSUPPORTED", `column ${what}: ${D.typeToString(type)} in an Avro file (Java writes precision ≤ 6 only)`);
      return new LongBuilder(arrowType, type.precision === 0);
    case "FLOAT":
      expect("float");
      return new FloatBuilder(arrowType, false);
    case "DOUBLE":
      expect("double");
      return new FloatBuilder(arrowType, true);
    case "CHAR":
    case "VARCHAR":
      expect("string");
      return new BytesBuilder(arrowType);
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      expect("bytes", "fixed");
      return new BytesBuilder(arrowType, node.t === "fixed" ? node.size : -1);
    case "DECIMAL":
      expect("bytes", "fixed");
      return new DecimalBuilder(arrowType, node.t === "fixed" ? node.size : -1);
    case "ARRAY": {
      if (node.t !== "array") throw mismatch(node, type, what);
      const childField = (arrowType as arrow.List).children[0]!;
      const child = column(type.element, childField.type, node.items, `${what}[]`);
      return new ListBuilder(arrowType, child.builder, child.slot);
    }
    case "MAP":
    case "MULTISET": {
      const keyType = type.kind === "MAP" ? type.key : type.element;
      const valueType: DataType = type.kind === "MAP" ? type.value : { kind: "INT", nullable: false };
      const entriesType = (arrowType as arrow.Map_).children[0]!.type as arrow.Struct;
      const [keyField, valueField] = entriesType.children as [arrow.Field, arrow.Field];
      if (node.t === "map") {
        // string keys (Avro's own maps)
        if (keyType.kind !== "VARCHAR" && keyType.kind !== "CHAR") throw mismatch(node, type, what);
        const key = new BytesBuilder(keyField.type);
        const value = column(valueType, valueField.type, node.values, `${what}.value`);
        const entries = new StructBuilder(entriesType, [key, value.builder], []);
        return new ListBuilder(arrowType, entries, (r) => {
          key.read(r);
          value.slot(r);
        });
      }
      // other keys: an array of {key, value} records
      if (node.t !== "array" || node.items.t !== "record") throw mismatch(node, type, what);
      const record = node.items;
      const key = record.fields.find((f) => f.name === "key");
      const value = record.fields.find((f) => f.name === "value");
      if (!key || !value) throw corrupt(`column ${what}: Avro map entries without key and value fields`);
      const k = column(keyType, keyField.type, key.node, `${what}.key`);
      const v = column(valueType, valueField.type, value.node, `${what}.value`);
      const slots = record.fields.map((f) => (f === key ? k.slot : f === value ? v.slot : skipper(f.node)));
      const entries = new StructBuilder(entriesType, [k.builder, v.builder], slots);
      return new ListBuilder(arrowType, entries, (r) => entries.readEntry(r));
    }
    case "ROW": {
      if (node.t !== "record") throw mismatch(node, type, what);
      const childFields = (arrowType as arrow.Struct).children;
      const children: Builder[] = [];
      const byName = new Map<string, Slot>();
      type.fields.forEach((f, i) => {
        const written = node.fields.find((w) => w.name === f.name);
        if (!written) throw corrupt(`column ${what}: Avro record has no field ${f.name}`);
        const c = column(f.type, childFields[i]!.type, written.node, `${what}.${f.name}`);
        children.push(c.builder);
        byName.set(f.name, c.slot);
      });
      return new StructBuilder(arrowType, children, node.fields.map((w) => byName.get(w.name) ?? skipper(w.node)));
    }
    default:
      throw new D.PaimonError("UNSUPPORTED", `column ${what}: ${D.typeToString(type)} in an Avro data file`);
  }
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

/**
 * Streams an Avro data file's rows as Arrow record batches of the read fields (at most
 * `batchSize` rows each). CORRUPT_FILE naming the file for bytes that are not such a file.
 */
/** The reader bound to the query bundle's modules. */
export function bindAvroDataReader(deps: AvroReadDeps): typeof readAvroDataBatches {
  D = deps;
  return readAvroDataBatches;
}

export async function* readAvroDataBatches(bytes: Uint8Array, options: AvroDataReadOptions): AsyncGenerator<arrow.RecordBatch> {
  const name = options.fileName;
  const named = (e: unknown): PaimonError => {
    if (e instanceof D.PaimonError) return e.message.startsWith(name) ? e : new D.PaimonError(e.code, `${name}: ${e.message}`, { cause: e });
    return new D.PaimonError("CORRUPT_FILE", `${name}: cannot read Avro data: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  };
  // the block codecs not loaded with the module (zstd: the wasm decoder rather than fzstd's JS)
  const codec = D.headerCodec(bytes);
  if (codec === "deflate" && !D.fflateLoaded()) await D.loadFflate();
  if (codec === "zstandard") await D.loadZstd();
  let header;
  let plan;
  try {
    header = D.readContainerHeader(bytes);
    plan = planColumns(header.type.node, options);
  } catch (e) {
    throw named(e);
  }
  const casts = await D.columnCasts(options.fields, options.fileFields);
  const schema = new D.Schema(options.fields.map((f) => D.readArrowField(f)));
  const { builders, slots } = plan;
  const batchSize = options.batchSize;
  let rows = 0;
  const flush = (): arrow.RecordBatch => {
    const finished: arrow.Data[] = [];
    const children = options.fields.map((f, i) => {
      const field = schema.fields[i]!;
      const b = builders[i];
      if (b === undefined) return D.makeNullData(field.type, rows);
      finished[i] = typeof b === "number" ? finished[b]! : b.finish();
      return D.readAs(finished[i], field.type, casts[i]!, `${f.name} of ${name}`);
    });
    const batch = D.recordBatch(schema, children, rows);
    rows = 0;
    return batch;
  };
  let blocks;
  try {
    blocks = D.containerBlocks(bytes, header);
  } catch (e) {
    throw named(e);
  }
  for (;;) {
    let out: arrow.RecordBatch[] = [];
    let done = false;
    try {
      const next = blocks.next();
      if (next.done) done = true;
      else {
        const { count, data } = next.value;
        const r = new D.AvroReader(data);
        for (let n = 0; n < count; n++) {
          for (let j = 0; j < slots.length; j++) slots[j]!(r);
          if (++rows === batchSize) out.push(flush());
        }
        D.checkBlockEnd(r, data);
      }
      if (done && rows > 0) out.push(flush());
    } catch (e) {
      throw named(e);
    }
    for (const b of out) yield b;
    out = [];
    if (done) return;
  }
}

/**
 * Per read field its builder (undefined: not in the file, nulls; or the index of an earlier read
 * field of the same column, whose values it shares), and per writer field the slot reading it.
 */
function planColumns(node: AvroNode, options: AvroDataReadOptions): { builders: (Builder | number | undefined)[]; slots: Slot[] } {
  if (node.t !== "record") throw corrupt(`Avro data file schema is ${node.t}, not a record`);
  const builders: (Builder | number | undefined)[] = [];
  const slotOf = new Map<number, { slot: Slot; field: number }>();
  options.fields.forEach((f, i) => {
    const fileField = options.fileFields ? options.fileFields.find((ff) => ff.id === f.id) : f;
    const at = fileField ? node.fields.findIndex((w) => w.name === fileField.name) : -1;
    const earlier = slotOf.get(at);
    if (!fileField || at < 0 || earlier) {
      builders.push(earlier?.field);
      return;
    }
    const c = column(fileField.type, D.toArrowType(fileField.type), node.fields[at]!.node, fileField.name);
    builders.push(c.builder);
    slotOf.set(at, { slot: c.slot, field: i });
  });
  return { builders, slots: node.fields.map((w, j) => slotOf.get(j)?.slot ?? skipper(w.node)) };
}
