/**
 * The table test suites again, on s3:// (Ceph RGW from scripts/s3-server.sh): every warehouse the
 * imported test files ask for (test/support/warehouses.ts) becomes a fresh s3:// prefix, so the
 * same test bodies that run on local disk and memory:// run against object storage: append tables,
 * primary-key merge-on-read with deletion vectors and compaction, expiry, orphan removal, real-time
 * append with progress and recovery. Tests of local-only behaviour skip themselves on S3. Split over
 * two files so that they run in parallel (this one: primary keys and real-time; s3-suites-append:
 * append tables, expiry, orphan removal).
 */
import { rerunOnS3 } from "./s3-server.js";

await rerunOnS3("table suites on s3:// (primary keys, real-time)", async () => {
  await import("../pk/pk-basic.test.js");
  await import("../pk/pk-files.test.js");
  await import("../realtime/lifecycle.test.js");
});
