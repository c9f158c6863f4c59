/**
 * What a commit and a cold query cost on S3, in requests (against Ceph RGW, counted by a fetch
 * wrapper that forwards everything): snapshot discovery reads the LATEST hint and probes the next
 * id with one HEAD like Java's HintFileUtils, never listing the snapshot directory once the table
 * has a hint; nothing is ever renamed (S3 has no rename: no CopyObject in any trace); session-token
 * credentials are signed and sent on every request.
 */
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { Catalog, Table } from "../../src/index.js";
import { S3FileIO } from "../../src/fs/s3-file-io.js";
import { S3_SKIP_MESSAGE, freshS3Root, s3TestBucket, testS3FileIO } from "./s3-server.js";

function batch(ids: number[]): arrow.RecordBatch {
  return new arrow.RecordBatch({
    id: arrow.makeData({ type: new arrow.Int64(), length: ids.length, data: BigInt64Array.from(ids.map(BigInt)) }),
    name: arrow.vectorFromArray(ids.map((i) => `name-${i}`), new arrow.Utf8()).data[0],
  });
}

/** A request as the trace shows it: method, the key's last two segments, LIST prefix tail, ranged. */
interface Traced {
  readonly line: string;
  readonly headers: Record<string, string>;
}

/** A fetch that records every request (with its headers) and forwards it unchanged. */
function tracingFetch(trace: Traced[]): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    const headers = (init?.headers ?? {}) as Record<string, string>;
    const prefix = url.searchParams.get("prefix");
    const keysInBody = () => (new TextDecoder().decode(init?.body as Uint8Array).match(/<Key>/g) ?? []).length;
    const name =
      prefix !== null
        ? `LIST ${prefix.split("/").slice(-2).join("/")}`
        : url.searchParams.has("delete")
          ? `DeleteObjects ${keysInBody()} keys`
          : `${init?.method} ${url.pathname.split("/").slice(-2).join("/")}`;
    trace.push({ line: `${name}${headers.range ? " (range)" : ""}`, headers });
    return fetch(input, init);
  };
}

/** The trace with random file names replaced by their kind, so runs compare exactly. */
function shape(trace: Traced[]): string[] {
  return trace.map((t) =>
    t.line
      .replace(/manifest-list-[0-9a-f-]{36}-\d+/, "manifest-list")
      .replace(/manifest-[0-9a-f-]{36}-\d+/, "manifest")
      .replace(/data-[0-9a-f-]{36}-\d+\.parquet/, "data.parquet")
      .replace(/\.paimon-rt-conditional-write-probe-[0-9a-f-]{36}/, "probe"),
  );
}

async function readIdsOf(table: Table): Promise<number[]> {
  const plan = await table.newScan().plan();
  return (await table.newRead().toArrow(plan.splits)).toArray().map((r) => Number(r.toJSON().id));
}

/**
 * The latest-snapshot lookup sends the probe of the next id (HEAD) and the GET of the hinted
 * snapshot together, so their order in a trace is the network's: compare that pair unordered.
 */
function hintRound(t: readonly string[]): string[] {
  const i = t.indexOf("GET snapshot/LATEST");
  if (i < 0 || i + 2 >= t.length) return [...t];
  return [...t.slice(0, i + 1), ...t.slice(i + 1, i + 3).sort(), ...t.slice(i + 3)];
}

