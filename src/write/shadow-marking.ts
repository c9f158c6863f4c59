// Lookup for deletion-vector tables: which rows of an older (higher-level) file are shadowed by
// the keys a compaction just wrote. Keys are compared by the merge kernel (the same key order
// and equality the writer deduplicates with: Double.compare for floats, unsigned bytes for
// strings), not as per-row JavaScript strings.
import type { KeyColumn } from "../kernel/columns.js";
import { mergeDeduplicate, type SortedRun } from "../kernel/merge.js";

/**
 * Rows of `target` (key columns of a file: sorted, one row per key) whose key occurs in any
 * of `lookup` (key columns of sorted runs, e.g. consecutive chunks of a compaction output),
 * ascending. Merges target and lookup with the lookup winning every shared key; target rows
 * that do not win are the shadowed ones.
 */
export function shadowedRows(target: readonly KeyColumn[], lookup: readonly (readonly KeyColumn[])[]): Uint32Array {
  const rows = target[0]?.length ?? 0;
  const runs = lookup.filter((keys) => (keys[0]?.length ?? 0) > 0);
  if (rows === 0 || runs.length === 0) return new Uint32Array(0);
  // equal sequence numbers: the later run wins, so every run gets sequence 0 and the target comes first
  let zeros = new BigInt64Array(rows);
  const sorted: SortedRun[] = [{ keys: target, sequence: zeros }];
  for (const keys of runs) {
    if (zeros.length < keys[0].length) zeros = new BigInt64Array(keys[0].length);
    sorted.push({ keys, sequence: zeros.subarray(0, keys[0].length) });
  }
  const merged = mergeDeduplicate(sorted);
  const survives = new Uint8Array(rows);
  for (let i = 0; i < merged.run.length; i++) if (merged.run[i] === 0) survives[merged.row[i]] = 1;
  let count = 0;
  for (let i = 0; i < rows; i++) count += survives[i] ^ 1;
  const out = new Uint32Array(count);
  for (let i = 0, j = 0; i < rows; i++) if (survives[i] === 0) out[j++] = i;
  return out;
}
