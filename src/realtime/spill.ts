// Spill files of the default store: a sealed segment's batches as chunks of Arrow IPC streams,
// each compressed as a zstd frame (by the zstd accessor spec/zstd.ts both ways). Spill files are
// temporary storage of this process, not a recovery log: the format is internal.
import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { joinPath, randomId, type FileIO } from "../fs/file-io.js";
import { resolveFileIO } from "../fs/resolve.js";
import { loadZstd } from "../spec/zstd.js";

type Compress = (buf: Uint8Array, level: number) => Uint8Array;

function loadCompressor(): Promise<Compress | null> {
  return loadZstd().then((z) => (z ? z.compress : null));
}

/**
 * The decompressor of spill chunks: the wasm module (2.8x fzstd on 2 MB Arrow IPC chunks). A
 * process that has zstd spill files had it (it wrote them); their frames carry their content size
 * (ZSTD_compress writes it), so no size is given.
 */
async function loadDecompressor(): Promise<(frame: Uint8Array) => Uint8Array> {
  const z = await loadZstd();
  if (!z) throw new PaimonError("UNSUPPORTED", "zstd is not available in this runtime (reading a spill file written with spill-compression=zstd)");
  return (frame) => z.decompress(frame, 0);
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
// A computed specifier keeps edge bundlers from following this import (as in fs/resolve.ts).
const OS_MODULE = ["node", "os"].join(":");

/** `<pid>@<host>` of this process (host with `-` replaced, so names parse back). */
function ownerTag(): Promise<string> {
  ownerTagCache ??= (async () => {
    const pid = globalThis.process?.pid ?? 0;
    let host = "";
    try {
      host = ((await import(/* @vite-ignore */ OS_MODULE)) as { hostname(): string }).hostname();
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

/**
 * Arrow bytes of the batches encoded into one chunk of a spill file. Chunks bound what spilling
 * and reading hold at once: the zstd encoder's wasm memory (which never shrinks) grows to a few
 * chunk sizes, not to a segment's size, and a reader decodes one chunk at a time.
 */
const SPILL_CHUNK_BYTES = 2 << 20;
/** Chunk header: u32 payload length, u32 batch count, u8 codec, 3 reserved bytes (little endian). */
const CHUNK_HEADER_BYTES = 12;
const CODEC_NONE = 0;
const CODEC_ZSTD = 1;

/** Groups of consecutive batches of about SPILL_CHUNK_BYTES of Arrow data each. */
function chunkBatches(batches: readonly arrow.RecordBatch[]): arrow.RecordBatch[][] {
  const chunks: arrow.RecordBatch[][] = [];
  let current: arrow.RecordBatch[] = [];
  let bytes = 0;
  for (const b of batches) {
    current.push(b);
    bytes += b.data.byteLength;
    if (bytes >= SPILL_CHUNK_BYTES) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Writes batches to a new spill file under `dir`: a sequence of chunks, each an Arrow IPC stream
 * of consecutive batches (compressed as one zstd frame with spill-compression=zstd) behind a
 * 12-byte header. On failure nothing is left behind.
 */
export async function writeSpillFile(dir: string, batches: readonly arrow.RecordBatch[], compression: "zstd" | "none", level: number): Promise<SpillFileInfo> {
  if (!dir) throw new PaimonError("INVALID_ARGUMENT", "realtime.spill-enabled requires a non-empty temporary directory");
  if (batches.length === 0) throw new PaimonError("INVALID_ARGUMENT", "cannot spill an empty segment");
  const io = await ioFor(dir);
  const path = joinPath(dir, `${SPILL_PREFIX}${await ownerTag()}-${randomId()}.arrow`);
  let compress: Compress | null = null;
  if (compression === "zstd") {
    compress = await loadCompressor();
    if (!compress) throw new PaimonError("UNSUPPORTED", "zstd compression is not available in this runtime (spill-compression=zstd)");
  }
  const schema = batches[0].schema;
  const parts: Uint8Array[] = [];
  let size = 0;
  for (const chunk of chunkBatches(batches)) {
    // A whole IPC stream is compressed rather than Arrow JS's per-buffer IPC compression, which
    // stores incompressible buffers unaligned (its own reader cannot map them back to 64-bit arrays).
    const ipc = arrow.tableToIPC(new arrow.Table(schema, chunk), "stream");
    const payload = compress ? compress(ipc, level) : ipc;
    const header = new Uint8Array(CHUNK_HEADER_BYTES);
    const view = new DataView(header.buffer);
    view.setUint32(0, payload.length, true);
    view.setUint32(4, chunk.length, true);
    header[8] = compress ? CODEC_ZSTD : CODEC_NONE;
    parts.push(header, payload);
    size += CHUNK_HEADER_BYTES + payload.length;
  }
  const bytes = concatParts(parts, size);
  parts.length = 0;
  try {
    await io.writeFile(path, bytes);
  } catch (e) {
    await io.delete(path).catch(() => false);
    throw e instanceof PaimonError ? e : new PaimonError("IO_ERROR", `writing spill file ${path} failed: ${(e as Error).message}`, { cause: e });
  }
  return { path, sizeBytes: size };
}

function concatParts(parts: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Reads a spill file back: its batches in write order with their index, one chunk in memory at
 * a time. Chunks none of whose batches `wanted` accepts are skipped without being read.
 */
export async function* readSpillFile(path: string, wanted: (index: number) => boolean = () => true): AsyncGenerator<{ index: number; batch: arrow.RecordBatch }> {
  const dir = path.slice(0, path.lastIndexOf("/"));
  const io = await ioFor(dir);
  const corrupt = (why: string, cause?: unknown) => new PaimonError("CORRUPT_FILE", `spill file ${path} cannot be read: ${why}`, cause === undefined ? undefined : { cause });
  const fileSize = await io.fileSize(path);
  let at = 0;
  let index = 0;
  let decompress: ((frame: Uint8Array) => Uint8Array) | undefined;
  while (at < fileSize) {
    if (fileSize - at < CHUNK_HEADER_BYTES) throw corrupt(`truncated chunk header at byte ${at}`);
    const header = new DataView((await io.readRange(path, at, CHUNK_HEADER_BYTES)).buffer);
    const length = header.getUint32(0, true);
    const count = header.getUint32(4, true);
    const codec = header.getUint8(8);
    at += CHUNK_HEADER_BYTES;
    if ((codec !== CODEC_NONE && codec !== CODEC_ZSTD) || count === 0 || length > fileSize - at) throw corrupt(`bad chunk header at byte ${at - CHUNK_HEADER_BYTES}`);
    let needed = false;
    for (let i = 0; i < count && !needed; i++) needed = wanted(index + i);
    if (needed) {
      const payload = await io.readRange(path, at, length);
      if (codec === CODEC_ZSTD) decompress ??= await loadDecompressor();
      let batches: arrow.RecordBatch[];
      try {
        batches = arrow.tableFromIPC(codec === CODEC_ZSTD ? decompress!(payload) : payload).batches;
      } catch (e) {
        throw corrupt((e as Error).message, e);
      }
      if (batches.length !== count) throw corrupt(`chunk at byte ${at - CHUNK_HEADER_BYTES} holds ${batches.length} batches, its header says ${count}`);
      for (let i = 0; i < count; i++) yield { index: index + i, batch: batches[i] };
    }
    at += length;
    index += count;
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
