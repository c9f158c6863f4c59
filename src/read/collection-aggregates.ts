// The aggregators of `merge-engine=aggregation` over ARRAY and MAP columns whose results Java
// Paimon 1.4.2 builds in a `java.util.HashMap` / `HashSet`: `nested_update` (FieldNestedUpdateAgg),
// `nested_partial_update` (FieldNestedPartialUpdateAgg), `merge_map` (FieldMergeMapAgg),
// `merge_map_with_keytime` (FieldMergeMapWithKeyTimeAgg) and `collect` with `distinct`
// (FieldCollectAgg). The element order Java writes is the map's iteration order, so these folds
// replay the maps (java-order.ts) with the keys' Java hashCode: a BinaryRow of the nested key
// (Murmur over its bytes), or the boxed value of a map key / collected element. Keys whose Java
// hash is the JVM's identity hash (byte[] of BINARY/VARBINARY, nested rows, arrays and maps read
// from files) give an order no other process can reproduce: such tables are refused.
//
// An element is addressed by `part * 2^32 + index` into the list's (or map's entries') child data
// of one input chunk; a nested_partial_update result element is an array of such refs, one per
// nested field (-1: null), as its fields come from several input elements.
import * as arrow from "apache-arrow";
import { gatherData } from "../arrow/gather.js";
import { internalValue } from "../arrow/row-values.js";
import { isValidAt } from "../arrow/values.js";
import { PaimonError } from "../error.js";
import { JavaHashMapReplay, type JavaInsertion } from "../fileindex/java-order.js";
import { binaryStringHash, javaBigDecimalHash, javaBooleanHash, javaDoubleBits, javaFloatHash, javaLongHash, paimonTimestampHash, sortableDoubleBits, sortableFloatBits } from "../fileindex/java-hash.js";
import { makeNullData } from "../format/arrow-types.js";
import { bytesEqual, type Timestamp, toBinaryRow } from "../spec/binary-row.js";
import { hashBytesByWords } from "../spec/murmur.js";
import { type DataField, type DataType, type RowType, typeToString } from "../spec/types.js";
import type { TableOptions } from "../table/options.js";
import { compareValues } from "../table/values.js";

/** The aggregate functions folded here. */
export type CollectionFunction = "nested_update" | "nested_partial_update" | "merge_map" | "merge_map_with_keytime" | "collect";

/** One column's aggregator configuration, checked against its type. */
export interface CollectionAggSpec {
  fn: CollectionFunction;
  /** nested_*: the nested key's field indexes in the element row (`fields.<f>.nested-key`); empty: none. */
  nestedKey: number[];
  /** nested_update: `fields.<f>.count-limit`. */
  countLimit: number;
  /** merge_map_with_keytime: the value row's timestamp field (`fields.<f>.ts-field`, default the last). */
  tsField: number;
}

/** Types whose Java objects hash by value (Paimon's BinaryString, Decimal, Timestamp and the boxed primitives). */
const VALUE_HASHED = new Set(["BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "CHAR", "VARCHAR", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"]);
/** Types a BinaryRow key (or a generated equaliser) compares by value. */
const ATOMIC_KEY = new Set([...VALUE_HASHED, "BINARY", "VARBINARY"]);

/**
 * Java's factories (`FieldNestedUpdateAggFactory`, …) for a column of `field`'s type, plus
 * paimon-rt's refusals of the orders it cannot reproduce. `where` prefixes messages.
 */
