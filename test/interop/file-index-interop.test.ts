/**
 * Data-file indexes written by Java Paimon 1.4.2 as goldens for src/fileindex.
 *
 * Java writes append tables with `file-index.bloom-filter.*` / `file-index.bitmap.*` options
 * (one JVM launch for all tables). For every data file we take Java's index blob (embedded in
 * the manifest, or the extra `<data file>.index` next to it, found through our own snapshot /
 * manifest reading) and check that
 *   1. FileIndexBuilder over the same rows and options produces the same bytes, and the same
 *      embedded-or-extra decision;
 *   2. fileIndexMayMatch is true for every present value, false for (nearly) every absent one,
 *      and gives the same answers on Java's blob and ours.
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Catalog } from "../../src/catalog/catalog.js";
import { javaOptionKeyOrder } from "../../src/fileindex/java-order.js";
import { FileIndexBuilder, fileIndexMayMatch, fileIndexSpecOf, readFileIndexHeader } from "../../src/fileindex/index.js";
import { col, type Predicate } from "../../src/predicate/predicate.js";
import type { DataFileMeta } from "../../src/spec/manifest.js";
import type { DataField } from "../../src/spec/types.js";
import { rowsToBatch, type FieldLike } from "./convert.js";
import { type OracleRow, javaOracleUnavailable, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.warn(`[file-index-interop] skipping: ${noJava}`);

const SLOW = 120_000;
const DB = "fidx";
const ROWS = 300;

const FIELDS: FieldLike[] = [
  { name: "id", type: "INT NOT NULL" },
  { name: "i", type: "INT" },
  { name: "l", type: "BIGINT" },
  { name: "s", type: "STRING" },
  { name: "d", type: "DOUBLE" },
  { name: "f", type: "FLOAT" },
  { name: "dt", type: "DATE" },
  { name: "ts3", type: "TIMESTAMP(3)" },
  { name: "ts6", type: "TIMESTAMP(6)" },
  { name: "b", type: "BOOLEAN" },
  { name: "t", type: "TINYINT" },
];

const BASE_MILLIS = 1_704_067_200_000n;
const WORDS = ["alpha", "βeta", "gamma ✓", "", "delta-longer-than-thirty-two-bytes-for-xxh64", "😀 emoji"];

/** Canonical value of column `name` in row `k` (null where the column has a null). */
function valueOf(name: string, k: number): unknown {
  if (name !== "id" && k % 13 === 5) return null;
  switch (name) {
    case "id":
      return k;
    case "i":
      return ((k * 7919) % 97) - 40;
    case "l":
      return BigInt(k % 61) * 1_000_000_007n - 9_000_000_000_000n;
    case "s":
      return `${WORDS[k % WORDS.length]}#${k % 17}`;
    case "d":
      return k % 41 === 0 ? 0 : ((k % 37) - 18) * 0.25;
    case "f":
      return (k % 90) - 45; // round FLOATs: their hash codes differ in the high bits only, so Java's bitmap dictionary HashMap makes tree bins
    case "dt":
      return 19_700 + (k % 45);
    case "ts3":
      return { millis: BASE_MILLIS + BigInt((k % 53) * 1007), nanoOfMillisecond: 0 };
    case "ts6":
      return { millis: BASE_MILLIS + BigInt(k % 59), nanoOfMillisecond: ((k % 59) % 3) * 1000 + 1000 };
    case "b":
      return k % 3 === 0 ? null : k % 2 === 0;
    case "t":
      return (k % 20) - 10;
    default:
      throw new Error(name);
  }
}

/** The oracle's JSON encoding of a canonical value (see oracle/README.md). */
function toJson(name: string, v: unknown): unknown {
  if (v === null) return null;
  if (typeof v === "bigint") return String(v);
  if (name === "ts3" || name === "ts6") {
    const t = v as { millis: bigint; nanoOfMillisecond: number };
    return String(t.millis * 1_000_000n + BigInt(t.nanoOfMillisecond));
  }
  return v;
}

