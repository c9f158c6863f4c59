// Where a table's files live (format reference §1) and the partition directory
// names Java computes from partition values (§1.1), escaping included.
import { PaimonError, type PaimonErrorCode } from "../error.js";
import { baseName, joinPath, parentPath, schemeOf } from "../fs/file-io.js";
import { utf8Decoder } from "../spec/utf8.js";
import { decimalToString, fromBinaryRow } from "../spec/binary-row.js";
import { fileNameProblem, MAX_FILE_NAME_BYTES, utf8Length } from "../spec/file-names.js";
import { checkBranchName, MAIN_BRANCH } from "./option-validation.js";

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
    // s3a: is Hadoop's name for s3: (one S3FileIO serves both): the same bucket either way
    fileSystem = `${url[1].toLowerCase().replace(/^s3a$/, "s3")}://${authority[1]}`;
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

/** The FileIO family of a location (one FileIO reaches all of it): `file` for OS paths and `file:` URLs, `s3` for `s3a:`. */
const familyOf = (location: string) => ({ "": "file", s3a: "s3", https: "http" })[schemeOf(location)] ?? schemeOf(location);

/**
 * Whether `dir` may be an external directory of the table at `root`: a location with a scheme (as
 * Java and paimon-cpp require) that is neither the table directory nor, after resolving `..`,
 * one of its ancestors (else the table's own metadata would count as external). Others are ignored
 * (not refused when a table is created: paimon-rt never writes to external directories).
 */
function mayBeExternalDirectory(dir: string, root: string): boolean {
  return schemeOf(dir) !== "" && !isInsideDirectory(joinPath(root, "x"), dir);
}

/** `<prefix><id>`: INVALID_ARGUMENT unless `id` (a snapshot or schema id) is a non-negative integer. */
function idName(prefix: string, id: number): string {
  if (!(Number.isSafeInteger(id) && id >= 0)) throw new PaimonError("INVALID_ARGUMENT", `${prefix}${id}: not a non-negative integer id`);
  return prefix + id;
}

/** The options that decide where a table's files are (a `TableOptions` is one). */
export interface TableLayout {
  /**
   * Directories outside the table that may hold its files (`data-file.external-paths`,
   * `global-index.external-path`).
   */
  readonly externalPaths?: readonly string[];
  /** `data-file.path-directory`: a checked relative directory between the table and its partitions. */
  readonly dataFilePathDirectory?: string | null;
  /** `index-file-in-data-file-dir`: index files of a partition-bucket live in its bucket directory, not `index/`. */
  readonly indexFileInDataFileDir?: boolean;
  /** `partition.default-name` and `partition.legacy-name` (for {@link TablePaths.bucketDirOf}). */
  readonly partitionDefaultName?: string;
  readonly partitionLegacyName?: boolean;
  /** The branch whose snapshots, schemas, tags, changelogs and consumers these are (Java `CoreOptions.BRANCH`; default `main`). */
  readonly branch?: string;
}

/** The directory of branch `branch`'s metadata (Java `BranchManager.branchPath`): the table directory for `main`. */
export function branchRoot(root: string, branch: string): string {
  return branch === MAIN_BRANCH ? root : joinPath(root, "branch", `branch-${checkBranchName(branch, `branch of ${root}`)}`);
}

/** File locations of one table: its directory, its data layout and the external data paths its options declare. */
export class TablePaths {
  /**
   * Declared external directories that qualify ({@link mayBeExternalDirectory}); others are
   * ignored, so a file said to lie there is refused like any file outside the table.
   */
  readonly externalPaths: readonly string[];
  /** Where partition and bucket directories start: the table directory or `<root>/<data-file.path-directory>` (Java `dataFilePath()`). */
  readonly dataRoot: string;
  /** `index-file-in-data-file-dir` (Java `FileStorePathFactory.indexFileFactory`). */
  readonly indexInDataDir: boolean;
  private readonly partitionTypes: readonly DataType[];
  /** The branch (`main` unless the layout names another). */
  readonly branch: string;
  /**
   * Where the branch's snapshots, schemas, tags, changelogs and consumers live: the table
   * directory, or `<root>/branch/branch-<name>` (data files, manifests and index files of every
   * branch stay in the table directory, as Java's).
   */
  readonly metaRoot: string;

  /**
   * @param root the table directory
   * @param partitionFields the partition keys' fields (to name the bucket directory of a serialized partition row)
   */
  constructor(
    readonly root: string,
    private readonly layout: TableLayout = {},
    readonly partitionFields: readonly DataField[] = [],
  ) {
    this.externalPaths = (layout.externalPaths ?? []).filter((dir) => mayBeExternalDirectory(dir, root));
    this.dataRoot = joinPath(root, layout.dataFilePathDirectory ?? "");
    this.indexInDataDir = layout.indexFileInDataFileDir ?? false;
    this.partitionTypes = partitionFields.map((f) => f.type);
    this.branch = layout.branch ?? MAIN_BRANCH;
    this.metaRoot = branchRoot(root, this.branch);
  }

  get snapshotDir(): string {
    return joinPath(this.metaRoot, "snapshot");
  }

