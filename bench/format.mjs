// Data-file format benchmarks: Parquet write (zstd, snappy) and full vs projected read of a
// 4-column table (int64 id, ~12-byte utf8 key, float64 with 10% nulls, timestamp µs), against
// raw parquet-wasm calls on the same data in the same run.
import * as arrow from "apache-arrow";
import { header, timeMedianAsync, timePairedAsync } from "./harness.mjs";

const lib = await import("../dist/format/index.js");

function rng(seed) {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/** 1M-row style table built with makeData over typed arrays. */
function makeTable(rows) {
  const next = rng(42);
  const id = new BigInt64Array(rows);
  for (let i = 0; i < rows; i++) id[i] = BigInt(i);
  const offsets = new Int32Array(rows + 1);
  const bytes = new Uint8Array(rows * 12);
  const enc = new TextEncoder();
  let at = 0;
  for (let i = 0; i < rows; i++) {
    at += enc.encodeInto("key-" + next().toString(16).padStart(8, "0"), bytes.subarray(at)).written;
    offsets[i + 1] = at;
  }
  const val = new Float64Array(rows);
  const valid = new Uint8Array((rows + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < rows; i++) {
    if (next() % 10 === 0) nulls++;
    else {
      valid[i >> 3] |= 1 << (i & 7);
      val[i] = (next() % 1000000) / 7;
    }
  }
  const ts = new BigInt64Array(rows);
  const base = 1700000000000000n;
  for (let i = 0; i < rows; i++) ts[i] = base + BigInt(i) * 1000n + BigInt(next() % 1000);
  const fields = [
    { id: 0, name: "id", type: { kind: "BIGINT", nullable: false } },
    { id: 1, name: "key", type: { kind: "VARCHAR", nullable: true, length: 2147483647 } },
    { id: 2, name: "val", type: { kind: "DOUBLE", nullable: true } },
    { id: 3, name: "ts", type: { kind: "TIMESTAMP", nullable: true, precision: 6 } },
  ];
  const schema = new arrow.Schema([
    new arrow.Field("id", new arrow.Int64(), false),
    new arrow.Field("key", new arrow.Utf8(), true),
    new arrow.Field("val", new arrow.Float64(), true),
    new arrow.Field("ts", new arrow.TimestampMicrosecond(), true),
  ]);
  const children = [
    arrow.makeData({ type: new arrow.Int64(), length: rows, nullCount: 0, data: id }),
    arrow.makeData({ type: new arrow.Utf8(), length: rows, nullCount: 0, valueOffsets: offsets, data: bytes.subarray(0, at) }),
    arrow.makeData({ type: new arrow.Float64(), length: rows, nullCount: nulls, nullBitmap: valid, data: val }),
    arrow.makeData({ type: new arrow.TimestampMicrosecond(), length: rows, nullCount: 0, data: ts }),
  ];
  const batch = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows, nullCount: 0, children }));
  const table = new arrow.Table([batch]);
  const inputBytes = children.reduce((s, d) => s + d.byteLength, 0);
  return { table, fields, inputBytes };
}

const MB = 1024 * 1024;