export function collectionAggSpec(fn: CollectionFunction, field: DataField, options: TableOptions, where: string): CollectionAggSpec {
  const type = field.type;
  const spec: CollectionAggSpec = { fn, nestedKey: [], countLimit: 0x7fffffff, tsField: -1 };
  const invalid = (message: string) => new PaimonError("INVALID_ARGUMENT", `${where}: ${message}`);
  const unsupported = (message: string) => new PaimonError("UNSUPPORTED", `${where}: ${message}`);
  switch (fn) {
    case "nested_update":
    case "nested_partial_update": {
      if (type.kind !== "ARRAY" || type.element.kind !== "ROW") throw invalid(`Data type for nested table column must be 'Array<Row>' but was '${typeToString(type)}'.`);
      const row = type.element;
      const keyOption = options.get(`fields.${field.name}.nested-key`);
      const names = keyOption === undefined ? [] : keyOption.split(",").map((s) => s.trim());
      if (fn === "nested_partial_update" && names.length === 0) throw invalid(`nested_partial_update needs fields.${field.name}.nested-key`);
      spec.nestedKey = names.map((name) => {
        const at = row.fields.findIndex((f) => f.name === name);
        if (at < 0) throw invalid(`nested key ${name} is not a field of ${typeToString(row)}`);
        const kind = row.fields[at]!.type.kind;
        if (!ATOMIC_KEY.has(kind)) throw unsupported(`nested key ${name} of type ${kind} is not supported by paimon-rt`);
        return at;
      });
      if (fn === "nested_update") spec.countLimit = options.int(`fields.${field.name}.count-limit`, 0x7fffffff);
      return spec;
    }
    case "merge_map":
    case "merge_map_with_keytime": {
      if (type.kind !== "MAP") {
        throw invalid(fn === "merge_map" ? `Data type for merge map column must be 'MAP' but was '${typeToString(type)}'` : `Data type for field '${field.name}' must be 'MAP' but was '${typeToString(type)}'`);
      }
      if (!VALUE_HASHED.has(type.key.kind)) throw unsupported(`${fn} with map keys of type ${type.key.kind} is not supported (Java orders them by the JVM's identity hash)`);
      if (fn === "merge_map") return spec;
      const value = type.value;
      if (value.kind !== "ROW") throw invalid(`Value type of MAP for field '${field.name}' must be ROW but was '${typeToString(value)}'`);
      if (value.fields.length < 2) throw invalid(`ROW type for field '${field.name}' must have at least 2 fields, but found ${value.fields.length}`);
      const tsName = options.get(`fields.${field.name}.ts-field`);
      spec.tsField = tsName === undefined ? value.fields.length - 1 : value.fields.findIndex((f) => f.name === tsName);
      if (spec.tsField < 0) throw invalid(`Timestamp field '${tsName}' not found in ROW type for field '${field.name}'. Available fields: [${value.fields.map((f) => f.name).join(", ")}]`);
      const tsKind = value.fields[spec.tsField]!.type.kind;
      if (tsKind !== "VARCHAR" && tsKind !== "CHAR") throw invalid(`merge_map_with_keytime timestamp field ${value.fields[spec.tsField]!.name} must be a string (Java reads it with getString) but is ${tsKind}`);
      return spec;
    }
    case "collect": {
      const element = (type as { element: DataType }).element;
      if (element.kind === "ROW") {
        const bad = element.fields.find((f) => !ATOMIC_KEY.has(f.type.kind));
        if (bad) throw unsupported(`collect with distinct of rows with a ${bad.type.kind} field (${bad.name}) is not supported`);
      } else if (!VALUE_HASHED.has(element.kind)) {
        throw unsupported(`collect with distinct of ${element.kind} elements is not supported (Java orders its HashSet of them by the JVM's identity hash)`);
      }
      return spec;
    }
  }
}

/** Rows of all chunks addressed as (part, row), sorted by key then sequence, split into key groups (merge-functions.ts). */
export interface GroupedRecords {
  part: Uint32Array;
  row: Uint32Array;
  kinds: Int8Array;
  order: Uint32Array;
  /** group g is order[starts[g] .. starts[g + 1]) */
  starts: Uint32Array;
}

type Elem = number | number[];
type Acc = Elem[] | null;

const SPLIT = 2 ** 32;
const isRetract = (kind: number) => kind === 1 || kind === 3;
const utf8 = new TextEncoder();

/**
 * Folds one ARRAY / MAP column of every key group with Java's `agg` / `retract` (a retract row
 * with `ignore-retract` keeps the accumulator; without it a function lacking `retract` fails with
 * `refuseRetract`). A key with one record keeps it unless `mergeSingle`.
 */
