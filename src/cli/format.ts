// Rendering Arrow batches of a table for the terminal: aligned text, JSON lines or CSV.
import * as arrow from "apache-arrow";
import { decimalToString } from "../spec/binary-row.js";
import type { DataField, DataType } from "../spec/types.js";
import { formatIsoDate, formatIsoDateTime } from "../spec/civil-time.js";
import { internalValue } from "../arrow/row-values.js";
import { base64 } from "../format/arrow-types.js";
import { isValidAt } from "../arrow/values.js";


/** One cell as a JSON-compatible value (int64 beyond 2^53 as a string, temporal values as ISO text). */
export function cellValue(data: arrow.Data, row: number, field: DataField): unknown {
  return typedCell(data, row, field.type);
}

/**
 * One cell of Paimon type `type`; nested values walk the buffers (apache-arrow's row getters
 * would drop a leading U+FEFF of strings and give temporal values as raw numbers).
 */
function typedCell(data: arrow.Data, row: number, type: DataType): unknown {
  switch (type.kind) {
    case "ARRAY":
    case "MAP":
    case "MULTISET": {
      if (!isValidAt(data, row)) return null;
      const o = data.valueOffsets as Int32Array;
      const child = data.children[0]!;
      if (type.kind === "ARRAY") {
        const out: unknown[] = [];
        for (let i = o[row]!; i < o[row + 1]!; i++) out.push(typedCell(child, i, type.element));
        return out;
      }
      // map entries (key, value); a multiset counts each element
      const keyType = type.kind === "MAP" ? type.key : type.element;
      const valueType: DataType = type.kind === "MAP" ? type.value : { kind: "INT", nullable: false };
      const out: Record<string, unknown> = {};
      for (let i = o[row]!; i < o[row + 1]!; i++) out[cellText(typedCell(child.children[0]!, i, keyType))] = typedCell(child.children[1]!, i, valueType);
      return out;
    }
    case "ROW": {
      if (!isValidAt(data, row)) return null;
      const out: Record<string, unknown> = {};
      type.fields.forEach((f, k) => (out[f.name] = typedCell(data.children[k]!, row, f.type)));
      return out;
    }
    case "VARIANT":
      return JSON.parse(JSON.stringify(plain(new arrow.Vector([data]).get(row)), (_k, x) => (typeof x === "bigint" ? x.toString() : x)));
  }
  const v = internalValue(data, row, type);
  if (v === null) return null;
  switch (type.kind) {
    case "BIGINT":
      return Number.isSafeInteger(Number(v)) ? Number(v) : String(v);
    case "DATE":
      return formatIsoDate(v as number);
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const ts = v as { millis: bigint; nanoOfMillisecond: number };
      return formatIsoDateTime(ts.millis, ts.nanoOfMillisecond) + (type.kind === "TIMESTAMP_LTZ" ? "Z" : "");
    }
    case "DECIMAL":
      return decimalToString(v as bigint, type.scale);
    case "BINARY":
    case "VARBINARY":
      return base64(v as Uint8Array);
    case "FLOAT":
    case "DOUBLE":
      return Number.isFinite(v as number) ? v : String(v);
    default:
      return v;
  }
}

/** Arrow's row and vector objects as plain JSON-compatible values. */
function plain(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === "object" && "toJSON" in v && typeof (v as { toJSON: () => unknown }).toJSON === "function") return (v as { toJSON: () => unknown }).toJSON();
  return v;
}

export type OutputFormat = "table" | "json" | "csv";

/** One `cellValue` as text: `null`, JSON for nested values, else the value as a string. */
export function cellText(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function csvField(v: unknown): string {
  if (v === null) return "";
  const s = cellText(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Renders rows (already converted with `cellValue`) in the requested format. */
export function render(fields: readonly DataField[], rows: unknown[][], format: OutputFormat): string {
  const names = fields.map((f) => f.name);
  if (format === "json") return rows.map((r) => JSON.stringify(Object.fromEntries(names.map((n, i) => [n, r[i]])))).join("\n");
  if (format === "csv") return [names.map(csvField).join(","), ...rows.map((r) => r.map(csvField).join(","))].join("\n");
  const cells = [names, ...rows.map((r) => r.map(cellText))];
  const widths = names.map((_, i) => Math.min(60, Math.max(...cells.map((r) => r[i].length))));
  const line = (r: string[]) => r.map((c, i) => (c.length > widths[i] ? c.slice(0, widths[i] - 1) + "…" : c.padEnd(widths[i]))).join(" | ");
  return [line(names), widths.map((w) => "-".repeat(w)).join("-+-"), ...cells.slice(1).map(line)].join("\n");
}