  snapshot(id: number): string {
    return joinPath(this.metaRoot, "snapshot", idName("snapshot-", id));
  }

  /** Long-lived changelogs (decoupled changelog retention): `changelog/changelog-<id>`, Java ChangelogManager. */
  get changelogDir(): string {
    return joinPath(this.metaRoot, "changelog");
  }

  changelog(id: number): string {
    return joinPath(this.metaRoot, "changelog", idName("changelog-", id));
  }

  /**
   * The file of tag `name` (Java `TagManager.tagPath`: `tag/tag-<name>`); INVALID_ARGUMENT naming
   * `what` unless the name keeps it one file of `tag/` (not blank, `.` or `..`; no `/`, `\`, NUL).
   */
  tag(name: string, what = `tag of ${this.root}`): string {
    const problem = name.trim() === "" ? "is blank" : (fileNameProblem(name) ?? fileNameProblem(`tag-${name}`));
    if (problem !== null) throw new PaimonError("INVALID_ARGUMENT", `${what}: tag name '${name}' ${problem}`);
    return joinPath(this.metaRoot, "tag", `tag-${name}`);
  }

  get tagDir(): string {
    return joinPath(this.metaRoot, "tag");
  }

  get schemaDir(): string {
    return joinPath(this.metaRoot, "schema");
  }

  schema(id: number): string {
    return joinPath(this.metaRoot, "schema", idName("schema-", id));
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

  /**
   * Path of a table-index file (deletion vectors, hash index) of the partition-bucket whose
   * directory is `bucketDir`: its external path, else in `bucketDir` under
   * `index-file-in-data-file-dir`, else in `<root>/index`.
   */
  indexFile(file: FileLocation, bucketDir: string): string {
    return file.externalPath ?? joinPath(this.indexInDataDir ? bucketDir : this.indexDir, file.fileName);
  }

  /** `<data root>/<partition dirs>bucket-<b>` (`partitionPath` ends with `/` or is empty). */
  bucketDir(partitionPath: string, bucket: number): string {
    return joinPath(this.dataRoot, partitionPath, bucket === -2 ? "bucket-postpone" : `bucket-${bucket}`);
  }

  /** The bucket directory of a serialized partition row (arity header included); `values`: the row decoded, when at hand. */
  bucketDirOf(partition: Uint8Array, bucket: number, values = fromBinaryRow(partition.subarray(4), this.partitionTypes)): string {
    const { partitionDefaultName, partitionLegacyName } = this.layout;
    return this.bucketDir(partitionPath(this.partitionFields, values, partitionDefaultName!, partitionLegacyName!), bucket);
  }

  /** Path of a table-index file of the partition-bucket of a serialized partition row ({@link indexFile}). */
  indexFileOf(partition: Uint8Array, bucket: number, file: FileLocation): string {
    return this.indexFile(file, this.indexInDataDir ? this.bucketDirOf(partition, bucket) : "");
  }

  /** Path of a data file of the bucket directory `bucketDir`: its external path, else `<bucketDir>/<name>`. */
  dataFile(bucketDir: string, file: FileLocation): string {
    return file.externalPath ?? joinPath(bucketDir, file.fileName);
  }

  /** Path of one of a data file's extra files: next to the data file (Java `DataFilePathFactory.toAlignedPath`). */
  extraFile(bucketDir: string, file: FileLocation, extraFileName: string): string {
    return joinPath(file.externalPath === null ? bucketDir : parentPath(file.externalPath), extraFileName);
  }

  /** A data file of the partition-bucket of a serialized partition row ({@link dataFile}), followed by its extra files. */
  dataFilesOf(partition: Uint8Array, bucket: number, file: FileLocation & { readonly extraFiles: readonly string[] }): string[] {
    const dir = this.bucketDirOf(partition, bucket);
    return [this.dataFile(dir, file), ...file.extraFiles.map((extra) => this.extraFile(dir, file, extra))];
  }

  /**
   * Throws unless the external path of a data or index file (from a manifest or commit message),
   * if any, names the file (ends with its name, as Java writes it) inside a declared external
   * directory — not merely inside the table, where it could name a snapshot or schema file — of
   * the table's own file system (UNSUPPORTED otherwise: the table's FileIO cannot reach another).
   * `code`: CORRUPT_FILE for metadata, INVALID_ARGUMENT for commit messages; `source` is named.
   */
  checkExternalPath(file: FileLocation, code: "CORRUPT_FILE" | "INVALID_ARGUMENT", source: string): void {
    const path = file.externalPath;
    if (path === null) return;
    const dir = baseName(path) === file.fileName ? this.externalPaths.find((d) => isInsideDirectory(path, d)) : undefined;
    const [c, why]: [PaimonErrorCode | false, string] =
      dir === undefined
        ? [code, `is not that file in a declared external path (${this.externalPaths.join(", ") || "data-file.external-paths is not set"})`]
        : [familyOf(dir) !== familyOf(this.root) && "UNSUPPORTED", `is on another file system than the table ${this.root}`];
    if (c) throw new PaimonError(c, `${source}: external path ${JSON.stringify(path)} of ${file.fileName} ${why}`);
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
      return utf8Decoder.decode(value as Uint8Array);
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