export function foldCollectionColumn(
  datas: readonly arrow.Data[],
  g: GroupedRecords,
  groups: number,
  spec: CollectionAggSpec,
  field: DataField,
  ignoreRetract: boolean,
  mergeSingle: boolean,
  refuseRetract: () => PaimonError,
): arrow.Data {
  const where = `column ${field.name} (${spec.fn})`;
  const children = datas.map((d) => d.children[0]!);
  const isMap = field.type.kind === "MAP";
  const elementType: DataType = isMap ? { kind: "ROW", nullable: false, fields: [] } : (field.type as { element: DataType }).element;
  const rowFields = isMap ? [] : elementType.kind === "ROW" ? (elementType as RowType).fields : [];
  const mapType = field.type as { key: DataType; value: DataType };
  const valueFields = isMap && mapType.value.kind === "ROW" ? mapType.value.fields : [];

  const elementsOf = (idx: number): Acc => {
    const p = g.part[idx]!;
    const d = datas[p]!;
    const r = g.row[idx]!;
    if (!isValidAt(d, r)) return null;
    const o = d.valueOffsets as Int32Array;
    const out: Elem[] = [];
    for (let k = o[r]!; k < o[r + 1]!; k++) out.push(p * SPLIT + k);
    return out;
  };
  const partOf = (ref: number) => Math.floor(ref / SPLIT);
  const indexOf = (ref: number) => ref % SPLIT;
  const valid = (e: Elem) => typeof e !== "number" || isValidAt(children[partOf(e)]!, indexOf(e));
  /** The cell of nested field `f` of a (valid) row element: [data, index], null when null. */
  const fieldCell = (e: Elem, f: number): [arrow.Data, number] | null => {
    const ref = typeof e === "number" ? e : e[f]!;
    if (ref < 0) return null;
    const d = children[partOf(ref)]!.children[f]!;
    const i = indexOf(ref);
    return isValidAt(d, i) ? [d, i] : null;
  };
  const fieldValue = (e: Elem, f: number, type: DataType) => {
    const cell = fieldCell(e, f);
    return cell === null ? null : internalValue(cell[0], cell[1], type);
  };

  // keys: an identity string and Java's hashCode
  const hashes = new Map<string, number>();
  /** Per boxed key: what its Java `compareTo` orders by (tree bins compare keys of equal hash). */
  const orderValues = new Map<string, unknown>();
  const newMap = (insertion: JavaInsertion, keyType?: DataType) =>
    new JavaHashMapReplay<string>(insertion, (k) => hashes.get(k)!, keyType && ((a, b) => javaCompareTo(keyType, orderValues.get(a), orderValues.get(b))));
  const keyTypes = spec.nestedKey.map((f) => rowFields[f]!.type);
  /** The nested key as Java's projected BinaryRow: its bytes identify it, `hashCode` hashes them by words. */
  const nestedKeyOf = (e: Elem): string => {
    const bytes = toBinaryRow(
      spec.nestedKey.map((f, j) => fieldValue(e, f, keyTypes[j]!)),
      keyTypes,
    );
    let id = "";
    for (let i = 0; i < bytes.length; i++) id += String.fromCharCode(bytes[i]!);
    if (!hashes.has(id)) hashes.set(id, hashBytesByWords(bytes));
    return id;
  };
  /** A map key (entries' field 0) or a collected element, as its boxed Java object. */
  const valueKeyOf = (data: arrow.Data, i: number, type: DataType): string => {
    const [id, hash] = javaObjectKey(data, i, type);
    if (!hashes.has(id)) {
      hashes.set(id, hash);
      orderValues.set(id, isValidAt(data, i) ? internalValue(data, i, type) : null);
    }
    return id;
  };
  const mapKeyOf = (e: Elem) => valueKeyOf(children[partOf(e as number)]!.children[0]!, indexOf(e as number), mapType.key);
  const elementKeyOf = (e: Elem) => valueKeyOf(children[partOf(e as number)]!, indexOf(e as number), elementType);
  /** The map's values in iteration order. */
  const ordered = (map: JavaHashMapReplay<string>, values: Map<number, Elem>): Elem[] => {
    if (map.unreplayable) throw new PaimonError("UNSUPPORTED", `${where}: distinct nested keys with equal Java hash codes share a HashMap tree bin, where Java orders them by JVM identity hash codes (BinaryRow is not Comparable)`);
    return Array.from(map.iterationOrder(), (id) => values.get(id)!);
  };
  /** Java's generated RecordEqualiser of two (valid) row elements: field by field, primitives with `==`. */
  const rowEquals = (a: Elem, b: Elem): boolean => {
    for (let f = 0; f < rowFields.length; f++) {
      const type = rowFields[f]!.type;
      const x = fieldValue(a, f, type);
      const y = fieldValue(b, f, type);
      if (x === null || y === null) {
        if (x !== y) return false;
        continue;
      }
      if (!atomicEquals(type, x, y)) return false;
    }
    return true;
  };

  const agg = (acc: Acc, input: Acc): Acc => {
    switch (spec.fn) {
      case "nested_update": {
        if (acc === null || input === null) return acc ?? input;
        if (acc.length >= spec.countLimit) return acc;
        const rows = [...acc.filter(valid), ...input.filter(valid).slice(0, spec.countLimit - acc.length)];
        if (spec.nestedKey.length === 0) return rows;
        const map = newMap("put");
        const values = new Map<number, Elem>();
        for (const r of rows) values.set(map.insert(nestedKeyOf(r)), r);
        return ordered(map, values);
      }
      case "nested_partial_update": {
        if (acc === null || input === null) return acc ?? input;
        const map = newMap("computeIfAbsent");
        const values = new Map<number, Elem>();
        for (const r of [...acc.filter(valid), ...input.filter(valid)]) {
          const id = map.insert(nestedKeyOf(r));
          let merged = values.get(id) as number[] | undefined;
          if (merged === undefined) values.set(id, (merged = new Array<number>(rowFields.length).fill(-1)));
          for (let f = 0; f < rowFields.length; f++) {
            const ref = typeof r === "number" ? r : r[f]!;
            if (fieldCell(r, f) !== null) merged[f] = ref;
          }
        }
        return ordered(map, values);
      }
      case "merge_map": {
        if (acc === null || input === null) return acc ?? input;
        const map = newMap("put", mapType.key);
        const values = new Map<number, Elem>();
        for (const e of [...acc, ...input]) values.set(map.insert(mapKeyOf(e)), e);
        return ordered(map, values);
      }
      case "merge_map_with_keytime": {
        if (acc === null) return input;
        if (input === null) return acc;
        const map = newMap("put", mapType.key);
        const values = new Map<number, Elem>();
        for (const e of acc) values.set(map.insert(mapKeyOf(e)), e);
        /** The value row's timestamp string; undefined: the value is null. */
        const tsOf = (e: Elem): string | null | undefined => {
          const entries = children[partOf(e as number)]!;
          const value = entries.children[1]!;
          if (!isValidAt(value, indexOf(e as number))) return undefined;
          return internalValue(value.children[spec.tsField]!, indexOf(e as number), valueFields[spec.tsField]!.type) as string | null;
        };
        for (const e of input) {
          const key = mapKeyOf(e);
          const ts = tsOf(e);
          if (ts === undefined) {
            map.remove(key);
            continue;
          }
          if (ts === null) continue;
          const known = map.idOf(key);
          const existing = known === undefined ? undefined : tsOf(values.get(known)!);
          // Java compares String.compareTo: UTF-16 code units, as JS `>`
          if (existing === undefined || existing === null || ts > existing) values.set(map.insert(key), e);
        }
        return ordered(map, values);
      }
      case "collect": {
        if (acc === null && input === null) return null;
        if (elementType.kind === "ROW") {
          const list = [...(acc ?? [])];
          for (const e of input ?? []) {
            const contained = valid(e)
              ? list.some((o) => {
                  if (!valid(o)) throw new PaimonError("INVALID_ARGUMENT", `${where}: a null row element meets a non-null one (Java's equaliser fails with a NullPointerException)`);
                  return rowEquals(o, e);
                })
              : list.some((o) => !valid(o));
            if (!contained) list.push(e);
          }
          return list;
        }
        const map = newMap("put", elementType);
        const values = new Map<number, Elem>();
        for (const e of [...(acc ?? []), ...(input ?? [])]) {
          const before = map.size;
          const id = map.insert(elementKeyOf(e));
          if (map.size > before) values.set(id, e); // HashSet.add keeps the first
        }
        return ordered(map, values);
      }
    }
  };

  const retract = (acc: Acc, input: Acc): Acc => {
    switch (spec.fn) {
      case "nested_update": {
        if (acc === null || input === null) return acc;
        if (spec.nestedKey.length === 0) {
          let rows = acc.filter(valid);
          for (const r of input) if (valid(r)) rows = rows.filter((x) => !rowEquals(x, r));
          return rows;
        }
        const map = newMap("put");
        const values = new Map<number, Elem>();
        for (const r of acc) if (valid(r)) values.set(map.insert(nestedKeyOf(r)), r);
        for (const r of input) if (valid(r)) map.remove(nestedKeyOf(r));
        return ordered(map, values);
      }
      case "merge_map": {
        if (acc === null) return null;
        if (input === null || input.length === 0) return acc;
        const retracted = new Set(input.map(mapKeyOf));
        const map = newMap("put", mapType.key);
        const values = new Map<number, Elem>();
        for (const e of acc) {
          const key = mapKeyOf(e);
          if (!retracted.has(key)) values.set(map.insert(key), e);
        }
        return ordered(map, values);
      }
      case "collect": {
        if (acc === null) return null;
        if (input === null || input.length === 0) return acc;
        const left = [...input];
        const equal = (a: Elem, b: Elem) => {
          if (!valid(a) || !valid(b)) return valid(a) === valid(b);
          return elementType.kind === "ROW" ? rowEquals(a, b) : elementKeyOf(a) === elementKeyOf(b);
        };
        return acc.filter((e) => {
          const at = left.findIndex((r) => equal(r, e));
          if (at < 0) return true;
          left.splice(at, 1);
          return false;
        });
      }
    }
    throw refuseRetract();
  };

  const lists: Acc[] = new Array(groups);
  for (let k = 0; k < groups; k++) {
    const from = g.starts[k]!;
    const to = g.starts[k + 1]!;
    if (!mergeSingle && to - from === 1) {
      lists[k] = elementsOf(g.order[from]!);
      continue;
    }
    let acc: Acc = null;
    for (let i = from; i < to; i++) {
      const idx = g.order[i]!;
      if (!isRetract(g.kinds[idx]!)) acc = agg(acc, elementsOf(idx));
      else if (!ignoreRetract) acc = retract(acc, elementsOf(idx));
    }
    lists[k] = acc;
  }
  return buildLists(datas[0]!.type, children, lists);
}

