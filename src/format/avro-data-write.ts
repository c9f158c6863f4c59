// Writes Avro data files as Java Paimon 1.4.2 does (`file.format=avro`, levels named avro in
// `file.format.per.level`): the writer schema of Java's AvroSchemaConverter (record
// "org.apache.paimon.avro.generated.record", nested records named "<parent>_<field>", nullable
// types as ["null", T] with a null default), values encoded as FieldWriterFactory encodes them,
// the codec from `avro.codec` or `file.compression` (zstd at `file.compression.zstd-level`), and
// per-column statistics collected while writing. Write-only (not in query bundles).

import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { AVRO_SYNC_INTERVAL, type AvroCodec, avroCodecOf, AvroWriter, ContainerWriter } from "../spec/avro-write.js";
import { type DataField, type DataType, typeToString } from "../spec/types.js";
import { isValidAt } from "../arrow/values.js";
import { convertData, parquetArrowSchema } from "./arrow-types.js";
import { ColumnStatsCollector, parseStatsMode, type StatsMode } from "./column-stats.js";
import type { ParquetColumnStats, ParquetWriteResult } from "./parquet-writer.js";

const RECORD_NAME = "org.apache.paimon.avro.generated.record";

/** Java AvroSchemaConverter.convertToSchema: the Avro schema of a Paimon type. */
export function avroSchemaOf(type: DataType, rowName: string): unknown {
  const nullable = (s: unknown) => (type.nullable ? ["null", s] : s);
  switch (type.kind) {
    case "BOOLEAN":
      return nullable("boolean");
    case "TINYINT":
    case "SMALLINT":
    case "INT":
      return nullable("int");
    case "BIGINT":
      return nullable("long");
    case "FLOAT":
      return nullable("float");
    case "DOUBLE":
      return nullable("double");
    case "CHAR":
    case "VARCHAR":
      return nullable("string");
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      return nullable("bytes");
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      if (type.precision > 6) throw new PaimonError("UNSUPPORTED", `Avro data files cannot hold ${typeToString(type)} (Java writes TIMESTAMP precision ≤ 6 only)`);
      const millis = type.precision <= 3;
      const logicalType = type.kind === "TIMESTAMP" ? (millis ? "timestamp-millis" : "timestamp-micros") : millis ? "local-timestamp-millis" : "local-timestamp-micros";
      return nullable({ type: "long", logicalType });
    }
    case "DATE":
      return nullable({ type: "int", logicalType: "date" });
    case "TIME":
      if (type.precision > 3) throw new PaimonError("UNSUPPORTED", `Avro data files cannot hold ${typeToString(type)} (Java writes TIME precision ≤ 3 only)`);
      return nullable({ type: "int", logicalType: "time-millis" });
    case "DECIMAL":
      return nullable({ type: "bytes", logicalType: "decimal", precision: type.precision, scale: type.scale });
    case "ROW":
      return nullable({
        type: "record",
        name: rowName,
        fields: type.fields.map((f) => {
          const field: Record<string, unknown> = { name: f.name, type: avroSchemaOf(f.type, `${rowName}_${f.name}`) };
          if (f.type.nullable) field.default = null;
          return field;
        }),
      });
    case "MAP":
    case "MULTISET": {
      const keyType = type.kind === "MAP" ? type.key : type.element;
      const valueType: DataType = type.kind === "MAP" ? type.value : { kind: "INT", nullable: false };
      if (keyType.kind === "VARCHAR" || keyType.kind === "CHAR") return nullable({ type: "map", values: avroSchemaOf(valueType, rowName) });
      const value: Record<string, unknown> = { name: "value", type: avroSchemaOf(valueType, `${rowName}_value`) };
      if (valueType.nullable) value.default = null;
      return nullable({ type: "array", items: { type: "record", name: rowName, fields: [{ name: "key", type: avroSchemaOf(keyType, `${rowName}_key`) }, value] }, logicalType: "map" });
    }
    case "ARRAY":
      return nullable({ type: "array", items: avroSchemaOf(type.element, rowName) });
    default:
      throw new PaimonError("UNSUPPORTED", `Avro data files cannot hold ${typeToString(type)}`);
  }
}

/** The writer schema of a data file of `fields` (a record of them, not null). */
export function avroDataSchema(fields: readonly DataField[]): unknown {
  return avroSchemaOf({ kind: "ROW", nullable: false, fields: [...fields] }, RECORD_NAME);
}

/** Writes one value of a column (`row` of `data`, valid) to `out`. */
type Encode = (data: arrow.Data, row: number, out: AvroWriter) => void;