const ROW_VALUES: Array<Record<string, unknown>> = Array.from({ length: ROWS }, (_, k) => Object.fromEntries(FIELDS.map((f) => [f.name, valueOf(f.name, k)])));
const JSON_ROWS: OracleRow[] = ROW_VALUES.map((r) => Object.fromEntries(Object.entries(r).map(([name, v]) => [name, toJson(name, v)])));

/** Values no row has, per column. */
function absentValues(name: string): unknown[] {
  const out: unknown[] = [];
  for (let j = 0; j < 60; j++) {
    switch (name) {
      case "i":
        out.push(1000 + j * 3);
        break;
      case "l":
        out.push(BigInt(j) * 1_000_000_007n + 5n);
        break;
      case "s":
        out.push(`absent-${j}`);
        break;
      case "d":
        out.push(100.5 + j);
        break;
      case "f":
        out.push(1000.5 + j);
        break;
      case "dt":
        out.push(20_000 + j);
        break;
      case "ts3":
        out.push({ millis: BASE_MILLIS - 10_000n - BigInt(j), nanoOfMillisecond: 0 });
        break;
      case "ts6":
        out.push({ millis: BASE_MILLIS + 100n + BigInt(j), nanoOfMillisecond: 0 });
        break;
      case "t":
        out.push(50 + j);
        break;
      default:
        return out; // BOOLEAN: both values are present
    }
  }
  return out;
}

interface TableCase {
  name: string;
  options: Record<string, string>;
  /** Expected placement of Java's blob. */
  placement: "embedded" | "extra";
}

const BLOOM_SMALL = (cols: string[]): Record<string, string> =>
  Object.fromEntries([["file-index.bloom-filter.columns", cols.join(",")], ...cols.map((c) => [`file-index.bloom-filter.${c}.items`, "100"])]);

const CASES: TableCase[] = [
  { name: "bloom_embedded", options: BLOOM_SMALL(["i", "s"]), placement: "embedded" },
  { name: "bloom_numeric", options: BLOOM_SMALL(["l", "d", "dt", "ts3", "ts6", "t"]), placement: "extra" },
  { name: "bloom_default_items", options: { "file-index.bloom-filter.columns": "s,l" }, placement: "extra" },
  { name: "bitmap_v2", options: { "file-index.bitmap.columns": "i,l,s,d,f,dt,ts3,ts6,b,t" }, placement: "extra" },
  {
    name: "bitmap_v1_small_blocks",
    options: {
      "file-index.bitmap.columns": "s,l,b",
      "file-index.bitmap.s.version": "1",
      "file-index.bitmap.l.index-block-size": "64b",
    },
    placement: "extra",
  },
  { name: "bitmap_embedded", options: { "file-index.bitmap.columns": "b", "file-index.in-manifest-threshold": "1 kb" }, placement: "embedded" },
  {
    name: "bloom_and_bitmap",
    options: { ...BLOOM_SMALL(["s", "i"]), "file-index.bitmap.columns": "s,t", "file-index.in-manifest-threshold": "8kb" },
    placement: "embedded",
  },
];

interface JavaFile {
  file: DataFileMeta;
  blob: Uint8Array;
  embedded: boolean;
}

let warehouse = "";
const javaFiles = new Map<string, JavaFile[]>();
const tableFields = new Map<string, DataField[]>();

