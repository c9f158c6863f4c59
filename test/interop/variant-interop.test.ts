/**
 * VARIANT columns both ways with Java Paimon 1.4.2 (and pypaimon 2.1):
 * - variantFromJson / variantToJson against Java's GenericVariant.fromJson / toJson, byte for
 *   byte, on random JSON documents (fast-check, one JVM call per batch) and every primitive type;
 * - Parquet tables Java writes — unshredded (the default), shredded by
 *   `parquet.variant.shreddingSchema` (typed objects, arrays, nested objects, decimals; values that
 *   do not fit the typed column stay in `value`) and by `variant.inferShreddingSchema` — read by
 *   paimon-rt as the same value / metadata bytes Java's read returns (for shredded files: Java's
 *   rebuilt variant, whose metadata lists the keys in rebuild order, not the written bytes);
 *   VARIANT inside ROW, ARRAY and MAP; a primary-key table; nulls;
 * - tables paimon-rt writes (unshredded, Java's group layout) read by Java and pypaimon as the same
 *   bytes, and pypaimon's VARIANT writes read by paimon-rt;
 * - refusals shared with Java: ORC and Avro files cannot hold VARIANT, nor can primary keys or
 *   partitions be VARIANT (Java's code generation fails); filters other than isNull / isNotNull
 *   are refused on VARIANT columns.
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as arrow from "apache-arrow";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { readFooter } from "../../src/format/footer.js";
import { toByteSource } from "../../src/format/source.js";
import { col, type Predicate } from "../../src/predicate/predicate.js";
import { type Variant, VariantBuilder } from "../../src/spec/variant-encoding.js";
import { variantFromJson, variantToJson } from "../../src/spec/variant.js";
import type { Table } from "../../src/table/table.js";
import { tempDirs } from "../support/temp-dirs.js";
import { docValue, inferDoc, numberText, OBJECT_DOC_SHAPE, objectDoc } from "./variant-docs.js";
import { javaOracleUnavailable, type OracleRow, type OracleSpec, pypaimonUnavailable, readTables, runBatch, runVariantOps, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping variant interop: ${noJava}`);
const noPython = pypaimonUnavailable();
const SLOW = 600_000;
const tempDir = tempDirs("paimon-rt-variant-interop-");

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
/** Arrow's form of a VARIANT column, and a column of the given variants (null for a null variant). */
const variantType = new arrow.Struct([new arrow.Field("value", new arrow.Binary(), false), new arrow.Field("metadata", new arrow.Binary(), false)]);
const variantColumn = (vs: Array<Variant | null>) => arrow.vectorFromArray(vs.map((v) => v && { value: v.value, metadata: v.metadata }), variantType).data[0]!;
/** A Java oracle variant without its toJson text (compared separately: expectJavaJson). */
const withoutJson = (v: unknown) => v && { value: (v as { value: string }).value, metadata: (v as { metadata: string }).metadata };
/** A variant as the Java oracle prints it. */
const javaForm = (v: Variant) => ({ value: b64(v.value), metadata: b64(v.metadata), json: variantToJson(v) });

/**
 * Java's toJson text against paimon-rt's: equal, except that doubles (and floats) Java 17
 * prints with the pre-JDK-19 `Double.toString` (`FloatingDecimal`), which gives some values a
 * digit more than the shortest (1.08130487258306176E18) or a different last digit of a
 * subnormal (4.9E-323), and floats a different last digit (324095.62 for 324095.63); paimon-rt
 * prints the shortest digits (JDK 19+). Such a token must parse to the same double and be
 * written with an exponent or 17+ significant digits (a float, `single`: the same float).
 * Returns how many tokens differed that way.
 */
