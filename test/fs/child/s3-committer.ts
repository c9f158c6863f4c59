/**
 * One committer process of the s3:// commit race (test/fs/s3-commit-race.test.ts): writes its rows,
 * prepares the commit, prints "ready", waits for a line on stdin (the parent's start signal, sent to
 * all committers at once), commits, and prints {"writer", "snapshotId", "refused"} (refused: snapshot
 * publishes the server answered with 412).
 * Args: table location, writer number, rows per commit.
 */
import * as arrow from "apache-arrow";
import { Table } from "../../../src/index.js";

// count the server's 412 answers to snapshot publishes (the fetch is only observed, not changed)
let refused = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const res = await realFetch(input, init);
  if (init?.method === "PUT" && res.status === 412 && /\/snapshot\/snapshot-\d+$/.test(new URL(String(input)).pathname)) refused++;
  return res;
};

const [location, writerArg, rowsArg] = process.argv.slice(2);
const writer = Number(writerArg);
const rows = Number(rowsArg);
const table = await Table.open(location!);
const ids = Array.from({ length: rows }, (_, i) => writer * 1000 + i);
const batch = new arrow.RecordBatch({
  id: arrow.makeData({ type: new arrow.Int64(), length: rows, data: BigInt64Array.from(ids.map(BigInt)) }),
  name: arrow.vectorFromArray(ids.map((i) => `writer-${writer}-row-${i}`), new arrow.Utf8()).data[0],
});
const write = await table.newWrite({ commitUser: `process-${writer}` });
await write.write(batch);
const messages = await write.prepareCommit(1);
await write.close();
const commit = table.newCommit({ commitUser: `process-${writer}` });
process.stdout.write("ready\n");
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
process.stdin.pause();
const snapshotId = await commit.commit(messages, 1);
process.stdout.write(JSON.stringify({ writer, snapshotId, refused }) + "\n");
