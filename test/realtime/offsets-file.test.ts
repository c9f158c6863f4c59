// Offsets files and the realtime.offsets snapshot property come from disk: both are validated
// (issue 9 item 12). Bad values are CORRUPT_FILE naming the file or the snapshot, and nothing
// outside the table's metadata directory is ever read or deleted because of them.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeContext, RealtimeSnapshotOffsets } from "../../src/index.js";
import { FileStoreCommit } from "../../src/commit/file-store-commit.js";
import { parseOffsets } from "../../src/realtime/offsets.js";
import { BATCH_COMMIT_IDENTIFIER } from "../../src/spec/snapshot.js";
import type { Table } from "../../src/table/table.js";
import { cleanupDirs, expectCode, makeTable, range, rtBatch, tempDir } from "./helpers.js";

afterAll(cleanupDirs);

const file = (entries: string) => `{"version": 1, "offsets": [${entries}]}`;

describe("offsets file validation", () => {
  it.each([
    ['{"partition": {"dt": "a"}, "bucket": 1e300, "offset": 5}', "bucket of entry 0 must be an int, got 1e+300"],
    ['{"partition": {"dt": "a"}, "bucket": 1.5, "offset": 5}', "bucket of entry 0 must be an int, got 1.5"],
    ['{"partition": {"dt": "a"}, "bucket": "0", "offset": 5}', "bucket of entry 0 must be an int, got 0"],
    ['{"partition": {"dt": "a"}, "bucket": -1, "offset": 5}', "invalid bucket -1 in offsets (entry 0)"],
    ['{"partition": {"dt": "a"}, "bucket": 2147483648, "offset": 5}', "invalid bucket 2147483648 in offsets (entry 0)"],
    ['{"partition": {"dt": "a"}, "bucket": 0, "offset": -1}', "invalid offset -1 for bucket 0 (entry 0)"],
    ['{"partition": {"dt": "a"}, "bucket": 0, "offset": 2.5}', "offset of entry 0 must be an int64, got 2.5"],
    ['{"partition": {"dt": "a"}, "bucket": 0, "offset": 1e300}', "offset of entry 0 must be an int64, got 1e+300"],
    ['{"partition": {"dt": "a"}, "bucket": 0, "offset": 9223372036854775808}', "invalid offset 9223372036854775808 for bucket 0 (entry 0)"],
    ['{"partition": {"dt": "a"}, "bucket": 0, "offset": "7"}', "offset of entry 0 must be an int64, got 7"],
    ['{"partition": {"dt": "a"}, "bucket": 0}', "key offset of entry 0 must exist"],
    ['{"partition": ["a"], "bucket": 0, "offset": 1}', "partition of entry 0 must be an object"],
    ['{"partition": {"dt": 3}, "bucket": 0, "offset": 1}', "partition value of dt in entry 0 must be a string"],
    ['{"partition": {}, "bucket": 0, "offset": 1}', 'partition {} of entry 0 does not match the table\'s partition keys [dt]'],
    ['{"partition": {"dt": "a", "x": "b"}, "bucket": 0, "offset": 1}', 'partition {"dt":"a","x":"b"} of entry 0 does not match the table\'s partition keys [dt]'],
    ['{"partition": {"dt": "a"}, "bucket": 0, "offset": 1}, {"partition": {"dt": "a"}, "bucket": 0, "offset": 2}', "duplicate partition-bucket 0 in offsets"],
    ['7', "offset entry 0 must be an object"],
  ])("rejects %s", async (entries, message) => {
    const err = await expectCode(() => parseOffsets(file(entries), ["dt"], "/t/metadata/x.offsets"), "CORRUPT_FILE");
    expect(err.message).toBe(`offsets file /t/metadata/x.offsets: ${message}`);
  });

  it("accepts the full int64 and int32 ranges", () => {
    const map = parseOffsets(file('{"partition": {"dt": "a"}, "bucket": 2147483647, "offset": 9223372036854775807}'), ["dt"], "f");
    expect([...map.values()]).toEqual([{ partition: { dt: "a" }, bucket: 2147483647, offset: 9223372036854775807n }]);
  });

  it("a corrupt offsets file of a table is CORRUPT_FILE naming it", async () => {
    const table = await makeTable({}, { partitioned: true });
    const path = await commitOnce(table);
    writeFileSync(path, file('{"partition": {"dt": "d1"}, "bucket": 1e300, "offset": 5}'));
    const err = await expectCode(RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: { dt: "d1" }, bucket: 0 }), "CORRUPT_FILE");
    expect(err.message).toBe(`offsets file ${path}: bucket of entry 0 must be an int, got 1e+300`);
  });
});

