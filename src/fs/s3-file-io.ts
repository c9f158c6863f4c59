/**
 * A file system on S3-compatible object storage (AWS S3, Ceph RGW, MinIO, R2, …) with `fetch` and
 * AWS Signature V4 through WebCrypto: no `node:` imports, so it runs in Node, Deno, Bun, browsers
 * and workers.
 *
 * Path syntax: `s3://bucket/key` (or `s3a://bucket/key`, as Java/Hadoop writes it) with the *raw*
 * (not percent-encoded) key, e.g. `s3://b/wh/db.db/t/snapshot/snapshot-1`.
 *
 * Directories are key prefixes: a directory exists when some key starts with `dir/`. `mkdirs` writes
 * a zero-byte marker object `dir/` (as Hadoop S3A does) so that empty directories exist too.
 *
 * Atomic publication ({@link S3FileIO.writeFileAtomicNoReplace}) is a conditional PUT with
 * `If-None-Match: *`: the store answers 412 when the key exists, so exactly one racing writer wins.
 * A retried conditional PUT that meets 412 checks a per-write token stored in the object's metadata
 * to tell "my earlier attempt landed" (true) from "someone else won" (false).
 *
 * Requests are retried with exponential backoff and full jitter on network errors, timeouts, 5xx and
 * throttling (429, 503 SlowDown). Failures are `PaimonError`s naming the path (`NOT_FOUND`,
 * `IO_ERROR`, `INVALID_ARGUMENT` for malformed locations).
 *
 * `rename` is copy + delete (S3 has no rename): not atomic, best effort, never replaces.
 */
import { PaimonError } from "../error.js";
import {
  type FileContent,
  type FileIO,
  type FileStatus,
  type SharedFileIOOptions,
  baseName,
  checkRange,
  fsError,
  isChildName,
  joinPath,
  randomId,
  requireNoDotSegments,
  shortReadError,
  toBytes,
} from "./file-io.js";
import { type AwsCredentials, sha256Hex, signRequest, uriEncode } from "./sigv4.js";

/** Options of {@link S3FileIO}; every one has a default from the environment or a constant. */
export interface S3FileIOOptions {
  /**
   * The S3 endpoint URL, e.g. `http://127.0.0.1:7480` or `https://s3.eu-west-1.amazonaws.com`.
   * Default: `AWS_ENDPOINT_URL_S3`, then `AWS_ENDPOINT_URL`, else AWS's regional endpoint.
   */
  endpoint?: string;
  /** The signing region. Default: `AWS_REGION`, then `AWS_DEFAULT_REGION`, else `us-east-1`. */
  region?: string;
  /**
   * Path-style addressing (`endpoint/bucket/key`) instead of virtual-hosted (`bucket.endpoint/key`).
   * Default: true for IP-address and `localhost` endpoints, false otherwise.
   */
  pathStyle?: boolean;
  /**
   * Credentials. Default: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`;
   * without them requests are sent unsigned (public buckets). A function is asked before every
   * request (temporary credentials it refreshes itself, e.g. a REST catalog's data token); such a
   * FileIO is not shared with worker threads.
   */
  credentials?: AwsCredentials | (() => Promise<AwsCredentials>);
  /** Timeout of one request attempt (including reading its body), ms. Default 30000. */
  requestTimeoutMs?: number;
  /** Retries after a failed attempt (network error, timeout, 5xx, 429). Default 5. */
  maxRetries?: number;
  /** Base delay of the exponential backoff, ms (full jitter; capped at 5 s). Default 100. */
  retryBaseDelayMs?: number;
  /**
   * Check directory conflicts on writes like a local file system does: writing onto a directory or
   * under a file is an `IO_ERROR`, publishing onto a directory returns false. Costs a LIST and a
   * HEAD per write; object-store clients (Hadoop S3A in performance mode) skip it. Default false.
   */
  checkDirectoryConflicts?: boolean;
  /**
   * Whether to verify that the store honours `If-None-Match: *` before the first atomic publication
   * into a bucket (`"probe"`, the default: a probe object is created twice next to the target and
   * deleted; a store that accepts the second create cannot keep racing commits apart, and every
   * publication is then refused with `UNSUPPORTED`), or to trust it without asking (`"trust"`).
   * The probe runs once per endpoint and bucket in a process.
   */
  conditionalWrites?: "probe" | "trust";
  /** Files larger than this are uploaded in parts (multipart upload). Default 64 MiB. */
  multipartThresholdBytes?: number;
  /** Part size of multipart uploads (S3's minimum is 5 MiB). Default 16 MiB. */
  multipartPartBytes?: number;
  /** Keys per ListObjectsV2 page (1–1000). Default 1000, the S3 maximum. */
  listPageSize?: number;
  /**
   * The fetch to use (default `globalThis.fetch`). It is always called as a plain function (never as
   * a method of this FileIO), so a host's native `fetch` may be passed as is.
   */
  fetch?: typeof fetch;
}