function expectJavaJson(ours: string, java: string, what: string, single = false): number {
  if (ours === java) return 0;
  const tokens = (s: string) => s.match(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:E-?\d+)?|[^\s]/g) ?? [];
  const a = tokens(ours);
  const b = tokens(java);
  expect(a.length, `${what}: ${ours} vs Java ${java}`).toBe(b.length);
  let lenient = 0;
  const same = (x: string, y: string) => (single ? Math.fround(Number(x)) === Math.fround(Number(y)) : Number(x) === Number(y));
  a.forEach((t, i) => {
    if (t === b[i]) return;
    const javaToken = b[i]!;
    const digits = javaToken.replace(/^-/, "").replace(/E.*$/, "").replace(".", "").replace(/^0+/, "").length;
    expect(same(t, javaToken) && (single || javaToken.includes("E") || digits >= 17), `${what}: token ${t} vs Java ${javaToken} in ${java}`).toBe(true);
    lenient++;
  });
  return lenient;
}


describe.skipIf(noJava !== null)("VARIANT with Java Paimon", () => {
  it(
    "fromJson: random JSON documents give Java's value and metadata bytes and Java's toJson",
    async () => {
      const seed = Date.now() % 1_000_000;
      const docs = [
        ...fc.sample(docValue, { numRuns: 500, seed }),
        JSON.stringify(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`key${i}`, i * 1000]))),
        JSON.stringify(Array.from({ length: 300 }, (_, i) => "s".repeat(i % 70))),
        JSON.stringify({ deep: [[[[{ a: [1.5, "x".repeat(300)] }]]]] }),
      ];
      const java = await runVariantOps(docs.map((fromJson) => ({ fromJson })));
      let compared = 0;
      let jdk17Digits = 0;
      for (const [i, doc] of docs.entries()) {
        const j = java[i]!;
        if (!j.ok) {
          // Java refuses what paimon-rt refuses (none of these documents is malformed)
          throw new Error(`seed ${seed}: Java refused ${doc}: ${j.error}`);
        }
        const mine = javaForm(variantFromJson(doc));
        expect({ value: mine.value, metadata: mine.metadata }, `seed ${seed}: ${doc}`).toEqual({ value: j.value, metadata: j.metadata });
        jdk17Digits += expectJavaJson(mine.json, j.json, `seed ${seed}: ${doc}`);
        compared++;
      }
      expect(compared).toBe(docs.length);
      console.log(`variant fromJson: ${compared} documents, byte-equal; ${jdk17Digits} doubles printed by Java 17 with non-shortest digits`);
    },
    SLOW,
  );

  it(
    "toJson of every primitive type is Java's",
    async () => {
      const build = (fill: (b: VariantBuilder) => void) => {
        const b = new VariantBuilder();
        fill(b);
        return b.result();
      };
      const seed = Date.now() % 1_000_000;
      const doubles = fc.sample(fc.double(), { numRuns: 150, seed }).map((d) => build((b) => b.appendDouble(d)));
      const floats = fc.sample(fc.float(), { numRuns: 150, seed }).map((f) => build((b) => b.appendFloat(f)));
      const variants: Variant[] = [
        ...doubles,
        ...floats,
        ...fc.sample(fc.tuple(fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }), fc.nat({ max: 38 })), { numRuns: 100, seed }).map(([u, s]) => build((b) => b.appendDecimal(u, s))),
        ...fc.sample(fc.integer({ min: -800_000, max: 3_000_000 }), { numRuns: 60, seed }).map((d) => build((b) => b.appendDate(d))),
        ...fc.sample(fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }), { numRuns: 60, seed }).map((m) => build((b) => b.appendTimestamp(m))),
        ...fc.sample(fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }), { numRuns: 60, seed }).map((m) => build((b) => b.appendTimestampNtz(m))),
        ...fc.sample(fc.uint8Array({ maxLength: 40 }), { numRuns: 30, seed }).map((bytes) => build((b) => b.appendBinary(bytes))),
        ...fc.sample(fc.string({ unit: "binary", maxLength: 30 }), { numRuns: 60, seed }).map((s) => build((b) => b.appendString(s))),
        { value: new Uint8Array([0x50, ...Array.from({ length: 16 }, (_, i) => (i * 37) & 0xff)]), metadata: new Uint8Array([1, 0, 0]) },
      ];
      const java = await runVariantOps(variants.map((v) => ({ value: b64(v.value), metadata: b64(v.metadata) })));
      for (const [i, v] of variants.entries()) {
        const j = java[i]!;
        if (!j.ok) throw new Error(`seed ${seed}: Java could not print ${b64(v.value)}: ${j.error}`);
        if (i < doubles.length + floats.length) expectJavaJson(variantToJson(v), j.json, `seed ${seed}: value ${b64(v.value)}`, i >= doubles.length);
        else expect(variantToJson(v), `seed ${seed}: value ${b64(v.value)}`).toBe(j.json);
      }
    },
    SLOW,
  );

  describe("Parquet tables", () => {
    let warehouse = "";
    let catalog: Catalog;
    const seed = Date.now() % 1_000_000;
    const docs = (n: number, s: number) => fc.sample(fc.oneof({ weight: 4, arbitrary: objectDoc }, { weight: 1, arbitrary: docValue }, { weight: 1, arbitrary: fc.constant(null) }), { numRuns: n, seed: s });
    const rowsOf = (vs: Array<string | null>, from = 0) => vs.map((v, i) => ({ id: from + i, v }));
    const FIELDS = [
      { name: "id", type: "INT" },
      { name: "v", type: "VARIANT" },
    ];
    const SHREDDING = JSON.stringify({ type: "ROW", fields: [{ id: 0, name: "v", type: OBJECT_DOC_SHAPE }] });
    const shreddedRows = rowsOf(docs(200, seed + 2));
    const tables: Array<{ identifier: string; spec: OracleSpec }> = [
      { identifier: "db.plain", spec: { fields: FIELDS, options: { bucket: "-1" }, commits: [rowsOf(docs(150, seed)), rowsOf(docs(50, seed + 1), 1000)] } },
      { identifier: "db.shredded", spec: { fields: FIELDS, options: { bucket: "-1", "parquet.variant.shreddingSchema": SHREDDING }, commits: [shreddedRows] } },
      {
        identifier: "db.inferred",
        spec: {
          fields: FIELDS,
          options: { bucket: "-1", "variant.inferShreddingSchema": "true" },
          commits: [rowsOf(fc.sample(inferDoc, { numRuns: 150, seed: seed + 3 })), rowsOf(fc.sample(fc.option(inferDoc), { numRuns: 60, seed: seed + 4 }), 1000)],
        },
      },
      {
        identifier: "db.nested",
        spec: {
          fields: [
            { name: "id", type: "INT" },
            { name: "r", type: "ROW<n INT, v VARIANT>" },
            { name: "pk_free", type: "VARIANT NOT NULL" },
            { name: "arr", type: "ARRAY<VARIANT>" },
            { name: "m", type: "MAP<STRING, VARIANT>" },
          ],
          options: { bucket: "-1" },
          commits: [docs(40, seed + 5).map((v, i) => ({ id: i, r: i % 7 === 3 ? null : { n: i, v }, pk_free: v ?? '"x"', arr: i % 5 === 1 ? null : [v, '"e"'], m: i % 6 === 2 ? null : [["k", v], ["l", "[1]"]] }))],
        },
      },
      {
        identifier: "db.pk",
        spec: {
          fields: [
            { name: "id", type: "INT NOT NULL" },
            { name: "v", type: "VARIANT" },
          ],
          primaryKeys: ["id"],
          options: { bucket: "2" },
          commits: [rowsOf(docs(40, seed + 6)), rowsOf(docs(20, seed + 7)).map((r) => ({ ...r, id: r.id * 2 }))],
        },
      },
    ];

    beforeAll(async () => {
      warehouse = tempDir();
      await writeTables("java", warehouse, tables);
      catalog = await Catalog.open(warehouse);
    }, SLOW);

    /** paimon-rt's rows with each VARIANT in the Java oracle's form. */
    async function rtRows(table: Table, options: { filter?: Predicate } = {}): Promise<OracleRow[]> {
      const plan = await table.newScan(options.filter ? { filter: options.filter } : {}).plan();
      const t = await table.newRead(options.filter ? { filter: options.filter, predicateFilter: true } : {}).toArrow(plan.splits);
      const form = (v: { value: Uint8Array; metadata: Uint8Array } | null) => (v === null ? null : javaForm({ value: v.value, metadata: v.metadata }));
      return t
        .toArray()
        .map((r) => {
          const out: OracleRow = {};
          for (const f of t.schema.fields) {
            const x = r[f.name];
            if (f.name === "r") out.r = x === null ? null : { n: x.n, v: form(x.v) };
            else if (f.name === "arr") out.arr = x === null ? null : [...x].map(form);
            else if (f.name === "m") out.m = x === null ? null : [...x].map(([k, v]: [string, Variant | null]) => [k, form(v)]);
            else out[f.name] = f.type instanceof arrow.Struct ? form(x) : x;
          }
          return out;
        })
        .sort((a, b) => (a.id as number) - (b.id as number));
    }

    it(
      "paimon-rt reads Java's unshredded, shredded and inferred-shredded files as Java's read bytes",
      async () => {
        const java = await readTables(
          "java",
          tables.map((t) => ({ warehouse, identifier: t.identifier, sort: true })),
        );
        for (const [i, t] of tables.entries()) {
          const rows = java[i]!;
          if (rows instanceof Error) throw rows;
          const mine = await rtRows(await catalog.getTable(t.identifier));
          const javaRows = [...rows].sort((a, b) => (a.id as number) - (b.id as number));
          const strip = (row: OracleRow): OracleRow =>
            Object.fromEntries(
              Object.entries(row).map(([k, v]) => {
                if (k === "id" || v === null) return [k, v];
                if (k === "r") return [k, { n: (v as OracleRow).n, v: withoutJson((v as OracleRow).v) }];
                if (k === "arr") return [k, (v as unknown[]).map(withoutJson)];
                if (k === "m") return [k, (v as Array<[string, unknown]>).map(([key, x]) => [key, withoutJson(x)])];
                return [k, withoutJson(v)];
              }),
            );
          expect(mine.map(strip), `seed ${seed}: ${t.identifier}`).toEqual(javaRows.map(strip));
          const jsons = (row: OracleRow) => [row.v, row.pk_free, (row.r as OracleRow | null)?.v].filter((v): v is { json: string } => !!v).map((v) => v.json);
          mine.forEach((row, k) => jsons(row).forEach((json, n) => expectJavaJson(json, jsons(javaRows[k]!)[n]!, `seed ${seed}: ${t.identifier} row ${row.id}`)));
        }
        // the shredded tables' files do hold typed columns: leaves beyond value and metadata
        const leaves = async (identifier: string, column: string) => {
          const table = await catalog.getTable(identifier);
          const files = (await table.newScan().plan()).splits.flatMap((split) => split.files).sort((x, y) => (x.minSequenceNumber < y.minSequenceNumber ? -1 : 1));
          const bytes = new Uint8Array(await fsp.readFile(`${warehouse}/${identifier.replace(".", ".db/")}/bucket-0/${files[0]!.fileName}`));
          const c = (await readFooter(toByteSource(bytes, files[0]!.fileName))).columns.find((x) => x.name === column)!;
          return c.leafEnd - c.leafStart;
        };
        expect(await leaves("db.plain", "v")).toBe(2);
        expect(await leaves("db.nested", "pk_free")).toBe(2);
        // metadata, value, a (2), b (2), c (value, element value and typed_value), d (value, x's 2), e (2), f (2)
        expect(await leaves("db.shredded", "v")).toBe(16);
        expect(await leaves("db.inferred", "v")).toBeGreaterThan(2);
      },
      SLOW,
    );

    it(
      "filters: isNull / isNotNull on VARIANT columns work, others are refused; other columns' filters keep the rebuilt values",
      async () => {
        const table = await catalog.getTable("db.shredded");
        const nulls = await rtRows(table, { filter: col("v").isNull() });
        expect(nulls.map((r) => r.id)).toEqual(shreddedRows.filter((r) => r.v === null).map((r) => r.id));
        const all = await rtRows(table);
        expect(await rtRows(table, { filter: col("v").isNotNull() })).toEqual(all.filter((r) => r.v !== null));
        // a filter on another column (row-level selective read) rebuilds the shredded values alike
        expect(await rtRows(table, { filter: col("id").lt(50) })).toEqual(all.filter((r) => (r.id as number) < 50));
        // refused where the filter is bound, as the scan is made
        expect(() => table.newScan({ filter: col("v").eq("x") })).toThrow(
          expect.objectContaining({ code: "INVALID_ARGUMENT", message: "Filter eq is not supported on column `v` of type VARIANT (only isNull/isNotNull)" }),
        );
      },
      SLOW,
    );
  });

  it(
    "tables paimon-rt writes are read by Java and pypaimon as the same bytes; pypaimon's writes read by paimon-rt",
    async () => {
      const warehouse = tempDir();
      const catalog = await Catalog.open(warehouse);
      await catalog.createDatabase("db");
      const seed = Date.now() % 1_000_000;
      const docs = fc.sample(fc.oneof({ weight: 5, arbitrary: docValue }, { weight: 1, arbitrary: fc.constant(null) }), { numRuns: 120, seed });
      const variants = docs.map((d) => (d === null ? null : variantFromJson(d)));
      const table = await catalog.createTable("db.rt", {
        fields: [
          { name: "id", type: "INT" },
          { name: "v", type: "VARIANT" },
          { name: "r", type: "ROW<n INT, v VARIANT>" },
          { name: "arr", type: "ARRAY<VARIANT>" },
        ],
        options: { bucket: "-1" },
      });
      const ids = docs.map((_, i) => i);
      const rType = new arrow.Struct([new arrow.Field("n", new arrow.Int32(), true), new arrow.Field("v", variantType, true)]);
      const r = arrow.vectorFromArray(
        variants.map((v, i) => (i % 5 === 2 ? null : { n: i, v: v && { value: v.value, metadata: v.metadata } })),
        rType,
      );
      // arr: [v, v] (null every 7th row)
      const arr = arrow.vectorFromArray(
        variants.map((v, i) => (i % 7 === 4 ? null : [v, v].map((x) => x && { value: x.value, metadata: x.metadata }))),
        new arrow.List(new arrow.Field("element", variantType, true)),
      );
      const batch = new arrow.RecordBatch({ id: arrow.vectorFromArray(ids, new arrow.Int32()).data[0]!, v: variantColumn(variants), r: r.data[0]!, arr: arr.data[0]! });
      const write = await table.newWrite({ commitUser: "rt" });
      await write.write(batch);
      await table.newCommit({ commitUser: "rt" }).commit(await write.prepareCommit());
      await write.close();

      const bytesOnly = (v: Variant | null) => v && { value: b64(v.value), metadata: b64(v.metadata) };
      const expected = variants.map((v, i) => ({ id: i, v: bytesOnly(v), r: i % 5 === 2 ? null : { n: i, v: bytesOnly(v) }, arr: i % 7 === 4 ? null : [bytesOnly(v), bytesOnly(v)] }));
      const [java] = await readTables("java", [{ warehouse, identifier: "db.rt", sort: true }]);
      if (java instanceof Error) throw java;
      const javaRows = [...java!].sort((a, b) => (a.id as number) - (b.id as number));
      expect(javaRows.map((row) => ({ ...row, v: withoutJson(row.v), r: row.r && { ...(row.r as object), v: withoutJson((row.r as OracleRow).v) }, arr: row.arr && (row.arr as unknown[]).map(withoutJson) })), `seed ${seed}`).toEqual(expected);
      javaRows.forEach((row, i) => variants[i] && expectJavaJson(variantToJson(variants[i]!), (row.v as { json: string }).json, `seed ${seed}: row ${i}`));

      if (noPython) return console.log(`skipping the pypaimon half: ${noPython}`);
      const [py] = await readTables("pypaimon", [{ warehouse, identifier: "db.rt", sort: true }]);
      if (py instanceof Error) throw py;
      expect([...py!].sort((a, b) => (a.id as number) - (b.id as number))).toEqual(expected);

      // pypaimon writes VARIANT columns from the bytes: paimon-rt reads them back unchanged
      await writeTables("pypaimon", warehouse, [
        { identifier: "db.py", spec: { fields: [{ name: "id", type: "INT" }, { name: "v", type: "VARIANT" }], options: { bucket: "-1" }, commits: [variants.map((v, i) => ({ id: i, v: bytesOnly(v) }))] } },
      ]);
      const pyTable = await catalog.getTable("db.py");
      const plan = await pyTable.newScan().plan();
      const read = (await pyTable.newRead().toArrow(plan.splits)).toArray().sort((a, b) => a.id - b.id);
      expect(read.map((row) => ({ id: row.id, v: row.v && bytesOnly(row.v) }))).toEqual(variants.map((v, i) => ({ id: i, v: bytesOnly(v) })));
    },
    SLOW,
  );

  it(
    "a VARIANT primary key or partition field fails in Java (its code generation) and is refused by paimon-rt",
    async () => {
      const warehouse = tempDir();
      const dir = tempDir();
      const specs = {
        pk: { fields: [{ name: "v", type: "VARIANT NOT NULL" }, { name: "n", type: "INT" }], primaryKeys: ["v"], options: { bucket: "1" }, commits: [[{ v: '{"a":1}', n: 1 }]] },
        part: { fields: [{ name: "v", type: "VARIANT" }, { name: "n", type: "INT" }], partitionKeys: ["v"], options: { bucket: "-1" }, commits: [[{ v: '{"a":1}', n: 1 }]] },
      };
      for (const [name, spec] of Object.entries(specs)) await fsp.writeFile(`${dir}/${name}.json`, JSON.stringify(spec));
      const results = await runBatch("java", [
        ["write", warehouse, "db.pk", `${dir}/pk.json`],
        ["write", warehouse, "db.part", `${dir}/part.json`],
      ]);
      for (const r of results) {
        expect(r.ok).toBe(false);
        expect((r as { error: string }).error).toContain("Could not instantiate generated class");
      }

      const catalog = await Catalog.open(tempDir());
      await catalog.createDatabase("db");
      await expect(catalog.createTable("db.part", specs.part)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "partition column v cannot be of type VARIANT" });
      const table = await catalog.createTable("db.pk", specs.pk);
      const v = variantFromJson("1");
      const batch = new arrow.RecordBatch({
        v: variantColumn([v]),
        n: arrow.vectorFromArray([1], new arrow.Int32()).data[0]!,
      });
      const write = await table.newWrite({ commitUser: "rt" });
      await expect(write.write(batch)).rejects.toMatchObject({ code: "UNSUPPORTED", message: expect.stringContaining("cannot be a key column") });
      await write.close();
    },
    SLOW,
  );

  it(
    "ORC and Avro cannot hold VARIANT in Java nor in paimon-rt",
    async () => {
      const warehouse = tempDir();
      const dir = tempDir();
      const specFile = async (format: string) => {
        const file = `${dir}/${format}.json`;
        await fsp.writeFile(file, JSON.stringify({ fields: [{ name: "id", type: "INT" }, { name: "v", type: "VARIANT" }], options: { bucket: "-1", "file.format": format }, commits: [[{ id: 1, v: "1" }]] }));
        return file;
      };
      const results = await runBatch("java", [
        ["write", warehouse, "db.orc", await specFile("orc")],
        ["write", warehouse, "db.avro", await specFile("avro")],
      ]);
      expect(results.map((r) => (r.ok ? "ok" : "refused"))).toEqual(["refused", "refused"]);
      expect((results[0] as { error: string }).error).toContain("Unsupported type: VARIANT");

      const catalog = await Catalog.open(tempDir());
      await catalog.createDatabase("db");
      for (const format of ["orc", "avro"]) {
        const table = await catalog.createTable(`db.${format}`, { fields: [{ name: "id", type: "INT" }, { name: "v", type: "VARIANT" }], options: { bucket: "-1", "file.format": format } });
        const v = variantFromJson("1");
        const batch = new arrow.RecordBatch({
          id: arrow.vectorFromArray([1], new arrow.Int32()).data[0]!,
          v: variantColumn([v]),
        });
        const write = await table.newWrite({ commitUser: "rt" });
        const written = write.write(batch).then(() => write.prepareCommit());
        await expect(written).rejects.toMatchObject({ code: "UNSUPPORTED", message: expect.stringContaining("cannot hold VARIANT") });
        await write.close();
      }
    },
    SLOW,
  );
});
