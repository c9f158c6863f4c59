// Spill files of the default store: a sealed segment's batches as one Arrow IPC stream,
// compressed as a zstd frame (@bokuweb/zstd-wasm to compress, fzstd to decompress). Spill files are temporary storage, not a recovery log.
import * as arrow from "apache-arrow";
import { decompress as fzstdDecompress } from "fzstd";
import { PaimonError } from "../error.js";
import { joinPath, randomId, type FileIO } from "../fs/file-io.js";
import { resolveFileIO } from "../fs/resolve.js";
import { initCodecs } from "../spec/avro.js";

type Compress = (buf: Uint8Array, level?: number) => Uint8Array;
let compressor: Promise<Compress | null> | null = null;

function loadCompressor(): Promise<Compress | null> {
  compressor ??= (async () => {
    try {
      // The zstd wasm module must be initialised exactly once per process (a second init()
      // corrupts concurrent compressions): share the manifest codec's initialisation.
      await initCodecs();
      type Mod = { compress: Compress };
      const imported = (await import("@bokuweb/zstd-wasm")) as unknown as Mod & { default?: Mod };
      const mod = typeof imported.compress === "function" ? imported : imported.default!;
      mod.compress(new Uint8Array(8), 1); // throws when the module did not initialise
      return mod.compress;
    } catch {
      return null;
    }
  })();
  return compressor;
}

const ioCache = new Map<string, Promise<FileIO>>();

function ioFor(dir: string): Promise<FileIO> {
  let io = ioCache.get(dir);
  if (!io) {
    io = resolveFileIO(dir);
    ioCache.set(dir, io);
    io.catch(() => ioCache.delete(dir));
  }
  return io;
}

const SPILL_PREFIX = "paimon-rt-spill-";
/** `paimon-rt-spill-<pid>@<host>-<uuid>.arrow`: the owning process is part of the name. */
const OWNED_SPILL_FILE = /^paimon-rt-spill-(\d+)@([A-Za-z0-9._]*)-.+\.arrow$/;
/** Spill files without an owner (older versions) are removed once they are this old. */
const UNOWNED_SPILL_MAX_AGE_MS = 24 * 60 * 60 * 1000;

let ownerTagCache: Promise<string> | null = null;

/** `<pid>@<host>` of this process (host with `-` replaced, so names parse back). */
function ownerTag(): Promise<string> {
  ownerTagCache ??= (async () => {
    const pid = globalThis.process?.pid ?? 0;
    let host = "";
    try {
      host = (await import("node:os")).hostname();
    } catch {
      // no host name outside Node: pid only
    }
    return `${pid}@${host.replace(/[^A-Za-z0-9.]/g, "_").slice(0, 64)}`;
  })();
  return ownerTagCache;
}

/** Whether process `pid` of this host is alive (`kill(pid, 0)`: ESRCH = no such process). */
function processAlive(pid: number): boolean {
  try {
    globalThis.process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Removes the spill files in `dir` that processes which are no longer running left behind
 * (spill files are temporary: a dead owner can never read them). A file of a live process,
 * of another host, or of this process is kept; files without an owner in their name (older
 * versions) only once they are a day old. Best effort: returns the deleted paths.
 */
export async function cleanDeadSpillFiles(dir: string): Promise<string[]> {
  return removeDeadSpillFiles(dir).catch(() => []);
}

async function removeDeadSpillFiles(dir: string, now = Date.now()): Promise<string[]> {
  if (typeof globalThis.process?.kill !== "function") return [];
  const io = await ioFor(dir);
  const [ownPid, ownHost] = (await ownerTag()).split("@");
  const deleted: string[] = [];
  for (const f of await io.listStatus(dir)) {
    if (f.isDir || f.isSymlink || !f.name.startsWith(SPILL_PREFIX)) continue;
    const owned = OWNED_SPILL_FILE.exec(f.name);
    const dead = owned
      ? owned[2] === ownHost && owned[1] !== ownPid && !processAlive(Number(owned[1]))
      : f.modificationTime > 0 && now - f.modificationTime > UNOWNED_SPILL_MAX_AGE_MS;
    if (dead && (await io.delete(f.path).catch(() => false))) deleted.push(f.path);
  }
  return deleted;
}

export interface SpillFileInfo {
  path: string;
  sizeBytes: number;
}

/** Writes batches to a new spill file under `dir`. On failure nothing is left behind. */
export async function writeSpillFile(dir: string, batches: readonly arrow.RecordBatch[], compression: "zstd" | "none", level: number): Promise<SpillFileInfo> {
  if (!dir) throw new PaimonError("INVALID_ARGUMENT", "realtime.spill-enabled requires a non-empty temporary directory");
  if (batches.length === 0) throw new PaimonError("INVALID_ARGUMENT", "cannot spill an empty segment");
  const io = await ioFor(dir);
  const path = joinPath(dir, `${SPILL_PREFIX}${await ownerTag()}-${randomId()}.arrow`);
  // The IPC stream is compressed as one zstd frame: Arrow JS's per-buffer IPC compression stores
  // incompressible buffers unaligned, which its own reader cannot map back to 64-bit arrays.
  const ipc = arrow.tableToIPC(new arrow.Table(batches[0].schema, batches as arrow.RecordBatch[]), "stream");
  let bytes: Uint8Array = ipc;
  if (compression === "zstd") {
    const compress = await loadCompressor();
    if (!compress) throw new PaimonError("UNSUPPORTED", "zstd compression is not available in this runtime (spill-compression=zstd)");
    bytes = compress(ipc, level);
  }
  try {
    await io.writeFile(path, bytes);
  } catch (e) {
    await io.delete(path).catch(() => false);
    throw e instanceof PaimonError ? e : new PaimonError("IO_ERROR", `writing spill file ${path} failed: ${(e as Error).message}`, { cause: e });
  }
  return { path, sizeBytes: bytes.length };
}

/** Reads a spill file back (batches in write order). */
export async function readSpillFile(path: string): Promise<arrow.RecordBatch[]> {
  const dir = path.slice(0, path.lastIndexOf("/"));
  const io = await ioFor(dir);
  const raw = await io.readFile(path);
  try {
    const isZstd = raw.length >= 4 && raw[0] === 0x28 && raw[1] === 0xb5 && raw[2] === 0x2f && raw[3] === 0xfd;
    const bytes = isZstd ? fzstdDecompress(raw) : raw;
    return arrow.tableFromIPC(bytes).batches;
  } catch (e) {
    throw new PaimonError("CORRUPT_FILE", `spill file ${path} cannot be read: ${(e as Error).message}`, { cause: e });
  }
}

export async function deleteSpillFile(path: string): Promise<void> {
  const dir = path.slice(0, path.lastIndexOf("/"));
  try {
    const io = await ioFor(dir);
    await io.delete(path);
  } catch {
    // temporary storage: best effort
  }
}
