// Keeps hidden classes alive between uses of hot code. V8 holds an object's hidden class (map)
// only while some object has it: map transitions, inline caches and optimized code refer to maps
// weakly. Working objects a hot path builds and drops every call — the Parquet encoder's scratch
// buffers, its hash set, Thrift writers, the batches a file writer assembles — all die with the
// file, so a full GC between two files collects their maps, clears the feedback and deoptimizes
// every function optimized for them; the next file then runs them unoptimized until V8 has
// re-optimized each one (measured: about a third of the CPU time of a 1 M-row write). One small
// exemplar built the same way (same class, same constructor path) keeps each map alive for good.

const exemplars: object[] = [];

/** Keeps `exemplar` (and with it its hidden class) alive for the life of the process. */
export function keepShape<T extends object>(exemplar: T): T {
  exemplars.push(exemplar);
  return exemplar;
}
