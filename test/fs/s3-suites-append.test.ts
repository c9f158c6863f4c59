/**
 * The table test suites again, on s3:// (Ceph RGW from scripts/s3-server.sh): every warehouse the
 * imported test files ask for (test/support/warehouses.ts) becomes a fresh s3:// prefix, so the
 * same test bodies that run on local disk and memory:// run against object storage: append tables,
 * primary-key merge-on-read with deletion vectors and compaction, expiry, orphan removal, real-time
 * append with progress and recovery. Tests of local-only behaviour skip themselves on S3. Split over
 * two files so that they run in parallel (this one: append tables, expiry, orphan removal; s3-suites: primary keys and real-time).
 */
import { rerunOnS3 } from "./s3-server.js";

await rerunOnS3("table suites on s3:// (append tables, expiry, orphan removal)", async () => {
  await import("../table/append-table.test.js");
  await import("../realtime/expire.test.js");
  await import("../table/orphan-files.test.js");
});
