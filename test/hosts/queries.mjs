// The reads every runtime suite runs (Node, headless Chromium, workerd) through the public
// `paimon-rt/edge` API only. Plain JavaScript so that it bundles as is; returns JSON-friendly
// results (bigint as string) so the runtimes' answers compare exactly with the Node read.

/** Rows of an Arrow table as plain objects, bigints as strings, sorted by id. */
function plainRows(table) {
  const out = table.toArray().map((row) => {
    const o = {};
    for (const [k, v] of Object.entries(row.toJSON())) o[k] = typeof v === "bigint" ? String(v) : v;
    return o;
  });
  return out.sort((a, b) => Number(a.id) - Number(b.id));
}

async function read(table, scanOptions, readOptions) {
  const plan = await table.newScan(scanOptions).plan();
  return { rows: plainRows(await table.newRead(readOptions).toArrow(plan.splits)), splits: plan.splits };
}

/**
 * @param pr the `paimon-rt/edge` module namespace
 * @param warehouse the warehouse URL (http://127.0.0.1:port/… or s3://bucket/prefix)
 * @param openOptions the `Catalog.open` options (e.g. `{ s3: { endpoint, accessKeyId, … } }`)
 */
export async function runHostQueries(pr, warehouse, openOptions) {
  const catalog = await pr.Catalog.open(warehouse, openOptions);
  const out = {};
  out.databases = await catalog.listDatabases();
  out.tables = await catalog.listTables("db");

  const app = await catalog.getTable("db.app");
  out.appSnapshots = (await app.listSnapshots()).map((s) => s.id);
  out.appAll = (await read(app)).rows;
  const predicate = pr.and(pr.col("dt").eq("2024-01-02"), pr.col("id").gt(3));
  const filtered = await read(app, { filter: predicate }, { projection: ["id", "name"], filter: predicate, predicateFilter: true });
  out.appFiltered = filtered.rows;
  out.appAtSnapshot1 = (await read(await app.atSnapshot(1))).rows;
  out.appBuckets = [...new Set((await app.newScan().plan()).splits.map((s) => s.bucket))].sort();
  // a streaming read (newStreamScan) from snapshot 1: nothing yet, each snapshot's rows, nothing new
  const stream = await app.copy({ "scan.snapshot-id": "1" }).newStreamScan();
  out.appStream = [];
  for (let i = 0; i < 4; i++) {
    const p = await stream.plan();
    out.appStream.push({ snapshotId: p.snapshotId, checkpoint: stream.checkpoint(), rows: plainRows(await app.newRead({ withRowKind: true, projection: ["id"] }).toArrow(p.splits)) });
  }

  const pk = await catalog.getTable("db.pk");
  const pkRead = await read(pk);
  out.pkAll = pkRead.rows;
  out.pkDeletionFiles = pkRead.splits.some((s) => (s.deletionFiles ?? []).some((d) => d !== null && d !== undefined));
  const pkPredicate = pr.col("dt").eq("y");
  out.pkFiltered = (await read(pk, { filter: pkPredicate }, { filter: pkPredicate, predicateFilter: true, withRowKind: true })).rows;
  out.pkAtSnapshot1 = (await read(await pk.atSnapshot(1))).rows;
  out.rowKindDelete = pr.RowKind.DELETE;

  const evolved = await catalog.getTable("db.evolved");
  out.evolvedAll = (await read(evolved)).rows;
  out.evolvedAtSnapshot1 = (await read(await evolved.atSnapshot(1))).rows;

  // read-only refusals, up front; a writable warehouse (s3://) would accept them and change
  if (!catalog.fileIO.readOnly) return out;
  out.refusals = [];
  for (const attempt of [() => pk.newWrite({ commitUser: "u" }), () => pk.newCommit({ commitUser: "u" }), () => catalog.createDatabase("other")]) {
    try {
      await attempt();
      out.refusals.push("accepted");
    } catch (e) {
      out.refusals.push(e instanceof pr.PaimonError ? e.code : `not a PaimonError: ${e}`);
    }
  }
  return out;
}

/**
 * The REST catalog reads of the host suites (test/hosts/rest-hosts.test.ts): a table Java wrote
 * through Java's REST server, listed and read with `openRESTCatalog` (files on S3, signed with the
 * server's data token).
 * @param pr the `paimon-rt/edge` module namespace
 * @param restOptions the `openRESTCatalog` options
 * @param identifier the table to read, `db.table`
 */
export async function runRESTQueries(pr, restOptions, identifier) {
  const catalog = await pr.openRESTCatalog(restOptions);
  const [database] = identifier.split(".");
  const table = await catalog.getTable(identifier);
  return {
    databases: await catalog.listDatabases(),
    tables: await catalog.listTables(database),
    location: table.location,
    snapshots: (await table.listSnapshots()).map((s) => s.id),
    rows: (await read(table)).rows,
    atSnapshot1: (await read(await table.atSnapshot(1))).rows,
  };
}
