// Builds the file-index blob of one data file (Java `DataFileIndexWriter`): one writer per
// configured (column, index type), fed batch by batch, serialized into a FileIndexFormat
// container whose column / index order replays the Java maps the writer goes through.
import type * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import type { DataField, DataType } from "../spec/types.js";
import { BITMAP, BITMAP_DEFAULT_INDEX_BLOCK_SIZE, BITMAP_DEFAULT_VERSION } from "./bitmap-index.js";
import { BitmapIndexWriter } from "./bitmap-index-writer.js";
import { BLOOM_DEFAULT_FPP, BLOOM_DEFAULT_ITEMS, BloomFilter64, chunkHashes } from "./bloom-filter.js";
import { indexedChunks } from "./columns.js";
import { serializeFileIndex, type ColumnIndexes } from "./format.js";
import { JavaHashMapReplay, javaHashMapOrder } from "./java-order.js";
import { javaStringCompare, javaStringHash } from "./java-hash.js";
import { doubleOption, intOption, sizeOption, type FileIndexColumnSpec, type FileIndexSpec } from "./options.js";

/** One (column, index type) being built. */
interface IndexWriter {
  readonly spec: FileIndexColumnSpec;
  readonly type: DataType;
  add(vector: arrow.Vector): void;
  serialize(): Uint8Array;
}

function bloomWriter(spec: FileIndexColumnSpec, type: DataType): IndexWriter {
  const filter = BloomFilter64.forItems(intOption(spec, "items", BLOOM_DEFAULT_ITEMS), doubleOption(spec, "fpp", BLOOM_DEFAULT_FPP));
  return {
    spec,
    type,
    add: (vector) => {
      for (const chunk of indexedChunks(vector, type)) filter.addHashes(chunkHashes(chunk, type), chunk.column);
    },
    serialize: () => filter.serialize(),
  };
}

function bitmapWriter(spec: FileIndexColumnSpec, type: DataType): IndexWriter {
  const writer = new BitmapIndexWriter(
    type,
    intOption(spec, "version", BITMAP_DEFAULT_VERSION),
    sizeOption(spec, "index-block-size", BITMAP_DEFAULT_INDEX_BLOCK_SIZE),
  );
  return {
    spec,
    type,
    add: (vector) => {
      for (const chunk of indexedChunks(vector, type)) writer.update(chunk);
    },
    serialize: () => writer.serialize(),
  };
}

/** Java `FileIndexOptions.Column.hashCode()`: `Arrays.hashCode({name, null, false})`. */
function optionsColumnHash(name: string): number {
  const h = (31 + javaStringHash(name)) | 0;
  return (Math.imul(Math.imul(h, 31), 31) + 1237) | 0;
}

/**
 * The (column → index types) order Java serializes in. `FileIndexOptions` collects the
 * columns into a `HashMap<Column, HashMap<type, …>>` (computeIfAbsent); `DataFileIndexWriter`
 * regroups them into `HashMap<type, HashMap<column, writer>>` (computeIfAbsent / put) and
 * serializes into the `HashMap<column, HashMap<type, bytes>>` (computeIfAbsent / put) that
 * FileIndexFormat writes in iteration order.
 */
export function javaWriterOrder(columns: readonly FileIndexColumnSpec[]): Array<{ column: string; types: string[] }> {
  const typesOf = new Map<string, string[]>();
  const optionColumns = new JavaHashMapReplay<string>("computeIfAbsent", optionsColumnHash);
  for (const c of columns) {
    optionColumns.insert(c.column);
    const types = typesOf.get(c.column) ?? [];
    if (!types.includes(c.type)) types.push(c.type);
    typesOf.set(c.column, types);
  }
  // DataFileIndexWriter.indexMaintainers: type → column
  const byType = regroup(optionColumns.keysInOrder(), (column) => javaHashMapOrder(typesOf.get(column)!, "computeIfAbsent", javaStringHash, javaStringCompare));
  // serializeMaintainers: column → type
  const byColumn = regroup(byType.map.keysInOrder(), (type) => javaHashMapOrder(byType.inner.get(type)!, "put", javaStringHash, javaStringCompare));
  return byColumn.map.keysInOrder().map((column) => ({ column, types: javaHashMapOrder(byColumn.inner.get(column)!, "put", javaStringHash, javaStringCompare) }));
}

/**
 * Inverts a two-level map as Java does when it walks `outer → inner` and files each pair
 * under `inner` with `computeIfAbsent(inner)` (replayed map) then `add(outer)` (a list).
 */
function regroup(outerKeys: readonly string[], innerKeysOf: (outer: string) => string[]): { map: JavaHashMapReplay<string>; inner: Map<string, string[]> } {
  const map = new JavaHashMapReplay<string>("computeIfAbsent", javaStringHash, javaStringCompare);
  const inner = new Map<string, string[]>();
  for (const outer of outerKeys) {
    for (const key of innerKeysOf(outer)) {
      map.insert(key);
      const list = inner.get(key) ?? [];
      list.push(outer);
      inner.set(key, list);
    }
  }
  return { map, inner };
}

/** Builds one data file's index blob from its rows (Java `DataFileIndexWriter`). */
export class FileIndexBuilder {
  private readonly writers: IndexWriter[];

  constructor(
    private readonly spec: FileIndexSpec,
    fields: readonly DataField[],
  ) {
    this.writers = spec.columns.map((c) => {
      const field = fields[c.fieldIndex];
      if (field === undefined || field.name !== c.column) throw new PaimonError("INVALID_ARGUMENT", `file index column ${c.column} is not field #${c.fieldIndex}`);
      return c.type === BITMAP ? bitmapWriter(c, field.type) : bloomWriter(c, field.type);
    });
  }

  /**
   * Adds rows; `batch` columns are in `fields` order (column i = fields[i]), in the table's
   * Arrow read layout (`toArrowType`). Bloom filters hash whole columns in the kernel.
   */
  update(batch: arrow.RecordBatch): void {
    for (const w of this.writers) {
      const vector = batch.getChildAt(w.spec.fieldIndex);
      if (vector === null) throw new PaimonError("INVALID_ARGUMENT", `batch has no column #${w.spec.fieldIndex} (${w.spec.column})`);
      w.add(vector);
    }
  }

  /** The serialized FileIndexFormat blob, byte-identical to what Java 1.4.2 writes for the same rows and options. */
  finish(): Uint8Array {
    const byKey = new Map(this.writers.map((w) => [`${w.spec.column}\u0000${w.spec.type}`, w]));
    const columns: ColumnIndexes[] = javaWriterOrder(this.spec.columns).map(({ column, types }) => ({
      column,
      indexes: types.map((type) => ({ type, bytes: byKey.get(`${column}\u0000${type}`)!.serialize() })),
    }));
    return serializeFileIndex(columns);
  }
}
