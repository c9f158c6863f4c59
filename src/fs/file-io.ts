/**
 * The storage abstraction every table operation goes through.
 *
 * A `FileIO` works on *path strings* in its own syntax:
 *  - `LocalFileIO`: OS paths (`/tmp/wh/db.db/t/snapshot/LATEST`) or `file:` URLs;
 *  - `MemoryFileIO`: `memory://<name>/<path>`;
 *  - `HttpFileIO`: absolute `http(s)://` URLs (read-only).
 * Paths are joined with `/` ({@link joinPath}); a `FileIO` never needs a base directory.
 *
 * Error contract (all implementations): failures are `PaimonError`s naming the path —
 * `NOT_FOUND` for a missing file, `READ_ONLY` for any write through a read-only file system,
 * `IO_ERROR` for everything else. This module has no `node:` dependency (edge-safe).
 */
import { PaimonError, type PaimonErrorCode } from "../error.js";

/** One entry of a directory listing, or the result of {@link FileIO.stat}. */
export interface FileStatus {
  /** The full path of the entry, in the file system's own syntax (`joinPath(dir, name)` for listings). */
  readonly path: string;
  /** The last path segment. */
  readonly name: string;
  /** Size in bytes; 0 for directories; -1 when the file system cannot tell (HTTP listings). */
  readonly size: number;
  readonly isDir: boolean;
  /** Last modification time in epoch milliseconds, 0 when unknown. */
  readonly modificationTime: number;
  /**
   * True for a symbolic link (size, isDir and time then describe its target). File systems
   * without links leave it out. Cleanup never follows or deletes links.
   */
  readonly isSymlink?: boolean;
}

/** Bytes to write: raw bytes, or a string written as UTF-8. */
export type FileContent = Uint8Array | string;

export interface FileIO {
  /** `"file"`, `"memory"` or `"http"` (or a custom implementation's own word). */
  readonly scheme: string;
  /** True when every write operation fails with `READ_ONLY`. */
  readonly readOnly: boolean;

  /** Whether a file or directory exists at `path`. */
  exists(path: string): Promise<boolean>;
  /**
   * Optional: whether a *file* exists at `path` (a directory there counts as absent). Object
   * stores answer it with one HEAD where {@link exists} also has to list for a directory prefix;
   * snapshot probing uses it ({@link fileExists}).
   */
  fileExists?(path: string): Promise<boolean>;
  /** The whole content of a file. `NOT_FOUND` when missing. */
  readFile(path: string): Promise<Uint8Array>;
  /** Optional: `readFile`, but null when missing (probes of hint files need no exception). */
  readFileIfExists?(path: string): Promise<Uint8Array | null>;
  /**
   * Optional synchronous probes, for file systems that answer them without waiting (a local disk
   * answers a stat or a few-byte read in microseconds, where an awaited call first waits for a
   * thread-pool slot; memory answers at once). Used only for tiny metadata: finding the latest
   * snapshot (the LATEST hint and whether a snapshot file exists) on every plan. Same results and
   * errors as `readFileIfExists` / `fileExists`; remote file systems leave them out.
   */
  readFileIfExistsSync?(path: string): Uint8Array | null;
  /** See {@link readFileIfExistsSync}: whether a *file* exists at `path`, synchronously. */
  fileExistsSync?(path: string): boolean;
  /**
   * Exactly `length` bytes starting at `offset`. `NOT_FOUND` when missing; `IO_ERROR` when the file
   * is shorter than `offset + length`.
   */
  readRange(path: string, offset: number, length: number): Promise<Uint8Array>;
  /** Status of a file or directory. `NOT_FOUND` when missing. */
  stat(path: string): Promise<FileStatus>;
  /** Size of a file in bytes. `NOT_FOUND` when missing. */
  fileSize(path: string): Promise<number>;
  /**
   * The direct children of a directory (files and directories), sorted by name.
   * A missing directory lists as `[]`; a path that is a file is an `IO_ERROR`.
   */
  listStatus(path: string): Promise<FileStatus[]>;
  /** Creates a directory and its parents; no-op when it exists. */
  mkdirs(path: string): Promise<void>;
  /**
   * Writes a whole file, creating parent directories, replacing any existing file.
   * Readers see either the old or the new content, never a partial file (local: temp + rename).
   */
  writeFile(path: string, content: FileContent): Promise<void>;
  /**
   * Publishes a whole file only if nothing exists at `path`: true = published, false = the path
   * already existed (nothing changed). Atomic, also across processes racing for the same path:
   * exactly one writer wins and readers never see partial content. Used for snapshot and schema files.
   */
  writeFileAtomicNoReplace(path: string, content: FileContent): Promise<boolean>;
  /** Deletes a file. Returns false when nothing existed. A directory is an `IO_ERROR`. */
  delete(path: string): Promise<boolean>;
  /**
   * Optional: deletes many files at once (missing ones are fine); `IO_ERROR` naming the files
   * that could not be deleted. Object stores batch it (S3 DeleteObjects: 1000 keys a request);
   * use it through {@link deleteFiles}.
   */
  deleteFiles?(paths: readonly string[]): Promise<void>;
  /** Deletes a directory recursively (or a single file). Returns false when nothing existed. */
  deleteDirectory(path: string): Promise<boolean>;
  /**
   * Renames a file or directory without replacing: false when `to` exists (files: atomic no-replace;
   * directories: best effort). `NOT_FOUND` when `from` is missing.
   */
  rename(from: string, to: string): Promise<boolean>;
  /**
   * Optional: plain, structured-cloneable options that build an equivalent FileIO in another
   * thread (compaction workers, src/write/compact-workers.ts), or undefined when this one cannot
   * be rebuilt there (a memory file system, a custom fetch). Absent: cannot be shared.
   */
  sharedOptions?(): SharedFileIOOptions | undefined;
}

