// Where a table's files live (format reference §1) and the partition directory
// names Java computes from partition values (§1.1), escaping included.
import { PaimonError } from "../error.js";
import { baseName, joinPath, parentPath, schemeOf } from "../fs/file-io.js";
import { decimalToString } from "../spec/binary-row.js";
import { MAX_FILE_NAME_BYTES, utf8Length } from "../spec/file-names.js";
import { externalDirectorySyntaxProblem } from "./option-validation.js";
import { formatIsoDate, formatIsoDateTime } from "../spec/civil-time.js";
import type { DataField, DataType } from "../spec/types.js";

/** Suffix of a data file's standalone file index (Java `DataFilePathFactory.INDEX_PATH_SUFFIX`). */
export const INDEX_FILE_SUFFIX = ".index";

/** The standalone file-index file among a data file's extra files (same directory), if any. */
export function indexFileOf(extraFiles: readonly string[]): string | undefined {
  return extraFiles.find((f) => f.endsWith(INDEX_FILE_SUFFIX));
}

/** Where a data or index file lives: a name in its directory, or a full path outside the table. */
export interface FileLocation {
  readonly fileName: string;
  readonly externalPath: string | null;
}

/** A path split into its file system (`file`, `memory://name`, `s3://bucket`) and its segments. */
interface ParsedPath {
  readonly fileSystem: string;
  readonly segments: readonly string[];
}

/**
 * Lexical form of a path in FileIO syntax: OS paths and `file:` URLs share the `file` file
 * system; `.` and `..` segments are resolved. Null for a `file:` URL that cannot be decoded or a
 * relative path that climbs above its starting directory.
 */
function parsePath(path: string): ParsedPath | null {
  let fileSystem: string;
  let rest: string;
  const url = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s.exec(path);
  if (url && url[1].toLowerCase() === "file") {
    fileSystem = "file";
    const local = /^\/\/([^/]*)(.*)$/s.exec(url[2]);
    if (local && local[1] !== "" && local[1].toLowerCase() !== "localhost") return null;
    try {
      rest = decodeURIComponent(local ? local[2] : url[2]);
    } catch {
      return null;
    }
  } else if (url && url[2].startsWith("//")) {
    const authority = /^\/\/([^/]*)(.*)$/s.exec(url[2])!;
    fileSystem = `${url[1].toLowerCase()}://${authority[1]}`;
    rest = authority[2];
  } else {
    // A relative OS path is relative to the working directory: never the same place as an absolute one.
    fileSystem = path.startsWith("/") ? "file" : "file (relative)";
    rest = path;
  }
  const segments: string[] = [];
  for (const segment of rest.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") segments.push(segment);
    else if (segments.pop() === undefined && fileSystem === "file (relative)") return null;
  }
  return { fileSystem, segments };
}

/**
 * Whether `path` lies strictly inside directory `dir`, judged lexically (after resolving `.`
 * and `..`; `file:` URLs and OS paths compare equal). Symbolic links are not followed.
 */
export function isInsideDirectory(path: string, dir: string): boolean {
  const p = parsePath(path);
  const d = parsePath(dir);
  if (p === null || d === null || p.fileSystem !== d.fileSystem || p.segments.length <= d.segments.length) return false;
  return d.segments.every((segment, i) => p.segments[i] === segment);
}

/** The FileIO family a location belongs to: one FileIO reaches every location of its family. */
function fileSystemFamily(location: string): string {
  const scheme = schemeOf(location);
  if (scheme === "" || scheme === "file") return "file";
  if (scheme === "s3a") return "s3";
  if (scheme === "https") return "http";
  return scheme;
}

/**
 * Why `dir` cannot be an external directory of the table at `root` (`data-file.external-paths`,
 * `global-index.external-path`), or null: besides {@link externalDirectorySyntaxProblem}, it must
 * not be the table directory or one of its ancestors (which would make the table's own metadata
 * "external").
 */
export function externalDirectoryProblem(dir: string, root: string): string | null {
  const problem = externalDirectorySyntaxProblem(dir);
  if (problem !== null) return problem;
  if (sameDirectory(dir, root) || isInsideDirectory(root, dir)) return `contains the table directory ${root}`;
  return null;
}

function sameDirectory(a: string, b: string): boolean {
  const p = parsePath(a);
  const q = parsePath(b);
  return p !== null && q !== null && p.fileSystem === q.fileSystem && p.segments.length === q.segments.length && p.segments.every((s, i) => q.segments[i] === s);
}

/** INVALID_ARGUMENT unless `id` is a snapshot or schema id (a non-negative safe integer). */
function requireId(id: number, what: string): number {
  if (!Number.isSafeInteger(id) || id < 0) throw new PaimonError("INVALID_ARGUMENT", `${what} id ${JSON.stringify(String(id))} is not a non-negative integer`);
  return id;
}

/** File locations of one table: its directory and the external data paths its options declare. */
export class TablePaths {
  /**
   * Declared external directories that qualify ({@link externalDirectoryProblem}); others are
   * ignored, so a file said to lie there is refused like any file outside the table.
   */
  readonly externalPaths: readonly string[];

  /**
   * @param root the table directory
   * @param externalPaths directories outside `root` that may hold the table's files
   *   (`data-file.external-paths`, `global-index.external-path`)
   */
  constructor(
    readonly root: string,
    externalPaths: readonly string[] = [],
  ) {
    this.externalPaths = externalPaths.filter((dir) => externalDirectoryProblem(dir, root) === null);
  }

