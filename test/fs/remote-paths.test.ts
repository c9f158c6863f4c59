// Paths of URL-addressed stores (S3, HTTP) are sent through fetch, which resolves `.` and `..`
// segments before sending: a path with them reaches another object than it names (with path-style
// S3, another bucket). Such paths are refused before any request, and listings of these stores
// (data from outside) never yield an entry that is not one child of the listed directory.
import { describe, expect, it } from "vitest";
import { PaimonError } from "../../src/error.js";
import { HttpFileIO } from "../../src/fs/http-file-io.js";
import { S3FileIO } from "../../src/fs/s3-file-io.js";
import { Catalog } from "../../src/catalog/catalog.js";

/** A fetch that records the URLs it was asked for and answers with `answer(url)`. */
function recordingFetch(answer: (url: URL) => Response): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch: async (input) => {
      const url = new URL(String(input)); // what fetch itself would send (dot segments resolved)
      urls.push(url.href);
      return answer(url);
    },
  };
}

async function code(f: () => Promise<unknown>): Promise<string> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(PaimonError);
    return `${(e as PaimonError).code}: ${(e as PaimonError).message}`;
  }
  return "no failure";
}

const s3 = (f: typeof fetch) => new S3FileIO({ endpoint: "http://127.0.0.1:9", region: "us-east-1", credentials: undefined, fetch: f, maxRetries: 0 });

describe("dot segments in S3 and HTTP paths", () => {
  it("an S3 path with '..' is INVALID_ARGUMENT before any request (it reached another bucket)", async () => {
    // Before: GET http://127.0.0.1:9/other-bucket/secret (fetch resolved /bucket/t/../../other-bucket/secret).
    const r = recordingFetch(() => new Response("secret", { status: 200 }));
    const io = s3(r.fetch);
    expect(await code(() => io.readFile("s3://bucket/t/../../other-bucket/secret"))).toBe(
      "INVALID_ARGUMENT: resolve s3://bucket/t/../../other-bucket/secret: has a '.' or '..' segment",
    );
    expect(await code(() => io.delete("s3://bucket/t/./x"))).toMatch(/^INVALID_ARGUMENT: resolve s3:\/\/bucket\/t\/\.\/x:/);
    expect(await code(() => io.deleteFiles(["s3://bucket/t/a", "s3://bucket/t/../victim"]))).toMatch(/^INVALID_ARGUMENT: resolve s3:\/\/bucket\/t\/\.\.\/victim:/);
    expect(await code(() => Catalog.open("s3://bucket/wh/..", { fileIO: io }))).toMatch(/^INVALID_ARGUMENT: resolve s3:\/\/bucket\/wh\/\.\.:/);
    expect(r.urls).toEqual([]);
    // "%2e%2e" and "..." are plain key characters: sent encoded, they stay where they are.
    await io.readFile("s3://bucket/t/%2e%2e/.../x");
    expect(r.urls).toEqual(["http://127.0.0.1:9/bucket/t/%252e%252e/.../x"]);
  });

  it("an HTTP path with '..' is INVALID_ARGUMENT before any request", async () => {
    // Before: GET http://h/etc/passwd (fetch resolved /wh/db.db/t/../../../etc/passwd).
    const r = recordingFetch(() => new Response("x", { status: 200 }));
    const io = new HttpFileIO({ fetch: r.fetch });
    expect(await code(() => io.readFile("http://h/wh/db.db/t/../../../etc/passwd"))).toBe(
      "INVALID_ARGUMENT: resolve http://h/wh/db.db/t/../../../etc/passwd: has a '.' or '..' segment",
    );
    expect(await code(() => io.listStatus("http://h/wh/./x"))).toMatch(/^INVALID_ARGUMENT/);
    expect(r.urls).toEqual([]);
    await io.readFile("http://h/wh/%2e%2e/x");
    expect(r.urls).toEqual(["http://h/wh/%252e%252e/x"]);
  });
});

describe("listings of remote stores yield children only", () => {
  it("HTTP JSON and HTML listings skip names with separators or dot names", async () => {
    // Before: entries "../../other" and "a/../../b" were listed with paths outside the directory.
    const json = JSON.stringify([
      { name: "ok", type: "file", size: 1 },
      { name: "../../other", type: "directory" },
      { name: "a/../../b", type: "file" },
      { name: "..", type: "directory" },
    ]);
    const html = '<a href="fine">fine</a> <a href="a%2F..%2F..%2Fevil/">evil</a> <a href="..%2Fup">up</a>';
    const r = recordingFetch((url) =>
      url.pathname.startsWith("/json/") ? new Response(json, { headers: { "content-type": "application/json" } }) : new Response(html, { headers: { "content-type": "text/html" } }),
    );
    const io = new HttpFileIO({ fetch: r.fetch });
    expect((await io.listStatus("http://h/json/wh")).map((e) => e.path)).toEqual(["http://h/json/wh/ok"]);
    expect((await io.listStatus("http://h/html/wh")).map((e) => e.path)).toEqual(["http://h/html/wh/fine"]);
  });

  it("S3 listings skip keys whose rest is '.' or '..'", async () => {
    // Before: the key "t/.." was listed as a file named "..", whose path leads to the parent.
    const xml =
      "<ListBucketResult><IsTruncated>false</IsTruncated>" +
      "<Contents><Key>t/ok</Key><Size>1</Size></Contents>" +
      "<Contents><Key>t/..</Key><Size>1</Size></Contents>" +
      "<Contents><Key>t/.</Key><Size>1</Size></Contents>" +
      "<CommonPrefixes><Prefix>t/../</Prefix></CommonPrefixes>" +
      "</ListBucketResult>";
    const r = recordingFetch(() => new Response(xml, { status: 200 }));
    expect((await s3(r.fetch).listStatus("s3://bucket/t")).map((e) => e.path)).toEqual(["s3://bucket/t/ok"]);
  });
});
