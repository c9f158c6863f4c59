/**
 * Interoperability of PRIMARY-KEY tables between paimon-rt, pypaimon and Java Paimon.
 *
 *  a. paimon-rt writes PK tables (composite keys, partitions, 2–3 buckets; several commits of
 *     upserts, -D / -U / +U rows, full and universal compaction; a deletion-vector table whose
 *     commits run paimon-rt's lookup compaction) -> pypaimon and Java read exactly the rows of
 *     an in-memory model, for the latest and for older snapshots.
 *  b. Java writes PK tables (deletes, updates, full compaction, deletion vectors) -> paimon-rt
 *     reads exactly the model's rows (and what Java reads itself).
 *  c. mixed: Java and paimon-rt write and compact the same table in turns; everyone agrees.
 *
 * Skips cleanly (with a printed reason) when scripts/setup-oracles.sh has not been run.
 */
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import type { Table } from "../../src/table/table.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "../interop/convert.js";
import { javaOracleUnavailable, type OracleRow, type OracleSpec, pypaimonUnavailable, readTables, sortRows, writeTables } from "../interop/oracle/harness.js";
import { rng } from "./helpers.js";

const noPython = pypaimonUnavailable();
const noJava = javaOracleUnavailable();
if (noPython) console.warn(`[pk-interop] skipping pypaimon checks: ${noPython}`);
if (noJava) console.warn(`[pk-interop] skipping Java checks: ${noJava}`);
const SLOW = 300_000;
const DB = "pk";

const FIELDS: FieldLike[] = [
  { name: "dt", type: "STRING NOT NULL" },
  { name: "id", type: "BIGINT NOT NULL" },
  { name: "name", type: "STRING NOT NULL" },
  { name: "v", type: "STRING" },
  { name: "n", type: "INT" },
  { name: "d", type: "DOUBLE" },
  { name: "amt", type: "DECIMAL(10, 2)" },
  { name: "ts", type: "TIMESTAMP(6)" },
];
const PK = ["dt", "id", "name"];
const KINDS = ["+I", "-U", "+U", "-D"] as const;
type Kind = (typeof KINDS)[number];

interface Step {
  rows: Array<OracleRow & { _kind: Kind }>;
  compact?: "full" | "minor";
}


/** Commits of upserts / deletes over a small key space; compaction every few commits. */
function scenario(seed: number, commits: number, perCommit: number, compactEvery = 3): Step[] {
  const rand = rng(seed);
  const steps: Step[] = [];
  for (let c = 0; c < commits; c++) {
    const rows: Step["rows"] = [];
    for (let i = 0; i < perCommit; i++) {
      const dt = rand() < 0.5 ? "2024-01-01" : "2024-01-02";
      const id = String(Math.floor(rand() * 40) - 5);
      const name = ["a", "b", "ü", ""][Math.floor(rand() * 4)];
      const p = rand();
      const kind: Kind = p < 0.6 ? "+I" : p < 0.7 ? "+U" : p < 0.8 ? "-U" : "-D";
      rows.push({
        _kind: kind,
        dt,
        id,
        name,
        v: rand() < 0.2 ? null : `v${c}-${i}`,
        n: rand() < 0.2 ? null : Math.floor(rand() * 1000) - 500,
        d: rand() < 0.1 ? null : Math.round(rand() * 1e6) / 100,
        amt: rand() < 0.1 ? null : (Math.floor(rand() * 2e6) / 100 - 1e4).toFixed(2),
        ts: rand() < 0.1 ? null : String(1_700_000_000_000_000_000n + BigInt(Math.floor(rand() * 1e9)) * 1000n),
      });
    }
    steps.push({ rows, compact: (c + 1) % compactEvery === 0 ? (c % 2 === 0 ? "full" : "minor") : undefined });
  }
  return steps;
}

const keyOf = (r: OracleRow) => PK.map((k) => String(r[k])).join("\u0000");

/** The model: apply steps in order (deduplicate; -U / -D delete the key). */
function model(steps: readonly Step[]): OracleRow[] {
  const m = new Map<string, OracleRow>();
  for (const s of steps) {
    for (const r of s.rows) {
      const { _kind, ...row } = r;
      if (_kind === "-D" || _kind === "-U") m.delete(keyOf(row));
      else m.set(keyOf(row), row);
    }
  }
  return sortRows([...m.values()]);
}

const kindCode = (k: Kind): number => KINDS.indexOf(k);