  get snapshotDir(): string {
    return joinPath(this.root, "snapshot");
  }

  snapshot(id: number): string {
    return joinPath(this.root, "snapshot", `snapshot-${requireId(id, "snapshot")}`);
  }

  get schemaDir(): string {
    return joinPath(this.root, "schema");
  }

  schema(id: number): string {
    return joinPath(this.root, "schema", `schema-${requireId(id, "schema")}`);
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

  /** Path of a table-index file: its external path, else `<root>/index/<name>`. */
  indexFile(file: FileLocation): string {
    return file.externalPath ?? this.index(file.fileName);
  }

  /** `<root>/<partition dirs>bucket-<b>` (`partitionPath` ends with `/` or is empty). */
  bucketDir(partitionPath: string, bucket: number): string {
    return joinPath(this.root, partitionPath, bucket === -2 ? "bucket-postpone" : `bucket-${bucket}`);
  }

  /** Path of a data file of the bucket directory `bucketDir`: its external path, else `<bucketDir>/<name>`. */
  dataFile(bucketDir: string, file: FileLocation): string {
    return file.externalPath ?? joinPath(bucketDir, file.fileName);
  }

  /** Path of one of a data file's extra files: next to the data file (Java `DataFilePathFactory.toAlignedPath`). */
  extraFile(bucketDir: string, file: FileLocation, extraFileName: string): string {
    return joinPath(file.externalPath === null ? bucketDir : parentPath(file.externalPath), extraFileName);
  }

  /**
   * Why the external path of a data or index file (from a manifest or commit message) cannot be
   * used, or null (also when it has none). It must name the file (its last segment is the file
   * name, as Java writes it) inside a declared external directory — not merely inside the table
   * directory, where it could name a snapshot or schema file — on the table's own file system
   * (`UNSUPPORTED` otherwise: the table's FileIO cannot reach another one).
   */
  externalPathProblem(file: FileLocation): { code: "UNSUPPORTED" | "OUTSIDE"; problem: string } | null {
    const path = file.externalPath;
    if (path === null) return null;
    const declared = this.externalPaths.length > 0 ? `the declared external paths (${this.externalPaths.join(", ")})` : "any declared external path (data-file.external-paths is not set)";
    const dir = this.externalPaths.find((d) => isInsideDirectory(path, d));
    if (dir === undefined) return { code: "OUTSIDE", problem: `external path ${JSON.stringify(path)} of ${file.fileName} is outside ${declared}` };
    if (baseName(path) !== file.fileName) return { code: "OUTSIDE", problem: `external path ${JSON.stringify(path)} of ${file.fileName} does not end with its file name` };
    if (fileSystemFamily(dir) !== fileSystemFamily(this.root)) {
      return { code: "UNSUPPORTED", problem: `external path ${JSON.stringify(path)} of ${file.fileName} is on another file system than the table ${this.root}, which this library cannot reach through the table's FileIO` };
    }
    return null;
  }

  /**
   * Throws unless {@link externalPathProblem} finds nothing: `code` (CORRUPT_FILE for metadata,
   * INVALID_ARGUMENT for commit messages) naming `source`, or UNSUPPORTED for another file system.
   */
  requireUsableExternalPath(file: FileLocation, code: "CORRUPT_FILE" | "INVALID_ARGUMENT", source: string): void {
    const found = this.externalPathProblem(file);
    if (found !== null) throw new PaimonError(found.code === "UNSUPPORTED" ? "UNSUPPORTED" : code, `${source}: ${found.problem}`);
  }

  /** Whether `path` lies inside the table directory or inside one of its declared external paths. */
  isInside(path: string): boolean {
    return isInsideDirectory(path, this.root) || this.externalPaths.some((dir) => isInsideDirectory(path, dir));
  }

  /**
   * Throws CORRUPT_FILE unless `path` lies inside the table directory or a declared external
   * path: the library never deletes anything else, whatever its metadata says.
   * `source` names where the path came from (for the message).
   */
  checkDeletable(path: string, source?: string): void {
    if (this.isInside(path)) return;
    const where = this.externalPaths.length > 0 ? `table directory ${this.root} or the external paths ${this.externalPaths.join(", ")}` : `table directory ${this.root}`;
    throw new PaimonError("CORRUPT_FILE", `refusing to delete ${path}${source ? ` (named by ${source})` : ""}: it is outside the ${where}`);
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

/**
 * {@link partitionPath} for a write: INVALID_ARGUMENT naming the partition key when one of its
 * `key=value` directory names (escaped) is longer than a file name may be, so the write fails
 * before anything is written instead of with an IO_ERROR from the file system.
 */
export function writablePartitionPath(fields: readonly DataField[], values: readonly unknown[], defaultName: string, legacyName: boolean): string {
  const path = partitionPath(fields, values, defaultName, legacyName);
  path
    .split("/")
    .slice(0, fields.length)
    .forEach((dirName, i) => {
      const bytes = utf8Length(dirName);
      if (bytes > MAX_FILE_NAME_BYTES) {
        const shown = dirName.length > 60 ? `${dirName.slice(0, 60)}…` : dirName;
        throw new PaimonError("INVALID_ARGUMENT", `partition ${fields[i].name}: directory name "${shown}" is ${bytes} bytes of UTF-8 after escaping (at most ${MAX_FILE_NAME_BYTES})`);
      }
    });
  return path;
}