/** What {@link FileIO.sharedOptions} returns: which built-in FileIO, with its constructor's options. */
export type SharedFileIOOptions =
  | { readonly kind: "local"; readonly options: { fsyncOnPublish?: boolean } }
  | { readonly kind: "s3"; readonly options: Record<string, unknown> };

// ---------------------------------------------------------------------------------------------
// Path helpers (pure string operations; work for OS paths and URLs alike)

/** Joins path segments with `/`, collapsing duplicate separators at the joints. */
export function joinPath(base: string, ...parts: string[]): string {
  let out = base;
  for (const part of parts) {
    if (part === "") continue;
    if (out === "") {
      out = part;
      continue;
    }
    const left = out.endsWith("/") ? out.slice(0, -1) : out;
    const right = part.startsWith("/") ? part.slice(1) : part;
    out = `${left}/${right}`;
  }
  return out;
}

/**
 * Whether a directory listing's entry name is one child of the directory: not empty, `.` or `..`,
 * and without `/`. Listings of remote stores (S3 keys, HTTP indexes) are data from outside: an
 * entry such as `../../x` or `a%2F..%2Fb` is skipped, so no listed path leads out of its directory.
 */
export function isChildName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !name.includes("/");
}

/**
 * `INVALID_ARGUMENT` when a path of a URL-addressed store has a `.` or `..` segment after
 * `prefixLength` characters: `fetch` resolves those segments before sending, so the request would
 * reach another object (another bucket, with path-style S3) than the path names.
 */
export function requireNoDotSegments(path: string, prefixLength: number): void {
  if (path.slice(prefixLength).split("/").some((s) => s === "." || s === "..")) {
    throw fsError("INVALID_ARGUMENT", "resolve", path, "has a '.' or '..' segment");
  }
}

/** The last segment of a path (trailing `/` ignored). */
export function baseName(path: string): string {
  const p = stripTrailingSlash(path);
  const i = Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\"));
  return i < 0 ? p : p.slice(i + 1);
}

/** The path without its last segment (trailing `/` ignored); `""` when there is none. */
export function parentPath(path: string): string {
  const p = stripTrailingSlash(path);
  const i = Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\"));
  if (i < 0) return "";
  if (i === 0) return p.slice(0, 1);
  const parent = p.slice(0, i);
  // keep "scheme://" intact: "memory://x" is the parent of "memory://x/a"
  return parent.endsWith(":/") ? `${parent}/` : parent;
}

function stripTrailingSlash(path: string): string {
  let p = path;
  while (p.length > 1 && p.endsWith("/") && !p.endsWith("://")) p = p.slice(0, -1);
  return p;
}

/** The URL scheme of a path (`"memory"`, `"http"`, `"file"`), or `""` for a plain OS path. */
export function schemeOf(path: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(path);
  if (!m) return "";
  const scheme = m[1]!.toLowerCase();
  // "C:\x" or "C:/x" is a Windows drive, not a scheme
  if (scheme.length === 1) return "";
  return scheme;
}

/** A hidden temp-file name next to `path` that never starts with the real file's prefix. */
export function tempSiblingPath(path: string): string {
  const dir = parentPath(path);
  const name = `.${baseName(path)}.${randomId()}.tmp`;
  return dir === "" ? name : joinPath(dir, name);
}

