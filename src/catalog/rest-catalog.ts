// A client of Paimon's REST catalog API (Java 1.4.2 `RESTApi` / `RESTCatalog`): databases and
// tables live on a server, table files where the server says (read and written through our
// FileIO), and snapshots are committed through the server's `commit` endpoint, as Java's
// `CatalogSnapshotCommit` does for a catalog that manages versions. Only `fetch` (edge-safe);
// loaded on first use by `openRESTCatalog`.
import { PaimonError, type PaimonErrorCode } from "../error.js";
import type { FileIO } from "../fs/file-io.js";
import { resolveWarehouse } from "../fs/resolve.js";
import { S3FileIO, s3FileIOOptions, type S3Options } from "../fs/s3-file-io.js";
import type { AwsCredentials } from "../fs/sigv4.js";
import { jsonInt, parseJson, toJacksonJson, type JsonValue } from "../spec/json.js";
import { createTableSchema, schemaFromJsonValue, type SchemaInput, type TableSchema } from "../spec/schema.js";
import { parseSnapshotJson, type Snapshot, snapshotToJson } from "../spec/snapshot.js";
import { fieldToJson, toDataType, typeToJson } from "../spec/types.js";
import type { ManifestEntry } from "../spec/manifest.js";
import { partitionStatistics, registerCatalogSnapshotCommit } from "../commit/catalog-snapshot-commit.js";
import { isInsideDirectory } from "../table/paths.js";
import { MAIN_BRANCH } from "../table/option-validation.js";
import { TableOptions } from "../table/options.js";
import { checkDeduplicateTableOnLoad, type SchemaChange, validateTableSchema } from "../table/schema-manager.js";
import { loadTimeTravel, Table } from "../table/table.js";
import type * as IdentifierModule from "./identifier.js";

/**
 * The identifier helpers, passed in by `openRESTCatalog` (identifier.ts is part of every page that
 * opens a catalog; importing it here too would split it into a chunk of its own).
 */
export type IdentifierLib = Pick<typeof IdentifierModule, "openTableObject" | "parseIdentifier" | "systemObjectOf" | "validateName">;

/** How to reach a REST catalog (Java's `metastore=rest` catalog options). */
export interface RESTCatalogOptions {
  /** The server's base URL (Java `uri`), e.g. `http://127.0.0.1:8080`. */
  uri: string;
  /** The warehouse the server is asked for (Java `warehouse`: `GET /v1/config?warehouse=…`). */
  warehouse: string;
  /** Java `token.provider`: `bear` (a static bearer token) is the one supported; default `bear` when a token is given. */
  "token.provider"?: string;
  /** The bearer token (Java `token`), sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Extra request headers (merged over the server's `header.*` defaults). */
  headers?: Record<string, string>;
  /** Timeout of one request (including reading its answer), ms; then IO_ERROR. Default 60000. */
  requestTimeoutMs?: number;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** The FileIO for table files, whatever their scheme (default: by the path the server returns). */
  fileIO?: FileIO;
  /** Options for `s3://` table paths (data tokens from the server override the credentials). */
  s3?: S3Options;
  /**
   * Directories every table path the server returns must lie in (e.g. the server's warehouse
   * directory); a table elsewhere is refused (IO_ERROR) before any file is read. Default: any
   * absolute location.
   */
  tableRoots?: string[];
}

/** A tag as the REST catalog reports it (Java `GetTagResponse`). */
export interface RESTTag {
  name: string;
  snapshot: Snapshot;
  /** Creation time as the server reports it (ISO local date-time), or null. */
  createTime: string | null;
  /** Retention as the server reports it (ISO-8601 duration), or null. */
  timeRetained: string | null;
}

/** The server's view of a table's latest snapshot (Java `TableSnapshot`): the snapshot and the statistics of the commits it received. */
export interface RESTTableSnapshot {
  snapshot: Snapshot;
  recordCount: bigint;
  fileSizeInBytes: bigint;
  fileCount: bigint;
  lastFileCreationTime: bigint;
}

