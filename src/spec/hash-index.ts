// Dynamic-bucket HASH index files (format reference §6.3, Java `HashIndexFile` / `IntFileUtils`):
// the key hashes (`BinaryRow.hashCode()` of the trimmed primary key) of one partition-bucket,
// as int32 big-endian values, nothing else.
import { PaimonError } from "../error.js";

/** `IndexFileMeta.indexType` of dynamic-bucket hash indexes. */
export const HASH_INDEX = "HASH";

/** The file bytes of `hashes`: each int32 big-endian. */
export function encodeHashIndex(hashes: Int32Array): Uint8Array {
  const out = new Uint8Array(hashes.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < hashes.length; i++) view.setInt32(i * 4, hashes[i]!, false);
  return out;
}

/** The hashes of a HASH index file; CORRUPT_FILE when its length is not a whole number of int32s. */
export function decodeHashIndex(bytes: Uint8Array, file: string): Int32Array {
  if (bytes.length % 4 !== 0) throw new PaimonError("CORRUPT_FILE", `hash index file ${file} has ${bytes.length} bytes, not a multiple of 4`);
  const n = bytes.length / 4;
  const out = new Int32Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let i = 0; i < n; i++) out[i] = view.getInt32(i * 4, false);
  return out;
}
