import { describe, expect, it } from "vitest";
import { RowKind } from "../../src/write/table-write.js";
import { createPkTable, readRows, type Row, writeCommit } from "./helpers.js";

const r = (id: number, name: string, v: string | null, n: number | null = null, dt = "a"): Row => ({ dt, id: BigInt(id), name, v, n });

describe("primary-key tables: write + merge-on-read", () => {
  it("upserts, deletes and dedups within a batch", async () => {
    const table = await createPkTable();
    await writeCommit(table, "u", [{ rows: [r(1, "x", "a"), r(2, "y", "b"), r(1, "x", "a2"), r(3, "z", "c", 7, "b")] }]);
    expect(await readRows(table)).toEqual([r(1, "x", "a2"), r(2, "y", "b"), r(3, "z", "c", 7, "b")]);
    await writeCommit(table, "u", [{ rows: [r(2, "y", null), r(1, "x", "ignored"), r(4, "w", "d")], kinds: [RowKind.DELETE, RowKind.DELETE, RowKind.INSERT] }]);
    expect(await readRows(table)).toEqual([r(4, "w", "d"), r(3, "z", "c", 7, "b")]);
    await writeCommit(table, "u", [{ rows: [r(1, "x", "back", 1)] }], { compact: true });
    expect(await readRows(table)).toEqual([r(1, "x", "back", 1), r(4, "w", "d"), r(3, "z", "c", 7, "b")]);
  });
});
