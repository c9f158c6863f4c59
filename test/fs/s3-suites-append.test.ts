/**
 * The table test suites again, on s3:// (Ceph RGW from scripts/s3-server.sh): every warehouse the
 * imported test files ask for (test/support/warehouses.ts) becomes a fresh s3:// prefix, so the
 * same test bodies that run on local disk and memory:// run against object storage — append
 * tables, primary-key merge-on-read with deletion vectors and compaction, expiry, real-time append
 * with progress and recovery. Tests of local-only behaviour skip themselves on S3. Split over two
 * files (this one: append tables and expiry; s3-suites: primary keys and real-time) so that
 * they run in parallel.
 */
import { rerunOnS3 } from "./s3-server.js";

await rerunOnS3("table suites on s3:// (append tables, expiry)", async () => {
  await import("../table/append-table.test.js");
  await import("../realtime/expire.test.js");
});
