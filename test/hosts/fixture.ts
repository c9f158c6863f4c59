// The warehouse the real-runtime suites (Chromium, workerd) read over HTTP, written by the Node
// library into a local directory: an append table partitioned by dt with 2 buckets (2 snapshots,
// for time travel), a primary-key table with deletion vectors (an update and a delete after
// the first commit, so merge-on-read and a DV index file are both exercised) and a table whose
// schema evolved (a renamed and an added column) between its two snapshots.
import * as arrow from "apache-arrow";
import { Catalog } from "../../src/catalog/catalog.js";
import { RowKind } from "../../src/spec/row-kind.js";
import type { Table } from "../../src/table/table.js";

function rows(ids: number[], names: string[], dts: string[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
    name: arrow.vectorFromArray(names, new arrow.Utf8()).data[0],
    dt: arrow.vectorFromArray(dts, new arrow.Utf8()).data[0],
  });
}

async function commit(table: Table, batch: arrow.RecordBatch, kinds?: RowKind[]): Promise<void> {
  const w = await table.newWrite({ commitUser: "fixture" });
  await w.write(batch, kinds ? { rowKinds: kinds } : undefined);
  await table.newCommit({ commitUser: "fixture" }).commit(await w.prepareCommit());
}

/** Writes the fixture warehouse under `dir` (a local directory). */
export async function writeHostFixture(dir: string): Promise<void> {
  const catalog = await Catalog.open(dir);
  await catalog.createDatabase("db");
  const app = await catalog.createTable("db.app", {
    fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }],
    partitionKeys: ["dt"],
    options: { bucket: 2, "bucket-key": "id" },
  });
  await commit(app, rows([1, 2, 3, 4], ["a1", "a2", "a3", "a4"], ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02"]));
  await commit(app, rows([5, 6, 7], ["b5", "b6", "b7"], ["2024-01-01", "2024-01-02", "2024-01-03"]));

  const pk = await catalog.createTable("db.pk", {
    fields: [{ name: "id", type: "BIGINT NOT NULL" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }],
    primaryKeys: ["id"],
    options: { bucket: 1, "deletion-vectors.enabled": "true" },
  });
  await commit(pk, rows([1, 2, 3, 4, 5], ["p1", "p2", "p3", "p4", "p5"], ["x", "x", "y", "y", "y"]));
  await commit(pk, rows([2, 4], ["p2-updated", "p4"], ["x", "y"]), [RowKind.UPDATE_AFTER, RowKind.DELETE]);

  // schema evolution: rows written before a rename and an added column read under the new schema
  const evolved = await catalog.createTable("db.evolved", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }, { name: "dt", type: "STRING" }] });
  await commit(evolved, rows([1, 2], ["e1", "e2"], ["x", "x"]));
  const altered = await catalog.alterTable("db.evolved", [
    { kind: "renameColumn", name: "name", newName: "label" },
    { kind: "addColumn", name: "score", type: "INT" },
  ]);
  const w = await altered.newWrite({ commitUser: "fixture" });
  await w.write(
    new arrow.RecordBatch({
      id: arrow.makeData({ type: new arrow.Int64(), length: 1, data: BigInt64Array.from([3n]) }),
      label: arrow.vectorFromArray(["e3"], new arrow.Utf8()).data[0],
      dt: arrow.vectorFromArray(["y"], new arrow.Utf8()).data[0],
      score: arrow.vectorFromArray([30], new arrow.Int32()).data[0],
    }),
  );
  await altered.newCommit({ commitUser: "fixture" }).commit(await w.prepareCommit());
}
