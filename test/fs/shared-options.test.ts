// FileIO.sharedOptions(): the plain options a compaction worker rebuilds the table's FileIO from
// (src/write/compact-workers.ts). Local and S3 FileIOs give them (S3 with the environment's
// defaults resolved, so a worker signs for the same endpoint, region and credentials); a memory
// FileIO and an S3 FileIO with a custom fetch cannot be rebuilt elsewhere and give none.
import { describe, expect, it } from "vitest";
import { LocalFileIO } from "../../src/fs/local-file-io.js";
import { MemoryFileIO } from "../../src/fs/memory-file-io.js";
import { S3FileIO, type S3FileIOOptions } from "../../src/fs/s3-file-io.js";

describe("FileIO.sharedOptions", () => {
  it("local: its options; memory: none", () => {
    expect(new LocalFileIO().sharedOptions()).toEqual({ kind: "local", options: { fsyncOnPublish: true } });
    expect(new LocalFileIO({ fsyncOnPublish: false }).sharedOptions()).toEqual({ kind: "local", options: { fsyncOnPublish: false } });
    expect((new MemoryFileIO() as { sharedOptions?: unknown }).sharedOptions).toBeUndefined();
  });

  it("S3: structured-cloneable options that build an S3FileIO with the same endpoint, region, addressing and credentials; none with a custom fetch", () => {
    const credentials = { accessKeyId: "AK", secretAccessKey: "SK", sessionToken: "T" };
    const io = new S3FileIO({ endpoint: "http://127.0.0.1:7480", region: "eu-west-1", credentials, maxRetries: 2, conditionalWrites: "trust" });
    const shared = io.sharedOptions()!;
    expect(shared).toEqual({
      kind: "s3",
      options: { endpoint: "http://127.0.0.1:7480/", region: "eu-west-1", pathStyle: true, credentials, maxRetries: 2, conditionalWrites: "trust" },
    });
    expect(structuredClone(shared)).toEqual(shared);
    expect(new S3FileIO(shared.options as S3FileIOOptions).sharedOptions()).toEqual(shared);
    expect(new S3FileIO({ endpoint: "http://127.0.0.1:7480", fetch: globalThis.fetch }).sharedOptions()).toBeUndefined();
  });
});
