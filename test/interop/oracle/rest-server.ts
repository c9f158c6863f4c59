/**
 * Java Paimon 1.4.2's own REST catalog server (`RESTCatalogServer`, started by the Java oracle's
 * `rest-server` command) for the REST catalog suites: its URL, a way to set the credentials it
 * vends as a table's data token, and a clean stop (the server serves until its stdin closes).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface, type Interface } from "node:readline";
import { JAVA_ORACLE } from "./harness.js";

export interface JavaRESTServer {
  /** The server's base URL, e.g. `http://127.0.0.1:40123/` (with the trailing `/`). */
  readonly uri: string;
  /**
   * Makes the server vend `credentials` (Java `RESTToken`: e.g. `s3.access-key`, `s3.secret-key`)
   * expiring at `expiresAtMillis` as the data token of table `identifier` (`db.table`).
   */
  setDataToken(identifier: string, expiresAtMillis: number, credentials: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the server on `dataDir` (a directory, or an `s3://` prefix: then the oracle reaches it with
 * the `AWS_*` environment) for warehouse `warehouse` with bearer token `token`; `defaults` are
 * further config defaults the server hands its clients (e.g. `data-token.enabled`).
 */
export async function startJavaRESTServer(dataDir: string, warehouse: string, token: string, defaults: Record<string, string> = {}): Promise<JavaRESTServer> {
  const args = ["rest-server", dataDir, warehouse, token, ...Object.entries(defaults).map(([k, v]) => `${k}=${v}`)];
  const server: ChildProcess = spawn(JAVA_ORACLE, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, TZ: "UTC" } });
  let stderr = "";
  server.stderr!.on("data", (d) => (stderr += String(d)));
  const lines: Interface = createInterface({ input: server.stdout! });
  const pending: Array<(line: string) => void> = [];
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  lines.on("line", (line) => pending.shift()?.(line));
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      pending.push(resolve);
      void exited.then(() => reject(new Error(`rest-server exited (${server.exitCode}): ${stderr}`)));
    });
  const first = await nextLine();
  if (/unknown command/.test(stderr)) throw new Error("the Java oracle was built before its rest-server command: run scripts/setup-oracles.sh --java-only");
  return {
    uri: first.trim(),
    async setDataToken(identifier, expiresAtMillis, credentials) {
      const pairs = Object.entries(credentials).map(([k, v]) => `${k}=${v}`);
      if ([identifier, ...pairs].some((s) => /\s/.test(s))) throw new Error("data-token arguments must not contain whitespace");
      const answer = nextLine();
      server.stdin!.write(`data-token ${identifier} ${expiresAtMillis} ${pairs.join(" ")}\n`);
      const line = await answer;
      if (line.trim() !== "ok") throw new Error(`rest-server data-token: ${line}`);
    },
    async close() {
      if (server.exitCode !== null) return;
      server.stdin!.end();
      await exited;
    },
  };
}