async function rtWrite(table: Table, steps: readonly Step[], firstIdentifier = 1): Promise<number[]> {
  const ids: number[] = [];
  for (const [i, s] of steps.entries()) {
    const write = await table.newWrite({ commitUser: "rt" });
    if (s.rows.length > 0) {
      const rows = s.rows.map(({ _kind, ...r }) => r);
      await write.write(rowsToBatch(FIELDS, rows), { rowKinds: s.rows.map((r) => kindCode(r._kind)) });
    }
    if (s.compact) await write.compact({ full: s.compact === "full" });
    const ident = firstIdentifier + i;
    const id = await table.newCommit({ commitUser: "rt" }).commit(await write.prepareCommit(ident), ident);
    await write.close();
    ids.push(id!);
  }
  return ids;
}

async function rtRead(table: Table, snapshotId?: number): Promise<OracleRow[]> {
  const fresh = await Table_open(table);
  const plan = await fresh.newScan({ snapshotId }).plan();
  return sortRows(arrowToRows(await fresh.newRead().toArrow(plan.splits)));
}

async function Table_open(table: Table): Promise<Table> {
  const { Table } = await import("../../src/table/table.js");
  return Table.open(table.location);
}

/** Oracle rows normalised like ours (doubles as numbers, all keys present). */
function norm(rows: OracleRow[]): OracleRow[] {
  return sortRows(rows.map((r) => Object.fromEntries(FIELDS.map((f) => [f.name, r[f.name] ?? null]))));
}

const specOf = (options: Record<string, string>, steps: readonly Step[], withFields = true): OracleSpec => ({
  ...(withFields ? { fields: FIELDS.map((f) => ({ name: f.name, type: f.type as string })), partitionKeys: ["dt"], primaryKeys: PK } : {}),
  options,
  commits: steps.map((s) => ({ rows: s.rows, compact: s.compact === "full" })),
});

let root = "";
beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-pk-interop-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

interface RtCase {
  name: string;
  options: Record<string, string>;
  steps: Step[];
}

const RT_CASES: RtCase[] = [
  { name: "mor", options: { bucket: "2" }, steps: scenario(1, 8, 60) },
  { name: "mor_trigger", options: { bucket: "3", "num-sorted-run.compaction-trigger": "3", "target-file-size": "4 kb" }, steps: scenario(2, 9, 80, 100) },
  { name: "dv", options: { bucket: "2", "deletion-vectors.enabled": "true" }, steps: scenario(3, 7, 60, 4) },
];

describe.skipIf(noPython !== null && noJava !== null)("PK interop: paimon-rt writes, oracles read", () => {
  it(
    "pypaimon and Java read exactly the model's rows (latest and time travel)",
    async () => {
      const wh = path.join(root, "rt");
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase(DB);
      const expected: Array<{ ident: string; snapshot?: number; rows: OracleRow[] }> = [];
      for (const c of RT_CASES) {
        const table = await catalog.createTable(`${DB}.${c.name}`, { fields: FIELDS, partitionKeys: ["dt"], primaryKeys: PK, options: c.options });
        const ids = await rtWrite(table, c.steps);
        const latest = (await table.latestSnapshot())!.id;
        expected.push({ ident: `${DB}.${c.name}`, rows: model(c.steps) });
        // time travel: the snapshot of commit 3 (a COMPACT snapshot follows a compacting commit)
        expected.push({ ident: `${DB}.${c.name}`, snapshot: ids[2], rows: model(c.steps.slice(0, 3)) });
        // paimon-rt agrees with the model
        expect(norm(await rtRead(table))).toEqual(expected[expected.length - 2].rows);
        expect(norm(await rtRead(table, ids[2]))).toEqual(expected[expected.length - 1].rows);
        expect(latest).toBeGreaterThanOrEqual(c.steps.length);
        // structure: what each case is meant to exercise really happened
        const snap = (await table.latestSnapshot())!;
        const files = (await table.manifestStore.liveEntries(snap)).map((e) => e.file);
        const index = await table.manifestStore.indexEntries(snap);
        if (c.name === "dv") {
          expect(files.every((f) => f.level > 0)).toBe(true); // level 0 is compacted on every commit
          expect(index.some((e) => e.indexFile.indexType === "DELETION_VECTORS" && (e.indexFile.dvRanges?.length ?? 0) > 0)).toBe(true);
          expect(files.every((f) => f.deleteRowCount === 0n)).toBe(true);
        } else {
          expect(files.some((f) => f.level === 0)).toBe(true);
          expect(files.some((f) => f.level > 0)).toBe(true); // compaction (explicit or triggered)
          expect(files.some((f) => (f.deleteRowCount ?? 0n) > 0n)).toBe(true); // retract rows kept in level 0
        }
        if (c.name === "mor_trigger") {
          const snapshots = await table.listSnapshots();
          expect(snapshots.some((x) => x.commitKind === "COMPACT")).toBe(true);
        }
      }
      for (const oracle of ["pypaimon", "java"] as const) {
        if ((oracle === "pypaimon" ? noPython : noJava) !== null) continue;
        const results = await readTables(
          oracle,
          expected.map((e) => ({ warehouse: wh, identifier: e.ident, snapshot: e.snapshot, sort: true })),
        );
        results.forEach((res, i) => {
          if (res instanceof Error) throw new Error(`${oracle} reading ${expected[i].ident}@${expected[i].snapshot ?? "latest"}: ${res.message}`);
          expect(norm(res), `${oracle} ${expected[i].ident}@${expected[i].snapshot ?? "latest"}`).toEqual(expected[i].rows);
        });
      }
    },
    SLOW,
  );
});

