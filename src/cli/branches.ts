// `paimon-rt create-branch <table> <name> [--tag T]`, `drop-branch <table> <name>`,
// `fast-forward <table> <branch>`, `list-branches <table>`: Java's create_branch / delete_branch /
// fast_forward procedures and `$branches` table (`Table.createBranch / dropBranch / fastForward /
// listBranches`).
import { PaimonError } from "../error.js";
import { Table } from "../table/table.js";

export type BranchCommand =
  | { kind: "create-branch"; location: string; name: string; tag?: string }
  | { kind: "drop-branch" | "fast-forward"; location: string; name: string }
  | { kind: "list-branches"; location: string };

/** The arguments of a branch command; INVALID_ARGUMENT for anything else. */
export function parseBranchArgs(kind: BranchCommand["kind"], args: readonly string[]): BranchCommand {
  const [location, name, ...flags] = args;
  if (!location || location.startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", `${kind} needs a table path`);
  if (kind === "list-branches") {
    if (name !== undefined) throw new PaimonError("INVALID_ARGUMENT", `list-branches: unexpected argument ${name}`);
    return { kind, location };
  }
  if (name === undefined || name.startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", `${kind} needs a branch name`);
  if (kind === "create-branch" && flags[0] === "--tag") {
    if (flags[1] === undefined || flags.length > 2) throw new PaimonError("INVALID_ARGUMENT", `create-branch: ${flags.length > 2 ? `unexpected argument ${flags[2]}` : "--tag needs a tag name"}`);
    return { kind, location, name, tag: flags[1] };
  }
  if (flags.length > 0) throw new PaimonError("INVALID_ARGUMENT", `${kind}: unexpected argument ${flags[0]}`);
  return { kind, location, name };
}

/** Runs a branch command, printing what it did (list-branches: one name a line). */
export async function branchCommand(command: BranchCommand, log: (line: string) => void): Promise<void> {
  const table = await Table.open(command.location);
  if (command.kind === "create-branch") {
    await table.createBranch(command.name, command.tag);
    log(`created branch ${command.name}${command.tag === undefined ? "" : ` from tag ${command.tag}`} of ${table.location}`);
  } else if (command.kind === "drop-branch") {
    await table.dropBranch(command.name);
    log(`dropped branch ${command.name} of ${table.location}`);
  } else if (command.kind === "fast-forward") {
    await table.fastForward(command.name);
    log(`fast-forwarded ${table.location} to branch ${command.name}`);
  } else {
    for (const name of await table.listBranches()) log(name);
  }
}
