/**
 * A read-only file system over HTTP(S) with `fetch` (every runtime has it; no `node:` imports).
 *
 * - `exists` / `stat` / `fileSize`: `HEAD` (falls back to a 1-byte range `GET` when the server sends
 *   no `Content-Length`).
 * - `readFile`: `GET`; `readRange`: `GET` with `Range: bytes=a-b` (a server that ignores ranges and
 *   answers 200 still works: the body is sliced).
 * - `listStatus`: `GET <dir>/` understood as either a JSON array of `{name, type: "file"|"directory",
 *   size?, mtime?}` (nginx `autoindex_format json`) or an HTML index whose links are the entries
 *   (Python `http.server`, nginx/Apache autoindex; sizes then unknown: -1). 404 lists as `[]`.
 * - every write: `READ_ONLY`.
 *
 * Path syntax: `http(s)://host[:port]` followed by the *raw* (not percent-encoded) path, the same
 * text a local path would have, e.g. `http://h/wh/db.db/t/dt=a%2Fb/bucket-0/data-1.parquet` names
 * the directory `dt=a%2Fb` literally. Each segment is percent-encoded when a request is made.
 * {@link normalizeHttpLocation} turns a user's (encoded) warehouse URL into this syntax.
 */
import { PaimonError } from "../error.js";
import {
  type FileContent,
  type FileIO,
  type FileStatus,
  baseName,
  checkRange,
  fsError,
  isChildName,
  joinPath,
  readOnlyError,
  requireNoDotSegments,
  registerFileIOFactory,
  shortReadError,
} from "./file-io.js";

export interface HttpFileIOOptions {
  /**
   * The fetch to use (default `globalThis.fetch`). It is always called as a plain function (never as a
   * method of this FileIO), so a host's native `fetch` may be passed as is.
   */
  fetch?: typeof fetch;
  /** Extra headers for every request (e.g. `Authorization`). */
  headers?: Record<string, string>;
}

export class HttpFileIO implements FileIO {
  readonly scheme = "http";
  readonly readOnly = true;
  private readonly fetchFn: typeof fetch;
  private readonly headers: Record<string, string>;

  constructor(options: HttpFileIOOptions = {}) {
    const f = options.fetch ?? (globalThis as { fetch?: typeof fetch }).fetch;
    if (!f) throw new PaimonError("UNSUPPORTED", "HttpFileIO needs fetch(), which this runtime lacks");
    // Browsers and workerd throw "Illegal invocation" when their native fetch is called with a
    // `this` other than the global object (or undefined): never call it as a method.
    this.fetchFn = (input, init) => f(input, init);
    this.headers = { ...(options.headers ?? {}) };
  }

  private async request(op: string, path: string, method: string, extra: Record<string, string> = {}): Promise<Response> {
    const url = toRequestUrl(path);
    try {
      return await this.fetchFn(url, { method, headers: { ...this.headers, ...extra }, redirect: "follow" });
    } catch (e) {
      throw fsError("IO_ERROR", op, path, `request failed: ${(e as Error)?.message ?? String(e)}`, e);
    }
  }

  private async fail(op: string, path: string, res: Response): Promise<never> {
    await res.body?.cancel().catch(() => undefined);
    if (res.status === 404 || res.status === 410) {
      throw fsError("NOT_FOUND", op, path, `HTTP ${res.status}`);
    }
    throw fsError("IO_ERROR", op, path, `HTTP ${res.status} ${res.statusText}`.trim());
  }

  async exists(path: string): Promise<boolean> {
    const res = await this.request("exists", path, "HEAD");
    await res.body?.cancel().catch(() => undefined);
    if (res.ok) return true;
    if (res.status === 404 || res.status === 410) return false;
    return this.fail("exists", path, res);
  }