describe.skipIf(noJava !== null)("PK interop: Java writes, paimon-rt reads", () => {
  it(
    "reads Java-written tables with deletes, compaction and deletion vectors exactly",
    async () => {
      const wh = path.join(root, "java");
      const cases: RtCase[] = [
        { name: "mor", options: { bucket: "2" }, steps: scenario(11, 6, 50, 100) },
        { name: "mor_compacted", options: { bucket: "2" }, steps: scenario(12, 7, 50, 3) },
        { name: "dv", options: { bucket: "2", "deletion-vectors.enabled": "true" }, steps: scenario(13, 6, 50, 100) },
        { name: "dv_compacted", options: { bucket: "1", "deletion-vectors.enabled": "true" }, steps: scenario(14, 6, 50, 2) },
      ];
      // Java compacts only with compact=true ("full"); minor compaction steps are plain commits.
      await writeTables(
        "java",
        wh,
        cases.map((c) => ({ identifier: `${DB}.${c.name}`, spec: specOf(c.options, c.steps) })),
      );
      const javaRows = await readTables("java", cases.map((c) => ({ warehouse: wh, identifier: `${DB}.${c.name}`, sort: true })));
      const catalog = await Catalog.open(wh);
      for (const [i, c] of cases.entries()) {
        const table = await catalog.getTable(`${DB}.${c.name}`);
        const ours = norm(await rtRead(table));
        expect(ours, c.name).toEqual(model(c.steps));
        const snap = (await table.latestSnapshot())!;
        if (c.name.startsWith("dv")) {
          // Java's lookup compaction left deletion vectors for paimon-rt to apply
          const index = await table.manifestStore.indexEntries(snap);
          expect(index.some((e) => (e.indexFile.dvRanges?.length ?? 0) > 0), `${c.name} has DVs`).toBe(true);
        } else if (c.name === "mor") {
          const files = (await table.manifestStore.liveEntries(snap)).map((e) => e.file);
          expect(files.some((f) => (f.deleteRowCount ?? 0n) > 0n), "Java wrote retract rows").toBe(true);
        }
        const theirs = javaRows[i];
        if (theirs instanceof Error) throw theirs;
        expect(ours, `${c.name} vs Java`).toEqual(norm(theirs));
      }
    },
    SLOW,
  );

  it(
    "mixed writers: Java and paimon-rt write and compact the same tables in turns",
    async () => {
      const wh = path.join(root, "mixed");
      const catalog = await Catalog.open(wh);
      await catalog.createDatabase(DB, { ignoreIfExists: true });
      for (const [name, options] of [
        ["mixed_mor", { bucket: "2" }],
        ["mixed_dv", { bucket: "2", "deletion-vectors.enabled": "true" }],
      ] as const) {
        const steps = scenario(name.length * 7, 8, 40, 100);
        const ident = `${DB}.${name}`;
        // Java: commits 1-2; rt: 3-4 (+ full compaction); Java: 5-6 (+ compaction); rt: 7-8 (+ minor)
        await writeTables("java", wh, [{ identifier: ident, spec: specOf(options, steps.slice(0, 2)) }]);
        let table = await catalog.getTable(ident);
        await rtWrite(table, [steps[2], { ...steps[3], compact: "full" }]);
        await writeTables("java", wh, [{ identifier: ident, spec: specOf(options, [steps[4], { ...steps[5], compact: "full" }], false) }]);
        table = await catalog.getTable(ident);
        await rtWrite(table, [steps[6], { ...steps[7], compact: "minor" }], 3);
        const expected = model(steps);
        expect(norm(await rtRead(table)), `${name} rt`).toEqual(expected);
        const [java] = await readTables("java", [{ warehouse: wh, identifier: ident, sort: true }]);
        if (java instanceof Error) throw java;
        expect(norm(java), `${name} java`).toEqual(expected);
        if (noPython === null) {
          const [py] = await readTables("pypaimon", [{ warehouse: wh, identifier: ident, sort: true }]);
          if (py instanceof Error) throw py;
          expect(norm(py), `${name} pypaimon`).toEqual(expected);
        }
      }
    },
    SLOW,
  );
});