/** One real-time commit of offsets [0, 3) to partition d1 bucket 0; returns its offsets file. */
async function commitOnce(table: Table): Promise<string> {
  const ctx = await RealtimeContext.create();
  const w = await table.newWrite({ commitUser: "u", realtime: ctx });
  await w.write(rtBatch(range(0, 3)), { partition: { dt: "d1" }, bucket: 0 });
  const id = await table.newCommit({ commitUser: "u" }).commitWithProgress(await w.prepareCommitWithProgress(1), 1);
  await w.close();
  return (await table.snapshot(id)).properties!["realtime.offsets"];
}

describe("the realtime.offsets snapshot property", () => {
  const notInMetadata = () => "is not a file of a metadata directory";
  const notPlain = () => "does not name a plain file";
  it.each([
    ["../../victim.offsets", notInMetadata],
    ["metadata/../../victim.offsets", notInMetadata],
    ["/VICTIM", notInMetadata],
    ["sub/x.offsets", notInMetadata],
    ["..", notPlain],
    ["a\\b.offsets", notPlain],
    ["METADATA/..", notPlain],
    // a name longer than file systems allow was read (IO_ERROR from the file system), not refused
    [`${"x".repeat(300)}.offsets`, notPlain],
  ])("%s must name a plain file of the table's metadata directory", async (reference, why) => {
      const outside = tempDir();
      const victim = join(outside, "victim.offsets");
      writeFileSync(victim, file(""));
      const table = await makeTable({}, { partitioned: true });
      await commitOnce(table);
      const value = reference.replace("/VICTIM", victim).replace("OUTSIDE", outside).replace("METADATA", `${table.location}/metadata`);
      const id = await new FileStoreCommit(table.fileIO, table.location, table.schema, "bad").commit([], BATCH_COMMIT_IDENTIFIER, { properties: { "realtime.offsets": value }, force: true });
      const err = await expectCode(RealtimeSnapshotOffsets.readAllOffsets(table), "CORRUPT_FILE");
      expect(err.message).toBe(`snapshot ${id} of ${table.location}: property realtime.offsets = ${JSON.stringify(value)} ${why()}`);
      await table.newWrite({ commitUser: "later" }).then(async (w) => table.newCommit({ commitUser: "later" }).commit(await w.prepareCommit()));
      await new FileStoreCommit(table.fileIO, table.location, table.schema, "fix").commit([], BATCH_COMMIT_IDENTIFIER, { properties: { "realtime.offsets": "fresh.offsets" }, force: true });
      writeFileSync(join(table.location, "metadata", "fresh.offsets"), file(""));
      expect(await RealtimeSnapshotOffsets.readAllOffsets(table)).toEqual([]);
      // expiring that snapshot refuses, with nothing deleted (the path-safety rule of all metadata)
      const refused = await expectCode(table.newCommit({ commitUser: "e" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 }), "CORRUPT_FILE");
      expect(refused.message).toBe(`refusing to delete ${value} (named by a snapshot expired from ${table.location}): it is outside the table directory ${table.location}`);
      expect(existsSync(victim)).toBe(true);
      expect(existsSync(table.paths.snapshot(id!))).toBe(true);
      // so does a rollback past it
      const rolled = await expectCode(table.rollbackTo(id! - 1), "CORRUPT_FILE");
      expect(rolled.message).toBe(`refusing to delete ${value} (named by a snapshot rolled back from ${table.identifier}): it is outside the table directory ${table.location}`);
      expect((await table.latestSnapshot())!.id).toBe(id! + 1);
  });

  it("a full path into another location's metadata/ resolves by name inside this table's metadata/ (renamed or copied tables)", async () => {
    const outside = tempDir();
    mkdirSync(join(outside, "metadata"));
    const table = await makeTable({}, { partitioned: true });
    const path = await commitOnce(table);
    const name = path.slice(path.lastIndexOf("/") + 1);
    // a file of the same name outside holds other progress: it must not be the one read
    writeFileSync(join(outside, "metadata", name), file(""));
    await new FileStoreCommit(table.fileIO, table.location, table.schema, "moved").commit([], BATCH_COMMIT_IDENTIFIER, { properties: { "realtime.offsets": join(outside, "metadata", name) }, force: true });
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: { dt: "d1" }, bucket: 0 })).toBe(3n);
  });

  it("a bare file name resolves inside metadata/", async () => {
    const table = await makeTable({}, { partitioned: true });
    const path = await commitOnce(table);
    const name = path.slice(path.lastIndexOf("/") + 1);
    await new FileStoreCommit(table.fileIO, table.location, table.schema, "bare").commit([], BATCH_COMMIT_IDENTIFIER, { properties: { "realtime.offsets": name }, force: true });
    expect(await RealtimeSnapshotOffsets.readOffset(table, undefined, { partition: { dt: "d1" }, bucket: 0 })).toBe(3n);
  });
});