describe.skipIf(noJava !== null)("file indexes written by Java Paimon 1.4.2", () => {
  beforeAll(async () => {
    warehouse = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-fidx-"));
    await writeTables(
      "java",
      warehouse,
      CASES.map((c) => ({
        identifier: `${DB}.${c.name}`,
        spec: { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), options: { bucket: -1, ...c.options }, commits: [JSON_ROWS] },
      })),
    );
    const catalog = await Catalog.open(warehouse);
    for (const c of CASES) {
      const table = await catalog.getTable(`${DB}.${c.name}`);
      tableFields.set(c.name, table.schema.fields);
      const files: JavaFile[] = [];
      for (const split of (await table.newScan().plan()).splits) {
        if (split.kind !== "data") continue;
        for (const file of split.files) {
          const extra = file.extraFiles.find((f) => f.endsWith(".index"));
          const blob = file.embeddedIndex ?? (extra ? await table.fileIO.readFile(`${split.bucketPath}/${extra}`) : null);
          if (blob) files.push({ file, blob, embedded: file.embeddedIndex !== null });
        }
      }
      javaFiles.set(c.name, files);
    }
  }, SLOW);

  afterAll(async () => {
    if (warehouse) await fsp.rm(warehouse, { recursive: true, force: true });
  });

  for (const c of CASES) {
    describe(c.name, () => {
      const ours = (): Uint8Array => {
        const fields = tableFields.get(c.name)!;
        const spec = fileIndexSpecOf(c.options, fields, javaOptionKeyOrder)!;
        const builder = new FileIndexBuilder(spec, fields);
        builder.update(rowsToBatch(FIELDS, JSON_ROWS));
        return builder.finish();
      };

      it("Java wrote one data file with an index where expected", () => {
        const files = javaFiles.get(c.name)!;
        expect(files).toHaveLength(1);
        expect(files[0]!.file.rowCount).toBe(BigInt(ROWS));
        expect(files[0]!.embedded ? "embedded" : "extra").toBe(c.placement);
      });

      it("our builder produces Java's bytes", () => {
        const java = javaFiles.get(c.name)![0]!;
        const mine = ours();
        const javaHeader = readFileIndexHeader(java.blob);
        const ourHeader = readFileIndexHeader(mine);
        // per index first, so that a mismatch names its column and index type
        for (const [column, indexes] of javaHeader) {
          for (const [type, at] of indexes) {
            const ourAt = ourHeader.get(column)?.get(type);
            expect(ourAt, `${column}/${type}`).toBeDefined();
            const a = mine.subarray(ourAt!.start, ourAt!.start + ourAt!.length);
            const b = java.blob.subarray(at.start, at.start + at.length);
            expect(firstDifference(a, b), `${column}/${type} (${a.length} vs ${b.length} bytes)`).toBe(-1);
          }
        }
        expect(firstDifference(mine, java.blob)).toBe(-1);
        const spec = fileIndexSpecOf(c.options, tableFields.get(c.name)!, javaOptionKeyOrder)!;
        expect(mine.length <= spec.inManifestThreshold).toBe(java.embedded);
      });

      it("fileIndexMayMatch: present values match, absent ones (nearly) never, same answer on both blobs", () => {
        const fields = tableFields.get(c.name)!;
        const java = javaFiles.get(c.name)![0]!.blob;
        const mine = ours();
        const header = readFileIndexHeader(java);
        for (const [column, indexes] of header) {
          const bitmapOnly = !indexes.has("bloom-filter");
          const present = [...new Set(ROW_VALUES.map((r) => r[column]).filter((v) => v !== null))];
          const check = (p: Predicate): boolean => {
            const a = fileIndexMayMatch(java, p, fields);
            expect(fileIndexMayMatch(mine, p, fields), `${column}: ${JSON.stringify(p, (_, v) => (typeof v === "bigint" ? String(v) : v))}`).toBe(a);
            return a;
          };
          for (const v of present) expect(check(col(column).eq(v)), `${column} = ${String(v)}`).toBe(true);
          const absent = absentValues(column);
          const falsePositives = absent.filter((v) => check(col(column).eq(v))).length;
          if (bitmapOnly) expect(falsePositives).toBe(0);
          else expect(falsePositives).toBeLessThanOrEqual(absent.length * 0.35);
          expect(check(col(column).in([...absent.slice(0, 3), present[0]]))).toBe(true);
          expect(check(col(column).isNull())).toBe(true);
          if (bitmapOnly) {
            expect(check(col(column).ne(present[0]))).toBe(present.length > 1);
            expect(check(col(column).notIn(present))).toBe(false);
            expect(check(col(column).isNotNull())).toBe(true);
          }
        }
      });
    });
  }
});

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
