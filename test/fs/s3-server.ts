/**
 * The S3 server the S3 tests run against: the one `scripts/s3-server.sh start` prints (a local Ceph
 * RGW). Without its environment the S3 tests are skipped with a message saying how to run them.
 */
import { createHash } from "node:crypto";
import { S3FileIO, type S3FileIOOptions } from "../../src/fs/s3-file-io.js";
import { randomId } from "../../src/fs/file-io.js";
import { sha256Hex, signRequest, uriEncode } from "../../src/fs/sigv4.js";
import { afterAll, describe, it } from "vitest";
import { s3WarehousesMade, useS3Warehouses } from "../support/warehouses.js";

/** The bucket to test in, or null when no S3 server is configured. */
export const s3TestBucket: string | null =
  process.env.PAIMON_RT_S3_TEST_BUCKET && process.env.AWS_ENDPOINT_URL ? process.env.PAIMON_RT_S3_TEST_BUCKET : null;

export const S3_SKIP_MESSAGE =
  "S3 tests skipped: no S3 server configured. Run: eval \"$(scripts/s3-server.sh start)\" (Ceph RGW on 127.0.0.1) and rerun.";

if (s3TestBucket === null && !(globalThis as { __s3SkipLogged?: boolean }).__s3SkipLogged) {
  (globalThis as { __s3SkipLogged?: boolean }).__s3SkipLogged = true;
  console.warn(S3_SKIP_MESSAGE);
}

/** A fresh, unique `s3://bucket/prefix` to work under. */
export function freshS3Root(label: string): string {
  return `s3://${s3TestBucket}/tests/${label}-${randomId()}`;
}

/** An S3FileIO configured from the environment (plus overrides). */
export function testS3FileIO(options: S3FileIOOptions = {}): S3FileIO {
  return new S3FileIO(options);
}

/**
 * A raw SigV4-signed request to the test server (path-style), for checks S3FileIO has no method for
 * (e.g. listing unfinished multipart uploads, setting the bucket's CORS). Returns status and body text.
 */
export async function rawS3Request(
  method: string,
  bucket: string,
  key: string,
  query: Array<[string, string]> = [],
  request: { body?: Uint8Array; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string }> {
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL!);
  const path = `/${bucket}/${uriEncode(key, true)}`;
  const signed = await signRequest({
    method,
    path,
    query,
    headers: { ...request.headers, host: endpoint.host },
    payloadHash: await sha256Hex(request.body ?? new Uint8Array(0)),
    addContentSha256: true,
    region: process.env.AWS_REGION ?? "us-east-1",
    service: "s3",
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID!, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY! },
  });
  const headers = { ...signed.headers };
  delete headers.host;
  const qs = query.map(([k, v]) => (v === "" ? uriEncode(k) : `${uriEncode(k)}=${uriEncode(v)}`)).join("&");
  const res = await fetch(`${endpoint.origin}${path}${qs ? `?${qs}` : ""}`, { method, headers, body: request.body as BodyInit | undefined });
  return { status: res.status, text: await res.text() };
}

/**
 * Creates bucket `name` on the test server (the test user's; an existing one of its own is fine),
 * for suites that set bucket-wide rules (CORS) without disturbing suites running beside them.
 */
export async function ensureTestBucket(name: string): Promise<void> {
  const res = await rawS3Request("PUT", name, "");
  if (res.status !== 200 && !res.text.includes("BucketAlreadyOwnedByYou")) throw new Error(`CreateBucket ${name} answered ${res.status}: ${res.text}`);
}

/**
 * Sets the test bucket's CORS rules (PutBucketCors) so that pages from `origin` may read it with
 * signed requests: GET/HEAD with the headers S3FileIO's SigV4 requests carry, exposing what its
 * reads look at (ETag, Content-Length, Content-Range).
 */
export async function allowBucketReadsFrom(bucket: string, origin: string): Promise<void> {
  const allowed = ["authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token", "range"];
  const exposed = ["ETag", "Content-Length", "Content-Range", "Last-Modified"];
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?><CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><CORSRule>` +
    `<AllowedOrigin>${origin}</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>HEAD</AllowedMethod>` +
    allowed.map((h) => `<AllowedHeader>${h}</AllowedHeader>`).join("") +
    exposed.map((h) => `<ExposeHeader>${h}</ExposeHeader>`).join("") +
    `<MaxAgeSeconds>600</MaxAgeSeconds></CORSRule></CORSConfiguration>`;
  const body = new TextEncoder().encode(xml);
  const contentMd5 = createHash("md5").update(body).digest("base64"); // PutBucketCors requires it
  const res = await rawS3Request("PUT", bucket, "", [["cors", ""]], { body, headers: { "content-md5": contentMd5, "content-type": "application/xml" } });
  if (res.status !== 200) throw new Error(`PutBucketCors on ${bucket} answered ${res.status}: ${res.text}`);
}

/**
 * Re-runs test files on s3://: switches {@link useS3Warehouses} on, then `load()` imports the test
 * files (dynamically, so the switch comes first), and every warehouse they made is deleted after.
 * Without an S3 server: one skipped test saying how to run them.
 */
export async function rerunOnS3(title: string, load: () => Promise<unknown>): Promise<void> {
  if (s3TestBucket === null) {
    describe.skip(`${title} — ${S3_SKIP_MESSAGE}`, () => {
      it("needs an S3 server", () => undefined);
    });
    return;
  }
  useS3Warehouses(freshS3Root);
  afterAll(async () => {
    const io = testS3FileIO();
    for (const root of s3WarehousesMade()) await io.deleteDirectory(root);
  });
  await load();
}
