/**
 * Picks a FileIO for a warehouse location by its scheme. Edge-safe: the local file system module
 * (the only one importing `node:`) is loaded lazily, and only for local paths / `file:` URLs; the
 * in-memory one on the first `memory://` location (a query-only page reading over HTTP does not
 * carry it).
 *
 * | location                     | FileIO        | normalized root              |
 * | ---------------------------- | ------------- | ---------------------------- |
 * | `/abs/path`, `rel/path`      | LocalFileIO   | absolute OS path             |
 * | `file:///abs/path`           | LocalFileIO   | absolute OS path             |
 * | `memory://name[/path]`       | MemoryFileIO  | `memory://name[/path]`       |
 * | `http(s)://host/path`        | HttpFileIO    | the URL (read-only)          |
 * | `s3://bucket/prefix`, `s3a:` | S3FileIO      | `s3(a)://bucket/prefix`      |
 */
import { PaimonError } from "../error.js";
import { type FileIO, type ResolvedLocation, fileIOFactoryFor, schemeOf } from "./file-io.js";
import "./http-file-io.js";
import type { S3Options } from "./s3-file-io.js";

// A computed specifier keeps edge bundlers from following this import into `node:` modules.
const LOCAL_MODULE = ["./local", "file-io.js"].join("-");

async function loadLocal(location: string): Promise<void> {
  try {
    await import(/* @vite-ignore */ LOCAL_MODULE);
  } catch (e) {
    throw new PaimonError(
      "UNSUPPORTED",
      `no local file system in this runtime for warehouse ${location}; pass options.fileIO or use memory:// or http(s)://`,
      { cause: e },
    );
  }
}

/** How to reach a warehouse: a FileIO of your own, or options for the built-in ones. */
export interface WarehouseOptions {
  /** Use this FileIO, whatever the location's scheme. */
  fileIO?: FileIO;
  /** Options for `s3://` and `s3a://` locations (defaults from the `AWS_*` environment variables). */
  s3?: S3Options;
}

/**
 * The FileIO for a warehouse location plus the location normalized to that FileIO's syntax.
 * With `options.fileIO` that FileIO is used, whatever the scheme (the root is then normalized by
 * the scheme's built-in rules where there are some, else only stripped of a trailing `/`).
 */
export async function resolveWarehouse(warehouse: string | URL, options: WarehouseOptions = {}): Promise<ResolvedLocation> {
  const location = typeof warehouse === "string" ? warehouse : warehouse.toString();
  if (location.trim() === "") throw new PaimonError("INVALID_ARGUMENT", "warehouse location is empty");
  const scheme = schemeOf(location);
  const s3 = scheme === "s3" || scheme === "s3a";
  if (options.s3 && !options.fileIO && s3) {
    return (await import("./s3-warehouse.js")).resolveS3Warehouse(location, options.s3);
  }
  let factory = fileIOFactoryFor(scheme);
  if (!factory && scheme === "memory") {
    await import("./memory-file-io.js");
    factory = fileIOFactoryFor(scheme);
  }
  // S3 is imported on first use (a registered factory, e.g. a custom one, takes precedence)
  if (!factory && s3) factory = (await import("./s3-warehouse.js")).resolveS3Warehouse;
  if (!factory && (scheme === "" || scheme === "file")) {
    try {
      await loadLocal(location);
    } catch (e) {
      if (!options.fileIO) throw e;
    }
    factory = fileIOFactoryFor(scheme);
  }
  if (options.fileIO) {
    const root = factory ? factory(location).root : stripTrailingSlashes(location);
    return { fileIO: options.fileIO, root };
  }
  if (!factory) {
    throw new PaimonError(
      "UNSUPPORTED",
      `no FileIO for scheme "${scheme}" of warehouse ${location}; pass options.fileIO`,
    );
  }
  return factory(location);
}

function stripTrailingSlashes(location: string): string {
  let s = location;
  while (s.length > 1 && s.endsWith("/") && !s.endsWith("://")) s = s.slice(0, -1);
  return s;
}

/** The FileIO for a warehouse location (local path, file://, memory://, http(s)://, s3(a)://). */
export async function resolveFileIO(warehouse: string | URL): Promise<FileIO> {
  return (await resolveWarehouse(warehouse)).fileIO;
}
