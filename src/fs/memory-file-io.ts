/**
 * An in-process file system addressed as `memory://<name>/<path>`.
 *
 * Every `MemoryFileIO` (unless created `isolated`) shares one store per `<name>` within the
 * JavaScript realm, so two `Catalog.open("memory://x")` see the same files. Each operation runs
 * synchronously between awaits, so every write is atomic and `writeFileAtomicNoReplace` is a true
 * compare-and-set. No `node:` imports (edge-safe).
 */
import {
  type FileContent,
  type FileIO,
  type FileStatus,
  checkRange,
  fsError,
  joinPath,
  readOnlyError,
  registerFileIOFactory,
  shortReadError,
  toBytes,
} from "./file-io.js";

interface FileNode {
  kind: "file";
  data: Uint8Array;
  mtime: number;
}
interface DirNode {
  kind: "dir";
  children: Map<string, Node>;
  mtime: number;
}
type Node = FileNode | DirNode;

type Stores = Map<string, DirNode>;

const GLOBAL_KEY = Symbol.for("paimon-rt.memory-file-io.stores");

function globalStores(): Stores {
  const g = globalThis as unknown as Record<symbol, Stores | undefined>;
  let stores = g[GLOBAL_KEY];
  if (!stores) {
    stores = new Map();
    g[GLOBAL_KEY] = stores;
  }
  return stores;
}

function newDir(): DirNode {
  return { kind: "dir", children: new Map(), mtime: Date.now() };
}

interface ParsedPath {
  name: string;
  segments: string[];
}

/** Parses `memory://name/a/b` into the store name and normalized segments. */
export function parseMemoryPath(path: string): ParsedPath {
  const m = /^memory:(\/\/)?(.*)$/i.exec(path);
  if (!m) throw fsError("INVALID_ARGUMENT", "resolve", path, "not a memory:// path");
  const rest = m[2]!;
  const parts = rest.split("/");
  const name = m[1] === undefined ? "" : parts.shift()!;
  const segments: string[] = [];
  for (const p of parts) {
    if (p === "" || p === ".") continue;
    if (p === "..") {
      segments.pop();
      continue;
    }
    segments.push(p);
  }
  return { name, segments };
}

/** `memory://name/a/b` with normalized segments and no trailing slash. */
export function normalizeMemoryLocation(path: string): string {
  const { name, segments } = parseMemoryPath(path);
  return segments.length === 0 ? `memory://${name}` : `memory://${name}/${segments.join("/")}`;
}

export interface MemoryFileIOOptions {
  /** Use private stores instead of the process-wide ones (tests). */
  isolated?: boolean;
  /** Reject every write with READ_ONLY (tests, read-only views). */
  readOnly?: boolean;
}

export class MemoryFileIO implements FileIO {
  readonly scheme = "memory";
  readonly readOnly: boolean;
  private readonly stores: Stores;

  constructor(options: MemoryFileIOOptions = {}) {
    this.stores = options.isolated ? new Map() : globalStores();
    this.readOnly = options.readOnly ?? false;
  }

  /** Drops the process-wide store `memory://<name>` (all its files). */
  static clear(name: string): void {
    globalStores().delete(name);
  }

  /** Drops every process-wide memory store. */
  static clearAll(): void {
    globalStores().clear();
  }

  /** Total bytes of file content held in the process-wide store `memory://<name>`. */
  static usedBytes(name: string): number {
    const root = globalStores().get(name);
    if (!root) return 0;
    let total = 0;
    const walk = (d: DirNode): void => {
      for (const n of d.children.values()) {
        if (n.kind === "file") total += n.data.byteLength;
        else walk(n);
      }
    };
    walk(root);
    return total;
  }

  private root(name: string, create: boolean): DirNode | undefined {
    let r = this.stores.get(name);
    if (!r && create) {
      r = newDir();
      this.stores.set(name, r);
    }
    return r;
  }

  /** The node at `path`, or undefined (also when a parent is a file). */
  private lookup(path: string): Node | undefined {
    const { name, segments } = parseMemoryPath(path);
    let node: Node | undefined = this.root(name, false);
    for (const s of segments) {
      if (!node || node.kind !== "dir") return undefined;
      node = node.children.get(s);
    }
    return node;
  }

  /** The directory at `segments` (created with parents when `create`); throws when a file is in the way. */
  private dirAt(name: string, segments: string[], create: boolean, op: string, path: string): DirNode | undefined {
    let dir = this.root(name, create);
    if (!dir) return undefined;
    for (const s of segments) {
      const next: Node | undefined = dir.children.get(s);
      if (next === undefined) {
        if (!create) return undefined;
        const d = newDir();
        dir.children.set(s, d);
        dir.mtime = Date.now();
        dir = d;
      } else if (next.kind === "file") {
        throw fsError("IO_ERROR", op, path, "a parent path is a file");
      } else {
        dir = next;
      }
    }
    return dir;
  }

  private fileAt(path: string, op: string): FileNode {
    const node = this.lookup(path);
    if (!node) throw fsError("NOT_FOUND", op, path, "no such file");
    if (node.kind !== "file") throw fsError("IO_ERROR", op, path, "is a directory");
    return node;
  }

  private checkWritable(op: string, path: string): void {
    if (this.readOnly) throw readOnlyError(op, path);
  }

  async exists(path: string): Promise<boolean> {
    return this.lookup(path) !== undefined;
  }

  async readFile(path: string): Promise<Uint8Array> {
    return this.fileAt(path, "read").data.slice();
  }

