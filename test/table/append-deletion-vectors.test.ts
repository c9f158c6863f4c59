import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { commitDeletionVector } from "./helpers.js";
import { javaOracleUnavailable, pypaimonUnavailable, readTable } from "../interop/oracle/harness.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

// An append table whose deletion vectors are added the way Java's DELETE on an append table
// commits them (§8): one DV index file, referenced from the index manifest by data file name.
describe("append tables with deletion vectors", () => {
  it("skip the deleted positions of each data file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "paimon-rt-append-dv-"));
    dirs.push(dir);
    const catalog = await Catalog.open(dir);
    await catalog.createDatabase("db");
    const table = await catalog.createTable("db.t", {
      fields: [{ name: "id", type: "BIGINT" }, { name: "s", type: "STRING" }],
      options: { "deletion-vectors.enabled": true },
    });
    for (const ids of [[0, 1, 2, 3, 4], [10, 11, 12]]) {
      const w = await table.newWrite({ commitUser: "u" });
      await w.write(new arrow.RecordBatch({ id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }), s: arrow.vectorFromArray(ids.map((i) => `v${i}`), new arrow.Utf8()).data[0] }));
      await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
    }
    const [split] = (await table.newScan().plan()).splits;
    const first = split.files.find((f) => f.rowCount === 5n)!;
    // Delete positions 1 and 3 of the first file.
    const { snapshotId: id } = await commitDeletionVector(table, split, first.fileName, [1, 3]);
    expect((await table.snapshot(id)).commitKind).toBe("OVERWRITE");
    const plan = await table.newScan().plan();
    expect(plan.splits[0].deletionFiles?.filter((d) => d !== null).length).toBe(1);
    const ids = (await table.newRead().toArrow(plan.splits)).getChild("id")!.toArray();
    expect(Array.from(ids as BigInt64Array, Number).sort((a, b) => a - b)).toEqual([0, 2, 4, 10, 11, 12]);
    // Time travel to before the deletes still sees every row.
    const before = await table.newScan({ snapshotId: 2 }).plan();
    expect((await table.newRead().toArrow(before.splits)).numRows).toBe(8);
    // The oracles apply the same deletion vector.
    for (const [oracle, unavailable] of [["pypaimon", pypaimonUnavailable()], ["java", javaOracleUnavailable()]] as const) {
      if (unavailable) continue;
      const rows = await readTable(oracle, dir, "db.t", { sort: true });
      expect(rows.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual([0, 2, 4, 10, 11, 12]);
    }
    // Truncate removes the deletion-vector index file with the data files (Java OverwriteChangesProvider).
    const truncated = await table.truncate({ commitUser: "admin" });
    expect(await table.manifestStore.indexEntries(await table.snapshot(truncated))).toEqual([]);
    expect((await table.newRead().toArrow((await table.newScan().plan()).splits)).numRows).toBe(0);
  });
});