/** The list (or map) column of `lists`: whole elements gathered, per-field elements assembled. */
function buildLists(type: arrow.DataType, children: readonly arrow.Data[], lists: readonly Acc[]): arrow.Data {
  const n = lists.length;
  const offsets = new Int32Array(n + 1);
  const bitmap = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let k = 0; k < n; k++) {
    const l = lists[k];
    if (l === null) nulls++;
    else bitmap[k >> 3]! |= 1 << (k & 7);
    offsets[k + 1] = offsets[k]! + (l?.length ?? 0);
  }
  const flat = lists.flatMap((l) => l ?? []);
  let child: arrow.Data;
  const whole = (e: number): [number, number] => [Math.floor(e / SPLIT), e % SPLIT];
  if (flat.every((e) => typeof e === "number")) {
    child = gatherData(children, Uint32Array.from(flat, (e) => whole(e as number)[0]), Uint32Array.from(flat, (e) => whole(e as number)[1]));
  } else {
    const struct = children[0]!.type as arrow.Struct;
    const m = flat.length;
    const nullPart = children.length;
    const fields = struct.children.map((f, c) => {
      const part = new Uint32Array(m);
      const row = new Uint32Array(m);
      flat.forEach((e, j) => {
        const ref = typeof e === "number" ? e : e[c]!;
        [part[j], row[j]] = ref < 0 ? [nullPart, 0] : whole(ref);
      });
      return gatherData([...children.map((d) => d.children[c]!), makeNullData(f.type, 1)], part, row);
    });
    const valid = new Uint8Array((m + 7) >> 3);
    let missing = 0;
    flat.forEach((e, j) => {
      const ok = typeof e !== "number" || isValidAt(children[whole(e)[0]]!, whole(e)[1]);
      if (ok) valid[j >> 3]! |= 1 << (j & 7);
      else missing++;
    });
    child = arrow.makeData({ type: struct, length: m, nullCount: missing, nullBitmap: missing > 0 ? valid : undefined, children: fields });
  }
  return arrow.makeData({ type: type as arrow.List, length: n, nullCount: nulls, nullBitmap: nulls > 0 ? bitmap : undefined, valueOffsets: offsets, child } as never);
}