if (s3TestBucket === null) {
  describe.skip(`S3 request counts — ${S3_SKIP_MESSAGE}`, () => {
    it("needs an S3 server", () => undefined);
  });
} else {
  describe("S3 requests per commit and per cold query (Ceph RGW)", () => {
    it("a commit reads the hint, probes one id, publishes conditionally; a cold query lists only the schema directory", async () => {
      const warehouse = freshS3Root("requests");
      const catalog = await Catalog.open(warehouse);
      await catalog.createDatabase("db");
      const created = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }], options: { bucket: 1, "bucket-key": "id" } });
      const trace: Traced[] = [];
      const table = await Table.open(created.location, { fileIO: new S3FileIO({ fetch: tracingFetch(trace) }) });
      const commitTraces: string[][] = [];
      for (let i = 1; i <= 3; i++) {
        const w = await table.newWrite({ commitUser: "u" });
        await w.write(batch([i]));
        const messages = await w.prepareCommit(i);
        await w.close();
        trace.length = 0;
        expect(await table.newCommit({ commitUser: "u" }).commit(messages, i)).toBe(i);
        commitTraces.push(shape(trace));
      }
      const commitTail = ["PUT manifest/manifest-list", "PUT manifest/manifest", "PUT manifest/manifest-list"];
      // the first commit of a table: no hint yet (GET 404, then the directory check of the 404, a listing)
      // and the once-per-bucket conditional-write probe
      expect(commitTraces[0]).toEqual([
        "GET snapshot/LATEST",
        "LIST LATEST/",
        "LIST snapshot/",
        "HEAD t/snapshot",
        "LIST schema/",
        "GET schema/schema-0",
        ...commitTail,
        "PUT snapshot/probe",
        "PUT snapshot/probe",
        "DELETE snapshot/probe",
        "PUT snapshot/snapshot-1",
        "PUT snapshot/LATEST",
      ]);
      // every later commit: 12 requests, no snapshot listing
      for (const [i, t] of commitTraces.slice(1).entries()) {
        const id = i + 2;
        expect(hintRound(t)).toEqual(
          hintRound([
            "GET snapshot/LATEST",
            `HEAD snapshot/snapshot-${id}`,
            `GET snapshot/snapshot-${id - 1}`,
            "LIST schema/",
            "GET schema/schema-0",
            "GET manifest/manifest-list",
            "GET manifest/manifest-list",
            ...commitTail,
            `PUT snapshot/snapshot-${id}`,
            "PUT snapshot/LATEST",
          ]),
        );
      }

      // a cold query (new client, new Table): schema, hint, probe, snapshot, 2 manifest lists,
      // 3 manifests, and one ranged GET per data file (the footer read of these small files covers
      // their column chunks, which are sliced from it rather than fetched again)
      trace.length = 0;
      const cold = await Table.open(created.location, { fileIO: new S3FileIO({ fetch: tracingFetch(trace) }) });
      const plan = await cold.newScan().plan();
      expect((await cold.newRead().toArrow(plan.splits)).numRows).toBe(3);
      expect(hintRound(shape(trace))).toEqual(hintRound([
        "LIST schema/",
        "GET schema/schema-0",
        "GET snapshot/LATEST",
        "HEAD snapshot/snapshot-4",
        "GET snapshot/snapshot-3",
        "GET manifest/manifest-list",
        "GET manifest/manifest-list",
        ...Array(3).fill("GET manifest/manifest"),
        ...Array(3).fill("GET bucket-0/data.parquet (range)"),
      ]));
      // S3 has no rename, and we never ask for one: no CopyObject anywhere
      expect(trace.filter((t) => "x-amz-copy-source" in t.headers)).toEqual([]);
      await testS3FileIO().deleteDirectory(warehouse);
    });

    it("expiry and orphan removal delete in batches (DeleteObjects), not one request per file", async () => {
      const warehouse = freshS3Root("batch-delete");
      const catalog = await Catalog.open(warehouse);
      await catalog.createDatabase("db");
      const created = await catalog.createTable("db.t", { fields: [{ name: "id", type: "BIGINT" }, { name: "name", type: "STRING" }], options: { bucket: 1, "bucket-key": "id" } });
      const trace: Traced[] = [];
      const table = await Table.open(created.location, { fileIO: new S3FileIO({ fetch: tracingFetch(trace) }) });
      for (let i = 1; i <= 3; i++) {
        const w = await table.newWrite({ commitUser: "u" });
        await w.write(batch([i]));
        await table.newCommit({ commitUser: "u" }).commit(await w.prepareCommit(i), i);
        await w.close();
      }
      // leftovers of killed writers: 4 data files
      const io = testS3FileIO();
      const orphans = [0, 1, 2, 3].map((i) => `${created.location}/bucket-0/data-00000000-0000-0000-0000-00000000000${i}-0.parquet`);
      for (const p of orphans) await io.writeFile(p, "orphan");
      trace.length = 0;
      const removed = await table.removeOrphanFiles({ olderThanMs: 0 });
      expect(removed.deleted).toEqual(orphans.map((p) => p.slice(created.location.length + 1)));
      expect(shape(trace).filter((l) => /^(DELETE|DeleteObjects)/.test(l))).toEqual(["DeleteObjects 4 keys"]);
      for (const p of orphans) expect(await io.exists(p)).toBe(false);

      // expiring 2 of 3 snapshots of an append table: the snapshot files one by one, oldest
      // first (expiry stops at one it cannot delete), then their manifest lists (2 each) and the
      // manifests only they name in one batch
      trace.length = 0;
      expect(await table.newCommit({ commitUser: "u" }).expireSnapshots({ retainMax: 1, retainMin: 1, olderThanMs: 0 })).toBe(2);
      expect(shape(trace).filter((l) => /^(DELETE|DeleteObjects)/.test(l))).toEqual(["DELETE snapshot/snapshot-1", "DELETE snapshot/snapshot-2", "DeleteObjects 4 keys"]);
      expect((await readIdsOf(created)).sort()).toEqual([1, 2, 3]);
      // no rename behind either (S3 has none: it would be CopyObject + DELETE)
      expect(trace.filter((t) => "x-amz-copy-source" in t.headers)).toEqual([]);
      await io.deleteDirectory(warehouse);
    });

    it("temporary (STS-style) credentials from AWS_SESSION_TOKEN: every request carries and signs x-amz-security-token", async () => {
      const saved = process.env.AWS_SESSION_TOKEN;
      process.env.AWS_SESSION_TOKEN = "FwoGZXIvYXdzEXAMPLE/token+with=chars";
      try {
        const trace: Traced[] = [];
        const io = new S3FileIO({ fetch: tracingFetch(trace) });
        // RGW without STS configured may refuse a token it did not issue; what we check is what we send
        await io.exists(`s3://${s3TestBucket}/tests/token-probe`).catch(() => false);
        expect(trace.length).toBeGreaterThan(0);
        for (const t of trace) {
          expect(t.headers["x-amz-security-token"]).toBe("FwoGZXIvYXdzEXAMPLE/token+with=chars");
          expect(t.headers.authorization).toMatch(/SignedHeaders=[^,]*x-amz-security-token/);
        }
      } finally {
        if (saved === undefined) delete process.env.AWS_SESSION_TOKEN;
        else process.env.AWS_SESSION_TOKEN = saved;
      }
    });
  });
}
