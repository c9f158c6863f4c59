// What resolve.ts needs for s3:// and s3a:// warehouses, imported on first use. A module of its
// own because a dynamic import of s3-file-io.ts itself (also re-exported by the entries) would
// keep all of it in every bundle.
import { S3FileIO, normalizeS3Location, s3FileIOOptions, type S3Options } from "./s3-file-io.js";
import type { ResolvedLocation } from "./file-io.js";

/** The warehouse's S3FileIO (with `options`, else defaults from the environment) and its normalized root. */
export function resolveS3Warehouse(location: string, options?: S3Options): ResolvedLocation {
  return { fileIO: new S3FileIO(options ? s3FileIOOptions(options) : undefined), root: normalizeS3Location(location) };
}
