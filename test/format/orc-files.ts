// Test helpers for ORC files: written from oracle-style rows in batches, read back with each row's
// position in the file (rows skipped by a filter counted through onSkip).
import fc from "fast-check";
import { readWholeDataFile } from "../../src/format/file-formats.js";
import { OrcFileWriter } from "../../src/format/orc-data-write.js";
import { bindPredicate, type Predicate } from "../../src/predicate/predicate.js";
import type { DataField } from "../../src/spec/types.js";
import { arrowToRows, type FieldLike, rowsToBatch } from "../interop/convert.js";
import type { OracleRow } from "../interop/oracle/harness.js";

/** An ORC file of `rows` (fields `fields`, spelled `spec` for the batches) written in batches of `batch` rows. */
export async function writeOrcRows(spec: readonly FieldLike[], fields: readonly DataField[], rows: readonly OracleRow[], batch: number, options: ConstructorParameters<typeof OrcFileWriter>[1]): Promise<Uint8Array> {
  const writer = new OrcFileWriter(fields, options);
  for (let at = 0; at < rows.length; at += batch) writer.write(rowsToBatch(spec, rows.slice(at, at + batch)));
  return (await writer.finish()).bytes;
}

/** The rows a read of `bytes` returns, each with its position in the file (rows skipped counted by onSkip). */
export async function readOrcPositioned(bytes: Uint8Array, fields: readonly DataField[], filter: Predicate | null): Promise<Array<[number, OracleRow]>> {
  const out: Array<[number, OracleRow]> = [];
  let position = 0;
  const options = { fields, batchSize: 777, fileName: "data-x.orc", filter: filter ? bindPredicate(filter, fields) : null, onSkip: (n: number) => (position += n) };
  for await (const b of readWholeDataFile(Promise.resolve(bytes), options)) for (const r of arrowToRows(b)) out.push([position++, r]);
  return out;
}

/** Random ORC file layouts: row count, data seed, rows per written batch, rows per stripe, row index stride (0: none), compression. */
export const ORC_FILE_LAYOUT = {
  rows: fc.integer({ min: 0, max: 6000 }),
  seed: fc.integer({ min: 0, max: 999 }),
  batch: fc.integer({ min: 1, max: 2500 }),
  stripeRows: fc.integer({ min: 500, max: 7000 }),
  stride: fc.constantFrom(0, 1000, 1500),
  compression: fc.constantFrom("none", "zstd", "snappy", "zlib"),
};
