// Data skipping with a file's index blob (Java `FileIndexPredicate`): a file can be skipped
// when an index proves that no row satisfies the predicate. Bloom filters decide eq / in;
// bitmaps decide eq / in / ne / notIn / isNull / isNotNull; AND / OR combine. Everything
// else (other operators, unknown index types such as range-bitmap or bsi, unindexed
// columns) may match. Semantics are those of src/predicate (SQL three-valued logic).
import { PaimonError } from "../error.js";
import { bindPredicate, isBound, type LeafPredicate, type Predicate } from "../predicate/predicate.js";
import type { DataField, DataType } from "../spec/types.js";
import { BITMAP, BitmapIndexReader, literalKeys, type BitmapKey } from "./bitmap-index.js";
import { BLOOM_FILTER, BloomFilter64, literalHashes } from "./bloom-filter.js";
import { indexPayload, readFileIndexHeader, type FileIndexHeader } from "./format.js";

/** Decides one leaf with one index: false when no row can satisfy it. */
type LeafTest = (leaf: LeafPredicate, type: DataType) => boolean;

function bloomTest(filter: BloomFilter64): LeafTest {
  return (leaf, type) => {
    if (leaf.op !== "eq" && leaf.op !== "in") return true;
    return leaf.literals.some((v) => v !== null && literalHashes(type, v).some((h) => filter.testHash(h)));
  };
}

/** TIMESTAMP(7..9) keys are truncated to micros: distinct values share keys, so "≠" is undecidable. */
function lossyKeys(type: DataType): boolean {
  return (type.kind === "TIMESTAMP" || type.kind === "TIMESTAMP_LTZ") && type.precision > 6;
}

function bitmapTest(index: BitmapIndexReader): LeafTest {
  const anyPresent = (literals: readonly unknown[], type: DataType): boolean =>
    literals.some((v) => v !== null && literalKeys(type, v).some((k) => index.has(k)));
  return (leaf, type) => {
    switch (leaf.op) {
      case "isNull":
        return index.hasNull;
      case "isNotNull":
        return index.valueCount > 0;
      case "eq":
      case "in":
        return anyPresent(leaf.literals, type);
      case "ne":
      case "notIn": {
        if (leaf.literals.some((v) => v === null)) return false; // x NOT IN (…, NULL) is never true
        if (lossyKeys(type)) return index.valueCount > 0;
        const excluded = new Set<BitmapKey>();
        for (const v of leaf.literals) for (const k of literalKeys(type, v)) if (index.has(k)) excluded.add(k);
        return index.valueCount > excluded.size;
      }
      default:
        return true;
    }
  };
}

/** The index readers of one blob, parsed lazily per column. */
class BlobIndexes {
  private readonly header: FileIndexHeader;
  private readonly tests = new Map<string, LeafTest[]>();

  constructor(private readonly blob: Uint8Array) {
    this.header = readFileIndexHeader(blob);
  }

  testsFor(column: string, type: DataType): LeafTest[] {
    let tests = this.tests.get(column);
    if (tests === undefined) {
      tests = [];
      for (const [indexType, location] of this.header.get(column) ?? []) {
        const payload = indexPayload(this.blob, location);
        if (payload === null) continue;
        const test = this.open(indexType, payload, type);
        if (test) tests.push(test);
      }
      this.tests.set(column, tests);
    }
    return tests;
  }

  private open(indexType: string, payload: Uint8Array, type: DataType): LeafTest | null {
    try {
      if (indexType === BLOOM_FILTER) return bloomTest(BloomFilter64.deserialize(payload));
      if (indexType === BITMAP) return bitmapTest(new BitmapIndexReader(payload, type));
      return null; // range-bitmap, bsi, …: not evaluated
    } catch (e) {
      // an index over a type it cannot serve (e.g. the column's type changed since) decides nothing
      if (e instanceof PaimonError && e.code === "UNSUPPORTED") return null;
      throw e;
    }
  }
}

/**
 * False only when no row of the file can match `predicate` (bound or not, over `fields`):
 * bloom filters decide eq / in, bitmaps eq / in / ne / notIn / isNull / isNotNull, combined
 * through and / or; anything an index cannot decide (other ops, unknown index types such as
 * range-bitmap or bsi, columns not indexed) counts as "may match". A malformed blob throws
 * PaimonError("CORRUPT_FILE").
 */
export function fileIndexMayMatch(blob: Uint8Array, predicate: Predicate, fields: readonly DataField[]): boolean {
  const indexes = new BlobIndexes(blob);
  const bound = isBound(predicate) ? predicate : bindPredicate(predicate, fields);
  const types = new Map(fields.map((f) => [f.name, f.type]));
  const mayMatch = (p: Predicate): boolean => {
    if (p.kind !== "leaf") return p.kind === "and" ? p.children.every(mayMatch) : p.children.some(mayMatch);
    const type = p.type ?? types.get(p.field);
    if (type === undefined) return true;
    return indexes.testsFor(p.field, type).every((test) => test(p, type));
  };
  return mayMatch(bound);
}