export async function runFormatBenchmarks(report, { quick = false } = {}) {
  const rows = quick ? 100_000 : 1_000_000;
  const iterations = quick ? 3 : 5;
  const { table, fields, inputBytes } = makeTable(rows);
  const pw = await lib.getParquetWasm();
  header(`format: Parquet write/read, ${rows} rows x 4 columns (${(inputBytes / MB).toFixed(1)} MiB Arrow)`);

  const rawWrite = (codec) => {
    const props = new pw.WriterPropertiesBuilder().setCompression(codec).setMaxRowGroupSize(1024 * 1024).setStatisticsEnabled(pw.EnabledStatistics.Chunk).build();
    const wt = pw.Table.fromIPCStream(arrow.tableToIPC(table, "stream"));
    return pw.writeParquet(wt, props);
  };

  const files = {};
  for (const [name, codec] of [
    ["zstd", pw.Compression.ZSTD],
    ["snappy", pw.Compression.SNAPPY],
  ]) {
    let result;
    const [candidateMs, baselineMs] = await timePairedAsync(
      async () => {
        result = await lib.writeParquet(fields, table, { compression: name });
      },
      async () => rawWrite(codec),
      { iterations },
    );
    files[name] = result.bytes;
    const row = report.add({
      suite: "format",
      case: `write ${name}`,
      rows,
      candidate: "writeParquet+stats",
      candidateMs,
      baseline: "raw parquet-wasm",
      baselineMs,
      inputMiB: inputBytes / MB,
      fileMiB: result.fileSize / MB,
      candidateMiBPerSec: inputBytes / MB / (candidateMs / 1000),
    });
    console.log(`    -> ${(row.candidateMiBPerSec).toFixed(1)} MiB/s of Arrow input, file ${(result.fileSize / MB).toFixed(2)} MiB`);
  }

  // The post-write pass alone (page CRCs, INT96 retyping, offsets moved) on parquet-wasm's raw
  // output, and the read side's CRC check of every chunk: both part of the cases above/below.
  const pages = await import("../dist/format/parquet-pages.js");
  const { finishParquetFile } = await import("../dist/format/parquet-finish.js");
  for (const [name, codec] of [
    ["zstd", pw.Compression.ZSTD],
    ["snappy", pw.Compression.SNAPPY],
  ]) {
    const raw = rawWrite(codec);
    const candidateMs = await timeMedianAsync(async () => finishParquetFile(raw), { iterations });
    console.log(`    -> post-write pass ${name}: ${(raw.length / MB / (candidateMs / 1000)).toFixed(0)} MiB/s of file`);
    report.add({ suite: "format", case: `post-write pass (page CRCs) ${name}`, rows, candidate: "finishParquetFile", candidateMs, fileMiB: raw.length / MB });
    const written = files[name];
    const footer = await lib.readParquetFooter(written);
    const verifyMs = await timeMedianAsync(async () => {
      footer.rowGroups.forEach((rg, r) => rg.chunks.forEach((c, l) => pages.verifyChunkChecksums(written.subarray(c.start, c.start + c.length), "bench", `${r}/${l}`)));
    }, { iterations });
    report.add({ suite: "format", case: `verify page CRCs ${name}`, rows, candidate: "verifyChunkChecksums", candidateMs: verifyMs, fileMiB: written.length / MB });
  }

  // Statistics alone (the TypeScript part of the write).
  {
    const collectors = fields.map((f) => new lib.ColumnStatsCollector(f.type));
    const candidateMs = await timeMedianAsync(async () => {
      const cs = fields.map((f) => new lib.ColumnStatsCollector(f.type));
      table.batches.forEach((b) => cs.forEach((c, i) => c.update(b.getChildAt(i).data[0])));
      cs.forEach((c) => c.result());
    }, { iterations });
    void collectors;
    report.add({ suite: "format", case: "column stats (4 cols)", rows, candidate: "ColumnStatsCollector", candidateMs });
  }

  // Data-file indexes (file-index.*): building a bloom filter (default 1M items) or a bitmap over
  // one column, against writing that column as Parquet (what the index adds to a data file write).
  {
    const fi = await import("../dist/fileindex/index.js");
    const single = (i) => {
      const field = fields[i];
      const batch = new arrow.RecordBatch(new arrow.Schema([table.schema.fields[i]]), arrow.makeData({ type: new arrow.Struct([table.schema.fields[i]]), length: rows, nullCount: 0, children: [table.batches[0].data.children[i]] }));
      return { field, batch };
    };
    for (const [label, i, type] of [
      ["bloom filter, id (BIGINT)", 0, "bloom-filter"],
      ["bloom filter, key (STRING)", 1, "bloom-filter"],
      ["bitmap, ts (TIMESTAMP)", 3, "bitmap"],
    ]) {
      const { field, batch } = single(i);
      const spec = fi.fileIndexSpecOf({ [`file-index.${type}.columns`]: field.name }, [field]);
      if (type === "bitmap" && rows > 100_000) continue; // every value distinct: a bitmap index is the wrong tool here
      const candidateMs = await timeMedianAsync(async () => {
        const b = new fi.FileIndexBuilder(spec, [field]);
        b.update(batch);
        b.finish();
      }, { iterations });
      const baselineMs = await timeMedianAsync(async () => lib.writeParquet([field], batch, { compression: "zstd" }), { iterations });
      report.add({ suite: "format", case: `file index: ${label}`, rows, candidate: "FileIndexBuilder", candidateMs, baseline: "Parquet write of the column", baselineMs });
    }
  }

  const bytes = files.zstd;
  const projected = [fields[0], fields[2]];
  {
    let n = 0;
    const candidateMs = await timeMedianAsync(async () => {
      n = (await lib.readParquet(bytes, { fields })).numRows;
    }, { iterations });
    const baselineMs = await timeMedianAsync(async () => arrow.tableFromIPC(pw.readParquet(bytes, { batchSize: 65536 }).intoIPCStream()), { iterations });
    if (n !== rows) throw new Error(`read ${n} rows`);
    const row = report.add({ suite: "format", case: "read full (zstd)", rows, candidate: "readParquet", candidateMs, baseline: "raw readParquet", baselineMs });
    row.candidateMiBPerSec = inputBytes / MB / (candidateMs / 1000);
    console.log(`    -> ${row.candidateMiBPerSec.toFixed(1)} MiB/s of decoded Arrow`);
  }
  {
    let n = 0;
    const candidateMs = await timeMedianAsync(async () => {
      n = (await lib.readParquet(bytes, { fields: projected })).numRows;
    }, { iterations });
    const blob = { size: bytes.length, slice: (s, e) => ({ arrayBuffer: async () => bytes.slice(s, e).buffer }) };
    const baselineMs = await timeMedianAsync(async () => {
      const f = await pw.ParquetFile.fromFile(blob);
      const t = await f.read({ columns: ["id", "val"], batchSize: 65536 });
      arrow.tableFromIPC(t.intoIPCStream());
      f.free();
    }, { iterations });
    if (n !== rows) throw new Error(`read ${n} rows`);
    report.add({ suite: "format", case: "read projected id,val", rows, candidate: "readParquet", candidateMs, baseline: "ParquetFile.read cols", baselineMs });
  }
  {
    const candidateMs = await timeMedianAsync(async () => lib.readParquetStatistics(bytes), { iterations });
    report.add({ suite: "format", case: "footer statistics", rows, candidate: "readParquetStatistics", candidateMs });
  }
}

// Standalone: `node bench/format.mjs [--quick]` (after `npm run build`).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { Report } = await import("./harness.mjs");
  const report = new Report("format");
  await runFormatBenchmarks(report, { quick: process.argv.includes("--quick") || process.env.BENCH_QUICK === "1" });
  report.save();
}
