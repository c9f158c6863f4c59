// `lookup-compact` (Java's ForceUpLevel0Compaction): lookup tables force level 0 up on every
// compaction that picks nothing else (`radical`, the default), or on every max-interval-th one
// (`gentle`: `lookup-compact.max-interval`, at least `num-sorted-run.compaction-trigger`, default
// twice it), counted per bucket writer.
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import type { FileStoreTable } from "../../src/table/file-store-table.js";
import { createPkTable, type Row, toBatch } from "./helpers.js";

const row = (id: number): Row => ({ dt: "p1", id: BigInt(id), name: "a", v: "x", n: id });

/** Commit kinds of one writer's commits: a row written in the first, then `empty` commits without rows. */
async function commitKinds(options: Record<string, string | number>, empty: number): Promise<string[]> {
  const table = await createPkTable({ bucket: 1, "changelog-producer": "lookup", "num-sorted-run.compaction-trigger": 2, ...options });
  const write = await table.newWrite({ commitUser: "u" });
  const commit = table.newCommit({ commitUser: "u" });
  await write.write(toBatch([row(1)]));
  for (let i = 0; i <= empty; i++) await commit.commit(await write.prepareCommit(i + 1), i + 1);
  await write.close();
  const t = table as unknown as FileStoreTable;
  const out: string[] = [];
  for (let id = 1; id <= (await t.latestSnapshot())!.id; id++) {
    const s = await t.snapshot(id);
    out.push(`${s.commitIdentifier}:${s.commitKind}`);
  }
  return out;
}

describe("lookup-compact", () => {
  it("radical compacts level 0 in the commit that wrote it; gentle on the max-interval-th commit of the writer", async () => {
    expect(await commitKinds({}, 3)).toEqual(["1:APPEND", "1:COMPACT"]);
    expect(await commitKinds({ "lookup-compact": "gentle", "lookup-compact.max-interval": 3 }, 3)).toEqual(["1:APPEND", "3:COMPACT"]);
    // (the interval is at least the compaction trigger; default twice it)
    expect(await commitKinds({ "lookup-compact": "GENTLE", "lookup-compact.max-interval": 1 }, 3)).toEqual(["1:APPEND", "2:COMPACT"]);
    expect(await commitKinds({ "lookup-compact": "gentle" }, 4)).toEqual(["1:APPEND", "4:COMPACT"]);
  });

  it("refuses a mode Java cannot parse", async () => {
    const table = await createPkTable({ "changelog-producer": "lookup", "lookup-compact": "lazy" });
    const write = await table.newWrite({ commitUser: "u" });
    await expect(write.write(toBatch([row(1)]))).rejects.toSatisfy((e: unknown) => e instanceof PaimonError && e.code === "INVALID_ARGUMENT" && /lookup-compact/.test(e.message));
    await write.close();
  });
});
