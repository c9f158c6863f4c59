// The Arrow data that writes accept. apache-arrow is a peer dependency: paimon-rt uses the
// application's copy and works on objects of that copy's classes. Data built with another copy
// (another major version the package manager installed separately, or a bundler's duplicate)
// looks like Arrow but is not; it gets an error that says so, instead of "not an Arrow
// RecordBatch" (older copies) or an obscure failure deep in a visitor (recent copies such as
// 21.2.0, whose instanceof accepts each other's objects).
import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";

/** The apache-arrow versions paimon-rt supports: package.json `peerDependencies` (a test keeps them equal). */
export const ARROW_PEER_RANGE = "^21.0.0";
/** The apache-arrow version the test suite runs against: package.json `devDependencies`. */
export const ARROW_TESTED_VERSION = "21.2.0";

/**
 * The record batches of a write's input (a RecordBatch, or a Table's batches). Anything else is
 * INVALID_ARGUMENT; Arrow data of another apache-arrow copy is named as such.
 */
export function inputBatches(data: unknown, context: string): arrow.RecordBatch[] {
  let batches: arrow.RecordBatch[];
  if (ownInstance(arrow.Table, data)) batches = data.batches;
  else if (ownInstance(arrow.RecordBatch, data)) batches = [data];
  else {
    const kind = foreignArrowKind(data);
    if (kind !== undefined) throw foreignArrow(context, `the ${kind}`);
    throw new PaimonError("INVALID_ARGUMENT", `${context} takes an Arrow RecordBatch or Table, got ${describe(data)}`);
  }
  for (const batch of batches) {
    if (!ownInstance(arrow.RecordBatch, batch)) throw foreignArrow(context, "a RecordBatch of the Table");
    const fields = batch.schema.fields;
    batch.data.children.forEach((column, i) => {
      if (!ownInstance(arrow.Data, column) || !ownInstance(arrow.DataType, column.type)) throw foreignArrow(context, `column ${fields[i]?.name ?? i}`);
    });
  }
  return batches;
}

/**
 * `x instanceof cls` by prototype chain. Recent apache-arrow (21.2.0; arrow-js PR 377) makes its
 * own instanceof accept objects of other copies (a global symbol), but its visitors still
 * dispatch on this copy's type classes, so such data would fail deep inside ("Unrecognized type").
 */
function ownInstance<T>(cls: abstract new (...args: never[]) => T, x: unknown): x is T {
  return Function.prototype[Symbol.hasInstance].call(cls, x);
}

function foreignArrow(context: string, what: string): PaimonError {
  return new PaimonError(
    "INVALID_ARGUMENT",
    `${context}: ${what} was built with another copy of apache-arrow than the one paimon-rt uses ` +
      `(a different version, or a second install of the same one). ` +
      `paimon-rt needs apache-arrow ${ARROW_PEER_RANGE} (tested with ${ARROW_TESTED_VERSION}) as a peer dependency: ` +
      `install one matching apache-arrow in the application (\`npm ls apache-arrow\` lists the copies) and build the data with it`,
  );
}

/** "Table" or "RecordBatch" when `x` has the shape of one from any apache-arrow copy. */
function foreignArrowKind(x: unknown): "Table" | "RecordBatch" | undefined {
  if (typeof x !== "object" || x === null) return undefined;
  const o = x as { schema?: { fields?: unknown }; numRows?: unknown; batches?: unknown; data?: { children?: unknown } };
  if (typeof o.numRows !== "number" || !Array.isArray(o.schema?.fields)) return undefined;
  if (Array.isArray(o.batches)) return "Table";
  if (typeof o.data === "object" && o.data !== null && Array.isArray(o.data.children)) return "RecordBatch";
  return undefined;
}

function describe(x: unknown): string {
  if (x === null) return "null";
  if (typeof x !== "object") return typeof x;
  if (Array.isArray(x)) return "an array";
  const name = (x as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "Object" ? `a ${name}` : "a plain object";
}
