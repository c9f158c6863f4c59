// removeOrphanFiles on tables Java Paimon wrote: every file Java references (manifests, index
// manifests, deletion-vector index files, changelog files, data files of older snapshots) is
// recognised as referenced, only the planted orphans go, and Java reads every snapshot exactly
// as before.
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { javaOracleUnavailable, type OracleSpec, readTables, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
const SLOW = 300_000;
let root = "";

beforeAll(async () => {
  root = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-orphan-interop-"));
});
afterAll(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

/** The columns of both tables: id (of type `idType`), v, dt. */
const fields = (idType: string) => [
  { name: "id", type: idType },
  { name: "v", type: "STRING" },
  { name: "dt", type: "STRING" },
];
const rows = (from: number, n: number, dt: string) => Array.from({ length: n }, (_, i) => ({ id: String(from + i), v: `v${from + i}`, dt }));

const TABLES: Array<{ name: string; spec: OracleSpec }> = [
  {
    name: "append_part",
    spec: {
      fields: fields("BIGINT"),
      partitionKeys: ["dt"],
      options: { bucket: "-1" },
      commits: [rows(0, 5, "a"), rows(5, 5, "b"), { rows: rows(10, 3, "a"), overwrite: { dt: "a" } }, rows(20, 2, "b")],
    },
  },
  {
    name: "pk_dv_changelog",
    spec: {
      fields: fields("BIGINT NOT NULL"),
      primaryKeys: ["id"],
      options: { bucket: "2", "deletion-vectors.enabled": "true", "changelog-producer": "input" },
      commits: [rows(0, 8, "x"), [{ _kind: "-D", id: "3", v: "v3", dt: "x" }, { _kind: "+U", id: "4", v: "w4", dt: "x" }], { rows: [], compact: true }, rows(8, 3, "x")],
    },
  },
];

describe.skipIf(noJava !== null)("removeOrphanFiles on Java-written tables", () => {
  it(
    "keeps every file Java references, deletes only the orphans, and Java reads every snapshot the same",
    async () => {
      const wh = path.join(root, "wh");
      const snapshotIds = await writeTables("java", wh, TABLES.map((t) => ({ identifier: `db.${t.name}`, spec: t.spec })));
      const requests = TABLES.flatMap((t, i) => snapshotIds[i].map((snapshot) => ({ warehouse: wh, identifier: `db.${t.name}`, snapshot, sort: true })));
      const before = await readTables("java", requests);
      for (const r of before) if (r instanceof Error) throw r;
      const catalog = await Catalog.open(wh);
      for (const t of TABLES) {
        const table = await catalog.getTable(`db.${t.name}`);
        if (t.name === "pk_dv_changelog") {
          const snapshots = await table.listSnapshots();
          expect([snapshots.some((s) => s.changelogManifestList), snapshots.some((s) => s.indexManifest)], "Java wrote changelog and DV index files").toEqual([true, true]);
        }
        // Nothing Java wrote is an orphan, even without the age guard.
        expect(await table.removeOrphanFiles({ olderThanMs: 0, dryRun: true }), t.name).toEqual({ deleted: [], bytes: 0 });
        // Plant orphans: a copy of a live data file under a new name, a dead manifest, an index file.
        const live = (await table.manifestStore.liveEntries((await table.latestSnapshot())!))[0];
        const bucketDir = table.paths.bucketDirOf(live.partition, live.bucket);
        const orphanData = path.relative(table.location, path.join(bucketDir, "data-00000000-dead-beef-0000-000000000000-0.parquet"));
        await fsp.copyFile(path.join(bucketDir, live.file.fileName), path.join(table.location, orphanData));
        await fsp.mkdir(path.join(table.location, "index"), { recursive: true });
        for (const f of ["manifest/manifest-deadbeef-0", "index/index-deadbeef-0"]) await fsp.writeFile(path.join(table.location, f), "orphan");
        const result = await table.removeOrphanFiles({ olderThanMs: 0 });
        expect(result.deleted, t.name).toEqual([orphanData, "index/index-deadbeef-0", "manifest/manifest-deadbeef-0"].sort());
      }
      const after = await readTables("java", requests);
      expect(after).toEqual(before);
    },
    SLOW,
  );
});
