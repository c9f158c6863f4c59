/**
 * `scan.fallback-branch` / `scan.primary-branch` against Java Paimon 1.4.2's
 * FallbackReadFileStoreTable: Java writes an append main branch and a primary-key branch `pk`
 * (made by `ALTER TABLE t$branch_pk SET ('primary-key' …)` while empty) over partly the same
 * partitions, one of them only deletes; the options are set with Java's ALTER TABLE and with
 * paimon-rt's alterTable, on main and on the branch. paimon-rt's rows equal Java's for plain
 * reads, filters (exact: `--execute-filter`), projections, time travel (`scan.snapshot-id` mapped
 * to the other branch by time), copies (which, as Java's, neither add nor change a fallback),
 * stream reads (the table's own branch), after paimon-rt writes through the table (to its own
 * branch), and the refusals (both options, a missing branch, different row types) carry Java's
 * messages. Skips with a printed reason when the Java oracle is not built.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { and, col, type Predicate } from "../../src/predicate/predicate.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, rowsToBatch } from "./convert.js";
import { FIELDS } from "./incremental-tables.js";
import { batchOutput, javaOracleUnavailable, type OracleRow, parseJsonLines, runBatch, sortRows } from "./oracle/harness.js";
import { tempDirs } from "../support/temp-dirs.js";
import { javaStreamArgs, ours as ourPlans, parsePlans } from "./stream-plans.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping fallback-branch interop: ${noJava}`);
const SLOW = 600_000;
const tempDir = tempDirs("paimon-rt-fallback-interop-");
const ID = "db.t";
const PK = `${ID}$branch_pk`;

type Command = string[] | { write: string; spec: object };

/** Runs Java commands in one JVM; each command's output, or its error as `{ error }`. */
async function java(wh: string, commands: Command[]): Promise<Array<string | { error: string }>> {
  const args = commands.map((c, i) => {
    if (Array.isArray(c)) return c;
    const file = join(wh, `spec-${i}-${Date.now()}.json`);
    writeFileSync(file, JSON.stringify(c.spec));
    return ["write", wh, c.write, file];
  });
  return (await runBatch("java", args)).map((r) => (r.ok ? batchOutput(r) : { error: r.error }));
}

const javaRows = (out: string | { error: string }): OracleRow[] => {
  if (typeof out !== "string") throw new Error(`Java failed: ${out.error}`);
  return sortRows(parseJsonLines(out));
};

/** A Java read with `options` (dynamic), filters (exact) and snapshot. */
const javaRead = (wh: string, id: string, o: { options?: Record<string, string>; filters?: string[][]; snapshot?: number } = {}): string[] => [
  "read",
  wh,
  id,
  "--sort",
  ...(o.snapshot === undefined ? [] : ["--snapshot", String(o.snapshot)]),
  ...Object.entries(o.options ?? {}).flatMap(([k, v]) => ["--option", `${k}=${v}`]),
  ...(o.filters ?? []).flatMap((f) => ["--filter", ...f]),
  ...(o.filters ? ["--execute-filter"] : []),
];

/** Our read of `table` (copied with `options`), the filter applied exactly as Java's `executeFilter`. */
async function rtRead(table: Table, o: { options?: Record<string, string>; filter?: Predicate; projection?: string[] } = {}): Promise<OracleRow[]> {
  const t = o.options ? table.copy(o.options) : table;
  const plan = await t.newScan({ filter: o.filter }).plan();
  return sortRows(arrowToRows(await t.newRead({ filter: o.filter, predicateFilter: o.filter !== undefined, projection: o.projection }).toArrow(plan.splits)));
}

/** The same filter for Java (`--filter col op json`) and paimon-rt. */
const FILTERS: Array<{ java: string[][]; rt: Predicate }> = [
  { java: [["id", ">", "3"]], rt: col("id").gt(3) },
  { java: [["dt", "=", '"c"']], rt: col("dt").eq("c") },
  { java: [["dt", "<>", '"a"']], rt: col("dt").ne("a") },
  // main's partition a has no such row, and still hides pk's (a partition is the first branch's by the partition filter alone)
  { java: [["v", "=", '"p1"']], rt: col("v").eq("p1") },
  { java: [["dt", ">=", '"c"'], ["id", "<", "6"]], rt: and(col("dt").ge("c"), col("id").lt(6)) },
];

const row = (dt: string, id: number, v: string, kind?: string) => (kind ? { _kind: kind, dt, id, v } : { dt, id, v });

