// S3 benchmarks (`npm run bench -- s3`): write and cold-read throughput of an append table on an
// S3 server (the Ceph RGW of scripts/s3-server.sh, or any endpoint in the AWS_* variables) against
// local disk, in the same run; and the requests one small commit and one cold query cost.
// Needs AWS_ENDPOINT_URL and PAIMON_RT_S3_TEST_BUCKET (`eval "$(scripts/s3-server.sh start)"`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { header, timeMedianAsync } from "./harness.mjs";
import { workload } from "./table.mjs";

const FIELDS = [
  { name: "id", type: "BIGINT" },
  { name: "name", type: "STRING" },
  { name: "value", type: "DOUBLE" },
  { name: "ts", type: "TIMESTAMP(6)" },
];

/** A fetch that counts requests by method (forwarding every one unchanged). */
function countingFetch() {
  const counts = { total: 0 };
  const fetchFn = async (input, init) => {
    counts.total++;
    const method = new URL(String(input)).searchParams.has("list-type") ? "LIST" : (init?.method ?? "GET");
    counts[method] = (counts[method] ?? 0) + 1;
    return fetch(input, init);
  };
  return { counts, fetchFn, reset: () => Object.keys(counts).forEach((k) => (counts[k] = 0)) };
}

async function writeCommit(table, batch, identifier) {
  const w = await table.newWrite({ commitUser: "bench" });
  await w.write(batch);
  const messages = await w.prepareCommit(identifier);
  await w.close();
  return table.newCommit({ commitUser: "bench" }).commit(messages, identifier);
}

async function readAll(lib, location, options) {
  const table = await lib.Table.open(location, options);
  const plan = await table.newScan().plan();
  return (await table.newRead().toArrow(plan.splits)).numRows;
}

export async function runS3Benchmarks(report, { quick = false } = {}) {
  const bucket = process.env.PAIMON_RT_S3_TEST_BUCKET;
  if (!process.env.AWS_ENDPOINT_URL || !bucket) {
    console.log('s3 benchmarks skipped: no S3 server configured. Run: eval "$(scripts/s3-server.sh start)" and rerun.');
    return null;
  }
  const lib = await import("../dist/node/index.js");
  const { S3FileIO } = await import("../dist/fs/s3-file-io.js");
  const rows = quick ? 100_000 : 1_000_000;
  const { batch, inputBytes } = workload(rows);
  const mb = inputBytes / 1024 / 1024;
  header(`s3: append table on ${process.env.AWS_ENDPOINT_URL} (bucket ${bucket}) vs local disk, ${rows} rows x 4 columns (${mb.toFixed(1)} MB of Arrow data)`);

  const localDir = mkdtempSync(join(tmpdir(), "paimon-rt-bench-s3-"));
  const s3Root = `s3://${bucket}/bench/run-${Date.now().toString(36)}`;
  const cleanupIO = new S3FileIO();
  try {
    const timings = {};
    for (const [name, warehouse] of [["local", localDir], ["s3", s3Root]]) {
      const catalog = await lib.Catalog.open(warehouse);
      await catalog.createDatabase("bench");
      let n = 0;
      let location;
      const writeMs = await timeMedianAsync(
        async () => {
          const table = await catalog.createTable(`bench.t${n++}`, { fields: FIELDS });
          await writeCommit(table, batch, 1);
          location = table.location;
        },
        { iterations: quick ? 3 : 5, warmup: 1 },
      );
      let readRows = 0;
      // cold: a new Table (and, on s3, a new client) every time
      const readMs = await timeMedianAsync(async () => (readRows = await readAll(lib, location)), { iterations: quick ? 3 : 5, warmup: 1 });
      if (readRows !== rows) throw new Error(`read ${readRows} rows from ${location}, wrote ${rows}`);
      timings[name] = { writeMs, readMs };
    }
    for (const op of ["write", "read"]) {
      const row = report.add({
        suite: "s3",
        case: op === "read" ? "cold read" : "write + commit",
        rows,
        candidate: "s3",
        candidateMs: timings.s3[`${op}Ms`],
        baseline: "local",
        baselineMs: timings.local[`${op}Ms`],
      });
      console.log(`    ${op}: s3 ${(mb / (row.candidateMs / 1000)).toFixed(1)} MB/s, local ${(mb / (row.baselineMs / 1000)).toFixed(1)} MB/s`);
    }

    // requests: small write + commits (one 10-row data file PUT each) on a table with a LATEST hint,
    // then a cold query
    const counter = countingFetch();
    const catalog = await lib.Catalog.open(s3Root);
    const created = await catalog.createTable("bench.requests", { fields: FIELDS });
    const table = await lib.Table.open(created.location, { fileIO: new S3FileIO({ fetch: counter.fetchFn }) });
    const small = batch.slice(0, 10);
    await writeCommit(table, small, 1);
    const perCommit = [];
    for (let i = 2; i <= 6; i++) {
      counter.reset();
      await writeCommit(table, small, i);
      perCommit.push({ ...counter.counts });
    }
    counter.reset();
    const coldRows = await readAll(lib, created.location, { fileIO: new S3FileIO({ fetch: counter.fetchFn }) });
    const perColdQuery = { ...counter.counts, files: 6, rows: coldRows };
    const requests = { perCommit: perCommit.at(-1), perCommitAll: perCommit.map((c) => c.total), perColdQuery };
    console.log(`    requests per write + commit of one 10-row file (commits 2..6): ${requests.perCommitAll.join(", ")}  ${JSON.stringify(requests.perCommit)}`);
    console.log(`    requests per cold query (6 snapshots, 6 data files): ${JSON.stringify(perColdQuery)}`);
    return { timings, requests, mbOfArrowData: mb };
  } finally {
    rmSync(localDir, { recursive: true, force: true });
    await cleanupIO.deleteDirectory(s3Root).catch(() => undefined);
  }
}
