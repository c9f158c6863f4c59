// The `paimon-rt serve` explorer: runs in the browser on `paimon-rt/edge` and reads the warehouse the
// server exposes under /warehouse/ over HTTP. It lists databases and tables, shows a table's schema,
// options and snapshot history, and runs `paimon-rt read`'s query (where, columns, limit, snapshot,
// the table or one of its system tables)
// with the same code (queryTable), showing the rows and how many files and rows the scan read.
import { cellText } from "../cli/format.js";
import { queryTable } from "../cli/read.js";
import { Catalog, init, type Table, typeToString } from "../edge.js";

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

function setStatus(text: string): void {
  $("status").textContent = text;
}

/** Fills `table` with a header row and body rows of text cells (textContent: never parsed as HTML). */
function fillTable(table: HTMLTableElement, header: string[], rows: string[][]): void {
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  for (const h of header) {
    const th = document.createElement("th");
    th.textContent = h;
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    for (const c of r) tr.insertCell().textContent = c;
  }
}

async function fetchBytes(url: string): Promise<ArrayBuffer> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return res.arrayBuffer();
}

/** `1 split`, `2 splits` */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

let current: Table | null = null;

async function showTable(catalog: Catalog, identifier: string): Promise<void> {
  const table = await catalog.getTable(identifier);
  current = table;
  const schema = table.schema;
  $("table-name").textContent = identifier;
  const keys = [
    schema.primaryKeys.length ? `primary key: ${schema.primaryKeys.join(", ")}` : "append table (no primary key)",
    schema.partitionKeys.length ? `partitioned by: ${schema.partitionKeys.join(", ")}` : "not partitioned",
    `schema ${schema.id}`,
  ];
  $("keys").textContent = keys.join(" · ");
  fillTable($("schema"), ["id", "name", "type", "description"], schema.fields.map((f) => [String(f.id), f.name, typeToString(f.type), f.description ?? ""]));
  fillTable($("options"), ["key", "value"], Object.entries(table.options).sort(([a], [b]) => (a < b ? -1 : 1)));
  const snapshots = await table.listSnapshots();
  fillTable(
    $("snapshots"),
    ["id", "schema", "kind", "committed", "total rows", "delta rows", "commit user"],
    snapshots.map((s) => [String(s.id), String(s.schemaId), s.commitKind, new Date(s.timeMillis).toISOString(), String(s.totalRecordCount), String(s.deltaRecordCount), s.commitUser]),
  );
  const snapshotSelect = ($("query") as HTMLFormElement).elements.namedItem("snapshot") as HTMLSelectElement;
  snapshotSelect.replaceChildren(new Option("latest", ""), ...snapshots.map((s) => new Option(String(s.id), String(s.id))).reverse());
  $("query-stats").textContent = "";
  $("query-error").hidden = true;
  $<HTMLTableElement>("rows").replaceChildren();
  document.querySelectorAll<HTMLButtonElement>("nav button").forEach((b) => b.classList.toggle("selected", b.dataset.table === identifier));
  $("detail").hidden = false;
}

async function runQuery(form: HTMLFormElement): Promise<void> {
  if (!current) return;
  const value = (name: string) => ((form.elements.namedItem(name) as HTMLInputElement).value ?? "").trim();
  const select = value("select") ? value("select").split(",").map((s) => s.trim()) : undefined;
  const limit = value("limit") ? Number(value("limit")) : undefined;
  const snapshot = value("snapshot");
  const errorBox = $("query-error");
  errorBox.hidden = true;
  $("query-stats").textContent = "running…";
  try {
    // a snapshot other than the latest reads with that snapshot's schema (time travel)
    const data = snapshot ? await current.atSnapshot(Number(snapshot)) : current;
    // a system table of it (`$snapshots`, `$files`, …): its splits hold no data files
    const table = value("system") ? await data.systemTable(value("system")) : data;
    const { fields, rows, plan } = await queryTable(table, { where: value("where") || undefined, select, limit });
    const files = plan.splits.reduce((n, s) => n + (s.files?.length ?? 0), 0);
    const fileRows = plan.splits.reduce((n, s) => n + (s.files ?? []).reduce((m, f) => m + Number(f.rowCount), 0), 0);
    fillTable($("rows"), fields.map((f) => f.name), rows.map((r) => r.map(cellText)));
    $("query-stats").textContent =
      `snapshot ${plan.snapshotId ?? "none"}: ${count(plan.splits.length, "split")}, ${count(files, "data file")} (${count(fileRows, "row")}) read, ${count(rows.length, "row")} shown`;
  } catch (e) {
    $("query-stats").textContent = "";
    $<HTMLTableElement>("rows").replaceChildren();
    const err = e as { code?: string; message?: string };
    errorBox.textContent = err.code ? `${err.code}: ${err.message}` : String(err.message ?? e);
    errorBox.hidden = false;
  }
}

async function start(): Promise<void> {
  setStatus("loading wasm…");
  const [kernels, parquet] = await Promise.all([fetchBytes("kernels.wasm"), fetchBytes("parquet.wasm")]);
  await init({ kernels, parquet });
  const warehouse = new URL("warehouse", location.href).href;
  setStatus(`reading ${warehouse}`);
  const catalog = await Catalog.open(warehouse);
  const nav = $("catalog");
  const databases = await catalog.listDatabases();
  for (const db of databases) {
    const h = document.createElement("h3");
    h.textContent = db;
    nav.appendChild(h);
    for (const t of await catalog.listTables(db)) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = t;
      b.dataset.table = `${db}.${t}`;
      b.addEventListener("click", () => void showTable(catalog, `${db}.${t}`).catch(showFatal));
      nav.appendChild(b);
    }
  }
  const form = $<HTMLFormElement>("query");
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void runQuery(form);
  });
  setStatus(`${warehouse}: ${count(databases.length, "database")}`);
  document.body.dataset.ready = "true";
}

function showFatal(e: unknown): void {
  const err = e as { code?: string; message?: string };
  setStatus(`error: ${err.code ? `${err.code}: ` : ""}${err.message ?? String(e)}`);
}

start().catch(showFatal);