/** Java `==` / `equals` of two non-null atomic values of `type` as a generated equaliser compares them. */
function atomicEquals(type: DataType, x: unknown, y: unknown): boolean {
  switch (type.kind) {
    case "FLOAT":
    case "DOUBLE":
      return x === y;
    case "BINARY":
    case "VARBINARY":
      return bytesEqual(x as Uint8Array, y as Uint8Array);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return (x as Timestamp).millis === (y as Timestamp).millis && (x as Timestamp).nanoOfMillisecond === (y as Timestamp).nanoOfMillisecond;
  }
  return compareValues(x, y) === 0;
}

/**
 * The sign of Java's `compareTo` of two boxed keys of `type` (internal values; null is Java's null
 * key, which HashMap's tree bins order before any other by its tie-break rule). Only keys of equal
 * hash code are compared, so only the types whose hash codes collide matter: BIGINT, DOUBLE,
 * strings (Paimon BinaryString: unsigned UTF-8 bytes, then length), DECIMAL, TIMESTAMP.
 */
function javaCompareTo(type: DataType, a: unknown, b: unknown): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  switch (type.kind) {
    case "CHAR":
    case "VARCHAR": {
      const x = utf8.encode(a as string);
      const y = utf8.encode(b as string);
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    }
    case "FLOAT":
      return sortableFloatBits(javaFloatHash(a as number)) - sortableFloatBits(javaFloatHash(b as number));
    case "DOUBLE":
      return compareBigints(sortableDoubleBits(javaDoubleBits(a as number)), sortableDoubleBits(javaDoubleBits(b as number)));
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const x = a as Timestamp;
      const y = b as Timestamp;
      return compareBigints(x.millis, y.millis) || x.nanoOfMillisecond - y.nanoOfMillisecond;
    }
    case "BOOLEAN":
      return Number(a) - Number(b);
    default: // integers (number), BIGINT and DECIMAL's unscaled value of one scale (bigint)
      return a === b ? 0 : (a as number | bigint) < (b as number | bigint) ? -1 : 1;
  }
}