describe.skipIf(noJava !== null)("fallback and primary branches with Java", () => {
  it(
    "an append main branch and a primary-key branch: rows, filters, projections, time travel, copies, streams, writes and refusals as Java",
    async () => {
      const wh = tempDir();
      const fields = FIELDS.map((f) => ({ name: f.name, type: f.type }));
      await java(wh, [
        { write: ID, spec: { fields, partitionKeys: ["dt"], options: { bucket: "-1" }, commits: [[row("a", 1, "m1"), row("a", 2, "m2")], [row("b", 3, "m3")], [row("e", 7, "m7")]] } },
        ["create-branch", wh, ID, "pk"],
        ["set-options", wh, PK, "primary-key=dt,id", "bucket=1"],
        { write: PK, spec: { commits: [[row("a", 1, "p1"), row("c", 4, "p4"), row("e", 8, "p8")], [row("c", 4, "p4b"), row("d", 5, "p5"), row("e", 8, "p8", "-D")]] } },
        ["set-options", wh, ID, "scan.fallback-branch=pk"],
      ]);
      const catalog = await Catalog.open(wh);
      const main = await catalog.getTable(ID);
      const pk = await catalog.getTable(PK);
      expect(pk.schema.primaryKeys).toEqual(["dt", "id"]);
      expect(main.schema.options["scan.fallback-branch"]).toBe("pk");

      // phase 1: main with fallback pk
      const reads1: Array<{ java: string[]; rt: () => Promise<OracleRow[]> }> = [
        { java: javaRead(wh, ID), rt: () => rtRead(main) },
        { java: javaRead(wh, PK), rt: () => rtRead(pk) },
        // a copy adds no fallback, as Java's copy
        { java: javaRead(wh, PK, { options: { "scan.fallback-branch": "main" } }), rt: () => rtRead(pk, { options: { "scan.fallback-branch": "main" } }) },
        { java: javaRead(wh, ID, { options: { "scan.fallback-branch": "nope" } }), rt: () => rtRead(main, { options: { "scan.fallback-branch": "nope" } }) },
        ...FILTERS.map((f) => ({ java: javaRead(wh, ID, { filters: f.java }), rt: () => rtRead(main, { filter: f.rt }) })),
        ...[1, 2, 3].map((s) => ({ java: javaRead(wh, ID, { snapshot: s }), rt: () => rtRead(main, { options: { "scan.snapshot-id": String(s) } }) })),
        { java: javaRead(wh, ID, { options: { "scan.snapshot-id": "2" }, filters: [["id", ">", "1"]] }), rt: () => rtRead(main, { options: { "scan.snapshot-id": "2" }, filter: col("id").gt(1) }) },
      ];
      const out1 = await java(wh, [...reads1.map((r) => r.java), javaStreamArgs(wh, ID, {}, 4), javaStreamArgs(wh, ID, { "scan.snapshot-id": "2" }, 4)]);
      for (const [i, r] of reads1.entries()) expect(await r.rt(), r.java.join(" ")).toEqual(javaRows(out1[i]));
      const all1 = javaRows(out1[0]);
      expect(all1).toEqual(sortRows([row("a", 1, "m1"), row("a", 2, "m2"), row("b", 3, "m3"), row("e", 7, "m7"), row("c", 4, "p4b"), row("d", 5, "p5")].map((r) => ({ ...r, id: String(r.id) }))));
      // projections: Java's rows cut to the columns
      const projected = await rtRead(main, { projection: ["v", "dt"] });
      expect(projected).toEqual(sortRows(all1.map((r) => ({ v: r.v, dt: r.dt }))));
      // stream reads follow the table's own branch, as Java's (FallbackReadFileStoreTable streams the wrapped table)
      expect(await ourPlans(main, {}, 4)).toEqual(parsePlans(out1[reads1.length] as string));
      expect(await ourPlans(main, { "scan.snapshot-id": "2" }, 4)).toEqual(parsePlans(out1[reads1.length + 1] as string));

      // paimon-rt writes through the table: to main (partitions a and f), which Java reads
      const write = await main.newWrite({ commitUser: "rt" });
      await write.write(rowsToBatch(FIELDS, [row("a", 10, "r10"), row("f", 11, "r11"), row("c", 12, "r12")]));
      await main.newCommit({ commitUser: "rt" }).commit(await write.prepareCommit());
      await write.close();
      expect((await main.listSnapshots()).length).toBe(4);
      expect((await pk.listSnapshots()).length).toBe(2);

      // phase 2: paimon-rt sets the options: main with primary branch pk, pk with fallback main
      await catalog.alterTable(ID, [
        { kind: "removeOption", key: "scan.fallback-branch" },
        { kind: "setOption", key: "scan.primary-branch", value: "pk" },
      ]);
      await catalog.alterTable(PK, [{ kind: "setOption", key: "scan.fallback-branch", value: "main" }]);
      const main2 = await catalog.getTable(ID);
      const pk2 = await catalog.getTable(PK);
      const reads2: Array<{ java: string[]; rt: () => Promise<OracleRow[]> }> = [
        { java: javaRead(wh, ID), rt: () => rtRead(main2) },
        { java: javaRead(wh, PK), rt: () => rtRead(pk2) },
        ...FILTERS.flatMap((f) => [
          { java: javaRead(wh, ID, { filters: f.java }), rt: () => rtRead(main2, { filter: f.rt }) },
          { java: javaRead(wh, PK, { filters: f.java }), rt: () => rtRead(pk2, { filter: f.rt }) },
        ]),
        ...[1, 2, 4].map((s) => ({ java: javaRead(wh, ID, { snapshot: s }), rt: () => rtRead(main2, { options: { "scan.snapshot-id": String(s) } }) })),
        ...[1, 2].map((s) => ({ java: javaRead(wh, PK, { snapshot: s }), rt: () => rtRead(pk2, { options: { "scan.snapshot-id": String(s) } }) })),
      ];
      const out2 = await java(wh, reads2.map((r) => r.java));
      for (const [i, r] of reads2.entries()) expect(await r.rt(), r.java.join(" ")).toEqual(javaRows(out2[i]));
      // pk first: its a (p1), c, d and e (deleted: empty, yet pk's) then main's b and f
      const all2 = javaRows(out2[0]);
      expect(all2).toEqual(sortRows([row("a", 1, "p1"), row("c", 4, "p4b"), row("d", 5, "p5"), row("b", 3, "m3"), row("f", 11, "r11")].map((r) => ({ ...r, id: String(r.id) }))));
      expect(javaRows(out2[1])).toEqual(all2);

      // refusals with Java's messages, nothing changed
      const [both, missing] = await java(wh, [
        ["set-options", wh, ID, "scan.fallback-branch=pk"],
        ["set-options", wh, ID, "scan.primary-branch=nope"],
      ]);
      const failure = async (f: () => Promise<unknown>) => {
        try {
          await f();
        } catch (e) {
          if (e instanceof PaimonError) return `${e.code}: ${e.message}`;
          throw e;
        }
        throw new Error("no error");
      };
      const javaMessage = (r: string | { error: string }) => (typeof r === "string" ? "no error" : /IllegalArgumentException: ([^]*?)(?:\n\s+at |$)/.exec(r.error)![1].trimEnd());
      expect(javaMessage(both)).toBe("Cannot set both 'scan.fallback-branch' and 'scan.primary-branch' at the same time.");
      expect(await failure(() => catalog.alterTable(ID, [{ kind: "setOption", key: "scan.fallback-branch", value: "pk" }]))).toBe(`INVALID_ARGUMENT: ${javaMessage(both)}`);
      expect(await failure(() => catalog.alterTable(ID, [{ kind: "setOption", key: "scan.primary-branch", value: "nope" }]))).toBe(`INVALID_ARGUMENT: ${javaMessage(missing)}`);
      expect(await failure(() => catalog.alterTable(ID, [{ kind: "setOption", key: "scan.primary-branch", value: "../x" }]))).toMatch(/^INVALID_ARGUMENT: option scan.primary-branch: branch name/);
      expect((await catalog.getTable(ID)).schema.id).toBe(main2.schema.id);

      // different row types: Java's message at the scan
      await java(wh, [["alter", wh, PK, writeJson(wh, [{ kind: "addColumn", name: "w", type: "INT" }])]]);
      const [mismatch] = await java(wh, [javaRead(wh, ID)]);
      const main3 = await catalog.getTable(ID);
      expect(javaMessage(mismatch)).toMatch(/^Branch main and pk does not have the same row type\.\nRow type of branch main is ROW<.*>\.\nRow type of branch pk is ROW<.*`w` INT>\.$/);
      expect(await failure(() => rtRead(main3))).toBe(`INVALID_ARGUMENT: ${javaMessage(mismatch)}`);
    },
    SLOW,
  );
});

/** A JSON file of `value` in `dir`; its path. */
function writeJson(dir: string, value: unknown): string {
  const file = join(dir, `changes-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(value));
  return file;
}
