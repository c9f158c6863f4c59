/**
 * The local file system through `node:fs/promises` (also provided by Deno and Bun), plus two
 * synchronous `node:fs` probes for tiny metadata (`readFileIfExistsSync`, `fileExistsSync`).
 * This is the only module of `src/fs/` that imports `node:` modules.
 *
 * Paths are OS paths or `file:` URLs. Listings return child paths in the syntax of the directory
 * path that was passed in.
 */
import { Buffer } from "node:buffer";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as nodePath from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { PaimonError } from "../error.js";
import {
  type FileContent,
  type FileIO,
  type FileStatus,
  baseName,
  checkRange,
  fsError,
  joinPath,
  registerFileIOFactory,
  type SharedFileIOOptions,
  shortReadError,
  toBytes,
} from "./file-io.js";

interface NodeError {
  code?: string;
  message?: string;
}

function errCode(e: unknown): string | undefined {
  return typeof e === "object" && e !== null ? (e as NodeError).code : undefined;
}

/** Maps a Node.js fs error to a PaimonError naming the operation and path (exported for tests). */
export function mapLocalError(e: unknown, op: string, path: string): PaimonError {
  const code = errCode(e);
  const msg = (e as NodeError | undefined)?.message ?? String(e);
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return fsError("NOT_FOUND", op, path, `no such file or directory (${code})`, e);
    case "EROFS":
      return fsError("READ_ONLY", op, path, `read-only file system (${code})`, e);
    default:
      return fsError("IO_ERROR", op, path, msg, e);
  }
}

/** Errors of `link(2)` that mean "hard links are not supported here", not "target exists". */
const LINK_UNSUPPORTED = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EMLINK"]);

/** An empty, `.` or `..` segment, or a trailing slash: what `path.resolve` would rewrite. */
const NOT_NORMAL_POSIX = /\/\/|\/\.\.?(\/|$)|.\/$/;

/** Converts a `file:` URL or OS path to an absolute OS path. */
export function toLocalPath(path: string): string {
  // an absolute POSIX path that is already normal (the table's own paths) is its own resolution:
  // no new string per probe of a plan
  if (nodePath.sep === "/" && path.charCodeAt(0) === 47 && !NOT_NORMAL_POSIX.test(path)) return path;
  if (/^file:/i.test(path)) return fileURLToPath(path);
  return nodePath.resolve(path);
}

export interface LocalFileIOOptions {
  /** fsync the temp file before publishing with writeFileAtomicNoReplace (default true). */
  fsyncOnPublish?: boolean;
}

export class LocalFileIO implements FileIO {
  readonly scheme = "file";
  readonly readOnly = false;
  private readonly fsyncOnPublish: boolean;

  constructor(options: LocalFileIOOptions = {}) {
    this.fsyncOnPublish = options.fsyncOnPublish ?? true;
  }

  sharedOptions(): SharedFileIOOptions {
    return { kind: "local", options: { fsyncOnPublish: this.fsyncOnPublish } };
  }

  async exists(path: string): Promise<boolean> {
    try {
      await fsp.stat(toLocalPath(path));
      return true;
    } catch (e) {
      const code = errCode(e);
      if (code === "ENOENT" || code === "ENOTDIR") return false;
      throw mapLocalError(e, "exists", path);
    }
  }