type JsonObject = { [key: string]: JsonValue | undefined };

/**
 * Java `RESTApi.TOKEN_EXPIRATION_SAFE_TIME_MILLIS`: a data token is fetched again before a file
 * operation once it expires within this time (Java `RESTTokenFileIO.shouldRefresh`).
 */
export const DATA_TOKEN_REFRESH_MARGIN_MS = 3_600_000;

/** A table's data token (Java `GetTableTokenResponse`), as S3 settings. */
interface S3DataToken {
  credentials: AwsCredentials;
  endpoint: string | undefined;
  expiresAtMillis: number;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Java `RESTUtil.encodeString` (URLEncoder; the server decodes `%20` and `+` alike). */
const enc = (s: string) => encodeURIComponent(s);

/**
 * A catalog on a Paimon REST server (Java's `RESTCatalog`). Open it with `openRESTCatalog`.
 * Same surface as the file-system `Catalog` where the REST API offers it, plus the server-side
 * version operations (tags, branches, the server's snapshot view). Tables are ordinary `Table`s on
 * the path the server returns; their commits go through the server's `commit` endpoint.
 */
export class RESTCatalog {
  private constructor(
    private readonly id: IdentifierLib,
    private readonly options: RESTCatalogOptions,
    /** The merged catalog options: the server's defaults, ours, the server's overrides (Java `RESTApi`). */
    readonly catalogOptions: Readonly<Record<string, string>>,
    private readonly base: string,
    private readonly headers: Record<string, string>,
  ) {}

