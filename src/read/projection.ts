// Projection with nested paths ("addr.city"): which top-level columns to read, and how to
// cut the requested ROW fields out of them (a NULL row makes its fields NULL).
import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";
import { readArrowField } from "../format/arrow-types.js";
import type { DataField } from "../spec/types.js";
import { recordBatch } from "../arrow/record-batch.js";
import { isValidAt } from "../arrow/values.js";

interface NestedColumn {
  /** Output field (named by the requested path). */
  readonly field: arrow.Field;
  /** Index of the top-level column in the read batch. */
  readonly top: number;
  /** Child indexes through nested ROW columns. */
  readonly path: readonly number[];
}

export interface ProjectionPlan {
  /** Top-level fields to read, in first-use order. */
  readonly topLevel: DataField[];
  /** Output columns cut from the top-level ones; null when the output is exactly `topLevel`. */
  readonly nested: NestedColumn[] | null;
}

/**
 * Resolves a projection of top-level names and dotted paths through ROW fields. A name that
 * is a top-level column is taken as is, even when it contains dots.
 */
export function planProjection(fields: readonly DataField[], projection: readonly string[] | undefined, where: string): ProjectionPlan {
  if (!projection) return { topLevel: [...fields], nested: null };
  const unknown = (name: string) =>
    new PaimonError("INVALID_ARGUMENT", `unknown column ${name} in projection of ${where} (columns: ${fields.map((f) => f.name).join(", ")})`);
  const topLevel: DataField[] = [];
  const topIndex = (f: DataField) => {
    let i = topLevel.indexOf(f);
    if (i < 0) i = topLevel.push(f) - 1;
    return i;
  };
  let nestedUsed = false;
  const columns = projection.map((name): NestedColumn => {
    const direct = fields.find((f) => f.name === name);
    if (direct) return { field: readArrowField(direct), top: topIndex(direct), path: [] };
    const [head, ...rest] = name.split(".");
    const root = fields.find((f) => f.name === head);
    if (!root || rest.length === 0) throw unknown(name);
    let current: DataField = root;
    const path: number[] = [];
    for (const segment of rest) {
      // selecting MAP keys or VARIANT fields (seed 000's read pipeline has them) is not implemented here
      if (current.type.kind === "MAP" || current.type.kind === "VARIANT") {
        const what = current.type.kind === "MAP" ? "selecting MAP keys" : "VARIANT field access";
        throw new PaimonError("UNSUPPORTED", `projection ${name} of ${where}: ${what} is not supported; project the whole ${current.type.kind} column ${current.name}`);
      }
      if (current.type.kind !== "ROW") throw new PaimonError("INVALID_ARGUMENT", `projection ${name} of ${where}: ${current.name} is ${current.type.kind}, not a ROW`);
      const idx: number = current.type.fields.findIndex((f) => f.name === segment);
      if (idx < 0) throw unknown(name);
      path.push(idx);
      current = current.type.fields[idx];
    }
    nestedUsed = true;
    const f = readArrowField(current);
    return { field: new arrow.Field(name, f.type, true, f.metadata), top: topIndex(root), path };
  });
  const identity = !nestedUsed && columns.every((c, i) => c.top === i) && topLevel.length === columns.length;
  return { topLevel, nested: identity ? null : columns };
}


/** The child `index` of a struct column, NULL wherever the struct itself is NULL. */
function structChild(parent: arrow.Data, index: number): arrow.Data {
  const child = parent.children[index];
  if (parent.nullCount === 0) return child;
  const bitmap = new Uint8Array((child.offset + child.length + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < child.length; i++) {
    if (isValidAt(parent, i) && isValidAt(child, i)) {
      const bit = child.offset + i;
      bitmap[bit >> 3] |= 1 << (bit & 7);
    } else nulls++;
  }
  return child.clone(child.type, child.offset, child.length, nulls, [child.valueOffsets, child.values, bitmap, child.typeIds] as never);
}

/** The output batch of a nested projection, from a batch of the plan's top-level columns (after `skip` leading columns). */
export function applyProjection(batch: arrow.RecordBatch, plan: ProjectionPlan, schema: arrow.Schema, skip = 0): arrow.RecordBatch {
  if (!plan.nested) return batch;
  const lead = batch.data.children.slice(0, skip);
  const children = plan.nested.map((c) => c.path.reduce((d, i) => structChild(d, i), batch.data.children[skip + c.top]));
  return recordBatch(schema, [...lead, ...children], batch.numRows);
}