/** Minimal big-endian two's-complement bytes of a Decimal128 value (Java BigInteger.toByteArray). */
function decimalBytes(words: Uint32Array, row: number, out: AvroWriter, scratch: Uint8Array): void {
  for (let k = 0; k < 4; k++) {
    const w = words[row * 4 + k]!;
    const at = 15 - 4 * k;
    scratch[at] = w & 0xff;
    scratch[at - 1] = (w >>> 8) & 0xff;
    scratch[at - 2] = (w >>> 16) & 0xff;
    scratch[at - 3] = (w >>> 24) & 0xff;
  }
  let start = 0;
  while (start < 15 && ((scratch[start] === 0 && (scratch[start + 1]! & 0x80) === 0) || (scratch[start] === 0xff && (scratch[start + 1]! & 0x80) !== 0))) start++;
  out.writeBytes(scratch.subarray(start, 16));
}

/** The encoder of a column of `type` (Arrow data in the Parquet writer's logical layout), nullable types as ["null", T]. */
function encoderOf(type: DataType): Encode {
  const value = valueEncoderOf(type);
  if (!type.nullable) return value;
  return (data, row, out) => {
    if (!isValidAt(data, row)) out.writeInt(0);
    else {
      out.writeInt(1);
      value(data, row, out);
    }
  };
}

function valueEncoderOf(type: DataType): Encode {
  switch (type.kind) {
    case "BOOLEAN":
      return (data, row, out) => {
        const bit = data.offset + row;
        out.writeRaw(((data.values as Uint8Array)[bit >> 3]! & (1 << (bit & 7))) !== 0 ? ONE : ZERO);
      };
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "DATE":
    case "TIME":
      return (data, row, out) => out.writeInt((data.values as Int32Array)[row]!);
    case "BIGINT":
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      // (timestamps: the logical layout holds millis (p ≤ 3) / micros (p ≤ 6), what Java writes)
      // the 64-bit values as 32-bit word pairs (a view per column, not a bigint per value)
      let of: unknown = null;
      let words: Int32Array = new Int32Array(0);
      return (data, row, out) => {
        if (data.values !== of) {
          const v = data.values as BigInt64Array;
          of = v;
          words = new Int32Array(v.buffer, v.byteOffset, v.length * 2);
        }
        out.writeLongWords(words[2 * row]!, words[2 * row + 1]!);
      };
    }
    case "FLOAT":
      return (data, row, out) => out.writeFloat((data.values as Float32Array)[row]!);
    case "DOUBLE":
      return (data, row, out) => out.writeDouble((data.values as Float64Array)[row]!);
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      return (data, row, out) => {
        const o = data.valueOffsets as Int32Array;
        out.writeBytes((data.values as Uint8Array).subarray(o[row]!, o[row + 1]!));
      };
    case "DECIMAL": {
      const scratch = new Uint8Array(16);
      return (data, row, out) => decimalBytes(data.values as unknown as Uint32Array, row, out, scratch);
    }
    case "ARRAY": {
      const element = encoderOf(type.element);
      return (data, row, out) => {
        const o = data.valueOffsets as Int32Array;
        const child = data.children[0]!;
        const from = o[row]!;
        const to = o[row + 1]!;
        if (to > from) {
          out.writeLong(to - from);
          for (let i = from; i < to; i++) element(child, i, out);
        }
        out.writeLong(0);
      };
    }
    case "MAP":
    case "MULTISET": {
      const keyType = type.kind === "MAP" ? type.key : type.element;
      const valueType: DataType = type.kind === "MAP" ? type.value : { kind: "INT", nullable: false };
      // string keys: an Avro map (keys are plain strings); others: an array of {key, value}
      // records (the key as its schema says, a union when nullable) — blocks alike otherwise
      const key = keyType.kind === "VARCHAR" || keyType.kind === "CHAR" ? valueEncoderOf(keyType) : encoderOf(keyType);
      const val = encoderOf(valueType);
      return (data, row, out) => {
        const o = data.valueOffsets as Int32Array;
        const entries = data.children[0]!;
        const from = o[row]!;
        const to = o[row + 1]!;
        if (to > from) {
          out.writeLong(to - from);
          for (let i = from; i < to; i++) {
            key(entries.children[0]!, i, out);
            val(entries.children[1]!, i, out);
          }
        }
        out.writeLong(0);
      };
    }
    case "ROW": {
      const fields = type.fields.map((f) => encoderOf(f.type));
      return (data, row, out) => {
        for (let i = 0; i < fields.length; i++) fields[i]!(data.children[i]!, row, out);
      };
    }
    default:
      throw new PaimonError("UNSUPPORTED", `Avro data files cannot hold ${typeToString(type)}`);
  }
}

const ONE = new Uint8Array([1]);
const ZERO = new Uint8Array([0]);

