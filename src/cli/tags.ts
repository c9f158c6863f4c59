// `paimon-rt create-tag <table> <name> [--snapshot N] [--time-retained D]`, `replace-tag` (same
// arguments), `rename-tag <table> <name> <new-name>`, `delete-tag <table> <name>`, `list-tags
// <table>`: Java's create_tag / replace_tag / rename_tag / delete_tag procedures and `$tags` table
// (`Table.createTag / replaceTag / renameTag / deleteTag / listTags`).
import { PaimonError } from "../error.js";
import { parseDuration } from "../table/options.js";
import { Table } from "../table/table.js";

export type TagCommand =
  | { kind: "create-tag" | "replace-tag"; location: string; name: string; snapshotId?: number; timeRetainedMs?: number }
  | { kind: "rename-tag"; location: string; name: string; newName: string }
  | { kind: "delete-tag"; location: string; name: string }
  | { kind: "list-tags"; location: string };

/** The arguments of `create-tag`, `replace-tag`, `rename-tag`, `delete-tag` or `list-tags`; INVALID_ARGUMENT for anything else. */
export function parseTagArgs(kind: TagCommand["kind"], args: readonly string[]): TagCommand {
  const [location, ...rest] = args;
  if (!location || location.startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", `${kind} needs a table path`);
  if (kind === "list-tags") {
    if (rest.length > 0) throw new PaimonError("INVALID_ARGUMENT", `list-tags: unexpected argument ${rest[0]}`);
    return { kind, location };
  }
  const [name, ...flags] = rest;
  if (name === undefined || name.startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", `${kind} needs a tag name`);
  if (kind === "delete-tag") {
    if (flags.length > 0) throw new PaimonError("INVALID_ARGUMENT", `delete-tag: unexpected argument ${flags[0]}`);
    return { kind, location, name };
  }
  if (kind === "rename-tag") {
    const [newName, ...more] = flags;
    if (newName === undefined || newName.startsWith("--")) throw new PaimonError("INVALID_ARGUMENT", "rename-tag needs the new tag name");
    if (more.length > 0) throw new PaimonError("INVALID_ARGUMENT", `rename-tag: unexpected argument ${more[0]}`);
    return { kind, location, name, newName };
  }
  const command: TagCommand = { kind, location, name };
  for (let i = 0; i < flags.length; i += 2) {
    const flag = flags[i]!;
    const value = flags[i + 1];
    if (value === undefined || (flag !== "--snapshot" && flag !== "--time-retained")) {
      throw new PaimonError("INVALID_ARGUMENT", `${kind}: unexpected argument ${flag}${flag === "--snapshot" || flag === "--time-retained" ? " (needs a value)" : ""}`);
    }
    if (flag === "--snapshot") {
      if (!/^[1-9]\d*$/.test(value)) throw new PaimonError("INVALID_ARGUMENT", `${kind}: --snapshot needs a positive number, got ${value}`);
      command.snapshotId = Number(value);
    } else command.timeRetainedMs = parseDuration(value, "--time-retained");
  }
  return command;
}

/** Runs a tag command, printing what it did (list-tags: `name<TAB>snapshot id` lines). */
export async function tagCommand(command: TagCommand, log: (line: string) => void): Promise<void> {
  const table = await Table.open(command.location);
  if (command.kind === "create-tag") {
    const s = await table.createTag(command.name, command.snapshotId, command.timeRetainedMs === undefined ? {} : { timeRetainedMs: command.timeRetainedMs });
    log(`created tag ${command.name} of snapshot ${s.id} of ${table.location}`);
  } else if (command.kind === "replace-tag") {
    const s = await table.replaceTag(command.name, command.snapshotId, command.timeRetainedMs === undefined ? {} : { timeRetainedMs: command.timeRetainedMs });
    log(`replaced tag ${command.name} with snapshot ${s.id} of ${table.location}`);
  } else if (command.kind === "rename-tag") {
    await table.renameTag(command.name, command.newName);
    log(`renamed tag ${command.name} to ${command.newName} of ${table.location}`);
  } else if (command.kind === "delete-tag") {
    await table.deleteTag(command.name);
    log(`deleted tag ${command.name} of ${table.location}`);
  } else {
    for (const [name, id] of await table.listTags()) log(`${name}\t${id}`);
  }
}
