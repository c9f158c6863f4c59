// fflate (deflate and gzip decoding), loaded on first need so that query bundles do not carry it:
// Paimon's own files use zstd or snappy; Avro `deflate` containers and GZIP Parquet pages are rare.
import { PaimonError } from "../error.js";

type Fflate = typeof import("fflate");
let fflate: Fflate | undefined;

/** Loads fflate once (a dynamic import: its own chunk in bundles). */
export async function loadFflate(): Promise<void> {
  fflate ??= await import("fflate");
}

/** fflate when {@link loadFflate} has run; UNSUPPORTED otherwise (callers load it before decoding). */
export function loadedFflate(): Fflate {
  if (!fflate) throw new PaimonError("UNSUPPORTED", "deflate/gzip decoding is loaded on demand: call loadFflate() first");
  return fflate;
}

/** Whether fflate is loaded. */
export const fflateLoaded = (): boolean => fflate !== undefined;
