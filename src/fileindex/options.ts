// Table options → file-index spec (Java `FileIndexOptions` + `CoreOptions.FILE_INDEX_*`):
//   file-index.<type>.columns = c1,c2         which columns get an index of <type>
//   file-index.<type>.<column>.<option> = v   per-column options (e.g. bloom-filter items / fpp)
//   file-index.in-manifest-threshold = 500 b  blobs up to this size are embedded in the manifest
import { PaimonError } from "../error.js";
import type { DataField } from "../spec/types.js";
import { parseMemorySize } from "../table/options.js";
import { BITMAP, BITMAP_TYPES, BITMAP_VERSION_1, BITMAP_VERSION_2 } from "./bitmap-index.js";
import { BLOOM_FILTER, BLOOM_FILTER_TYPES } from "./bloom-filter.js";

/** One index of one column. */
export interface FileIndexColumnSpec {
  column: string;
  /** Position of the column in the table's fields (= column of the batches given to the builder). */
  fieldIndex: number;
  type: "bloom-filter" | "bitmap";
  /** Its `file-index.<type>.<column>.<option>` options, keyed by `<option>`. */
  options: Readonly<Record<string, string>>;
}

/** Every configured index (in the order Java's `FileIndexOptions` collects them) and the embedding threshold. */
export interface FileIndexSpec {
  columns: FileIndexColumnSpec[];
  /** Blobs of at most this many bytes are embedded in the manifest; larger ones go to `<data file>.index`. */
  inManifestThreshold: number;
}

const PREFIX = "file-index.";
const COLUMNS_SUFFIX = ".columns";
export const IN_MANIFEST_THRESHOLD_KEY = "file-index.in-manifest-threshold";
export const DEFAULT_IN_MANIFEST_THRESHOLD = 500;

const SUPPORTED_TYPES: Record<FileIndexColumnSpec["type"], ReadonlySet<string>> = {
  [BLOOM_FILTER]: BLOOM_FILTER_TYPES,
  [BITMAP]: BITMAP_TYPES,
};

function invalid(message: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", message);
}

/**
 * Parses `file-index.<type>.columns` (comma list) and per-column `file-index.<type>.<column>.<option>`
 * plus `file-index.in-manifest-threshold` (Paimon memory-size syntax, default 500 bytes) from table
 * options. null when no file index is configured. PaimonError("UNSUPPORTED") for index types we
 * cannot write (range-bitmap, bsi, anything else) and for column types the index type does not
 * support; PaimonError("INVALID_ARGUMENT") for unknown columns or bad option values.
 * `optionOrder`: the order the options are walked in, which decides the order of the columns (and
 * of the first error): Java walks them in HashMap order (`javaOptionKeyOrder`, which writers pass);
 * validating a schema needs no particular order.
 */
