/**
 * AWS Signature Version 4 (header form) with WebCrypto: no `node:` imports, runs in every runtime.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 *
 * S3 specifics the caller handles: S3 paths are encoded once (not twice as for other services), and
 * S3 wants the `x-amz-content-sha256` header, which {@link signRequest} adds when `payloadHash` is given.
 */

/** Long-term or temporary credentials. */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** For temporary credentials (STS): sent and signed as `x-amz-security-token`. */
  readonly sessionToken?: string;
}

export interface SignInput {
  readonly method: string;
  /** The canonical URI: the request path, already percent-encoded as it is sent. */
  readonly path: string;
  /** Query parameters (unencoded); a parameter without value is `""`. */
  readonly query?: ReadonlyArray<readonly [string, string]>;
  /** Headers to sign and send; `host` must be among them. Names are case-insensitive. */
  readonly headers: Record<string, string>;
  /** Hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`. Also sent as `x-amz-content-sha256` when `addContentSha256`. */
  readonly payloadHash: string;
  /** Add the `x-amz-content-sha256` header (S3 requires it). */
  readonly addContentSha256?: boolean;
  readonly region: string;
  readonly service: string;
  readonly credentials: AwsCredentials;
  /** Signing time (default now). */
  readonly date?: Date;
}

export interface SignedRequest {
  /** All headers to send (lower-case names): the input ones plus x-amz-date, authorization, …. */
  readonly headers: Record<string, string>;
  readonly canonicalRequest: string;
  readonly stringToSign: string;
  readonly signature: string;
}

const encoder = /* @__PURE__ */ new TextEncoder();

function subtle(): SubtleCrypto {
  const s = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (!s) throw new Error("WebCrypto (crypto.subtle) is not available in this runtime");
  return s;
}

function hex(buf: ArrayBuffer): string {
  const b = new Uint8Array(buf);
  let s = "";
  for (let i = 0; i < b.length; i++) s += b[i]!.toString(16).padStart(2, "0");
  return s;
}

/** Hex SHA-256 of bytes or a UTF-8 string. */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return hex(await subtle().digest("SHA-256", bytes as BufferSource));
}

async function hmac(key: Uint8Array, data: string): Promise<Uint8Array> {
  const k = await subtle().importKey("raw", key as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await subtle().sign("HMAC", k, encoder.encode(data)));
}

/** RFC 3986 percent-encoding as SigV4 wants it (unreserved: A-Z a-z 0-9 - _ . ~); `/` kept when asked. */
export function uriEncode(s: string, keepSlash = false): string {
  let out = "";
  for (const byte of encoder.encode(s)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c) || (keepSlash && c === "/")) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** `20130524T000000Z` */
export function amzDate(d: Date): string {
  return d.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

/** The canonical query string: encoded names and values, sorted by name then value. */
export function canonicalQuery(query: ReadonlyArray<readonly [string, string]>): string {
  return query
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
}

/** Signs a request; returns the headers to send (including `authorization`). */
export async function signRequest(input: SignInput): Promise<SignedRequest> {
  const when = amzDate(input.date ?? new Date());
  const day = when.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.headers)) headers[k.toLowerCase()] = v;
  headers["x-amz-date"] = when;
  if (input.addContentSha256) headers["x-amz-content-sha256"] = input.payloadHash;
  if (input.credentials.sessionToken) headers["x-amz-security-token"] = input.credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${headers[n]!.trim().replace(/\s+/g, " ")}\n`).join("");
  const signedHeaders = names.join(";");
  const canonicalRequest = [
    input.method.toUpperCase(),
    input.path === "" ? "/" : input.path,
    canonicalQuery(input.query ?? []),
    canonicalHeaders,
    signedHeaders,
    input.payloadHash,
  ].join("\n");
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", when, scope, await sha256Hex(canonicalRequest)].join("\n");
  let key = await hmac(encoder.encode(`AWS4${input.credentials.secretAccessKey}`), day);
  key = await hmac(key, input.region);
  key = await hmac(key, input.service);
  key = await hmac(key, "aws4_request");
  const signature = hex((await hmac(key, stringToSign)).buffer as ArrayBuffer);
  headers["authorization"] =
    `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, ` +
    `SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { headers, canonicalRequest, stringToSign, signature };
}
