// Partition specs on the command line (`--partition k=v,...`): logical values as the offsets file
// and the partition paths spell them, matched against the partitions of the latest snapshot.
import { PaimonError } from "../error.js";
import { partitionStrings } from "../realtime/offsets.js";
import { fromBinaryRow } from "../spec/binary-row.js";
import type { Table } from "../table/table.js";

/** `k=v,k2=v2` as a spec; INVALID_ARGUMENT naming `command` for anything else. */
export function parsePartitionSpec(command: string, value: string): Record<string, string> {
  const spec: Record<string, string> = {};
  for (const pair of value.split(",")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new PaimonError("INVALID_ARGUMENT", `${command}: --partition takes key=value pairs separated by commas, got '${value}'`);
    spec[pair.slice(0, eq).trim()] = pair.slice(eq + 1);
  }
  return spec;
}

/**
 * The partitions of the table's latest snapshot whose logical values match `spec`, as typed
 * values of every partition key, each once; every live file counts (postpone-bucket files
 * too, which batch scans skip). INVALID_ARGUMENT for a key that is not a partition key.
 */
export async function matchingPartitions(command: string, table: Table, spec: Readonly<Record<string, string>>): Promise<Array<Record<string, unknown>>> {
  const fields = table.partitionFields;
  const unknown = Object.keys(spec).filter((k) => !fields.some((f) => f.name === k));
  if (unknown.length > 0) throw new PaimonError("INVALID_ARGUMENT", `${command}: unknown partition column(s) ${unknown.join(", ")} of table ${table.identifier} (partition keys: ${fields.map((f) => f.name).join(", ") || "none"})`);
  const latest = await table.latestSnapshot();
  const opts = table.coreOptions;
  const types = fields.map((f) => f.type);
  const seen = new Set<string>();
  const out: Array<Record<string, unknown>> = [];
  for (const e of latest === null ? [] : await table.manifestStore.liveEntries(latest)) {
    const key = e.partition.join(",");
    if (seen.has(key)) continue;
    seen.add(key);
    const values = fromBinaryRow(e.partition.subarray(4), types);
    const strings = partitionStrings(fields, values, opts.partitionDefaultName, opts.partitionLegacyName);
    if (Object.entries(spec).some(([k, v]) => strings[k] !== v)) continue;
    out.push(Object.fromEntries(fields.map((f, i) => [f.name, values[i]])));
  }
  return out;
}
