// Java Paimon's fixed-bucket functions (`bucket-function.type`, paimon-core bucket/*BucketFunction):
// `default` hashes the bucket-key BinaryRow (the kernel's assignBuckets), `mod` is
// `floorMod(key, buckets)` of a single INT/BIGINT key, `hive` combines Hive's per-value hashes.
import { PaimonError } from "../error.js";
import { javaBigDecimalHash, javaDoubleHash, javaFloatHash, javaLongHash } from "../fileindex/java-hash.js";
import { assignBuckets } from "../kernel/hash.js";
import { type KeyColumn, keyValue } from "../kernel/columns.js";
import { type DataField, type DataType, type DecimalType, typeToString } from "../spec/types.js";

/** The values of `bucket-function.type` (Java's CoreOptions.BucketFunctionType). */
export type BucketFunctionType = "default" | "mod" | "hive";

/** Parses `bucket-function.type` (case-insensitive, as Java's enum option). */
export function bucketFunctionTypeOf(options: Readonly<Record<string, string>>): BucketFunctionType {
  const raw = options["bucket-function.type"];
  if (raw === undefined) return "default";
  const t = raw.trim().toLowerCase();
  if (t === "default" || t === "mod" || t === "hive") return t;
  throw new PaimonError("INVALID_ARGUMENT", `Could not parse value '${raw}' for key 'bucket-function.type' (default, mod, hive).`);
}

/** The bucket per row of a fixed-bucket table. */
export type BucketFunction = (keys: readonly KeyColumn[], numBuckets: number) => Int32Array;

/**
 * The bucket function of `type` over the bucket-key fields `keyFields`, with Java's checks
 * (ModBucketFunction's constructor: one INT or BIGINT key).
 */
export function bucketFunction(type: BucketFunctionType, keyFields: readonly DataField[]): BucketFunction {
  if (type === "default") return assignBuckets;
  if (type === "mod") {
    if (keyFields.length !== 1) throw new PaimonError("INVALID_ARGUMENT", "bucket key must have exactly one field in mod bucket function");
    const kind = keyFields[0]!.type.kind;
    if (kind !== "INT" && kind !== "BIGINT") throw new PaimonError("INVALID_ARGUMENT", `bucket key type must be INT or BIGINT in mod bucket function, but got ${typeToString(keyFields[0]!.type)}`);
    return modBuckets;
  }
  const types = keyFields.map((f) => f.type);
  return (keys, numBuckets) => hiveBuckets(keys, types, numBuckets);
}

/** Java's ModBucketFunction: `Math.floorMod(key, buckets)` (a null key reads as 0, as a BinaryRow's null slot). */
function modBuckets(keys: readonly KeyColumn[], numBuckets: number): Int32Array {
  const col = keys[0]!;
  const out = new Int32Array(col.length);
  const n = BigInt(numBuckets);
  for (let r = 0; r < col.length; r++) {
    const v = keyValue(col, r);
    if (v === null) out[r] = 0;
    else if (typeof v === "bigint") out[r] = Number(((v % n) + n) % n);
    else out[r] = ((((v as number) % numBuckets) + numBuckets) % numBuckets) | 0;
  }
  return out;
}

/** Java's HiveBucketFunction: `31 * h + hiveHash(value)` over the key fields, then `(h & MAX_INT) % buckets`. */
function hiveBuckets(keys: readonly KeyColumn[], types: readonly DataType[], numBuckets: number): Int32Array {
  const rows = keys[0]?.length ?? 0;
  const out = new Int32Array(rows);
  for (let r = 0; r < rows; r++) {
    let hash = 0;
    for (let i = 0; i < keys.length; i++) hash = (Math.imul(31, hash) + hiveHash(keyValue(keys[i]!, r), types[i]!)) | 0;
    out[r] = (hash & 0x7fffffff) % numBuckets;
  }
  return out;
}

/** Hive's hash of a Java object (HiveBucketFunction.computeHash over HiveHasher). */
function hiveHash(v: ReturnType<typeof keyValue>, type: DataType): number {
  if (v === null) return 0;
  switch (type.kind) {
    case "BOOLEAN":
      return v ? 1 : 0;
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "DATE":
    case "TIME":
      return (v as number) | 0;
    case "BIGINT":
      return javaLongHash(v as bigint);
    case "FLOAT":
      return v === 0 ? 0 : javaFloatHash(v as number); // (Java: -0.0f == 0.0f, both hash as 0)
    case "DOUBLE":
      return v === 0 ? 0 : javaDoubleHash(v as number);
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY": {
      let h = 0;
      for (const b of v as Uint8Array) h = (Math.imul(31, h) + ((b << 24) >> 24)) | 0; // Java bytes are signed
      return h;
    }
    case "DECIMAL":
      return decimalHash(BigInt(v as number | bigint), (type as DecimalType).scale);
    default:
      throw new PaimonError("UNSUPPORTED", `Unsupported type as bucket key type ${javaClassOf(type)} (bucket-function.type=hive)`);
  }
}

/**
 * `BigDecimal.hashCode()` of HiveHasher.normalizeDecimal(unscaled × 10^-scale): trailing zeros
 * stripped (scale not below 0); Paimon's precision ≤ 38 never needs Hive's rounding.
 */
function decimalHash(unscaled: bigint, scale: number): number {
  if (unscaled === 0n) return 0; // BigDecimal.ZERO
  let u = unscaled;
  let s = scale;
  while (s > 0 && u % 10n === 0n) {
    u /= 10n;
    s--;
  }
  return javaBigDecimalHash(u, s);
}

function javaClassOf(type: DataType): string {
  switch (type.kind) {
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return "class org.apache.paimon.data.Timestamp";
    case "ARRAY":
      return "class org.apache.paimon.data.BinaryArray";
    case "MAP":
    case "MULTISET":
      return "class org.apache.paimon.data.BinaryMap";
    case "ROW":
      return "class org.apache.paimon.data.BinaryRow";
    default:
      return `of ${type.kind}`;
  }
}