/**
 * S3 options as `Catalog.open(warehouse, { s3 })` / `Table.open(location, { s3 })` take them (API.md):
 * flat credentials; everything not given comes from the `AWS_*` environment variables.
 */
export interface S3Options {
  endpoint?: string;
  region?: string;
  pathStyle?: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  requestTimeoutMs?: number;
  maxRetries?: number;
}

/** {@link S3Options} as {@link S3FileIOOptions}; both keys or neither (`INVALID_ARGUMENT` otherwise). */
export function s3FileIOOptions(options: S3Options): S3FileIOOptions {
  const { accessKeyId, secretAccessKey, sessionToken, ...rest } = options;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new PaimonError("INVALID_ARGUMENT", "S3 options need both accessKeyId and secretAccessKey, or neither");
  }
  return accessKeyId !== undefined && secretAccessKey !== undefined
    ? { ...rest, credentials: { accessKeyId, secretAccessKey, sessionToken } }
    : rest;
}

/** A parsed `s3://bucket/key` path. */
export interface S3Location {
  readonly scheme: "s3" | "s3a";
  readonly bucket: string;
  /** The key without leading `/`; `""` for the bucket root. Trailing `/` removed. */
  readonly key: string;
}

const S3_PATH = /^(s3a?):\/\/([^/]+)(\/.*)?$/i;

/** Parses `s3://bucket/key` (or `s3a://`). `INVALID_ARGUMENT` for anything else. */
export function parseS3Path(path: string): S3Location {
  const m = S3_PATH.exec(path);
  if (!m) throw fsError("INVALID_ARGUMENT", "resolve", path, "not an s3://bucket/key path");
  let key = (m[3] ?? "").replace(/^\/+/, "");
  while (key.endsWith("/")) key = key.slice(0, -1);
  requireNoDotSegments(path, path.length - (m[3] ?? "").length);
  return { scheme: m[1]!.toLowerCase() as "s3" | "s3a", bucket: m[2]!, key };
}

/** Normalizes a warehouse location to `s3://bucket/prefix` syntax (scheme kept, no trailing `/`). */
export function normalizeS3Location(location: string): string {
  const loc = parseS3Path(location);
  if (!/^[a-z0-9][a-z0-9.\-_]{1,254}$/i.test(loc.bucket)) {
    throw fsError("INVALID_ARGUMENT", "resolve", location, `"${loc.bucket}" is not a valid bucket name`);
  }
  return loc.key === "" ? `${loc.scheme}://${loc.bucket}` : `${loc.scheme}://${loc.bucket}/${loc.key}`;
}

/** An environment variable where the runtime has an environment (Node, Bun, Deno), else undefined. */
function envVar(name: string): string | undefined {
  const g = globalThis as {
    process?: { env?: Record<string, string | undefined> };
    Deno?: { env?: { get(n: string): string | undefined } };
  };
  try {
    const v = g.process?.env?.[name] ?? g.Deno?.env?.get(name);
    return v === undefined || v === "" ? undefined : v;
  } catch {
    return undefined; // Deno without --allow-env
  }
}

function isIpOrLocalhost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "");
  return h === "localhost" || /^\d{1,3}(\.\d{1,3}){3}$/.test(h) || h.includes(":");
}

const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const TOKEN_HEADER = "x-amz-meta-paimon-rt-write-token";
const MAX_BACKOFF_MS = 5000;
const MAX_DELETE_KEYS = 1000;

interface S3Response {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Uint8Array;
}

interface RequestSpec {
  readonly method: string;
  readonly bucket: string;
  readonly key: string;
  readonly query?: ReadonlyArray<readonly [string, string]>;
  readonly headers?: Record<string, string>;
  readonly body?: Uint8Array;
  /** Extra statuses that are retried (besides network errors, 5xx, 429). */
  readonly retryStatuses?: readonly number[];
  /** Called before each retry (after the first attempt failed transiently). */
  readonly onRetry?: () => void;
}

/** A listing entry: full key and its size / time, or a common prefix (directory). */
interface ListedObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified: number;
}

export class S3FileIO implements FileIO {
  readonly scheme = "s3";
  readonly readOnly = false;
  private readonly endpoint: URL;
  private readonly region: string;
  private readonly pathStyle: boolean;
  private readonly credentials: S3FileIOOptions["credentials"];
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly checkConflicts: boolean;
  private readonly probeConditionalWrites: boolean;
  private readonly multipartThreshold: number;
  private readonly partBytes: number;
  private readonly pageSize: number;
  private readonly fetchFn: typeof fetch;
  /** The constructor's options with the environment's defaults filled in; null with a custom fetch (not shareable). */
  private readonly shared: S3FileIOOptions | null;