  async readFileIfExists(path: string): Promise<Uint8Array | null> {
    return this.readFileIfExistsSync(path);
  }

  readFileIfExistsSync(path: string): Uint8Array | null {
    const node = this.lookup(path);
    return node === undefined ? null : this.fileAt(path, "read").data.slice();
  }

  fileExistsSync(path: string): boolean {
    return this.lookup(path)?.kind === "file";
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    checkRange(path, offset, length);
    const f = this.fileAt(path, "read");
    if (offset + length > f.data.byteLength) throw shortReadError(path, offset, length, f.data.byteLength);
    return f.data.slice(offset, offset + length);
  }

  async stat(path: string): Promise<FileStatus> {
    const node = this.lookup(path);
    if (!node) throw fsError("NOT_FOUND", "stat", path, "no such file or directory");
    const { segments, name } = parseMemoryPath(path);
    return status(path, segments.length ? segments[segments.length - 1]! : name, node);
  }

  async fileSize(path: string): Promise<number> {
    return this.fileAt(path, "size").data.byteLength;
  }

  async listStatus(path: string): Promise<FileStatus[]> {
    const node = this.lookup(path);
    if (!node) return [];
    if (node.kind !== "dir") throw fsError("IO_ERROR", "list", path, "not a directory");
    const names = [...node.children.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return names.map((n) => status(joinPath(path, n), n, node.children.get(n)!));
  }

  async mkdirs(path: string): Promise<void> {
    this.checkWritable("mkdirs", path);
    const { name, segments } = parseMemoryPath(path);
    this.dirAt(name, segments, true, "mkdirs", path);
  }

  /** Parent directory (created) and leaf name for a file path. */
  private parentOf(path: string, op: string): { dir: DirNode; leaf: string } {
    const { name, segments } = parseMemoryPath(path);
    if (segments.length === 0) throw fsError("IO_ERROR", op, path, "is a directory (store root)");
    const leaf = segments[segments.length - 1]!;
    const dir = this.dirAt(name, segments.slice(0, -1), true, op, path)!;
    return { dir, leaf };
  }

  async writeFile(path: string, content: FileContent): Promise<void> {
    this.checkWritable("write", path);
    const bytes = toBytes(content).slice();
    const { dir, leaf } = this.parentOf(path, "write");
    const existing = dir.children.get(leaf);
    if (existing?.kind === "dir") throw fsError("IO_ERROR", "write", path, "is a directory");
    dir.children.set(leaf, { kind: "file", data: bytes, mtime: Date.now() });
    dir.mtime = Date.now();
  }

  async writeFileAtomicNoReplace(path: string, content: FileContent): Promise<boolean> {
    this.checkWritable("publish", path);
    const bytes = toBytes(content).slice();
    const { dir, leaf } = this.parentOf(path, "publish");
    if (dir.children.has(leaf)) return false;
    dir.children.set(leaf, { kind: "file", data: bytes, mtime: Date.now() });
    dir.mtime = Date.now();
    return true;
  }

  async delete(path: string): Promise<boolean> {
    this.checkWritable("delete", path);
    const node = this.lookup(path);
    if (!node) return false;
    if (node.kind === "dir") throw fsError("IO_ERROR", "delete", path, "is a directory (use deleteDirectory)");
    return this.unlinkNode(path);
  }

  async deleteDirectory(path: string): Promise<boolean> {
    this.checkWritable("deleteDirectory", path);
    const node = this.lookup(path);
    if (!node) return false;
    const { name, segments } = parseMemoryPath(path);
    if (segments.length === 0) {
      this.stores.delete(name);
      return true;
    }
    return this.unlinkNode(path);
  }

  private unlinkNode(path: string): boolean {
    const { name, segments } = parseMemoryPath(path);
    const parent = this.dirAt(name, segments.slice(0, -1), false, "delete", path);
    if (!parent) return false;
    const ok = parent.children.delete(segments[segments.length - 1]!);
    if (ok) parent.mtime = Date.now();
    return ok;
  }

  async rename(from: string, to: string): Promise<boolean> {
    this.checkWritable("rename", from);
    const node = this.lookup(from);
    if (!node) throw fsError("NOT_FOUND", "rename", `${from} -> ${to}`, "no such file or directory");
    const src = parseMemoryPath(from);
    const dst = parseMemoryPath(to);
    if (src.segments.length === 0) throw fsError("IO_ERROR", "rename", from, "cannot rename a store root");
    if (
      node.kind === "dir" &&
      src.name === dst.name &&
      dst.segments.length > src.segments.length &&
      src.segments.every((s, i) => dst.segments[i] === s)
    ) {
      throw fsError("IO_ERROR", "rename", `${from} -> ${to}`, "cannot move a directory into itself");
    }
    if (this.lookup(to) !== undefined) return false;
    const { dir, leaf } = this.parentOf(to, "rename");
    this.unlinkNode(from);
    dir.children.set(leaf, node);
    dir.mtime = Date.now();
    return true;
  }
}

function status(path: string, name: string, node: Node): FileStatus {
  return {
    path,
    name,
    size: node.kind === "file" ? node.data.byteLength : 0,
    isDir: node.kind === "dir",
    modificationTime: node.mtime,
  };
}

const memoryFactory = (location: string) => ({
  fileIO: new MemoryFileIO(),
  root: normalizeMemoryLocation(location),
});
registerFileIOFactory("memory", memoryFactory);
