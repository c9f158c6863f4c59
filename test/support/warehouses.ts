/**
 * Where table tests put their warehouses. A test file asks {@link freshWarehouse} for a new location
 * and passes its usual default (a temp directory, a memory:// name); a suite that re-runs test files
 * against object storage (test/fs/s3-suites*.test.ts, through rerunOnS3) switches every such request to a fresh
 * `s3://` prefix with {@link useS3Warehouses} before importing them, so the same test bodies run on
 * both. Vitest isolates test files, so the switch never leaks into other files.
 */
import type { FileIO } from "../../src/fs/file-io.js";

/** Makes fresh s3:// prefixes once an S3 suite switched to them (test/fs/s3-server.ts `freshS3Root`). */
let s3Root: ((label: string) => string) | null = null;

/**
 * From now on (in this test file) every {@link freshWarehouse} is `freshS3Root(label)`. Passed in
 * rather than imported so that ordinary test files do not load the S3 test configuration.
 */
export function useS3Warehouses(freshS3Root: (label: string) => string): void {
  s3Root = (label) => {
    const root = freshS3Root(label);
    s3RootsMade.push(root);
    return root;
  };
}

const s3RootsMade: string[] = [];

/** The s3:// warehouses {@link freshWarehouse} handed out so far (to delete after the suite). */
export function s3WarehousesMade(): readonly string[] {
  return s3RootsMade;
}

/** Whether this test file runs its table tests on s3:// (tests of local-only behaviour skip then). */
export function warehousesOnS3(): boolean {
  return s3Root !== null;
}

/** A new, empty warehouse location: `localDefault()` normally, a fresh s3:// prefix in an S3 suite run. */
export function freshWarehouse(localDefault: () => string, label = "wh"): string {
  return s3Root !== null ? s3Root(label) : localDefault();
}

/** Every file under `dir` (recursively), relative to it, sorted; works on any FileIO. */
export async function listFilesUnder(io: FileIO, dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string): Promise<void> => {
    for (const st of await io.listStatus(d)) {
      if (st.isDir) await walk(st.path, `${rel}${st.name}/`);
      else out.push(`${rel}${st.name}`);
    }
  };
  await walk(dir, "");
  return out.sort();
}