  constructor(options: S3FileIOOptions = {}) {
    const f = options.fetch ?? (globalThis as { fetch?: typeof fetch }).fetch;
    if (!f) throw new PaimonError("UNSUPPORTED", "S3FileIO needs fetch(), which this runtime lacks");
    // called as a plain function: browsers and workerd throw "Illegal invocation" when their native
    // fetch is called as a method of another object
    this.fetchFn = (input, init) => f(input, init);
    this.region = options.region ?? envVar("AWS_REGION") ?? envVar("AWS_DEFAULT_REGION") ?? "us-east-1";
    const endpoint =
      options.endpoint ?? envVar("AWS_ENDPOINT_URL_S3") ?? envVar("AWS_ENDPOINT_URL") ?? `https://s3.${this.region}.amazonaws.com`;
    try {
      this.endpoint = new URL(endpoint);
    } catch (e) {
      throw new PaimonError("INVALID_ARGUMENT", `invalid S3 endpoint URL ${endpoint}`, { cause: e });
    }
    if (this.endpoint.protocol !== "http:" && this.endpoint.protocol !== "https:") {
      throw new PaimonError("INVALID_ARGUMENT", `S3 endpoint must be http(s): ${endpoint}`);
    }
    this.pathStyle = options.pathStyle ?? isIpOrLocalhost(this.endpoint.hostname);
    const accessKeyId = envVar("AWS_ACCESS_KEY_ID");
    const secretAccessKey = envVar("AWS_SECRET_ACCESS_KEY");
    this.credentials =
      options.credentials ??
      (accessKeyId && secretAccessKey
        ? { accessKeyId, secretAccessKey, sessionToken: envVar("AWS_SESSION_TOKEN") }
        : undefined);
    this.timeoutMs = options.requestTimeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 5;
    this.baseDelayMs = options.retryBaseDelayMs ?? 100;
    this.checkConflicts = options.checkDirectoryConflicts ?? false;
    this.probeConditionalWrites = (options.conditionalWrites ?? "probe") === "probe";
    if (options.conditionalWrites !== undefined && options.conditionalWrites !== "probe" && options.conditionalWrites !== "trust") {
      throw new PaimonError("INVALID_ARGUMENT", `S3FileIO option conditionalWrites must be "probe" or "trust", got ${String(options.conditionalWrites)}`);
    }
    this.multipartThreshold = options.multipartThresholdBytes ?? 64 * 1024 * 1024;
    this.partBytes = options.multipartPartBytes ?? 16 * 1024 * 1024;
    if (!Number.isSafeInteger(this.partBytes) || this.partBytes < 1 || !Number.isSafeInteger(this.multipartThreshold) || this.multipartThreshold < 0) {
      throw new PaimonError("INVALID_ARGUMENT", `S3FileIO multipart sizes must be positive integers (threshold ${this.multipartThreshold}, part ${this.partBytes})`);
    }
    this.pageSize = options.listPageSize ?? 1000;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > 1000) {
      throw new PaimonError("INVALID_ARGUMENT", `S3FileIO option listPageSize must be an integer in 1..1000, got ${this.pageSize}`);
    }
    for (const [name, v] of [["requestTimeoutMs", this.timeoutMs], ["maxRetries", this.maxRetries], ["retryBaseDelayMs", this.baseDelayMs]] as const) {
      if (!Number.isFinite(v) || v < 0) throw new PaimonError("INVALID_ARGUMENT", `S3FileIO option ${name} must be >= 0, got ${v}`);
    }
    const c = this.credentials;
    this.shared = options.fetch || typeof c === "function" ? null : { ...options, endpoint: this.endpoint.href, region: this.region, pathStyle: this.pathStyle, credentials: c && { ...c } };
  }

  sharedOptions(): SharedFileIOOptions | undefined {
    return this.shared ? { kind: "s3", options: { ...this.shared } } : undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Requests

  private url(bucket: string, key: string): { url: string; host: string; path: string } {
    const encodedKey = uriEncode(key, true);
    const base = this.endpoint.pathname.replace(/\/+$/, "");
    if (this.pathStyle) {
      const path = `${base}/${uriEncode(bucket)}${key === "" ? "/" : `/${encodedKey}`}`;
      return { url: `${this.endpoint.origin}${path}`, host: this.endpoint.host, path };
    }
    const host = `${bucket}.${this.endpoint.host}`;
    const path = `${base}/${encodedKey}`;
    return { url: `${this.endpoint.protocol}//${host}${path}`, host, path };
  }

  private async attempt(spec: RequestSpec): Promise<S3Response> {
    const { url, host, path } = this.url(spec.bucket, spec.key);
    const query = spec.query ?? [];
    const qs = query.map(([k, v]) => (v === "" ? uriEncode(k) : `${uriEncode(k)}=${uriEncode(v)}`)).join("&");
    let headers: Record<string, string> = { ...(spec.headers ?? {}) };
    if (this.credentials) {
      const payloadHash = spec.body && spec.body.byteLength > 0 ? await sha256Hex(spec.body) : EMPTY_SHA256;
      const signed = await signRequest({
        method: spec.method,
        path,
        query,
        headers: { ...headers, host },
        payloadHash,
        addContentSha256: true,
        region: this.region,
        service: "s3",
        credentials: typeof this.credentials === "function" ? await this.credentials() : this.credentials,
      });
      headers = { ...signed.headers };
      delete headers["host"]; // fetch sets it from the URL (browsers forbid setting it)
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const res = await this.fetchFn(qs ? `${url}?${qs}` : url, {
        method: spec.method,
        headers,
        body: spec.body as BodyInit | undefined,
        signal: controller.signal,
        redirect: "manual",
      });
      const body = spec.method === "HEAD" ? new Uint8Array(0) : new Uint8Array(await res.arrayBuffer());
      return { status: res.status, headers: res.headers, body };
    } finally {
      clearTimeout(timer);
    }
  }

  /** One logical request with retries. Network errors after the last retry become `IO_ERROR`. */
  private async send(op: string, path: string, spec: RequestSpec): Promise<S3Response> {
    let lastError: unknown;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) {
        spec.onRetry?.();
        const cap = Math.min(MAX_BACKOFF_MS, this.baseDelayMs * 2 ** (attempt - 1));
        await new Promise((r) => setTimeout(r, Math.random() * cap));
      }
      let res: S3Response | undefined;
      try {
        res = await this.attempt(spec);
      } catch (e) {
        lastError = e;
      }
      if (res) {
        const retryable = res.status >= 500 || res.status === 429 || (spec.retryStatuses ?? []).includes(res.status);
        if (!retryable) return res;
        lastError = new Error(`HTTP ${res.status}${errorCodeOf(res) ? ` ${errorCodeOf(res)}` : ""}`);
        if (attempt >= this.maxRetries) return res;
      } else if (attempt >= this.maxRetries) {
        const msg = (lastError as Error)?.name === "AbortError" ? `timed out after ${this.timeoutMs} ms` : (lastError as Error)?.message ?? String(lastError);
        throw fsError("IO_ERROR", op, path, `request failed after ${attempt + 1} attempts: ${msg}`, lastError);
      }
    }
  }

  private fail(op: string, path: string, res: S3Response): never {
    const code = errorCodeOf(res);
    const detail = `HTTP ${res.status}${code ? ` ${code}` : ""}`;
    if (res.status === 404) throw fsError("NOT_FOUND", op, path, detail);
    throw fsError("IO_ERROR", op, path, detail);
  }

  private loc(path: string): S3Location {
    return parseS3Path(path);
  }

  private async head(op: string, path: string, loc: S3Location): Promise<S3Response | null> {
    if (loc.key === "") return null;
    const res = await this.send(op, path, { method: "HEAD", bucket: loc.bucket, key: loc.key });
    if (res.status === 404) return null;
    if (res.status !== 200) this.fail(op, path, res);
    return res;
  }

  /** One page of ListObjectsV2. */
  private async listPage(
    op: string,
    path: string,
    bucket: string,
    prefix: string,
    delimiter: string | null,
    maxKeys: number,
    token: string | null,
  ): Promise<{ objects: ListedObject[]; prefixes: string[]; next: string | null }> {
    const query: [string, string][] = [["list-type", "2"], ["prefix", prefix], ["max-keys", String(maxKeys)]];
    if (delimiter !== null) query.push(["delimiter", delimiter]);
    if (token !== null) query.push(["continuation-token", token]);
    const res = await this.send(op, path, { method: "GET", bucket, key: "", query });
    if (res.status === 404) throw fsError("NOT_FOUND", op, path, `bucket ${bucket} does not exist (${errorCodeOf(res) ?? "404"})`);
    if (res.status !== 200) this.fail(op, path, res);
    return parseListing(new TextDecoder().decode(res.body));
  }

  /** Whether any key lies under `key/` (the path is a directory). */
  private async isDirectory(op: string, path: string, loc: S3Location): Promise<boolean> {
    if (loc.key === "") return true;
    const page = await this.listPage(op, path, loc.bucket, `${loc.key}/`, "/", 1, null);
    return page.objects.length > 0 || page.prefixes.length > 0;
  }

  /** All keys under `prefix` (recursive), following continuation tokens. */
  private async listAll(op: string, path: string, bucket: string, prefix: string): Promise<ListedObject[]> {
    const out: ListedObject[] = [];
    let token: string | null = null;
    do {
      const page = await this.listPage(op, path, bucket, prefix, null, this.pageSize, token);
      out.push(...page.objects);
      token = page.next;
    } while (token !== null);
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // FileIO

  async exists(path: string): Promise<boolean> {
    const loc = this.loc(path);
    if (await this.head("exists", path, loc)) return true;
    return this.isDirectory("exists", path, loc);
  }

  /** One HEAD: a file (object) at `path`, not a directory prefix. */
  async fileExists(path: string): Promise<boolean> {
    return (await this.head("exists", path, this.loc(path))) !== null;
  }

  async readFile(path: string): Promise<Uint8Array> {
    const bytes = await this.readFileIfExists(path);
    if (bytes === null) throw fsError("NOT_FOUND", "read", path, "no such object");
    return bytes;
  }

  async readFileIfExists(path: string): Promise<Uint8Array | null> {
    const loc = this.loc(path);
    if (loc.key === "") throw fsError("IO_ERROR", "read", path, "is a directory (bucket root)");
    const res = await this.send("read", path, { method: "GET", bucket: loc.bucket, key: loc.key });
    if (res.status === 200) return res.body;
    if (res.status === 404) {
      if (await this.isDirectory("read", path, loc)) throw fsError("IO_ERROR", "read", path, "is a directory");
      return null;
    }
    return this.fail("read", path, res);
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    checkRange(path, offset, length);
    const loc = this.loc(path);
    if (length === 0) {
      const size = await this.fileSize(path);
      if (offset > size) throw shortReadError(path, offset, length, size);
      return new Uint8Array(0);
    }
    const res = await this.send("read", path, {
      method: "GET",
      bucket: loc.bucket,
      key: loc.key,
      headers: { range: `bytes=${offset}-${offset + length - 1}` },
    });
    if (res.status === 404) {
      if (await this.isDirectory("read", path, loc)) throw fsError("IO_ERROR", "read", path, "is a directory");
      return this.fail("read", path, res);
    }
    if (res.status === 416) {
      const size = parseTotal(res.headers.get("content-range")) ?? (await this.fileSize(path));
      throw shortReadError(path, offset, length, size);
    }
    if (res.status === 206) {
      if (res.body.byteLength < length) {
        const total = parseTotal(res.headers.get("content-range")) ?? offset + res.body.byteLength;
        throw shortReadError(path, offset, length, total);
      }
      return res.body.byteLength === length ? res.body : res.body.slice(0, length);
    }
    if (res.status === 200) {
      // the store ignored Range and sent the whole object
      if (offset + length > res.body.byteLength) throw shortReadError(path, offset, length, res.body.byteLength);
      return res.body.slice(offset, offset + length);
    }
    return this.fail("read", path, res);
  }

  async stat(path: string): Promise<FileStatus> {
    const loc = this.loc(path);
    const res = await this.head("stat", path, loc);
    if (res) {
      const size = Number(res.headers.get("content-length") ?? "-1");
      const mtime = Date.parse(res.headers.get("last-modified") ?? "");
      return {
        path,
        name: baseName(path),
        size: Number.isFinite(size) ? size : -1,
        isDir: false,
        modificationTime: Number.isFinite(mtime) ? mtime : 0,
      };
    }
    if (await this.isDirectory("stat", path, loc)) {
      return { path, name: baseName(path), size: 0, isDir: true, modificationTime: 0 };
    }
    throw fsError("NOT_FOUND", "stat", path, "no such object or prefix");
  }

  async fileSize(path: string): Promise<number> {
    const st = await this.stat(path);
    if (st.isDir) throw fsError("IO_ERROR", "size", path, "is a directory");
    return st.size;
  }

  async listStatus(path: string): Promise<FileStatus[]> {
    const loc = this.loc(path);
    const prefix = loc.key === "" ? "" : `${loc.key}/`;
    const dir = path.endsWith("/") && !path.endsWith("://") ? path.replace(/\/+$/, "") : path;
    const entries = new Map<string, FileStatus>();
    let sawMarker = false;
    let token: string | null = null;
    do {
      const page = await this.listPage("list", path, loc.bucket, prefix, "/", this.pageSize, token);
      for (const o of page.objects) {
        const name = o.key.slice(prefix.length);
        if (name === "") {
          sawMarker = true; // the directory's own marker object
          continue;
        }
        if (!isChildName(name)) continue; // a key such as `dir/..` is no child path
        entries.set(name, { path: joinPath(dir, name), name, size: o.size, isDir: false, modificationTime: o.lastModified });
      }
      for (const p of page.prefixes) {
        const name = p.slice(prefix.length).replace(/\/$/, "");
        if (!isChildName(name) || entries.has(name)) continue;
        entries.set(name, { path: joinPath(dir, name), name, size: 0, isDir: true, modificationTime: 0 });
      }
      token = page.next;
    } while (token !== null);
    if (entries.size === 0 && !sawMarker && loc.key !== "" && (await this.head("list", path, loc))) {
      throw fsError("IO_ERROR", "list", path, "is a file, not a directory");
    }
    return [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Throws `IO_ERROR` when `path` or one of its ancestors inside the bucket is a file. */
  private async checkNoFileOnTheWay(op: string, path: string, loc: S3Location, includeSelf: boolean): Promise<void> {
    const parts = loc.key === "" ? [] : loc.key.split("/");
    const keys: string[] = [];
    for (let i = 1; i <= parts.length - (includeSelf ? 0 : 1); i++) keys.push(parts.slice(0, i).join("/"));
    const found = await Promise.all(keys.map((k) => this.head(op, path, { ...loc, key: k })));
    const i = found.findIndex((r) => r !== null);
    if (i >= 0) throw fsError("IO_ERROR", op, path, `${keys[i]} is a file`);
  }

  async mkdirs(path: string): Promise<void> {
    const loc = this.loc(path);
    if (loc.key === "") return;
    await this.checkNoFileOnTheWay("mkdirs", path, loc, true);
    if (await this.isDirectory("mkdirs", path, loc)) return;
    const res = await this.send("mkdirs", path, { method: "PUT", bucket: loc.bucket, key: `${loc.key}/`, body: new Uint8Array(0) });
    if (res.status !== 200) this.fail("mkdirs", path, res);
  }

  private async checkWriteTarget(op: string, path: string, loc: S3Location): Promise<boolean> {
    if (loc.key === "") throw fsError("IO_ERROR", op, path, "is a directory (bucket root)");
    if (!this.checkConflicts) return true;
    const [isDir] = await Promise.all([this.isDirectory(op, path, loc), this.checkNoFileOnTheWay(op, path, loc, false)]);
    return !isDir;
  }

  async writeFile(path: string, content: FileContent): Promise<void> {
    const loc = this.loc(path);
    if (!(await this.checkWriteTarget("write", path, loc))) throw fsError("IO_ERROR", "write", path, "is a directory");
    const body = toBytes(content).slice(); // the caller may reuse its buffer while we retry
    if (body.byteLength > this.multipartThreshold && body.byteLength > this.partBytes) {
      await this.multipartUpload(path, loc, body);
      return;
    }
    const res = await this.send("write", path, { method: "PUT", bucket: loc.bucket, key: loc.key, body });
    if (res.status !== 200) this.fail("write", path, res);
  }

  /** Uploads in parts; on any failure the upload is aborted so that no parts are left behind. */
  private async multipartUpload(path: string, loc: S3Location, body: Uint8Array): Promise<void> {
    const op = "write";
    const created = await this.send(op, path, { method: "POST", bucket: loc.bucket, key: loc.key, query: [["uploads", ""]] });
    if (created.status !== 200) this.fail(op, path, created);
    const uploadId = tagText(new TextDecoder().decode(created.body), "UploadId");
    if (!uploadId) throw fsError("IO_ERROR", op, path, "CreateMultipartUpload answered without an UploadId");
    try {
      const count = Math.ceil(body.byteLength / this.partBytes);
      const etags: string[] = new Array(count);
      let next = 0;
      const worker = async () => {
        while (next < count) {
          const i = next++;
          const part = body.subarray(i * this.partBytes, Math.min(body.byteLength, (i + 1) * this.partBytes));
          const res = await this.send(op, path, {
            method: "PUT",
            bucket: loc.bucket,
            key: loc.key,
            query: [["partNumber", String(i + 1)], ["uploadId", uploadId]],
            body: part,
          });
          if (res.status !== 200) this.fail(op, path, res);
          const etag = res.headers.get("etag");
          if (!etag) throw fsError("IO_ERROR", op, path, `UploadPart ${i + 1} answered without an ETag`);
          etags[i] = etag;
        }
      };
      await Promise.all(Array.from({ length: Math.min(4, count) }, worker));
      const xml =
        "<CompleteMultipartUpload>" +
        etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(e)}</ETag></Part>`).join("") +
        "</CompleteMultipartUpload>";
      const done = await this.send(op, path, {
        method: "POST",
        bucket: loc.bucket,
        key: loc.key,
        query: [["uploadId", uploadId]],
        body: new TextEncoder().encode(xml),
      });
      // CompleteMultipartUpload can fail with 200 and an <Error> body
      if (done.status !== 200 || errorCodeOf(done) !== null) this.fail(op, path, done.status === 200 ? { ...done, status: 500 } : done);
    } catch (e) {
      await this.send("abort upload", path, { method: "DELETE", bucket: loc.bucket, key: loc.key, query: [["uploadId", uploadId]] }).catch(
        () => undefined, // the original error matters more; a bucket lifecycle rule can reap the rest
      );
      throw e;
    }
  }

  /** Once per endpoint and bucket: does the store refuse a second `If-None-Match: *` create? */
  private ensureConditionalWrites(path: string, loc: S3Location): Promise<void> {
    if (!this.probeConditionalWrites) return Promise.resolve();
    let perFetch = probes.get(this.fetchFn);
    if (!perFetch) probes.set(this.fetchFn, (perFetch = new Map()));
    const cacheKey = `${this.endpoint.href}|${loc.bucket}`;
    let probe = perFetch.get(cacheKey);
    if (!probe) {
      probe = this.probe(path, loc);
      perFetch.set(cacheKey, probe);
      probe.catch(() => perFetch!.delete(cacheKey)); // a network failure is not a verdict: probe again next time
    }
    return probe;
  }

  private async probe(path: string, loc: S3Location): Promise<void> {
    const dir = loc.key.includes("/") ? loc.key.slice(0, loc.key.lastIndexOf("/") + 1) : "";
    const key = `${dir}.paimon-rt-conditional-write-probe-${randomId()}`;
    const put = () =>
      this.send("probe conditional writes", path, {
        method: "PUT",
        bucket: loc.bucket,
        key,
        body: new Uint8Array(0),
        headers: { "if-none-match": "*" },
      });
    const unsupported = (why: string) =>
      new PaimonError(
        "UNSUPPORTED",
        `the S3 store at ${this.endpoint.origin} (bucket ${loc.bucket}) ${why}: it cannot keep concurrent commits ` +
          `apart, so commits are refused (use a store with S3 conditional writes: AWS S3, MinIO, Ceph RGW, R2; ` +
          `or conditionalWrites: "trust" if you know better)`,
      );
    const first = await put();
    try {
      if (first.status === 501 || first.status === 400) throw unsupported(`rejects If-None-Match: * (HTTP ${first.status} ${errorCodeOf(first) ?? ""})`.trim());
      // 412 for a fresh random key: an earlier attempt of ours landed and the store refused the retry
      if (first.status === 412) return;
      if (first.status !== 200) this.fail("probe conditional writes", path, first);
      const second = await put();
      if (second.status === 200) throw unsupported("ignores If-None-Match: * (a second create of the same key succeeded)");
      if (second.status !== 412) this.fail("probe conditional writes", path, second);
    } finally {
      await this.deleteKey("probe conditional writes", path, loc.bucket, key).catch(() => undefined);
    }
  }

  async writeFileAtomicNoReplace(path: string, content: FileContent): Promise<boolean> {
    const loc = this.loc(path);
    if (!(await this.checkWriteTarget("publish", path, loc))) return false;
    await this.ensureConditionalWrites(path, loc);
    const body = toBytes(content).slice();
    const token = randomId();
    let retried = false;
    const res = await this.send("publish", path, {
      method: "PUT",
      bucket: loc.bucket,
      key: loc.key,
      body,
      headers: { "if-none-match": "*", [TOKEN_HEADER]: token },
      // 409 ConditionalRequestConflict: a concurrent conditional write is in flight (AWS); retry
      retryStatuses: [409],
      onRetry: () => (retried = true),
    });
    if (res.status === 200) return true;
    if (res.status === 412) {
      if (!retried) return false;
      // An earlier attempt may have landed although its response was lost: it is ours when the
      // object carries our write token.
      const existing = await this.head("publish", path, loc);
      return existing !== null && existing.headers.get(TOKEN_HEADER) === token;
    }
    return this.fail("publish", path, res);
  }

  async delete(path: string): Promise<boolean> {
    const loc = this.loc(path);
    const existing = await this.head("delete", path, loc);
    if (!existing) {
      if (loc.key !== "" && (await this.isDirectory("delete", path, loc))) {
        throw fsError("IO_ERROR", "delete", path, "is a directory");
      }
      if (loc.key === "") throw fsError("IO_ERROR", "delete", path, "is a directory (bucket root)");
      return false;
    }
    await this.deleteKey("delete", path, loc.bucket, loc.key);
    return true;
  }

  private async deleteKey(op: string, path: string, bucket: string, key: string): Promise<void> {
    const res = await this.send(op, path, { method: "DELETE", bucket, key });
    if (res.status !== 204 && res.status !== 200 && res.status !== 404) this.fail(op, path, res);
  }

  /** DeleteObjects, 1000 keys a request (the S3 maximum); a single key is a plain DELETE. */
  private async deleteKeys(op: string, path: string, bucket: string, keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += MAX_DELETE_KEYS) {
      const chunk = keys.slice(i, i + MAX_DELETE_KEYS);
      if (chunk.length === 1) {
        await this.deleteKey(op, path, bucket, chunk[0]!);
        continue;
      }
      // Quiet: the answer lists only failures (a missing key is no failure)
      const body = new TextEncoder().encode(
        `<Delete><Quiet>true</Quiet>${chunk.map((k) => `<Object><Key>${escapeXml(k)}</Key></Object>`).join("")}</Delete>`,
      );
      // S3 wants an integrity header on DeleteObjects: SHA-256 (WebCrypto has no MD5)
      const checksum = base64OfHex(await sha256Hex(body));
      const res = await this.send(op, path, {
        method: "POST",
        bucket,
        key: "",
        query: [["delete", ""]],
        body,
        headers: { "content-type": "application/xml", "x-amz-checksum-sha256": checksum, "x-amz-sdk-checksum-algorithm": "SHA256" },
      });
      if (res.status !== 200) this.fail(op, path, res);
      const errors = [...new TextDecoder().decode(res.body).matchAll(/<Error>([\s\S]*?)<\/Error>/g)].map(
        (m) => `${tagText(m[1]!, "Key")} (${tagText(m[1]!, "Code")})`,
      );
      if (errors.length > 0) {
        throw fsError("IO_ERROR", op, path, `could not delete ${errors.length} of ${chunk.length} objects: ${errors.slice(0, 5).join(", ")}${errors.length > 5 ? ", …" : ""}`);
      }
    }
  }

  /** Deletes files (missing ones are fine) with DeleteObjects, 1000 keys a request per bucket. */
  async deleteFiles(paths: readonly string[]): Promise<void> {
    const byBucket = new Map<string, string[]>();
    for (const p of paths) {
      const loc = this.loc(p);
      if (loc.key === "") throw fsError("IO_ERROR", "delete", p, "is a directory (bucket root)");
      let keys = byBucket.get(loc.bucket);
      if (!keys) byBucket.set(loc.bucket, (keys = []));
      keys.push(loc.key);
    }
    for (const [bucket, keys] of byBucket) await this.deleteKeys("delete", paths.length === 1 ? paths[0]! : `${paths.length} files in s3://${bucket}`, bucket, keys);
  }

  async deleteDirectory(path: string): Promise<boolean> {
    const loc = this.loc(path);
    const prefix = loc.key === "" ? "" : `${loc.key}/`;
    const keys = (await this.listAll("deleteDirectory", path, loc.bucket, prefix)).map((o) => o.key);
    // deepest first, the directory markers last, so an interrupted delete leaves a listable tree
    keys.sort((a, b) => b.length - a.length);
    await this.deleteKeys("deleteDirectory", path, loc.bucket, keys);
    const file = await this.head("deleteDirectory", path, loc);
    if (file) await this.deleteKey("deleteDirectory", path, loc.bucket, loc.key);
    return keys.length > 0 || file !== null;
  }

  async rename(from: string, to: string): Promise<boolean> {
    const src = this.loc(from);
    const dst = this.loc(to);
    const op = "rename";
    const label = `${from} -> ${to}`;
    if (await this.exists(to)) return false;
    if (await this.head(op, label, src)) {
      await this.copy(label, src, dst.bucket, dst.key);
      await this.deleteKey(op, label, src.bucket, src.key);
      return true;
    }
    const prefix = `${src.key}/`;
    const objects = await this.listAll(op, label, src.bucket, prefix);
    if (objects.length === 0) throw fsError("NOT_FOUND", op, from, "no such object or prefix");
    for (const o of objects) await this.copy(label, { ...src, key: o.key }, dst.bucket, `${dst.key}/${o.key.slice(prefix.length)}`);
    await this.deleteKeys(op, label, src.bucket, objects.map((o) => o.key));
    return true;
  }

  private async copy(label: string, src: S3Location, bucket: string, key: string): Promise<void> {
    const res = await this.send("rename", label, {
      method: "PUT",
      bucket,
      key,
      headers: { "x-amz-copy-source": `/${uriEncode(src.bucket)}/${uriEncode(src.key, true)}` },
    });
    // CopyObject can fail with 200 and an <Error> body
    if (res.status !== 200 || /<Error>/.test(new TextDecoder().decode(res.body.subarray(0, 512)))) {
      this.fail("rename", label, res.status === 200 ? { ...res, status: 500 } : res);
    }
  }
}

/** Verdicts of the conditional-write probe, per fetch function and `endpoint|bucket`. */
const probes = /* @__PURE__ */ new WeakMap<typeof fetch, Map<string, Promise<void>>>();

function base64OfHex(hex: string): string {
  let binary = "";
  for (let i = 0; i < hex.length; i += 2) binary += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16));
  return btoa(binary);
}

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function errorCodeOf(res: S3Response): string | null {
  if (res.body.byteLength === 0) return null;
  const m = /<Code>([^<]*)<\/Code>/.exec(new TextDecoder().decode(res.body.subarray(0, 2048)));
  return m ? m[1]! : null;
}

