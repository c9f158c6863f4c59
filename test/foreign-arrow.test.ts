// apache-arrow is a peer dependency; Arrow data built with another copy of it (another major, or a
// bundler's duplicate) is refused with a message that says so. The second copy here is real: the
// self-contained bundle apache-arrow ships next to its modules (Arrow.esnext.min.js) has its own
// classes, as an application's separately installed apache-arrow would.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { ARROW_PEER_RANGE, ARROW_TESTED_VERSION } from "../src/arrow/input.js";
import { recordBatch } from "../src/arrow/record-batch.js";
import { RealtimeContext } from "../src/realtime/index.js";
import { cleanupDirs, makeTable, rtBatch } from "./realtime/helpers.js";

const require = createRequire(import.meta.url);
const arrowDir = dirname(require.resolve("apache-arrow"));
const otherArrow = require(join(arrowDir, "Arrow.esnext.min.js")) as typeof arrow;
afterAll(cleanupDirs);

const copyAdvice =
  "was built with another copy of apache-arrow than the one paimon-rt uses (a different version, or a second install of the same one). " +
  "paimon-rt needs apache-arrow ^21.0.0 (tested with 21.2.0) as a peer dependency: " +
  "install one matching apache-arrow in the application (`npm ls apache-arrow` lists the copies) and build the data with it";

function otherCopyTable(): arrow.Table {
  return otherArrow.tableFromArrays({ id: BigInt64Array.from([1n, 2n]), name: ["a", "b"], v: Float64Array.from([1, 2]), dt: ["d", "d"] });
}

async function committedRows(table: Awaited<ReturnType<typeof makeTable>>): Promise<unknown[]> {
  const plan = await table.newScan().plan();
  const rows = (await table.newRead({ projection: ["id"] }).toArrow(plan.splits)).toArray();
  return rows.map((r) => r.toJSON().id);
}

describe("Arrow data from another apache-arrow copy", () => {
  it("the bundled second copy really is another copy (its objects are not of this copy's classes)", () => {
    const t = otherCopyTable();
    expect(Object.getPrototypeOf(t) === arrow.Table.prototype).toBe(false);
    expect(t.numRows).toBe(2);
  });

  it("a Table or RecordBatch of another copy is refused with what to do; nothing is written", async () => {
    const table = await makeTable({ "realtime.enabled": false });
    const write = await table.newWrite({ commitUser: "app" });
    await expect(write.write(otherCopyTable())).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: `write: the Table ${copyAdvice}` });
    await expect(write.write(otherCopyTable().batches[0])).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: `write: the RecordBatch ${copyAdvice}` });
    // a batch of this copy whose column comes from the other one
    const foreignColumn = otherArrow.makeData({ type: new otherArrow.Int64(), length: 1, data: BigInt64Array.from([7n]) });
    const mixed = recordBatch(new arrow.Schema([new arrow.Field("id", new arrow.Int64(), false)]), [foreignColumn as unknown as arrow.Data], 1);
    await expect(write.write(mixed)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: `write: column id ${copyAdvice}` });
    // The writer is still usable and holds none of the refused rows.
    await write.write(arrow.tableFromArrays({ id: BigInt64Array.from([5n]), name: ["x"], v: Float64Array.from([0]), dt: ["d"] }));
    await table.newCommit({ commitUser: "app" }).commit(await write.prepareCommit());
    expect(await committedRows(table)).toEqual([5n]);
  });

  it("an object shaped like an Arrow Table or RecordBatch of an older major is named as such", async () => {
    const table = await makeTable({ "realtime.enabled": false });
    const write = await table.newWrite({ commitUser: "app" });
    // apache-arrow before 21.2 has no cross-copy marks: only the shape says it is Arrow
    const schema = { fields: [{ name: "id", type: { typeId: 2 }, nullable: false }] };
    const data = { type: { typeId: 13 }, length: 1, children: [{ typeId: 2 }] };
    const oldBatch = { schema, data, numRows: 1 };
    await expect(write.write({ schema, batches: [oldBatch], numRows: 1 } as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: `write: the Table ${copyAdvice}` });
    await expect(write.write(oldBatch as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: `write: the RecordBatch ${copyAdvice}` });
  });

  it("input that is not Arrow at all says what it got", async () => {
    const table = await makeTable({ "realtime.enabled": false });
    const write = await table.newWrite({ commitUser: "app" });
    await expect(write.write({ id: [1] } as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "write takes an Arrow RecordBatch or Table, got a plain object" });
    await expect(write.write([rtBatch([0])] as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "write takes an Arrow RecordBatch or Table, got an array" });
    await expect(write.write(null as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: "write takes an Arrow RecordBatch or Table, got null" });
  });

  it("the real-time writer refuses another copy's data the same way and keeps its offsets", async () => {
    const table = await makeTable();
    const ctx = await RealtimeContext.create();
    try {
      const writer = await table.newWrite({ commitUser: "rt", realtime: ctx });
      const foreign = otherArrow.tableFromArrays({ _REALTIME_OFFSET: BigInt64Array.from([0n]), id: BigInt64Array.from([1n]), name: ["a"], v: Float64Array.from([1]), dt: ["d"] });
      await expect(writer.write(foreign, { bucket: 0 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: `write: the Table ${copyAdvice}` });
      await writer.write(rtBatch([0, 1]), { bucket: 0 }); // offset 0 is still the next one expected
      expect(ctx.getMetrics().realtimeTotalRowCount).toBe(2);
    } finally {
      await ctx.close();
    }
  });

  it("the supported range and tested version are package.json's peer and dev dependency", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(pkg.peerDependencies["apache-arrow"]).toBe(ARROW_PEER_RANGE);
    expect(pkg.devDependencies["apache-arrow"]).toBe(ARROW_TESTED_VERSION);
    expect(pkg.dependencies["apache-arrow"]).toBeUndefined();
    const installed = JSON.parse(readFileSync(join(arrowDir, "package.json"), "utf8"));
    expect(installed.version).toBe(ARROW_TESTED_VERSION);
  });
});