/** The Avro codec of a data file: `avro.codec` when set, else `file.compression` (Java AvroFileFormat.createCodecFactory). */
export function avroDataCodec(fileCompression: string, avroCodecOption: string | undefined): AvroCodec {
  if (avroCodecOption !== undefined) {
    const c = avroCodecOption.trim().toLowerCase();
    if (c === "null" || c === "deflate" || c === "snappy" || c === "zstandard") return c;
    if (c.startsWith("deflate-") || c.startsWith("zstandard-")) return c.slice(0, c.indexOf("-")) as AvroCodec;
    throw new PaimonError("UNSUPPORTED", `avro.codec '${avroCodecOption}' is not supported (null, deflate, snappy, zstandard)`);
  }
  return avroCodecOf(fileCompression);
}

export interface AvroDataWriteOptions {
  /** Avro codec (avroDataCodec). */
  codec: AvroCodec;
  /** zstd level (`file.compression.zstd-level`, default 1) or deflate level (`avro.codec` deflate-N). */
  level?: number;
  statsMode?: string | StatsMode;
  /** Per column name: a stats mode other than the file's. */
  fieldStatsModes?: Readonly<Record<string, string | StatsMode>>;
}

/**
 * Accumulates batches for one Avro data file, with statistics, as `ParquetFileWriter` does for
 * Parquet (same interface: the rolling writers take either); `finish()` encodes the file.
 */
export class AvroFileWriter {
  readonly schema: arrow.Schema;
  private readonly collectors: ColumnStatsCollector[];
  private readonly modes: StatsMode[];
  private readonly encoders: Encode[];
  private readonly container: ContainerWriter;
  private readonly block = new AvroWriter();
  private blockRows = 0;
  private pending: Promise<void> = Promise.resolve();
  private rows = 0;
  private finished = false;

  constructor(
    readonly fields: readonly DataField[],
    options: AvroDataWriteOptions,
  ) {
    if (fields.length === 0) throw new PaimonError("INVALID_ARGUMENT", "An Avro data file needs at least one column");
    this.schema = parquetArrowSchema(fields);
    this.container = new ContainerWriter(avroDataSchema(fields), { codec: options.codec, level: options.level });
    this.collectors = fields.map((f) => new ColumnStatsCollector(f.type));
    const fileMode = parseStatsMode(options.statsMode);
    this.modes = fields.map((f) => {
      const m = options.fieldStatsModes?.[f.name];
      return m === undefined ? fileMode : parseStatsMode(m);
    });
    this.encoders = fields.map((f) => encoderOf(f.type));
  }

  get rowCount(): number {
    return this.rows;
  }

  /** Bytes of the file so far (encoded, blocks compressed as they fill). */
  get bufferedBytes(): number {
    return this.container.length + this.block.length;
  }

  /** Adds rows; columns are looked up by field name. */
  write(data: arrow.RecordBatch): void {
    if (this.finished) throw new PaimonError("INVALID_ARGUMENT", "AvroFileWriter already finished");
    const n = data.numRows;
    if (n === 0) return;
    const columns = this.fields.map((f, i) => {
      const idx = data.schema.fields.findIndex((x) => x.name === f.name);
      if (idx < 0) throw new PaimonError("INVALID_ARGUMENT", `Input data has no column '${f.name}'`);
      const col = convertData(data.data.children[idx]!, this.schema.fields[i]!.type, f.name);
      if (!f.type.nullable && col.nullCount > 0) throw new PaimonError("INVALID_ARGUMENT", `Column '${f.name}' is NOT NULL but has ${col.nullCount} null values`);
      this.collectors[i]!.update(col);
      return col;
    });
    const encoders = this.encoders;
    const out = this.block;
    for (let row = 0; row < n; row++) {
      for (let i = 0; i < encoders.length; i++) encoders[i]!(columns[i]!, row, out);
      this.blockRows++;
      if (out.length >= AVRO_SYNC_INTERVAL) this.flushBlock();
    }
    this.rows += n;
  }

  private flushBlock(): void {
    const count = this.blockRows;
    const bytes = this.block.bytes().slice();
    this.block.reset();
    this.blockRows = 0;
    // compression is async (zstd loads once): blocks are added in order
    this.pending = this.pending.then(() => this.container.addBlock(count, bytes));
  }

  /** Encodes the rest and returns the file with the statistics of every column. */
  async finish(): Promise<ParquetWriteResult> {
    if (this.finished) throw new PaimonError("INVALID_ARGUMENT", "AvroFileWriter already finished");
    this.finished = true;
    this.flushBlock();
    await this.pending;
    const bytes = this.container.bytes();
    const stats: ParquetColumnStats[] = this.fields.map((f, i) => ({ name: f.name, fieldId: f.id, ...this.collectors[i]!.result(this.modes[i]!) }));
    return { bytes, fileSize: bytes.length, rowCount: this.rows, stats };
  }
}
