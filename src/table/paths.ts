// Where a table's files live (format reference §1) and the partition directory
// names Java computes from partition values (§1.1), escaping included.
import { joinPath } from "../fs/file-io.js";
import { decimalToString } from "../spec/binary-row.js";
import { formatIsoDate, formatIsoDateTime } from "../spec/civil-time.js";
import type { DataField, DataType } from "../spec/types.js";

/** File locations inside one table directory. */
/** Suffix of a data file's standalone file index (Java `DataFilePathFactory.INDEX_PATH_SUFFIX`). */
export const INDEX_FILE_SUFFIX = ".index";

/** The standalone file-index file among a data file's extra files (same directory), if any. */
export function indexFileOf(extraFiles: readonly string[]): string | undefined {
  return extraFiles.find((f) => f.endsWith(INDEX_FILE_SUFFIX));
}

export class TablePaths {
  constructor(readonly root: string) {}

  get snapshotDir(): string {
    return joinPath(this.root, "snapshot");
  }

  snapshot(id: number): string {
    return joinPath(this.root, "snapshot", `snapshot-${id}`);
  }

  get schemaDir(): string {
    return joinPath(this.root, "schema");
  }

  schema(id: number): string {
    return joinPath(this.root, "schema", `schema-${id}`);
  }

  get manifestDir(): string {
    return joinPath(this.root, "manifest");
  }

  manifest(fileName: string): string {
    return joinPath(this.root, "manifest", fileName);
  }

  get indexDir(): string {
    return joinPath(this.root, "index");
  }

  index(fileName: string): string {
    return joinPath(this.root, "index", fileName);
  }

  /** `<root>/<partition dirs>bucket-<b>` (`partitionPath` ends with `/` or is empty). */
  bucketDir(partitionPath: string, bucket: number): string {
    return joinPath(this.root, partitionPath, bucket === -2 ? "bucket-postpone" : `bucket-${bucket}`);
  }

  dataFile(partitionPath: string, bucket: number, fileName: string, externalPath?: string | null): string {
    return externalPath ?? joinPath(this.bucketDir(partitionPath, bucket), fileName);
  }
}

// Java PartitionPathUtils.CHAR_TO_ESCAPE
const ESCAPED = new Set<number>([0x22, 0x23, 0x25, 0x27, 0x2a, 0x2f, 0x3a, 0x3d, 0x3f, 0x5c, 0x7f, 0x7b, 0x7d, 0x5b, 0x5d, 0x5e]);

/** Hive-compatible escaping of a partition name or value (`PartitionPathUtils.escapePathName`). */
export function escapePathName(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || ESCAPED.has(code)) out += "%" + code.toString(16).toUpperCase().padStart(2, "0");
    else out += ch;
  }
  return out;
}

/** Reverses {@link escapePathName}. */
export function unescapePathName(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Java `Double.toString` / `Float.toString` for the values JavaScript prints differently. */
function javaFloatString(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "Infinity";
  if (v === -Infinity) return "-Infinity";
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  const abs = Math.abs(v);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(v);
    return s.includes(".") ? s : `${s}.0`;
  }
  const [mantissa, exp] = v.toExponential().split("e");
  return `${mantissa.includes(".") ? mantissa : `${mantissa}.0`}E${Number(exp)}`;
}

/** Java `LocalDateTime.toString()` of a Paimon timestamp (millis + nano-of-millisecond, as UTC wall clock). */
export const localDateTimeString = formatIsoDateTime;

/**
 * The partition value string Java derives from an internal value (`partition.legacy-name`
 * true: `toString()` of the internal value, DATE as its epoch day; false: CAST to STRING).
 * Returns null for a null value.
 */
export function partitionValueString(value: unknown, type: DataType, legacyName: boolean): string | null {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case "DATE":
      if (legacyName) return String(value);
      return formatIsoDate(Number(value));
    case "FLOAT":
    case "DOUBLE":
      return javaFloatString(value as number);
    case "DECIMAL":
      return decimalToString(value as bigint, type.scale);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const ts = value as { millis: bigint; nanoOfMillisecond: number };
      const text = localDateTimeString(ts.millis, ts.nanoOfMillisecond);
      return legacyName ? text : text.replace("T", " ");
    }
    case "BINARY":
    case "VARBINARY":
      return new TextDecoder().decode(value as Uint8Array);
    default:
      return String(value);
  }
}

/**
 * Partition directory path (`a=1/b=x/`, empty for unpartitioned tables) of internal
 * partition values in partition-key order.
 */
export function partitionPath(fields: readonly DataField[], values: readonly unknown[], defaultName: string, legacyName: boolean): string {
  let out = "";
  fields.forEach((field, i) => {
    const text = partitionValueString(values[i], field.type, legacyName);
    const value = text === null || text.trim() === "" ? defaultName : text;
    out += `${escapePathName(field.name)}=${escapePathName(value)}/`;
  });
  return out;
}
