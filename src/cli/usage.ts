// The `paimon-rt` help text, built from one table of commands so that a new command is one more
// entry here (and its case in main.ts). Lines fit 80 columns.

/** One command of the `paimon-rt` command line, as its help shows it. */
export interface CommandUsage {
  name: string;
  /** Positional arguments and an `[options]` marker, e.g. `<table-path> [options]`. */
  args: string;
  /** What the command does, one or more lines of at most 74 characters. */
  summary: string[];
  /** Each option as written (`--limit N`) with its description (default included), at most 56 characters. */
  options: [flag: string, description: string][];
}

export const COMMANDS: CommandUsage[] = [
  {
    name: "inspect",
    args: "<table-path>",
    summary: ["schema, snapshots and files per partition-bucket of a Paimon table"],
    options: [],
  },
  {
    name: "read",
    args: "<table-path> [options]",
    summary: ["print the rows of a Paimon table", "(<table-path>$snapshots, $files, $partitions, …: its system tables)"],
    options: [
      ["--where EXPR", "filter: id >= 5 AND name = 'x' AND dt IN ('a','b')"],
      ["--select a,b", "top-level columns to print (default all)"],
      ["--limit N", "print at most N rows"],
      ["--format F", "table (default), json (one object a line) or csv"],
      ["--snapshot N", "read snapshot N with its schema (time travel)"],
      ["--option K=V", "dynamic option (Table.copy), repeatable: e.g."],
      ["", "incremental-between=3,7 (changes after 3, up to 7)"],
      ["--follow", "stream: the rows, then each new snapshot's changes"],
      ["", "with their _kind (+I/-U/+U/-D), until Ctrl-C or"],
      ["", "--limit rows (scan.mode, consumer-id, … as --option)"],
    ],
  },
  {
    name: "remove-orphans",
    args: "<table-path> [options]",
    summary: [
      "delete files no snapshot, tag or running commit can reference (left by",
      "killed writers and failed commits), as Java's remove_orphan_files",
    ],
    options: [
      ["--older-than AGE", "only files older than AGE: 1d (default), 2h, 30m, 0"],
      ["--dry-run", "list the files, delete nothing"],
    ],
  },
  {
    name: "compact",
    args: "<table-path> [options]",
    summary: [
      "compact a table with an ordinary writer and commit (real-time tables",
      "too, while their real-time writers keep writing)",
    ],
    options: [
      ["--partition K=V", "only partitions K=V[,K2=V2...] (default all)"],
      ["--bucket N", "only bucket N (default all)"],
      ["--full", "rewrite everything (default: only what needs it)"],
      ["--workers N", "N buckets at a time, N-1 of them in worker threads"],
      ["--commit-user U", "commit user (default paimon-rt-compact)"],
    ],
  },
  {
    name: "expire-partitions",
    args: "<table-path> [options]",
    summary: [
      "drop the partitions older than the table's partition.expiration-time",
      "now (its commits do once per check interval), as Java's expire_partitions;",
      "the options override the table's partition.* options",
    ],
    options: [
      ["--expiration-time D", "older than D (7d, 12h) goes"],
      ["--strategy S", "values-time or update-time"],
      ["--timestamp-formatter F", "Java DateTimeFormatter of the time"],
      ["--timestamp-pattern P", "the time in the values: $dt $hour:00:00"],
      ["--max-expires N", "at most N partitions"],
      ["--commit-user U", "commit user (default paimon-rt-expire-partitions)"],
    ],
  },
  {
    name: "rescale",
    args: "<table-path> [options]",
    summary: [
      "rewrite a partition (or the table) into another bucket count in one",
      "OVERWRITE snapshot, as Java's rescale procedure (strict commit mode)",
    ],
    options: [
      ["--bucket-num N", "N buckets (required for bucket = -2 tables)"],
      ["--partition k=v,...", "only the matching partitions (default all)"],
      ["--commit-user U", "commit user (default paimon-rt-rescale)"],
    ],
  },
  {
    name: "create-tag",
    args: "<table-path> <name> [options]",
    summary: ["tag a snapshot (keeps it readable after it expires), as Java's create_tag"],
    options: [
      ["--snapshot N", "the snapshot to tag (default the latest)"],
      ["--time-retained D", "write tagTimeRetained D (1d, 12h) and tagCreateTime"],
    ],
  },
  {
    name: "replace-tag",
    args: "<table-path> <name> [options]",
    summary: ["point an existing tag at another snapshot, as Java's replace_tag"],
    options: [
      ["--snapshot N", "the snapshot to tag (default the latest)"],
      ["--time-retained D", "write tagTimeRetained D (1d, 12h) and tagCreateTime"],
    ],
  },
  {
    name: "rename-tag",
    args: "<table-path> <name> <new-name>",
    summary: ["rename a tag, as Java's rename_tag"],
    options: [],
  },
  {
    name: "delete-tag",
    args: "<table-path> <name>",
    summary: ["delete a tag and the files only it kept alive, as Java's delete_tag"],
    options: [],
  },
  { name: "list-tags", args: "<table-path>", summary: ["print each tag and its snapshot id"], options: [] },
  {
    name: "create-branch",
    args: "<table-path> <name> [options]",
    summary: ["create a branch (empty: the latest schema only), as Java's create_branch"],
    options: [["--tag T", "start the branch at tag T's snapshot"]],
  },
  { name: "drop-branch", args: "<table-path> <name>", summary: ["drop a branch's metadata, as Java's delete_branch"], options: [] },
  { name: "fast-forward", args: "<table-path> <branch>", summary: ["make main take a branch's history, as Java's fast_forward"], options: [] },
  { name: "list-branches", args: "<table-path>", summary: ["print the table's branches"], options: [] },
  {
    name: "serve",
    args: "<warehouse> [options]",
    summary: [
      "serve a warehouse directory read-only over HTTP (GET/HEAD, Range, JSON",
      "listings) at /warehouse/, with a browser explorer at / that lists",
      "tables, schema, options, snapshots and runs queries in the browser",
    ],
    options: [
      ["--port N", "port to listen on (default 8080; 0: any free port)"],
      ["--host H", "interface to listen on (default 127.0.0.1)"],
    ],
  },
  {
    name: "demo",
    args: "[options]",
    summary: [
      "real-time ingest into table demo.events (replaced each run): rows",
      "queryable before commit, checkpoints, a final exactly-once check",
    ],
    options: [
      ["--warehouse DIR", "warehouse directory (default ./paimon-rt-warehouse)"],
      ["--seconds N", "how long to ingest (default 12)"],
      ["--mode M", "append (default), or pk: upserts and deletes by key"],
    ],
  },
  {
    name: "kernel-demo",
    args: "[options]",
    summary: ["bucket, sort and merge an upsert stream with the wasm kernels"],
    options: [
      ["--rows N", "rows in the stream (default 2000000)"],
      ["--buckets N", "buckets (default 4)"],
      ["--batch N", "rows per batch (default 65536)"],
    ],
  },
  { name: "version", args: "", summary: ["print the version"], options: [] },
  { name: "help", args: "[command]", summary: ["this help, or one command's (also: <command> --help)"], options: [] },
];

/** Option flags are padded to this width, descriptions start two columns later. */
const FLAG_WIDTH = 16;

function commandLines(c: CommandUsage): string[] {
  const lines = [`  ${c.name}${c.args ? ` ${c.args}` : ""}`];
  for (const s of c.summary) lines.push(`      ${s}`);
  for (const [flag, description] of c.options) lines.push(`      ${flag.padEnd(FLAG_WIDTH)}  ${description}`);
  return lines;
}

/** The full help: every command with its options. */
export function usage(): string {
  const lines = ["usage: paimon-rt <command> [arguments] [options]", "", "commands:"];
  for (const c of COMMANDS) lines.push(...commandLines(c));
  lines.push("", "paimon-rt <command> --help shows one command.");
  return lines.join("\n");
}

/** Help for one command, or undefined when there is no such command. */
export function commandUsage(name: string): string | undefined {
  const c = COMMANDS.find((x) => x.name === name);
  if (!c) return undefined;
  return [`usage: paimon-rt ${c.name}${c.args ? ` ${c.args}` : ""}`, "", ...commandLines(c).slice(1).map((l) => l.slice(4))].join("\n");
}