  async readFile(path: string): Promise<Uint8Array> {
    try {
      const buf = await fsp.readFile(toLocalPath(path));
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (e) {
      throw mapLocalError(e, "read", path);
    }
  }

  async readFileIfExists(path: string): Promise<Uint8Array | null> {
    try {
      const buf = await fsp.readFile(toLocalPath(path));
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw mapLocalError(e, "read", path);
    }
  }

  readFileIfExistsSync(path: string): Uint8Array | null {
    try {
      const buf = fs.readFileSync(toLocalPath(path));
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (e) {
      const code = errCode(e);
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw mapLocalError(e, "read", path);
    }
  }

  fileExistsSync(path: string): boolean {
    try {
      const st = fs.statSync(toLocalPath(path), { throwIfNoEntry: false });
      return st !== undefined && !st.isDirectory();
    } catch (e) {
      const code = errCode(e);
      if (code === "ENOTDIR") return false;
      throw mapLocalError(e, "exists", path);
    }
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    checkRange(path, offset, length);
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(toLocalPath(path), "r");
    } catch (e) {
      throw mapLocalError(e, "read", path);
    }
    try {
      // not zero-filled first (a 1 M-row data file is tens of MB): every byte is read into it, or this throws
      const out = new Uint8Array(Buffer.allocUnsafeSlow(length).buffer, 0, length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await fh.read(out, done, length - done, offset + done);
        if (bytesRead === 0) {
          const size = (await fh.stat()).size;
          throw shortReadError(path, offset, length, size);
        }
        done += bytesRead;
      }
      return out;
    } catch (e) {
      if (isPaimonError(e)) throw e;
      throw mapLocalError(e, "read", path);
    } finally {
      await fh.close().catch(() => undefined);
    }
  }

  async stat(path: string): Promise<FileStatus> {
    try {
      const st = await fsp.stat(toLocalPath(path));
      return {
        path,
        name: baseName(path),
        size: st.isDirectory() ? 0 : st.size,
        isDir: st.isDirectory(),
        modificationTime: Math.floor(st.mtimeMs),
      };
    } catch (e) {
      throw mapLocalError(e, "stat", path);
    }
  }

  async fileSize(path: string): Promise<number> {
    const st = await this.stat(path);
    if (st.isDir) throw fsError("IO_ERROR", "size", path, "is a directory");
    return st.size;
  }

  async listStatus(path: string): Promise<FileStatus[]> {
    const dir = toLocalPath(path);
    let names: string[];
    // Directory entries say which names are symbolic links without another system call.
    const links = new Set<string>();
    try {
      const dirents = await fsp.readdir(dir, { withFileTypes: true });
      names = dirents.map((d) => d.name);
      for (const d of dirents) if (d.isSymbolicLink()) links.add(d.name);
    } catch (e) {
      const code = errCode(e);
      if (code === "ENOENT") return [];
      if (code === "ENOTDIR") throw fsError("IO_ERROR", "list", path, "not a directory", e);
      throw mapLocalError(e, "list", path);
    }
    names.sort(compareNames);
    const out: FileStatus[] = [];
    // stat in modest parallel chunks
    const CHUNK = 64;
    for (let i = 0; i < names.length; i += CHUNK) {
      const part = names.slice(i, i + CHUNK);
      const stats = await Promise.all(
        part.map(async (name) => {
          try {
            return await fsp.stat(nodePath.join(dir, name));
          } catch (e) {
            if (errCode(e) === "ENOENT") return null; // deleted meanwhile (or dangling symlink)
            throw mapLocalError(e, "list", joinPath(path, name));
          }
        }),
      );
      part.forEach((name, j) => {
        const st = stats[j];
        if (!st) return;
        out.push({
          path: joinPath(path, name),
          name,
          size: st.isDirectory() ? 0 : st.size,
          isDir: st.isDirectory(),
          modificationTime: Math.floor(st.mtimeMs),
          ...(links.has(name) ? { isSymlink: true } : {}),
        });
      });
    }
    return out;
  }

  async mkdirs(path: string): Promise<void> {
    try {
      await fsp.mkdir(toLocalPath(path), { recursive: true });
    } catch (e) {
      const code = errCode(e);
      if (code === "EEXIST" || code === "ENOTDIR") {
        throw fsError("IO_ERROR", "mkdirs", path, "a file is in the way", e);
      }
      throw mapLocalError(e, "mkdirs", path);
    }
  }

  async writeFile(path: string, content: FileContent): Promise<void> {
    const target = toLocalPath(path);
    const bytes = toBytes(content);
    await this.ensureParent(target, path, "write");
    const tmp = tempName(target);
    try {
      await fsp.writeFile(tmp, bytes, { flag: "wx" });
      await fsp.rename(tmp, target);
    } catch (e) {
      await fsp.unlink(tmp).catch(() => undefined);
      if (errCode(e) === "EISDIR") throw fsError("IO_ERROR", "write", path, "is a directory", e);
      throw mapLocalError(e, "write", path);
    }
  }

  async writeFileAtomicNoReplace(path: string, content: FileContent): Promise<boolean> {
    const target = toLocalPath(path);
    const bytes = toBytes(content);
    await this.ensureParent(target, path, "publish");
    if (await this.exists(path)) return false; // fast path only; the link below decides
    const tmp = tempName(target);
    try {
      const fh = await fsp.open(tmp, "wx");
      try {
        await fh.writeFile(bytes);
        if (this.fsyncOnPublish) await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (e) {
      await fsp.unlink(tmp).catch(() => undefined);
      throw mapLocalError(e, "publish", path);
    }
    try {
      // link(2) never replaces an existing target: exactly one racing process succeeds.
      await fsp.link(tmp, target);
      return true;
    } catch (e) {
      const code = errCode(e);
      if (code === "EEXIST") return false;
      if (code !== undefined && LINK_UNSUPPORTED.has(code)) return await this.publishExclusive(target, path, bytes);
      throw mapLocalError(e, "publish", path);
    } finally {
      await fsp.unlink(tmp).catch(() => undefined);
    }
  }

  /**
   * Fallback for file systems without hard links: exclusive create ("wx", O_CREAT|O_EXCL) is still
   * atomic for the *decision*; a concurrent reader may briefly see a partially written file.
   */
  private async publishExclusive(target: string, path: string, bytes: Uint8Array): Promise<boolean> {
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(target, "wx");
    } catch (e) {
      if (errCode(e) === "EEXIST") return false;
      throw mapLocalError(e, "publish", path);
    }
    try {
      await fh.writeFile(bytes);
      if (this.fsyncOnPublish) await fh.sync();
      return true;
    } catch (e) {
      throw mapLocalError(e, "publish", path);
    } finally {
      await fh.close().catch(() => undefined);
    }
  }

  async delete(path: string): Promise<boolean> {
    // Deno's unlink also removes empty directories: refuse directories explicitly.
    if (await this.isDir(path)) throw fsError("IO_ERROR", "delete", path, "is a directory (use deleteDirectory)");
    try {
      await fsp.unlink(toLocalPath(path));
      return true;
    } catch (e) {
      const code = errCode(e);
      if (code === "ENOENT") return false;
      if (code === "EISDIR" || (code === "EPERM" && (await this.isDir(path)))) {
        throw fsError("IO_ERROR", "delete", path, "is a directory (use deleteDirectory)", e);
      }
      throw mapLocalError(e, "delete", path);
    }
  }

  async deleteDirectory(path: string): Promise<boolean> {
    const p = toLocalPath(path);
    if (!(await this.exists(path))) return false;
    try {
      await fsp.rm(p, { recursive: true, force: true });
      return true;
    } catch (e) {
      throw mapLocalError(e, "deleteDirectory", path);
    }
  }

  async rename(from: string, to: string): Promise<boolean> {
    const src = toLocalPath(from);
    const dst = toLocalPath(to);
    const st = await this.stat(from); // NOT_FOUND when missing
    await this.ensureParent(dst, to, "rename");
    if (!st.isDir) {
      try {
        await fsp.link(src, dst);
      } catch (e) {
        const code = errCode(e);
        if (code === "EEXIST") return false;
        if (code === undefined || !LINK_UNSUPPORTED.has(code)) throw mapLocalError(e, "rename", `${from} -> ${to}`);
        return this.renameCheckFirst(src, dst, from, to);
      }
      try {
        await fsp.unlink(src);
      } catch (e) {
        throw mapLocalError(e, "rename", `${from} -> ${to}`);
      }
      return true;
    }
    return this.renameCheckFirst(src, dst, from, to);
  }

  private async renameCheckFirst(src: string, dst: string, from: string, to: string): Promise<boolean> {
    if (await this.exists(dst)) return false;
    try {
      await fsp.rename(src, dst);
      return true;
    } catch (e) {
      const code = errCode(e);
      if (code === "EEXIST" || code === "ENOTEMPTY") return false;
      throw mapLocalError(e, "rename", `${from} -> ${to}`);
    }
  }

  private async isDir(path: string): Promise<boolean> {
    try {
      return (await fsp.stat(toLocalPath(path))).isDirectory();
    } catch {
      return false;
    }
  }

  private async ensureParent(osPath: string, path: string, op: string): Promise<void> {
    try {
      await fsp.mkdir(nodePath.dirname(osPath), { recursive: true });
    } catch (e) {
      const code = errCode(e);
      if (code === "EEXIST" || code === "ENOTDIR") {
        throw fsError("IO_ERROR", op, path, "a parent path is a file", e);
      }
      throw mapLocalError(e, op, path);
    }
  }
}

function tempName(osPath: string): string {
  return nodePath.join(nodePath.dirname(osPath), `.${nodePath.basename(osPath)}.${randomUUID()}.tmp`);
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isPaimonError(e: unknown): e is PaimonError {
  return e instanceof Error && e.name === "PaimonError";
}

/** Normalizes a local warehouse location (OS path or file: URL) to an absolute OS path. */
export function normalizeLocalLocation(location: string): string {
  const p = toLocalPath(location);
  return p.length > 1 && (p.endsWith("/") || p.endsWith("\\")) ? p.slice(0, -1) : p;
}

const localFactory = (location: string) => ({ fileIO: new LocalFileIO(), root: normalizeLocalLocation(location) });
registerFileIOFactory("", localFactory);
registerFileIOFactory("file", localFactory);