const compareBigints = (a: bigint, b: bigint): number => (a === b ? 0 : a < b ? -1 : 1);
/** The boxed Java object of one value (null: Java's null key): an identity for `equals` and its `hashCode`. */
function javaObjectKey(data: arrow.Data, i: number, type: DataType): [string, number] {
  if (!isValidAt(data, i)) return ["null", 0];
  const v = internalValue(data, i, type);
  switch (type.kind) {
    case "BOOLEAN":
      return [`z${v}`, javaBooleanHash(v as boolean)];
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "DATE":
    case "TIME":
      return [`i${v}`, (v as number) | 0];
    case "BIGINT":
      return [`l${v}`, javaLongHash(v as bigint)];
    case "FLOAT": {
      const bits = javaFloatHash(v as number); // Float.equals compares these bits
      return [`f${bits}`, bits];
    }
    case "DOUBLE": {
      const bits = javaDoubleBits(v as number); // Double.equals compares these bits
      return [`d${bits}`, javaLongHash(bits)];
    }
    case "CHAR":
    case "VARCHAR":
      return [`s${v}`, binaryStringHash(utf8.encode(v as string))];
    case "DECIMAL":
      return [`m${v}`, javaBigDecimalHash(v as bigint, type.scale)];
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const t = v as Timestamp;
      return [`t${t.millis}.${t.nanoOfMillisecond}`, paimonTimestampHash(t.millis, t.nanoOfMillisecond)];
    }
  }
  throw new PaimonError("UNSUPPORTED", `no Java hashCode for ${type.kind} values`);
}
