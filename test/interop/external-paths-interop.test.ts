/**
 * Java Paimon writes data files to `data-file.external-paths` (round-robin) and records them by
 * full path; paimon-rt accepts exactly those paths (they lie in a declared external directory),
 * reads the rows, and its expiry deletes the replaced external files and nothing else.
 * Skips with a printed reason when scripts/setup-oracles.sh has not been run.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { javaOracleUnavailable, writeTable } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.log(`skipping external-path interop: ${noJava}`);

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe.skipIf(noJava !== null)("external data paths written by Java", () => {
  it("are read, and expiry deletes replaced external files only", async () => {
    const base = mkdtempSync(join(tmpdir(), "paimon-rt-external-"));
    dirs.push(base);
    const warehouse = join(base, "wh");
    const external = join(base, "external");
    const victim = join(base, "victim.parquet");
    writeFileSync(victim, "precious");
    await writeTable("java", warehouse, "db.t", {
      fields: [
        { name: "id", type: "BIGINT" },
        { name: "s", type: "STRING" },
      ],
      options: { "data-file.external-paths": pathToFileURL(external).href, "data-file.external-paths.strategy": "round-robin" },
      commits: [[{ id: "1", s: "a" }, { id: "2", s: "b" }], { rows: [{ id: "3", s: "c" }], overwrite: true }],
    });
    const table = await (await Catalog.open(warehouse)).getTable("db.t");
    const plan = await table.newScan().plan();
    const files = plan.splits.flatMap((s) => s.files);
    expect(files.length).toBe(1);
    expect(files[0].externalPath).not.toBeNull();
    expect(table.paths.isInside(files[0].externalPath!)).toBe(true);
    const ids = (await table.newRead().toArrow(plan.splits)).getChild("id")!.toArray();
    expect(Array.from(ids as BigInt64Array, Number)).toEqual([3]);

    const externalFiles = () => readdirSync(join(external, "bucket-0")).sort();
    expect(externalFiles().length).toBe(2);
    expect(await table.newCommit({ commitUser: "rt" }).expireSnapshots({ retainMax: 1, retainMin: 1 })).toBe(1);
    const live = files[0].externalPath!.slice(files[0].externalPath!.lastIndexOf("/") + 1);
    expect(externalFiles()).toEqual([live]);
    expect(existsSync(victim)).toBe(true);
    const again = (await table.newRead().toArrow((await table.newScan().plan()).splits)).getChild("id")!.toArray();
    expect(Array.from(again as BigInt64Array, Number)).toEqual([3]);
  });
});