/** A random UUID-like id (crypto.randomUUID where available). */
export function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  let s = "";
  for (let i = 0; i < 32; i++) s += Math.floor(Math.random() * 16).toString(16);
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

// ---------------------------------------------------------------------------------------------
// Content helpers

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

/** Content as bytes (strings are UTF-8 encoded). */
export function toBytes(content: FileContent): Uint8Array {
  return typeof content === "string" ? encoder.encode(content) : content;
}

/** Reads a whole file as UTF-8 text. */
export async function readTextFile(io: FileIO, path: string): Promise<string> {
  return decoder.decode(await io.readFile(path));
}

/** Whether a file exists at `path`: `io.fileExists` where implemented, else `io.exists`. */
export function fileExists(io: FileIO, path: string): Promise<boolean> {
  return io.fileExists ? io.fileExists(path) : io.exists(path);
}

/**
 * `fileExists`, answered synchronously where the file system can (`io.fileExistsSync`): the
 * result is then already there instead of waiting for a thread-pool round trip.
 */
export function probeFileExists(io: FileIO, path: string): boolean | Promise<boolean> {
  return io.fileExistsSync ? io.fileExistsSync(path) : fileExists(io, path);
}

/** `readTextFileIfExists`, answered synchronously where the file system can (`io.readFileIfExistsSync`). */
export function probeTextFileIfExists(io: FileIO, path: string): string | null | Promise<string | null> {
  if (!io.readFileIfExistsSync) return readTextFileIfExists(io, path);
  const bytes = io.readFileIfExistsSync(path);
  return bytes === null ? null : decoder.decode(bytes);
}

/**
 * Deletes files, missing ones included: `io.deleteFiles` where implemented (batched), else one
 * `delete` per file, all in flight together. Rejects with the first failure after all were tried.
 */
export async function deleteFiles(io: FileIO, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  if (io.deleteFiles) return io.deleteFiles(paths);
  const results = await Promise.allSettled(paths.map((p) => io.delete(p)));
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

/** Reads a file as UTF-8 text, or returns null when it does not exist. */
export async function readTextFileIfExists(io: FileIO, path: string): Promise<string | null> {
  if (io.readFileIfExists) {
    const bytes = await io.readFileIfExists(path);
    return bytes === null ? null : decoder.decode(bytes);
  }
  try {
    return await readTextFile(io, path);
  } catch (e) {
    if (e instanceof PaimonError && e.code === "NOT_FOUND") return null;
    throw e;
  }
}

/** Validates a byte range request; throws INVALID_ARGUMENT for negative or non-integer values. */
export function checkRange(path: string, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new PaimonError(
      "INVALID_ARGUMENT",
      `invalid byte range (offset ${offset}, length ${length}) for ${path}`,
    );
  }
}

/** The `IO_ERROR` for a range past the end of a file. */
export function shortReadError(path: string, offset: number, length: number, size: number): PaimonError {
  return new PaimonError(
    "IO_ERROR",
    `cannot read ${length} bytes at offset ${offset} of ${path}: file has ${size} bytes`,
  );
}

/** The `READ_ONLY` error for a write operation. */
export function readOnlyError(op: string, path: string, why = "the file system is read-only"): PaimonError {
  return new PaimonError("READ_ONLY", `cannot ${op} ${path}: ${why}`);
}

/** Builds a PaimonError naming the operation and path. */
export function fsError(code: PaimonErrorCode, op: string, path: string, detail: string, cause?: unknown): PaimonError {
  return new PaimonError(code, `${op} ${path}: ${detail}`, cause === undefined ? undefined : { cause });
}

// ---------------------------------------------------------------------------------------------
// Resolving a FileIO from a warehouse location

/** A FileIO for a location plus the location normalized to that FileIO's path syntax. */
export interface ResolvedLocation {
  readonly fileIO: FileIO;
  /** The normalized root (absolute OS path, `memory://name/...` or URL), without trailing `/`. */
  readonly root: string;
}

/** Makes a FileIO for a location with a given scheme (`""` = plain OS path). */
export type FileIOFactory = (location: string) => ResolvedLocation;

const factories = new Map<string, FileIOFactory>();

/**
 * Registers the FileIO used for a scheme (`""` for plain OS paths, `"file"`, `"s3"`, …).
 * `local-file-io.ts` registers itself for `""` and `"file"` when it is imported.
 */
export function registerFileIOFactory(scheme: string, factory: FileIOFactory): void {
  factories.set(scheme.toLowerCase(), factory);
}

/** The factory registered for a scheme, if any. */
export function fileIOFactoryFor(scheme: string): FileIOFactory | undefined {
  return factories.get(scheme.toLowerCase());
}