  /** Connects: asks the server's `/v1/config` for the warehouse, then uses its prefix and headers (`openRESTCatalog`). */
  static async open(options: RESTCatalogOptions, id: IdentifierLib): Promise<RESTCatalog> {
    if (options === null || typeof options !== "object") throw new PaimonError("INVALID_ARGUMENT", "REST catalog options are missing");
    const { uri, warehouse, token } = options;
    const timeout = options.requestTimeoutMs;
    if (timeout !== undefined && !(Number.isSafeInteger(timeout) && timeout > 0)) throw new PaimonError("INVALID_ARGUMENT", `REST catalog option requestTimeoutMs must be a positive integer, got ${timeout}`);
    if (typeof uri !== "string" || !/^https?:\/\/[^/?#\s]+[^?#\s]*$/i.test(uri)) throw new PaimonError("INVALID_ARGUMENT", `REST catalog option uri must be an http(s) URL, got ${JSON.stringify(uri)}`);
    if (typeof warehouse !== "string" || warehouse === "" || CONTROL.test(warehouse)) throw new PaimonError("INVALID_ARGUMENT", `REST catalog option warehouse must be a non-empty name, got ${JSON.stringify(warehouse)}`);
    const provider = options["token.provider"] ?? (token === undefined ? undefined : "bear");
    if (provider !== undefined && provider !== "bear") throw new PaimonError("UNSUPPORTED", `REST catalog token.provider ${JSON.stringify(provider)} is not supported (only "bear": a static bearer token)`);
    if (provider === "bear" && (typeof token !== "string" || token === "" || CONTROL.test(token))) throw new PaimonError("INVALID_ARGUMENT", "REST catalog token.provider bear needs a token");
    const auth: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
    const root = uri.replace(/\/+$/, "");
    const bootstrap = new RESTCatalog(id, options, {}, root, { ...options.headers, ...auth });
    const config = asObject(await bootstrap.call("GET", `/v1/config?warehouse=${enc(warehouse)}`), "config response");
    const merged: Record<string, string> = { ...stringMap(config.defaults, "config defaults"), uri, warehouse, ...stringMap(config.overrides, "config overrides") };
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(merged)) if (k.startsWith("header.") && k.length > "header.".length) headers[k.slice("header.".length)] = v;
    const prefix = merged.prefix;
    const base = prefix === undefined || prefix === "" ? `${root}/v1` : `${root}/v1/${enc(prefix)}`;
    return new RESTCatalog(id, options, merged, base, { ...headers, ...options.headers, ...auth });
  }

  /** One request; the JSON answer (null when empty), or the server's error mapped to our codes. */
  private async call(method: "GET" | "POST" | "DELETE", path: string, body?: JsonValue): Promise<JsonValue> {
    const url = this.base + path;
    const headers: Record<string, string> = { ...this.headers };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const timeoutMs = this.options.requestTimeoutMs ?? 60_000;
    let res: Response;
    let text: string;
    try {
      res = await (this.options.fetch ?? fetch)(url, { method, headers, body: body === undefined ? undefined : toJacksonJson(body), signal: AbortSignal.timeout(timeoutMs) });
      text = await res.text();
    } catch (e) {
      const why = (e as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (e as Error).message;
      throw new PaimonError("IO_ERROR", `REST catalog request ${method} ${url} failed: ${why}`, { cause: e });
    }
    if (res.ok) return text.trim() === "" ? null : parseJson(text, `REST response of ${method} ${url}`);
    let message = text.trim();
    try {
      const error = parseJson(text, "REST error");
      if (error !== null && typeof error === "object" && !Array.isArray(error) && typeof error.message === "string") message = error.message;
    } catch {
      // not JSON: the body as it is
    }
    const code: PaimonErrorCode =
      res.status === 404 ? "NOT_FOUND" : res.status === 409 ? "ALREADY_EXISTS" : res.status === 400 ? "INVALID_ARGUMENT" : res.status === 501 ? "UNSUPPORTED" : "IO_ERROR";
    const what = res.status === 401 ? "not authorized (check token)" : res.status === 403 ? "forbidden (no permission)" : `HTTP ${res.status}`;
    throw new PaimonError(code, `REST catalog ${method} ${url}: ${what}${message === "" ? "" : `: ${message}`}`);
  }

  /** GETs every page of a list (`maxResults` / `pageToken`, Java's paged lists). */
  private async listPaged(path: string, field: string): Promise<JsonValue[]> {
    const out: JsonValue[] = [];
    const seen = new Set<string>();
    let token: string | null = null;
    for (;;) {
      const page = asObject(await this.call("GET", token === null ? path : `${path}?pageToken=${enc(token)}`), `${path} response`);
      const items = page[field] ?? [];
      if (!Array.isArray(items)) throw badResponse(`${path}: ${field} is not a list`);
      out.push(...items);
      const next = page.nextPageToken;
      if (next === undefined || next === null || next === "") return out;
      if (typeof next !== "string" || seen.has(next)) throw badResponse(`${path}: nextPageToken ${JSON.stringify(next)} repeats or is not a string`);
      seen.add(next);
      token = next;
    }
  }

  private tablePath(database: string, objectName: string, ...rest: string[]): string {
    return [`/databases/${enc(database)}/tables/${enc(objectName)}`, ...rest].join("/");
  }

  // ------------------------------------------------------------------------------- databases

  async listDatabases(): Promise<string[]> {
    return (await this.listPaged("/databases", "databases")).map((n) => this.serverName(n, "database"));
  }

  async databaseExists(name: string): Promise<boolean> {
    this.id.validateName(name, "database");
    try {
      await this.call("GET", `/databases/${enc(name)}`);
      return true;
    } catch (e) {
      if (e instanceof PaimonError && e.code === "NOT_FOUND") return false;
      throw e;
    }
  }

  /** Creates a database (`options` are its properties); ALREADY_EXISTS unless `ignoreIfExists`. */
  async createDatabase(name: string, options: { ignoreIfExists?: boolean; options?: Record<string, string> } = {}): Promise<void> {
    checkNotSys(name, `create database ${name}`);
    this.id.validateName(name, "database");
    try {
      await this.call("POST", "/databases", { name, options: { ...options.options } });
    } catch (e) {
      if (!(options.ignoreIfExists && e instanceof PaimonError && e.code === "ALREADY_EXISTS")) throw e;
    }
  }

  /** Drops a database; INVALID_ARGUMENT when it has tables unless `cascade` (as Java's RESTCatalog checks). */
  async dropDatabase(name: string, options: { ignoreIfNotExists?: boolean; cascade?: boolean } = {}): Promise<void> {
    checkNotSys(name, `drop database ${name}`);
    this.id.validateName(name, "database");
    try {
      if (!options.cascade) {
        const tables = await this.listTables(name);
        if (tables.length > 0) throw new PaimonError("INVALID_ARGUMENT", `database ${name} is not empty (tables: ${tables.join(", ")}); drop with cascade`);
      }
      await this.call("DELETE", `/databases/${enc(name)}`);
    } catch (e) {
      if (!(options.ignoreIfNotExists && e instanceof PaimonError && e.code === "NOT_FOUND")) throw e;
    }
  }

  // ---------------------------------------------------------------------------------- tables

  async listTables(database: string): Promise<string[]> {
    checkNotSys(database, `list the tables of ${database}`);
    this.id.validateName(database, "database");
    return (await this.listPaged(`/databases/${enc(database)}/tables`, "tables")).map((n) => this.serverName(n, "table"));
  }

  /**
   * Loads a table: its schema, path and uuid from the server, its files through our FileIO.
   * `db.t$branch_b` is branch b, `db.t$snapshots` (etc.) a system table, as with `Catalog.getTable`.
   */
  async getTable(identifier: string): Promise<Table> {
    const { database, table } = this.id.parseIdentifier(identifier);
    checkNotSys(database, `load ${identifier}`);
    if (this.id.systemObjectOf(table) !== null) {
      const at = table.indexOf("$");
      return this.id.openTableObject(await this.getTable(`${database}.${table.slice(0, at)}`), table.slice(at + 1));
    }
    const response = asObject(await this.call("GET", this.tablePath(database, table)), `table ${identifier}`);
    if (response.name !== table) throw badResponse(`table ${identifier}: the server answered for table ${JSON.stringify(response.name)}`);
    const location = this.checkTableLocation(response.path, identifier);
    const schemaId = jsonInt(response.schemaId ?? null, `table ${identifier}: schemaId`);
    const schemaJson = response.schema;
    if (schemaId === null || schemaJson === null || typeof schemaJson !== "object" || Array.isArray(schemaJson)) throw badResponse(`table ${identifier}: no schemaId / schema`);
    const schema = schemaFromJsonValue({ ...schemaJson, version: 3, id: schemaId }, `REST schema of ${identifier}`);
    const uuid = typeof response.id === "string" ? response.id : null;
    const { fileIO, root } = await resolveWarehouse(location, { fileIO: this.options.fileIO ?? (await this.dataTokenFileIO(location, database, table)), s3: this.options.s3 });
    registerCatalogSnapshotCommit(fileIO, root, (snapshot, branch, entries) => this.commitSnapshot(database, table, uuid, schema, snapshot, branch, entries));
    await checkDeduplicateTableOnLoad(schema, identifier);
    return loadTimeTravel(new Table(fileIO, identifier, root, schema));
  }

  /** Whether `getTable(identifier)` finds a table (branches and system tables: whether their data table exists). */
  async tableExists(identifier: string): Promise<boolean> {
    try {
      await this.getTable(identifier);
      return true;
    } catch (e) {
      if (e instanceof PaimonError && e.code === "NOT_FOUND") return false;
      throw e;
    }
  }

  /**
   * Creates a table on the server (which lays it out); the schema is checked here first, as the
   * file-system catalog checks it. ALREADY_EXISTS unless `ignoreIfExists`; NOT_FOUND without the database.
   */
  async createTable(identifier: string, input: SchemaInput, options: { ignoreIfExists?: boolean } = {}): Promise<Table> {
    const { database, table } = this.id.parseIdentifier(identifier);
    checkNotSys(database, `create table ${identifier}`);
    const object = this.id.systemObjectOf(table);
    if (object !== null) throw new PaimonError("INVALID_ARGUMENT", `invalid table name ${JSON.stringify(table)}: '$' is Paimon's separator of branches and system tables (Java Paimon reads ${identifier} as the ${object})`);
    const schema = createTableSchema(input);
    validateTableSchema(schema);
    await (await import("../table/schema-changes.js")).validateTableLayout(schema, null);
    await checkDeduplicateTableOnLoad(schema, identifier);
    try {
      await this.call("POST", `/databases/${enc(database)}/tables`, { identifier: { database, object: table }, schema: schemaToRest(schema) });
    } catch (e) {
      if (!(options.ignoreIfExists && e instanceof PaimonError && e.code === "ALREADY_EXISTS")) throw e;
    }
    return this.getTable(identifier);
  }

  async dropTable(identifier: string, options: { ignoreIfNotExists?: boolean } = {}): Promise<void> {
    const { database, table } = this.plainTable(identifier, "drop");
    try {
      await this.call("DELETE", this.tablePath(database, table));
    } catch (e) {
      if (!(options.ignoreIfNotExists && e instanceof PaimonError && e.code === "NOT_FOUND")) throw e;
    }
  }

  /** Renames a table (within or across databases); NOT_FOUND / ALREADY_EXISTS from the server. */
  async renameTable(from: string, to: string, options: { ignoreIfNotExists?: boolean } = {}): Promise<void> {
    const source = this.plainTable(from, "rename");
    const destination = this.plainTable(to, "rename to");
    try {
      await this.call("POST", "/tables/rename", { source: { database: source.database, object: source.table }, destination: { database: destination.database, object: destination.table } });
    } catch (e) {
      if (!(options.ignoreIfNotExists && e instanceof PaimonError && e.code === "NOT_FOUND")) throw e;
    }
  }

  /** Applies schema changes on the server (Java's `SchemaChange` JSON); the table as it then is. */
  async alterTable(identifier: string, changes: SchemaChange[]): Promise<Table> {
    const { database, table } = this.id.parseIdentifier(identifier);
    checkNotSys(database, `alter ${identifier}`);
    if (!Array.isArray(changes)) throw new PaimonError("INVALID_ARGUMENT", `alterTable ${identifier}: changes must be a list`);
    await this.call("POST", this.tablePath(database, table), { changes: changes.map((c) => schemaChangeToRest(c, identifier)) });
    return this.getTable(identifier);
  }

  // ----------------------------------------------------------------- versions (server-side)

  /** The server's view of the table's latest snapshot (null when it has none), with the statistics its commits reported. */
  async loadSnapshot(identifier: string): Promise<RESTTableSnapshot | null> {
    const { database, table } = this.id.parseIdentifier(identifier);
    let response: JsonObject;
    try {
      response = asObject(await this.call("GET", this.tablePath(database, table, "snapshot")), `snapshot of ${identifier}`);
    } catch (e) {
      // (Java: a missing snapshot is NOT_FOUND of resource type SNAPSHOT, a missing table of TABLE)
      if (e instanceof PaimonError && e.code === "NOT_FOUND" && (await this.tableExists(identifier))) return null;
      throw e;
    }
    const s = asObject(response.snapshot ?? null, `snapshot of ${identifier}`);
    const big = (k: string) => BigInt((s[k] as number | bigint | undefined) ?? 0);
    return {
      snapshot: snapshotFromRest(s.snapshot, `snapshot of ${identifier}`),
      recordCount: big("recordCount"),
      fileSizeInBytes: big("fileSizeInBytes"),
      fileCount: big("fileCount"),
      lastFileCreationTime: big("lastFileCreationTime"),
    };
  }

  /** Creates tag `name` of snapshot `snapshotId` (default: the latest) on the server. */
  async createTag(identifier: string, name: string, snapshotId?: number): Promise<void> {
    const { database, table } = this.id.parseIdentifier(identifier);
    checkTagOrBranchName(name, "tag");
    await this.call("POST", this.tablePath(database, table, "tags"), { tagName: name, snapshotId: snapshotId ?? null, timeRetained: null });
  }

  /** The table's tags by name, ascending (every page). */
  async listTags(identifier: string): Promise<string[]> {
    const { database, table } = this.id.parseIdentifier(identifier);
    return (await this.listPaged(this.tablePath(database, table, "tags"), "tags")).map((n) => this.serverName(n, "tag"));
  }

  async getTag(identifier: string, name: string): Promise<RESTTag> {
    const { database, table } = this.id.parseIdentifier(identifier);
    checkTagOrBranchName(name, "tag");
    const r = asObject(await this.call("GET", this.tablePath(database, table, "tags", enc(name))), `tag ${name} of ${identifier}`);
    if (r.tagName !== name) throw badResponse(`tag ${name} of ${identifier}: the server answered for ${JSON.stringify(r.tagName)}`);
    return {
      name,
      snapshot: snapshotFromRest(r.snapshot, `tag ${name} of ${identifier}`),
      createTime: typeof r.tagCreateTime === "string" ? r.tagCreateTime : null,
      timeRetained: typeof r.tagTimeRetained === "string" ? r.tagTimeRetained : null,
    };
  }

  async deleteTag(identifier: string, name: string): Promise<void> {
    const { database, table } = this.id.parseIdentifier(identifier);
    checkTagOrBranchName(name, "tag");
    await this.call("DELETE", this.tablePath(database, table, "tags", enc(name)));
  }

  /** Creates branch `name` (empty, or from tag `fromTag`) on the server. */
  async createBranch(identifier: string, name: string, fromTag?: string): Promise<void> {
    const { database, table } = this.id.parseIdentifier(identifier);
    checkTagOrBranchName(name, "branch");
    if (fromTag !== undefined) checkTagOrBranchName(fromTag, "tag");
    await this.call("POST", this.tablePath(database, table, "branches"), { branch: name, fromTag: fromTag ?? null });
  }

  async dropBranch(identifier: string, name: string): Promise<void> {
    const { database, table } = this.id.parseIdentifier(identifier);
    checkTagOrBranchName(name, "branch");
    await this.call("DELETE", this.tablePath(database, table, "branches", enc(name)));
  }

  async listBranches(identifier: string): Promise<string[]> {
    const { database, table } = this.id.parseIdentifier(identifier);
    const r = asObject(await this.call("GET", this.tablePath(database, table, "branches")), `branches of ${identifier}`);
    const branches = r.branches ?? [];
    if (!Array.isArray(branches)) throw badResponse(`branches of ${identifier}: not a list`);
    return branches.map((n) => this.serverName(n, "branch"));
  }

  // --------------------------------------------------------------------------------- helpers

  /** A database, table, tag or branch name from the server, checked as we check our own. */
  private serverName(value: JsonValue, what: "database" | "table" | "tag" | "branch"): string {
    if (typeof value !== "string") throw badResponse(`a ${what} name is not a string: ${JSON.stringify(String(value))}`);
    try {
      if (what === "database" || what === "table") this.id.validateName(value, what);
      else checkTagOrBranchName(value, what);
    } catch (e) {
      throw badResponse(`${(e as Error).message}`);
    }
    return value;
  }

  private plainTable(identifier: string, op: string): { database: string; table: string } {
    const id = this.id.parseIdentifier(identifier);
    checkNotSys(id.database, `${op} ${identifier}`);
    const object = this.id.systemObjectOf(id.table);
    if (object !== null) throw new PaimonError("INVALID_ARGUMENT", `cannot ${op} ${identifier}: it names the ${object}`);
    return id;
  }

  /**
   * The table path the server returned, checked before any file is touched: an absolute location
   * (an OS path or a URL of a scheme we reach), no `.`/`..` segment or control character, inside
   * one of `tableRoots` when given.
   */
  private checkTableLocation(path: JsonValue | undefined, identifier: string): string {
    if (typeof path !== "string" || path === "") throw badResponse(`table ${identifier}: no path`);
    const bad = (why: string) => badResponse(`table ${identifier}: path ${JSON.stringify(path)} ${why}`);
    if (CONTROL.test(path)) throw bad("has a control character");
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(path)?.[1]?.toLowerCase() ?? "";
    if (scheme === "" && !path.startsWith("/")) throw bad("is not absolute");
    if (scheme !== "" && !["file", "s3", "s3a", "memory", "http", "https"].includes(scheme)) throw bad(`has scheme ${scheme}, which paimon-rt does not reach`);
    const rest = scheme === "" ? path : path.slice(scheme.length + 1).replace(/^\/\/[^/]*/, "");
    if (rest.split("/").some((s) => s === "." || s === "..")) throw bad("has a '.' or '..' segment");
    const roots = this.options.tableRoots;
    if (roots !== undefined && !roots.some((r) => isInsideDirectory(path, r))) throw bad(`lies outside the allowed table roots (${roots.join(", ")})`);
    return path;
  }

  /**
   * The S3FileIO of an `s3://` table when the server vends data tokens (`data-token.enabled`, Java
   * `RESTTokenFileIO`): it signs with the table's token, over `options.s3`, and fetches the token
   * again before a request once it expires within {@link DATA_TOKEN_REFRESH_MARGIN_MS} (as Java
   * refreshes before a file operation). Undefined for other paths, without data tokens, or with
   * `options.fileIO`.
   */
  private async dataTokenFileIO(location: string, database: string, table: string): Promise<FileIO | undefined> {
    if (!/^s3a?:/i.test(location) || this.catalogOptions["data-token.enabled"] !== "true" || this.options.fileIO !== undefined) return undefined;
    let token = await this.loadDataToken(database, table);
    let refreshing: Promise<S3DataToken> | null = null;
    const credentials = async (): Promise<AwsCredentials> => {
      if (token.expiresAtMillis - Date.now() < DATA_TOKEN_REFRESH_MARGIN_MS) {
        refreshing ??= this.loadDataToken(database, table).finally(() => (refreshing = null));
        token = await refreshing;
      }
      return token.credentials;
    };
    const endpoint = token.endpoint ?? this.options.s3?.endpoint;
    return new S3FileIO({ ...s3FileIOOptions({ ...this.options.s3, accessKeyId: undefined, secretAccessKey: undefined, sessionToken: undefined }), ...(endpoint === undefined ? {} : { endpoint }), credentials });
  }

  /** `GET …/tables/<t>/token`: the table's S3 credentials, endpoint and expiry (Java `RESTApi.loadTableToken`). */
  private async loadDataToken(database: string, table: string): Promise<S3DataToken> {
    const what = `data token of ${database}.${table}`;
    const response = asObject(await this.call("GET", this.tablePath(database, table, "token")), what);
    const token = stringMap(response.token, what);
    const expires = response.expiresAtMillis;
    const expiresAtMillis = typeof expires === "bigint" ? Number(expires) : expires;
    if (typeof expiresAtMillis !== "number" || !Number.isSafeInteger(expiresAtMillis)) throw badResponse(`${what}: expiresAtMillis ${JSON.stringify(String(expires))} is not an integer`);
    const pick = (...keys: string[]) => keys.map((k) => token[k]).find((v) => v !== undefined);
    const accessKeyId = pick("fs.s3a.access.key", "s3.access-key", "s3.access.key");
    const secretAccessKey = pick("fs.s3a.secret.key", "s3.secret-key", "s3.secret.key");
    if (accessKeyId === undefined || secretAccessKey === undefined) {
      throw new PaimonError("UNSUPPORTED", `the ${what} has no S3 credentials paimon-rt understands (keys: ${Object.keys(token).join(", ")})`);
    }
    const sessionToken = pick("fs.s3a.session.token", "s3.session-token", "s3.session.token");
    return { credentials: { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) }, endpoint: pick("fs.s3a.endpoint", "s3.endpoint"), expiresAtMillis };
  }

  /** Java `RESTApi.commitSnapshot`: the snapshot and its partition statistics, to the table (or branch) `commit` endpoint. */
  private async commitSnapshot(database: string, table: string, uuid: string | null, schema: TableSchema, snapshot: Snapshot, branch: string, entries: readonly ManifestEntry[]): Promise<boolean> {
    const objectName = branch === MAIN_BRANCH ? table : `${table}$branch_${branch}`;
    const partitionFields = schema.partitionKeys.map((k) => schema.fields.find((f) => f.name === k)!);
    const statistics = partitionStatistics(entries, partitionFields, new TableOptions(schema.options));
    const response = asObject(
      await this.call("POST", this.tablePath(database, objectName, "commit"), {
        tableId: uuid,
        snapshot: parseJson(snapshotToJson(snapshot)),
        statistics: statistics.map((s) => ({ ...s })),
      }),
      `commit of ${database}.${objectName}`,
    );
    if (typeof response.success !== "boolean") throw badResponse(`commit of ${database}.${objectName}: no success flag`);
    return response.success;
  }
}

function badResponse(message: string): PaimonError {
  return new PaimonError("IO_ERROR", `REST catalog returned an invalid response: ${message}`);
}

function asObject(value: JsonValue | undefined, what: string): JsonObject {
  if (value === null || value === undefined || typeof value !== "object" || Array.isArray(value)) throw badResponse(`${what} is not a JSON object`);
  return value;
}

function stringMap(value: JsonValue | undefined, what: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(asObject(value, what))) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}

function checkTagOrBranchName(name: string, what: "tag" | "branch"): void {
  if (typeof name !== "string" || name.trim() === "" || CONTROL.test(name) || name.includes("/") || name === "." || name === "..") {
    throw new PaimonError("INVALID_ARGUMENT", `invalid ${what} name ${JSON.stringify(name)}`);
  }
}

function checkNotSys(database: string, op: string): void {
  if (database === "sys") throw new PaimonError("UNSUPPORTED", `cannot ${op}: the sys database of a REST catalog is not supported`);
}

/** A snapshot in a REST answer, parsed (and its file names checked) as a snapshot file is. */
function snapshotFromRest(value: JsonValue | undefined, what: string): Snapshot {
  return parseSnapshotJson(toJacksonJson(asObject(value, what)), what);
}

/** Java `Schema` JSON (REST `CreateTableRequest.schema`). */
function schemaToRest(schema: TableSchema): JsonValue {
  return {
    fields: schema.fields.map((f) => fieldToJson(f) as JsonValue),
    partitionKeys: schema.partitionKeys,
    primaryKeys: schema.primaryKeys,
    options: { ...schema.options },
    comment: schema.comment,
  };
}

/** Our `SchemaChange` as Java's `SchemaChange` JSON (`action` plus its fields). */
function schemaChangeToRest(change: SchemaChange, identifier: string): JsonValue {
  const type = (t: unknown) => {
    try {
      return typeToJson(toDataType(t as string)) as JsonValue;
    } catch (e) {
      throw new PaimonError("INVALID_ARGUMENT", `alterTable ${identifier}: invalid type ${JSON.stringify(t)}: ${(e as Error).message}`);
    }
  };
  switch (change?.kind) {
    case "addColumn":
      return {
        action: "addColumn",
        fieldNames: [change.name],
        dataType: type(change.type),
        comment: change.description ?? null,
        move: change.after === undefined ? null : { fieldName: change.name, referenceFieldName: change.after, type: "AFTER" },
      };
    case "renameColumn":
      return { action: "renameColumn", fieldNames: [change.name], newName: change.newName };
    case "dropColumn":
      return { action: "dropColumn", fieldNames: [change.name] };
    case "updateColumnType":
      return { action: "updateColumnType", fieldNames: [change.name], newDataType: type(change.type), keepNullability: false };
    case "setOption":
      return { action: "setOption", key: change.key, value: String(change.value) };
    case "removeOption":
      return { action: "removeOption", key: change.key };
    default:
      throw new PaimonError("INVALID_ARGUMENT", `alterTable ${identifier}: unknown schema change ${JSON.stringify(change)}`);
  }
}
