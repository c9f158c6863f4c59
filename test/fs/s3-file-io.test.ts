/**
 * S3FileIO against a real S3 server (Ceph RGW from scripts/s3-server.sh): the shared FileIO contract,
 * plus what only object storage has (conditional-PUT publication, pagination, retries, addressing).
 */
import { describe, expect, it } from "vitest";
import { S3FileIO, normalizeS3Location, parseListing, parseS3Path } from "../../src/fs/s3-file-io.js";
import { readTextFile } from "../../src/fs/file-io.js";
import { resolveWarehouse } from "../../src/fs/resolve.js";
import { fileIOContract, expectPaimonError } from "./contract.js";
import { hostLikeFetch } from "../support/host-like-fetch.js";
import { S3_SKIP_MESSAGE, freshS3Root, rawS3Request, s3TestBucket, testS3FileIO } from "./s3-server.js";

/** Whether a fetch call is a PUT of a snapshot file (not the conditional-write probe). */
function isSnapshotPut(input: unknown, init: RequestInit | undefined): boolean {
  return init?.method === "PUT" && /\/snapshot\/snapshot-\d+$/.test(new URL(String(input)).pathname);
}

describe("S3 locations (no server needed)", () => {
  it("parses and normalizes s3:// and s3a:// locations", () => {
    expect(parseS3Path("s3://b/wh/db.db/t/")).toEqual({ scheme: "s3", bucket: "b", key: "wh/db.db/t" });
    expect(parseS3Path("s3a://b")).toEqual({ scheme: "s3a", bucket: "b", key: "" });
    expect(normalizeS3Location("s3a://bucket/warehouse/")).toBe("s3a://bucket/warehouse");
    expect(normalizeS3Location("S3://bucket")).toBe("s3://bucket");
    expect(() => normalizeS3Location("s3:///nobucket")).toThrow(/not an s3:\/\/bucket\/key path/);
    expect(() => parseS3Path("http://x/y")).toThrow(/not an s3/);
  });

  it("resolveWarehouse picks S3FileIO for s3:// and s3a://", async () => {
    const a = await resolveWarehouse("s3://bucket/wh/");
    expect(a.fileIO).toBeInstanceOf(S3FileIO);
    expect(a.root).toBe("s3://bucket/wh");
    const b = await resolveWarehouse("s3a://bucket/wh");
    expect(b.fileIO).toBeInstanceOf(S3FileIO);
    expect(b.root).toBe("s3a://bucket/wh");
  });

  it("rejects bad options with INVALID_ARGUMENT", () => {
    expect(() => new S3FileIO({ endpoint: "not a url" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => new S3FileIO({ endpoint: "ftp://h" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => new S3FileIO({ endpoint: "http://h", maxRetries: -1 })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
  });

  it("addressing: path-style for IP and localhost endpoints, virtual-hosted otherwise, or as asked", async () => {
    const urls: string[] = [];
    const recorder: typeof fetch = async (input) => {
      urls.push(String(input));
      return new Response("hello", { status: 200 });
    };
    const credentials = { accessKeyId: "AKID", secretAccessKey: "secret" };
    const read = (options: ConstructorParameters<typeof S3FileIO>[0]) =>
      new S3FileIO({ ...options, credentials, fetch: recorder }).readFile("s3://my-bucket/wh/a b/c+d");
    await read({ endpoint: "http://127.0.0.1:7480" });
    await read({ endpoint: "http://localhost:9000/" });
    await read({ endpoint: "http://[::1]:9000" });
    await read({ endpoint: "https://s3.eu-west-1.amazonaws.com" });
    await read({ endpoint: "https://minio.example.com", pathStyle: true });
    await read({ region: "eu-central-1", endpoint: undefined });
    expect(urls.slice(0, 5)).toEqual([
      "http://127.0.0.1:7480/my-bucket/wh/a%20b/c%2Bd",
      "http://localhost:9000/my-bucket/wh/a%20b/c%2Bd",
      "http://[::1]:9000/my-bucket/wh/a%20b/c%2Bd",
      "https://my-bucket.s3.eu-west-1.amazonaws.com/wh/a%20b/c%2Bd",
      "https://minio.example.com/my-bucket/wh/a%20b/c%2Bd",
    ]);
    // without an endpoint option the AWS_ENDPOINT_URL(_S3) variables decide, else AWS's regional endpoint
    const fromEnv = process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
    expect(urls[5]).toBe(
      fromEnv ? `${new URL(fromEnv).origin}/my-bucket/wh/a%20b/c%2Bd` : "https://my-bucket.s3.eu-central-1.amazonaws.com/wh/a%20b/c%2Bd",
    );
  });

  it("parses ListObjectsV2 XML, entities and continuation tokens", () => {
    const xml =
      '<?xml version="1.0"?><ListBucketResult><IsTruncated>true</IsTruncated>' +
      "<Contents><Key>d/a&amp;b &lt;1&gt;</Key><LastModified>2026-01-02T03:04:05.000Z</LastModified><Size>12</Size></Contents>" +
      "<CommonPrefixes><Prefix>d/sub/</Prefix></CommonPrefixes>" +
      "<NextContinuationToken>tok&amp;en</NextContinuationToken></ListBucketResult>";
    expect(parseListing(xml)).toEqual({
      objects: [{ key: "d/a&b <1>", size: 12, lastModified: Date.UTC(2026, 0, 2, 3, 4, 5) }],
      prefixes: ["d/sub/"],
      next: "tok&en",
    });
  });
});

if (s3TestBucket === null) {
  describe.skip(`S3FileIO on a real server — ${S3_SKIP_MESSAGE}`, () => {
    it("needs an S3 server", () => undefined);
  });
} else {
  fileIOContract("S3FileIO on Ceph RGW (directory checks on)", async () => {
    const io = testS3FileIO({ checkDirectoryConflicts: true });
    const root = freshS3Root("contract");
    return { io, root, cleanup: async () => void (await io.deleteDirectory(root)) };
  });

  describe("S3FileIO on Ceph RGW", () => {
    // workerd failed every request with "Illegal invocation" before (test/hosts/s3-hosts.test.ts)
    it("calls an injected host fetch, and the default globalThis.fetch, as a plain function, not as a method", async () => {
      const root = freshS3Root("plain-fetch");
      const io = testS3FileIO();
      await io.writeFile(`${root}/f`, "plain");
      expect(await readTextFile(testS3FileIO({ fetch: hostLikeFetch as typeof fetch }), `${root}/f`)).toBe("plain");
      const original = globalThis.fetch;
      globalThis.fetch = hostLikeFetch as typeof fetch;
      try {
        expect(await readTextFile(testS3FileIO(), `${root}/f`)).toBe("plain");
      } finally {
        globalThis.fetch = original;
      }
      await io.deleteDirectory(root);
    });

    it("writeFileAtomicNoReplace is a real conditional PUT: the server refuses the second writer", async () => {
      const io = testS3FileIO();
      const root = freshS3Root("cond");
      const target = `${root}/snapshot/snapshot-1`;
      expect(await io.writeFileAtomicNoReplace(target, "first")).toBe(true);
      // a second S3FileIO instance (another process, in effect) cannot replace it
      expect(await testS3FileIO().writeFileAtomicNoReplace(target, "second")).toBe(false);
      expect(await readTextFile(io, target)).toBe("first");
      await io.deleteDirectory(root);
    });

    it("a retried conditional PUT whose first attempt landed reports the win, not a conflict", async () => {
      const root = freshS3Root("retry-win");
      const target = `${root}/snapshot/snapshot-1`;
      // the first response is lost after the server applied the PUT (as a dropped connection would)
      let calls = 0;
      const losingFetch: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        if (isSnapshotPut(input, init) && calls++ === 0) {
          await res.arrayBuffer();
          throw new TypeError("fetch failed: connection reset (injected)");
        }
        return res;
      };
      const io = testS3FileIO({ fetch: losingFetch, retryBaseDelayMs: 1 });
      expect(await io.writeFileAtomicNoReplace(target, "mine")).toBe(true);
      expect(calls).toBe(2);
      // and a retry that finds someone else's object still reports the conflict
      const other = `${root}/snapshot/snapshot-2`;
      expect(await testS3FileIO().writeFileAtomicNoReplace(other, "theirs")).toBe(true);
      calls = 0;
      const failFirst: typeof fetch = async (input, init) => {
        if (isSnapshotPut(input, init) && calls++ === 0) throw new TypeError("fetch failed (injected, not sent)");
        return fetch(input, init);
      };
      expect(await testS3FileIO({ fetch: failFirst, retryBaseDelayMs: 1 }).writeFileAtomicNoReplace(other, "mine")).toBe(false);
      expect(await readTextFile(io, other)).toBe("theirs");
      await io.deleteDirectory(root);
    });

    it("retries 503 SlowDown and 500 with backoff; gives up with IO_ERROR after maxRetries", async () => {
      const root = freshS3Root("retry");
      const io0 = testS3FileIO();
      await io0.writeFile(`${root}/f`, "data");
      let failures = 2;
      let seen = 0;
      const flaky: typeof fetch = async (input, init) => {
        seen++;
        if (failures-- > 0) return new Response("<Error><Code>SlowDown</Code></Error>", { status: 503 });
        return fetch(input, init);
      };
      expect(await readTextFile(testS3FileIO({ fetch: flaky, retryBaseDelayMs: 1 }), `${root}/f`)).toBe("data");
      expect(seen).toBe(3);
      const broken: typeof fetch = async () => new Response("<Error><Code>InternalError</Code></Error>", { status: 500 });
      const err = await expectPaimonError(
        testS3FileIO({ fetch: broken, retryBaseDelayMs: 1, maxRetries: 2 }).readFile(`${root}/f`),
        "IO_ERROR",
        "InternalError",
      );
      expect(err.message).toContain(`${root}/f`);
      await io0.deleteDirectory(root);
    });

    it("a request that exceeds the timeout is retried, then fails with IO_ERROR", async () => {
      let attempts = 0;
      const hanging: typeof fetch = (_input, init) =>
        new Promise((_resolve, reject) => {
          attempts++;
          init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        });
      const io = testS3FileIO({ fetch: hanging, requestTimeoutMs: 20, maxRetries: 1, retryBaseDelayMs: 1 });
      await expectPaimonError(io.readFile(freshS3Root("timeout") + "/x"), "IO_ERROR", "timed out after 20 ms");
      expect(attempts).toBe(2);
    });

    it("listStatus and deleteDirectory follow continuation tokens (many pages)", async () => {
      let listRequests = 0;
      const counting: typeof fetch = async (input, init) => {
        if (String(input).includes("list-type=2")) listRequests++;
        return fetch(input, init);
      };
      const io = testS3FileIO({ listPageSize: 4, fetch: counting });
      const root = freshS3Root("pages");
      const names = Array.from({ length: 21 }, (_, i) => `f-${String(i).padStart(4, "0")}`);
      await Promise.all(names.map((n) => io.writeFile(`${root}/${n}`, n)));
      await io.mkdirs(`${root}/zdir`);
      listRequests = 0;
      const listed = await io.listStatus(root);
      expect(listRequests).toBe(6); // 22 entries, 4 per page
      expect(listed.map((s) => s.name)).toEqual([...names, "zdir"]);
      expect(listed.slice(0, 21).every((s) => !s.isDir && s.size === 6)).toBe(true);
      expect(listed[21]).toMatchObject({ isDir: true, size: 0 });
      expect(() => testS3FileIO({ listPageSize: 1001 })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
      expect(await io.deleteDirectory(root)).toBe(true);
      expect(await io.listStatus(root)).toEqual([]);
    });

    it("keys with spaces, unicode and reserved characters round-trip and list by their raw names", async () => {
      const io = testS3FileIO();
      const root = freshS3Root("names");
      const odd = ["dt=2026-01-01 10:00", "a+b&c=d", "é€𝄞", "p%2Fq", "x~y!z'(1)*"];
      for (const n of odd) await io.writeFile(`${root}/${n}/f`, n);
      for (const n of odd) expect(await readTextFile(io, `${root}/${n}/f`)).toBe(n);
      expect((await io.listStatus(root)).map((s) => s.name)).toEqual([...odd].sort());
      await io.deleteDirectory(root);
    });

    it("a store that ignores If-None-Match is detected: publication refused with UNSUPPORTED, nothing written", async () => {
      const root = freshS3Root("no-cond");
      // what s3rver/fauxqs do: a create over an existing key answers 200 (they overwrite; here the
      // server's 412 is turned into 200, which is all a client can observe)
      const ignoring: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        const conditional = ((init?.headers ?? {}) as Record<string, string>)["if-none-match"] === "*";
        return conditional && res.status === 412 ? new Response(null, { status: 200 }) : res;
      };
      const io = testS3FileIO({ fetch: ignoring });
      const err = await expectPaimonError(io.writeFileAtomicNoReplace(`${root}/snapshot/snapshot-1`, "x"), "UNSUPPORTED");
      expect(err.message).toMatch(/ignores If-None-Match: \*|rejects If-None-Match/);
      const plain = testS3FileIO();
      expect(await plain.listStatus(root)).toEqual([]); // neither the target nor the probe object remains
      // trusting the store skips the probe (and then the conditional header would decide)
      expect(await testS3FileIO({ conditionalWrites: "trust" }).writeFileAtomicNoReplace(`${root}/snapshot/snapshot-1`, "x")).toBe(true);
      await plain.deleteDirectory(root);
    });

    it("large files go up in parts; a failed part aborts the upload (no parts left behind)", async () => {
      const root = freshS3Root("multipart");
      const MiB = 1024 * 1024;
      const data = new Uint8Array(11 * MiB + 123);
      for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) & 0xff;
      const methods: string[] = [];
      const recording: typeof fetch = async (input, init) => {
        const url = new URL(String(input));
        methods.push(`${init?.method} ${url.searchParams.has("uploads") ? "create" : url.searchParams.has("partNumber") ? `part${url.searchParams.get("partNumber")}` : url.searchParams.has("uploadId") ? "complete/abort" : "object"}`);
        return fetch(input, init);
      };
      const io = testS3FileIO({ fetch: recording, multipartThresholdBytes: 6 * MiB, multipartPartBytes: 5 * MiB });
      await io.writeFile(`${root}/big.parquet`, data);
      expect(methods.sort()).toEqual(["POST complete/abort", "POST create", "PUT part1", "PUT part2", "PUT part3"]);
      expect(await io.fileSize(`${root}/big.parquet`)).toBe(data.length);
      const back = await io.readFile(`${root}/big.parquet`);
      expect(back.length).toBe(data.length);
      expect(back.every((b, i) => b === data[i])).toBe(true);
      expect(await io.readRange(`${root}/big.parquet`, 5 * MiB - 2, 4)).toEqual(data.slice(5 * MiB - 2, 5 * MiB + 2));

      // part 2 fails for good (403 is not retried): the upload is aborted and the key never appears
      methods.length = 0;
      const failing: typeof fetch = async (input, init) => {
        const url = new URL(String(input));
        methods.push(`${init?.method} ${url.searchParams.has("partNumber") ? "part" : url.searchParams.has("uploadId") ? "uploadId" : "other"}`);
        if (url.searchParams.get("partNumber") === "2") return new Response("<Error><Code>AccessDenied</Code></Error>", { status: 403 });
        return fetch(input, init);
      };
      const io2 = testS3FileIO({ fetch: failing, multipartThresholdBytes: 6 * MiB, multipartPartBytes: 5 * MiB });
      await expectPaimonError(io2.writeFile(`${root}/failed.parquet`, data), "IO_ERROR", "AccessDenied");
      expect(methods).toContain("DELETE uploadId");
      expect(await io.exists(`${root}/failed.parquet`)).toBe(false);
      const key = `${root.replace(`s3://${s3TestBucket}/`, "")}/failed.parquet`;
      const uploads = await rawS3Request("GET", s3TestBucket!, "", [["uploads", ""], ["prefix", key]]);
      expect(uploads.status).toBe(200);
      expect(uploads.text).not.toContain("<Upload>");
      await io.deleteDirectory(root);
    });

    it("resolveWarehouse takes explicit S3 options (as Catalog.open(warehouse, { s3 }) passes them)", async () => {
      const root = freshS3Root("options");
      const good = await resolveWarehouse(root, {
        s3: {
          endpoint: process.env.AWS_ENDPOINT_URL,
          region: process.env.AWS_REGION,
          accessKeyId: process.env.AWS_ACCESS_KEY_ID,
          secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY,
          maxRetries: 1,
          requestTimeoutMs: 10_000,
        },
      });
      await good.fileIO.writeFile(`${good.root}/f`, "via options");
      expect(await readTextFile(good.fileIO, `${good.root}/f`)).toBe("via options");
      const wrongKeys = await resolveWarehouse(root, { s3: { accessKeyId: "nobody", secretAccessKey: "wrong", maxRetries: 0 } });
      await expectPaimonError(wrongKeys.fileIO.readFile(`${root}/f`), "IO_ERROR", "InvalidAccessKeyId");
      await expectPaimonError(resolveWarehouse(root, { s3: { accessKeyId: "only-one" } }), "INVALID_ARGUMENT", "both accessKeyId and secretAccessKey");
      await good.fileIO.deleteDirectory(root);
    });

    it("wrong credentials are an IO_ERROR naming the S3 error code", async () => {
      const io = testS3FileIO({ credentials: { accessKeyId: "nobody", secretAccessKey: "wrong" }, maxRetries: 0 });
      await expectPaimonError(io.readFile(freshS3Root("auth") + "/x"), "IO_ERROR", "InvalidAccessKeyId");
    });
  });
}
