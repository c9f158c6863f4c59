// The file formats paimon-rt reads and writes, and the checks that refuse the others with a
// clear UNSUPPORTED instead of writing Parquet under another name or failing with CORRUPT_FILE.
//
// Java Paimon also writes ORC and Avro data files (`file.format`, per level with
// `file.format.per.level`) and ORC/Parquet manifests (`manifest.format`). A data file's format is
// its file-name extension (Java `DataFilePathFactory.formatIdentifier`): "data-….orc".

import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { decompress as zstdDecompress } from "fzstd";
import type { AvroReadDeps } from "./avro-data-read.js";
import type { OrcDataReadOptions, OrcReadDeps } from "./orc-data-read.js";
import { AvroReader, checkBlockEnd, containerBlocks, headerCodec, readContainerHeader, snappyUncompress } from "../spec/avro.js";
import { fflateLoaded, loadedFflate, loadFflate } from "../spec/fflate.js";
import { loadZstd } from "../spec/zstd.js";
import { toArrowType, typeToString } from "../spec/types.js";
import { makeNullData, readArrowField } from "./arrow-types.js";
import { columnCasts, readAs } from "./parquet-reader.js";
import { recordBatch } from "../arrow/record-batch.js";
import { boundMayMatch } from "../predicate/stats.js";

/** The only data-file format paimon-rt reads and writes. */
export const DATA_FILE_FORMAT = "parquet";
/** The only manifest format paimon-rt reads and writes. */
export const MANIFEST_FILE_FORMAT = "avro";

/** Java `CoreOptions.normalizeFileFormat`: lower case. */
function normalize(format: string): string {
  return format.trim().toLowerCase();
}

/**
 * The data-file formats named by `file.format.per.level` ("0:avro,3:parquet": level → format,
 * Java's map syntax), as [level, format] pairs.
 */
function formatsPerLevel(value: string): Array<[string, string]> {
  return value
    .split(",")
    .filter((entry) => entry.trim() !== "")
    .map((entry) => {
      const colon = entry.indexOf(":");
      if (colon < 0) throw new PaimonError("INVALID_ARGUMENT", `option file.format.per.level: '${entry.trim()}' is not <level>:<format> (e.g. '0:parquet')`);
      return [entry.slice(0, colon).trim(), normalize(entry.slice(colon + 1))];
    });
}

/** The data-file formats paimon-rt reads and writes. */
const DATA_FILE_FORMATS = new Set(["parquet", "avro", "orc"]);
const ONLY_FORMATS = "paimon-rt reads and writes parquet, avro and orc data files only";

/**
 * Refuses table options naming a file format paimon-rt cannot write or read: `file.format` or a
 * `file.format.per.level` entry other than parquet, avro and orc, `manifest.format` other than avro.
 * UNSUPPORTED naming the option and the format.
 */
export function checkFileFormatOptions(options: Readonly<Record<string, string>>, table: string): void {
  checkManifestFormatOption(options, table);
  const fileFormat = options["file.format"];
  if (fileFormat !== undefined && !DATA_FILE_FORMATS.has(normalize(fileFormat))) {
    throw new PaimonError("UNSUPPORTED", `table ${table}: file.format '${normalize(fileFormat)}' is not supported (${ONLY_FORMATS})`);
  }
  const perLevel = options["file.format.per.level"];
  if (perLevel !== undefined) {
    for (const [level, format] of formatsPerLevel(perLevel)) {
      if (!DATA_FILE_FORMATS.has(format))
        throw new PaimonError("UNSUPPORTED", `table ${table}: file.format.per.level names '${format}' for level ${level} (${ONLY_FORMATS})`);
    }
  }
}

/**
 * The format of the data files written at `level` of a primary-key table (`file.format.per.level`,
 * else `file.format`; Java KeyValueFileWriterFactory), or of an append table's files (`level`
 * null: `file.format`). Parquet by default.
 */
export function dataFileFormatFor(options: Readonly<Record<string, string>>, level: number | null): "parquet" | "avro" | "orc" {
  const known = (f: string) => (f === "avro" || f === "orc" ? f : "parquet");
  const perLevel = options["file.format.per.level"];
  if (level !== null && perLevel !== undefined) {
    const hit = formatsPerLevel(perLevel).find(([l]) => Number(l) === level);
    if (hit) return known(hit[1]);
  }
  return known(normalize(options["file.format"] ?? DATA_FILE_FORMAT));
}