export function fileIndexSpecOf(
  options: Readonly<Record<string, string>>,
  fields: readonly DataField[],
  optionOrder: (keys: string[]) => string[] = (keys) => keys,
): FileIndexSpec | null {
  const fieldIndex = new Map(fields.map((f, i) => [f.name, i]));
  const specs = new Map<string, FileIndexColumnSpec & { options: Record<string, string> }>();
  const perColumnOptions: Array<[string, string]> = [];
  const keys = optionOrder(Object.keys(options));
  for (const key of keys) {
    if (!key.startsWith(PREFIX)) continue;
    if (!key.endsWith(COLUMNS_SUFFIX)) {
      perColumnOptions.push([key, options[key]!]);
      continue;
    }
    const type = key.slice(PREFIX.length, key.length - COLUMNS_SUFFIX.length);
    if (type !== BLOOM_FILTER && type !== BITMAP) throw new PaimonError("UNSUPPORTED", `file index type '${type}' (option ${key}) cannot be written; supported: bloom-filter, bitmap`);
    for (const raw of options[key]!.split(",")) {
      const column = raw.trim();
      if (column === "") throw invalid(`Wrong option in ${key}, should not have empty column`);
      if (column.includes("[")) throw new PaimonError("UNSUPPORTED", `file index on a map entry (${column}, option ${key})`);
      const index = fieldIndex.get(column);
      if (index === undefined) throw invalid(`${column} (option ${key}) does not exist in column fields`);
      const supported = SUPPORTED_TYPES[type];
      const field = fields[index]!;
      if (!supported.has(field.type.kind)) throw new PaimonError("UNSUPPORTED", `${type} index does not support column ${column} of type ${field.type.kind}`);
      const id = `${type}\u0000${column}`;
      if (!specs.has(id)) specs.set(id, { column, fieldIndex: index, type, options: {} });
    }
  }
  for (const [key, value] of perColumnOptions) {
    const parts = key.slice(PREFIX.length).split(".");
    if (parts.length !== 3) continue; // e.g. file-index.in-manifest-threshold, file-index.read.enabled
    const [type, column, option] = parts as [string, string, string];
    const spec = specs.get(`${type}\u0000${column}`);
    if (spec === undefined) throw invalid(`Wrong option in "${key}", can't found column "${column}" in "${PREFIX}${type}${COLUMNS_SUFFIX}"`);
    spec.options[option] = value;
  }
  if (specs.size === 0) return null;
  const columns = [...specs.values()];
  for (const spec of columns) validateColumnOptions(spec);
  const threshold = options[IN_MANIFEST_THRESHOLD_KEY];
  const inManifestThreshold = threshold === undefined ? DEFAULT_IN_MANIFEST_THRESHOLD : parseMemorySize(threshold, IN_MANIFEST_THRESHOLD_KEY);
  return { columns, inManifestThreshold };
}

/** Java `Options.getInteger`: a trimmed decimal int. */
export function intOption(spec: FileIndexColumnSpec, option: string, fallback: number): number {
  const raw = spec.options[option];
  if (raw === undefined) return fallback;
  const n = Number(raw.trim());
  if (!/^\s*[+-]?\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n < -(2 ** 31) || n >= 2 ** 31)
    throw invalid(`file-index.${spec.type}.${spec.column}.${option}: '${raw}' is not an integer`);
  return n;
}

/** Java `Options.getDouble`. */
export function doubleOption(spec: FileIndexColumnSpec, option: string, fallback: number): number {
  const raw = spec.options[option];
  if (raw === undefined) return fallback;
  const n = Number(raw.trim());
  if (raw.trim() === "" || Number.isNaN(n)) throw invalid(`file-index.${spec.type}.${spec.column}.${option}: '${raw}' is not a number`);
  return n;
}

/** Memory-size option in bytes. */
export function sizeOption(spec: FileIndexColumnSpec, option: string, fallback: number): number {
  const raw = spec.options[option];
  return raw === undefined ? fallback : parseMemorySize(raw, `file-index.${spec.type}.${spec.column}.${option}`);
}

function validateColumnOptions(spec: FileIndexColumnSpec): void {
  const where = `file-index.${spec.type}.${spec.column}`;
  if (spec.type === BLOOM_FILTER) {
    const items = intOption(spec, "items", 1);
    const fpp = doubleOption(spec, "fpp", 0.1);
    if (items <= 0) throw invalid(`${where}.items must be positive, but was ${items}`);
    if (!(fpp > 0 && fpp < 1)) throw invalid(`${where}.fpp must be in range (0, 1), but was ${fpp}`);
  } else {
    const version = intOption(spec, "version", BITMAP_VERSION_2);
    if (version !== BITMAP_VERSION_1 && version !== BITMAP_VERSION_2) throw invalid(`${where}.version must be 1 or 2, but was ${version}`);
    if (sizeOption(spec, "index-block-size", 1) <= 0) throw invalid(`${where}.index-block-size must be positive`);
  }
}