  async readFile(path: string): Promise<Uint8Array> {
    const res = await this.request("read", path, "GET");
    if (!res.ok) return this.fail("read", path, res);
    return new Uint8Array(await res.arrayBuffer());
  }

  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    checkRange(path, offset, length);
    if (length === 0) {
      await this.stat(path); // NOT_FOUND for a missing file, like the other file systems
      return new Uint8Array(0);
    }
    const res = await this.request("read", path, "GET", { Range: `bytes=${offset}-${offset + length - 1}` });
    if (res.status === 416) {
      await res.body?.cancel().catch(() => undefined);
      const size = parseTotal(res.headers.get("content-range")) ?? (await this.fileSize(path));
      throw shortReadError(path, offset, length, size);
    }
    if (!res.ok) return this.fail("read", path, res);
    const body = new Uint8Array(await res.arrayBuffer());
    if (res.status === 206) {
      const start = parseStart(res.headers.get("content-range"));
      if (start !== null && start !== offset) {
        throw fsError("IO_ERROR", "read", path, `server returned range starting at ${start}, asked ${offset}`);
      }
      if (body.byteLength < length) {
        const total = parseTotal(res.headers.get("content-range")) ?? offset + body.byteLength;
        throw shortReadError(path, offset, length, total);
      }
      return body.byteLength === length ? body : body.slice(0, length);
    }
    // 200: the server ignored Range and sent the whole file
    if (offset + length > body.byteLength) throw shortReadError(path, offset, length, body.byteLength);
    return body.slice(offset, offset + length);
  }

  async stat(path: string): Promise<FileStatus> {
    const res = await this.request("stat", path, "HEAD");
    await res.body?.cancel().catch(() => undefined);
    if (!res.ok) return this.fail("stat", path, res);
    let size = parseLength(res.headers.get("content-length"));
    if (size === null) {
      const r = await this.request("stat", path, "GET", { Range: "bytes=0-0" });
      await r.body?.cancel().catch(() => undefined);
      if (r.status === 206) size = parseTotal(r.headers.get("content-range"));
      else if (r.status === 416) size = 0;
      else if (!r.ok) return this.fail("stat", path, r);
    }
    const lm = res.headers.get("last-modified");
    const mtime = lm ? Date.parse(lm) : NaN;
    return {
      path,
      name: baseName(path),
      size: size ?? -1,
      isDir: false,
      modificationTime: Number.isFinite(mtime) ? mtime : 0,
    };
  }

  async fileSize(path: string): Promise<number> {
    const st = await this.stat(path);
    if (st.size < 0) throw fsError("IO_ERROR", "size", path, "server does not report the size");
    return st.size;
  }

  async listStatus(path: string): Promise<FileStatus[]> {
    const dirUrl = path.endsWith("/") ? path : `${path}/`;
    const res = await this.request("list", dirUrl, "GET", { Accept: "application/json, text/html;q=0.9" });
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel().catch(() => undefined);
      return [];
    }
    if (!res.ok) return this.fail("list", path, res);
    const type = res.headers.get("content-type") ?? "";
    const text = await res.text();
    let entries: FileStatus[];
    if (type.includes("json") || /^\s*\[/.test(text)) {
      entries = parseJsonListing(path, text);
    } else if (type.includes("html") || /<a\s/i.test(text)) {
      entries = parseHtmlListing(path, res.url || toRequestUrl(dirUrl), text);
    } else {
      throw fsError("UNSUPPORTED", "list", path, `server sent no directory listing (content-type ${type || "none"})`);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return entries;
  }

  async mkdirs(path: string): Promise<void> {
    throw readOnlyError("mkdirs", path, "HTTP file systems are read-only");
  }
  async writeFile(path: string, _content: FileContent): Promise<void> {
    throw readOnlyError("write", path, "HTTP file systems are read-only");
  }
  async writeFileAtomicNoReplace(path: string, _content: FileContent): Promise<boolean> {
    throw readOnlyError("publish", path, "HTTP file systems are read-only");
  }
  async delete(path: string): Promise<boolean> {
    throw readOnlyError("delete", path, "HTTP file systems are read-only");
  }
  async deleteDirectory(path: string): Promise<boolean> {
    throw readOnlyError("deleteDirectory", path, "HTTP file systems are read-only");
  }
  async rename(from: string, to: string): Promise<boolean> {
    throw readOnlyError("rename", `${from} -> ${to}`, "HTTP file systems are read-only");
  }
}