/** Refuses `manifest.format` other than avro (UNSUPPORTED): such manifests cannot be read or written. */
export function checkManifestFormatOption(options: Readonly<Record<string, string>>, table: string): void {
  const manifestFormat = options["manifest.format"];
  if (manifestFormat !== undefined && normalize(manifestFormat) !== MANIFEST_FILE_FORMAT) {
    throw new PaimonError("UNSUPPORTED", `table ${table}: manifest.format '${normalize(manifestFormat)}' is not supported (paimon-rt reads and writes ${MANIFEST_FILE_FORMAT} manifests only)`);
  }
}

/** The format of a data file from its name: the extension, lower case ("" without one). */
export function dataFileFormatOf(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot < 0 ? "" : base.slice(dot + 1).toLowerCase();
}

/** The data-file format paimon-rt reads besides Parquet (Java's `file.format=avro`, per level, postpone-bucket files). */
export const AVRO_DATA_FILE_FORMAT = "avro";
/** The data-file format paimon-rt reads (not writes) besides Parquet and Avro (Java's `file.format=orc`, the default before Paimon 1.0). */
export const ORC_DATA_FILE_FORMAT = "orc";

/**
 * Whether a data file is read whole (Avro and ORC files, by their extension, as Java
 * dispatches) by {@link readWholeDataFile}, rather than ranged as Parquet files are.
 */
export function isWholeDataFile(path: string): boolean {
  const format = dataFileFormatOf(path);
  return format === AVRO_DATA_FILE_FORMAT || format === ORC_DATA_FILE_FORMAT;
}

/**
 * Refuses to read a data file in a format paimon-rt does not read (written by another engine)
 * with UNSUPPORTED naming the file and its format, before any byte of it is parsed.
 * Files without an extension are left to the Parquet reader (its magic check reports them).
 */
export function checkDataFileFormat(path: string): void {
  const format = dataFileFormatOf(path);
  if (format !== "" && !DATA_FILE_FORMATS.has(format)) {
    throw new PaimonError("UNSUPPORTED", `data file ${path} is in ${format} format; ${ONLY_FORMATS}`);
  }
}

/**
 * The rows of an Avro or ORC data file (by `options.fileName`'s extension; `bytes`: the whole
 * file) as record batches of the read fields. Their decoders are lazily imported chunks (query
 * bundles that meet no Avro or ORC file skip them).
 */
export async function* readWholeDataFile(bytes: Promise<Uint8Array>, options: OrcDataReadOptions): AsyncGenerator<arrow.RecordBatch> {
  const orc = dataFileFormatOf(options.fileName) === ORC_DATA_FILE_FORMAT;
  const [reader, data] = await Promise.all([orc ? loadOrcReader() : loadAvroReader(), bytes]);
  yield* "readOrcDataBatches" in reader ? reader.readOrcDataBatches(data, options) : reader.readAvroDataBatches(data, options);
}

/** The ORC reader chunk, bound to the query bundle's modules (loaded once). */
export function loadOrcReader(): Promise<typeof import("./orc-data-read.js")> {
  return (orcReader ??= import("./orc-data-read.js").then((m) => (m.bindOrcDataReader(wholeFileReadDeps()), m)));
}

/** The Avro reader chunk, bound to the query bundle's modules (loaded once). */
function loadAvroReader(): Promise<typeof import("./avro-data-read.js")> {
  return (avroReader ??= import("./avro-data-read.js").then((m) => (m.bindAvroDataReader(wholeFileReadDeps()), m)));
}

let orcReader: Promise<typeof import("./orc-data-read.js")> | undefined;
let avroReader: Promise<typeof import("./avro-data-read.js")> | undefined;

/** The table's `orc.timestamp-ltz.legacy.type` (Java's default true) for ORC reads. */
export function timestampLtzLegacy(options: Readonly<Record<string, string>>): boolean {
  return (options["orc.timestamp-ltz.legacy.type"] ?? "true").trim().toLowerCase() !== "false";
}

/** The query bundle's modules the Avro and ORC reader chunks use (passed, not imported: see avro-data-read.ts). */
function wholeFileReadDeps(): AvroReadDeps & OrcReadDeps {
  return { makeData: arrow.makeData, Schema: arrow.Schema, PaimonError, AvroReader, checkBlockEnd, containerBlocks, headerCodec, readContainerHeader, fflateLoaded, loadFflate, loadedFflate, loadZstd, zstdDecompress, snappyUncompress, toArrowType, typeToString, makeNullData, readArrowField, columnCasts, readAs, recordBatch, boundMayMatch };
}
