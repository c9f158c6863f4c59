// Reading a table's statistics file (Java `StatsFileHandler.readStats`): the `$statistics` system
// table and the commit's inheritance of an ANALYZE result read it.
import { joinPath, readTextFile } from "../fs/file-io.js";
import type { FileIO } from "../fs/file-io.js";
import { parseStatistics, STATISTICS_DIR, type Statistics } from "../spec/statistics.js";

/** The statistics file `name` (a snapshot's `statistics`, one plain file name) of the table at `root`. */
export async function readStatisticsFile(io: FileIO, root: string, name: string): Promise<Statistics> {
  const path = joinPath(root, STATISTICS_DIR, name);
  return parseStatistics(await readTextFile(io, path), `statistics file ${path}`);
}

/** {@link readStatisticsFile} of a table. */
export function readStatistics(t: { readonly fileIO: FileIO; readonly paths: { readonly root: string } }, name: string): Promise<Statistics> {
  return readStatisticsFile(t.fileIO, t.paths.root, name);
}