/** `http://h/raw path/x#1` -> `http://h/raw%20path/x%231` (each path segment percent-encoded). */
export function toRequestUrl(path: string): string {
  const m = /^(https?:\/\/[^/?#]+)(.*)$/is.exec(path);
  if (!m) throw fsError("INVALID_ARGUMENT", "resolve", path, "not an http(s):// URL");
  const rest = m[2]!;
  requireNoDotSegments(path, m[1]!.length);
  return m[1]! + rest.split("/").map((seg) => encodeURIComponent(seg)).join("/");
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function parseLength(v: string | null): number | null {
  if (v === null || !/^\d+$/.test(v.trim())) return null;
  return Number(v.trim());
}

// "bytes a-b/total" or "bytes (star)/total" -> total
function parseTotal(v: string | null): number | null {
  const m = v ? /\/\s*(\d+)\s*$/.exec(v) : null;
  return m ? Number(m[1]) : null;
}

function parseStart(v: string | null): number | null {
  const m = v ? /bytes\s+(\d+)-/.exec(v) : null;
  return m ? Number(m[1]) : null;
}

function parseJsonListing(path: string, text: string): FileStatus[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw fsError("IO_ERROR", "list", path, "malformed JSON directory listing", e);
  }
  if (!Array.isArray(data)) throw fsError("IO_ERROR", "list", path, "JSON directory listing is not an array");
  const out: FileStatus[] = [];
  for (const item of data) {
    if (typeof item !== "object" || item === null) continue;
    const rec = item as Record<string, unknown>;
    const name = typeof rec.name === "string" ? rec.name.replace(/\/$/, "") : null;
    if (name === null || !isChildName(name)) continue;
    const isDir = rec.type === "directory" || rec.type === "dir" || rec.isDir === true;
    const size = typeof rec.size === "number" ? rec.size : -1;
    const mt = typeof rec.mtime === "string" ? Date.parse(rec.mtime) : typeof rec.mtime === "number" ? rec.mtime : NaN;
    out.push({
      path: joinPath(path, name),
      name,
      size: isDir ? 0 : size,
      isDir,
      modificationTime: Number.isFinite(mt) ? mt : 0,
    });
  }
  return out;
}

/** Links of an HTML index that point at direct children of the directory URL. */
function parseHtmlListing(path: string, dirUrl: string, html: string): FileStatus[] {
  const base = new URL(dirUrl.endsWith("/") ? dirUrl : `${dirUrl}/`);
  const seen = new Set<string>();
  const out: FileStatus[] = [];
  const re = /<a\s[^>]*href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi;
  let m: RegExpExecArray | null;
  while ((m = re.exec(html)) !== null) {
    const href = decodeEntities(m[1] ?? m[2] ?? m[3] ?? "");
    if (!href || href.startsWith("?") || href.startsWith("#")) continue;
    let target: URL;
    try {
      target = new URL(href, base);
    } catch {
      continue;
    }
    if (target.origin !== base.origin) continue;
    const targetPath = target.pathname.split("/").map(safeDecode);
    const basePath = base.pathname.split("/").map(safeDecode);
    // base ends with "/", so its last element is ""; children have exactly one more segment
    // (plus a trailing "" for directories)
    const prefix = basePath.slice(0, -1);
    if (!prefix.every((seg, i) => targetPath[i] === seg)) continue;
    const rest = targetPath.slice(prefix.length);
    const isDir = rest.length === 2 && rest[1] === "";
    if (!(rest.length === 1 || isDir)) continue;
    const name = rest[0]!;
    if (!isChildName(name) || seen.has(name)) continue;
    seen.add(name);
    out.push({ path: joinPath(path, name), name, size: isDir ? 0 : -1, isDir, modificationTime: 0 });
  }
  return out;
}

function decodeEntities(s: string): string {
  return s
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
}

/**
 * Normalizes an http(s) warehouse URL (percent-encoded, as a user writes it) into HttpFileIO's path
 * syntax: origin + decoded path, no trailing slash. A query or fragment is not allowed.
 */
export function normalizeHttpLocation(location: string): string {
  let url: URL;
  try {
    url = new URL(location);
  } catch (e) {
    throw fsError("INVALID_ARGUMENT", "resolve", location, "not a valid URL", e);
  }
  if (url.search || url.hash) {
    throw fsError("INVALID_ARGUMENT", "resolve", location, "a warehouse URL cannot have a query or fragment");
  }
  const p = url.pathname.split("/").map(safeDecode).join("/");
  const s = url.origin + p;
  return s.endsWith("/") ? s.slice(0, -1) : s;
}

const httpFactory = (location: string) => ({ fileIO: new HttpFileIO(), root: normalizeHttpLocation(location) });
registerFileIOFactory("http", httpFactory);
registerFileIOFactory("https", httpFactory);