// "bytes a-b/total" or "bytes (star)/total" -> total
function parseTotal(v: string | null): number | null {
  const m = v ? /\/\s*(\d+)\s*$/.exec(v) : null;
  return m ? Number(m[1]) : null;
}

function decodeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
    if (e[0] === "#") return String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[e as "amp"];
  });
}

function tagText(xml: string, tag: string): string | null {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml);
  return m ? decodeXml(m[1]!) : null;
}

/** Parses a ListObjectsV2 response (`ListBucketResult`). */
export function parseListing(xml: string): { objects: ListedObject[]; prefixes: string[]; next: string | null } {
  const objects: ListedObject[] = [];
  for (const m of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
    const key = tagText(m[1]!, "Key");
    if (key === null) continue;
    const size = Number(tagText(m[1]!, "Size") ?? "0");
    const lm = Date.parse(tagText(m[1]!, "LastModified") ?? "");
    objects.push({ key, size, lastModified: Number.isFinite(lm) ? lm : 0 });
  }
  const prefixes: string[] = [];
  for (const m of xml.matchAll(/<CommonPrefixes>([\s\S]*?)<\/CommonPrefixes>/g)) {
    const p = tagText(m[1]!, "Prefix");
    if (p !== null) prefixes.push(p);
  }
  const truncated = tagText(xml, "IsTruncated") === "true";
  const next = truncated ? tagText(xml, "NextContinuationToken") : null;
  return { objects, prefixes, next };
}

