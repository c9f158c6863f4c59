// Paimon data types as plain data, with Java-compatible type strings, schema JSON
// type encoding (format reference §2.3) and the mapping to/from Apache Arrow.
//
// Java sources replicated: paimon-api `types/DataTypeJsonParser.java` (tokenizer,
// keywords, defaults), `*Type.asSQLString()` / `serializeJson()`, `DataField`,
// `ReassignFieldId`; pypaimon `schema/data_types.py` (`PyarrowFieldParser`).

import * as arrow from "apache-arrow";
import { PaimonError } from "../error.js";

export type PrimitiveKind =
  | "BOOLEAN"
  | "TINYINT"
  | "SMALLINT"
  | "INT"
  | "BIGINT"
  | "FLOAT"
  | "DOUBLE"
  | "DATE"
  | "VARIANT"
  | "BLOB";

export interface PrimitiveType {
  kind: PrimitiveKind;
  nullable: boolean;
}
export interface DecimalType {
  kind: "DECIMAL";
  nullable: boolean;
  precision: number;
  scale: number;
}
/** CHAR(n), VARCHAR(n) (STRING = VARCHAR(2147483647)), BINARY(n), VARBINARY(n) (BYTES = VARBINARY(2147483647)). */
export interface LengthType {
  kind: "CHAR" | "VARCHAR" | "BINARY" | "VARBINARY";
  nullable: boolean;
  length: number;
}
/** TIME(p), TIMESTAMP(p), TIMESTAMP(p) WITH LOCAL TIME ZONE (kind "TIMESTAMP_LTZ"). */
export interface PrecisionType {
  kind: "TIME" | "TIMESTAMP" | "TIMESTAMP_LTZ";
  nullable: boolean;
  precision: number;
}
export interface ArrayType {
  kind: "ARRAY";
  nullable: boolean;
  element: DataType;
}
export interface MultisetType {
  kind: "MULTISET";
  nullable: boolean;
  element: DataType;
}
export interface MapType {
  kind: "MAP";
  nullable: boolean;
  key: DataType;
  value: DataType;
}
export interface RowType {
  kind: "ROW";
  nullable: boolean;
  fields: DataField[];
}

export type DataType =
  | PrimitiveType
  | DecimalType
  | LengthType
  | PrecisionType
  | ArrayType
  | MultisetType
  | MapType
  | RowType;

export type DataTypeKind = DataType["kind"];

export interface DataField {
  id: number;
  name: string;
  type: DataType;
  description?: string | null;
  defaultValue?: string | null;
}

export const MAX_LENGTH = 2147483647;

// ---------------------------------------------------------------------------------------------
// Constructors (nullable by default, as in Java's DataTypes)
// ---------------------------------------------------------------------------------------------

export const DataTypes = {
  BOOLEAN: (): PrimitiveType => ({ kind: "BOOLEAN", nullable: true }),
  TINYINT: (): PrimitiveType => ({ kind: "TINYINT", nullable: true }),
  SMALLINT: (): PrimitiveType => ({ kind: "SMALLINT", nullable: true }),
  INT: (): PrimitiveType => ({ kind: "INT", nullable: true }),
  BIGINT: (): PrimitiveType => ({ kind: "BIGINT", nullable: true }),
  FLOAT: (): PrimitiveType => ({ kind: "FLOAT", nullable: true }),
  DOUBLE: (): PrimitiveType => ({ kind: "DOUBLE", nullable: true }),
  DATE: (): PrimitiveType => ({ kind: "DATE", nullable: true }),
  DECIMAL: (precision = 10, scale = 0): DecimalType => ({ kind: "DECIMAL", nullable: true, precision, scale }),
  CHAR: (length = 1): LengthType => ({ kind: "CHAR", nullable: true, length }),
  VARCHAR: (length = 1): LengthType => ({ kind: "VARCHAR", nullable: true, length }),
  STRING: (): LengthType => ({ kind: "VARCHAR", nullable: true, length: MAX_LENGTH }),
  BINARY: (length = 1): LengthType => ({ kind: "BINARY", nullable: true, length }),
  VARBINARY: (length = 1): LengthType => ({ kind: "VARBINARY", nullable: true, length }),
  BYTES: (): LengthType => ({ kind: "VARBINARY", nullable: true, length: MAX_LENGTH }),
  TIME: (precision = 0): PrecisionType => ({ kind: "TIME", nullable: true, precision }),
  TIMESTAMP: (precision = 6): PrecisionType => ({ kind: "TIMESTAMP", nullable: true, precision }),
  TIMESTAMP_LTZ: (precision = 6): PrecisionType => ({ kind: "TIMESTAMP_LTZ", nullable: true, precision }),
  ARRAY: (element: DataType): ArrayType => ({ kind: "ARRAY", nullable: true, element }),
  MULTISET: (element: DataType): MultisetType => ({ kind: "MULTISET", nullable: true, element }),
  MAP: (key: DataType, value: DataType): MapType => ({ kind: "MAP", nullable: true, key, value }),
  ROW: (fields: DataField[]): RowType => ({ kind: "ROW", nullable: true, fields }),
  FIELD: (id: number, name: string, type: DataType, description?: string | null): DataField =>
    description == null ? { id, name, type } : { id, name, type, description },
};

/** A copy of `type` with the given top-level nullability (nested types unchanged). */
export function withNullable<T extends DataType>(type: T, nullable: boolean): T {
  return { ...type, nullable };
}

export function notNull<T extends DataType>(type: T): T {
  return withNullable(type, false);
}

function invalid(message: string): PaimonError {
  return new PaimonError("INVALID_ARGUMENT", message);
}

/** Validates parameters the way Java's type constructors do; throws INVALID_ARGUMENT. */
export function validateDataType(type: DataType, context = typeToString(type)): void {
  switch (type.kind) {
    case "DECIMAL":
      if (!(type.precision >= 1 && type.precision <= 38))
        throw invalid(`Decimal precision must be between 1 and 38 (both inclusive) in type '${context}'`);
      if (!(type.scale >= 0 && type.scale <= type.precision))
        throw invalid(`Decimal scale must be between 0 and the precision ${type.precision} in type '${context}'`);
      return;
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY":
      if (!(Number.isInteger(type.length) && type.length >= 1 && type.length <= MAX_LENGTH))
        throw invalid(`${type.kind} length must be between 1 and ${MAX_LENGTH} in type '${context}'`);
      return;
    case "TIME":
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      if (!(Number.isInteger(type.precision) && type.precision >= 0 && type.precision <= 9))
        throw invalid(`${type.kind} precision must be between 0 and 9 (both inclusive) in type '${context}'`);
      return;
    case "ARRAY":
    case "MULTISET":
      validateDataType(type.element, context);
      return;
    case "MAP":
      validateDataType(type.key, context);
      validateDataType(type.value, context);
      return;
    case "ROW": {
      const seen = new Set<string>();
      for (const f of type.fields) {
        if (f.name.trim() === "") throw invalid(`Field names must contain at least one non-whitespace character in type '${context}'`);
        if (seen.has(f.name)) throw invalid(`Field names must be unique. Found duplicate '${f.name}' in type '${context}'`);
        seen.add(f.name);
        validateDataType(f.type, context);
      }
      return;
    }
    default:
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Printing (Java's asSQLString)
// ---------------------------------------------------------------------------------------------

function nullability(s: string, nullable: boolean): string {
  return nullable ? s : `${s} NOT NULL`;
}

/** Java `EncodingUtils.escapeIdentifier`: backquoted, with backquotes doubled. */
export function escapeIdentifier(name: string): string {
  return "`" + name.replace(/`/g, "``") + "`";
}

/** Java `DataField.asSQLString()`: "`name` TYPE[ COMMENT '...'][ DEFAULT v]". */
export function fieldToString(field: DataField): string {
  let s = `${escapeIdentifier(field.name)} ${typeToString(field.type)}`;
  if (field.description != null && field.description !== "") s += ` COMMENT '${field.description.replace(/'/g, "''")}'`;
  if (field.defaultValue != null) s += ` DEFAULT ${field.defaultValue}`;
  return s;
}

/** The type string exactly as Java's `DataType.asSQLString()` prints it. */
export function typeToString(type: DataType): string {
  switch (type.kind) {
    case "BOOLEAN":
    case "TINYINT":
    case "SMALLINT":
    case "INT":
    case "BIGINT":
    case "FLOAT":
    case "DOUBLE":
    case "DATE":
    case "VARIANT":
    case "BLOB":
      return nullability(type.kind, type.nullable);
    case "DECIMAL":
      return nullability(`DECIMAL(${type.precision}, ${type.scale})`, type.nullable);
    case "CHAR":
    case "BINARY":
      return nullability(`${type.kind}(${type.length})`, type.nullable);
    case "VARCHAR":
      return nullability(type.length === MAX_LENGTH ? "STRING" : `VARCHAR(${type.length})`, type.nullable);
    case "VARBINARY":
      return nullability(type.length === MAX_LENGTH ? "BYTES" : `VARBINARY(${type.length})`, type.nullable);
    case "TIME":
    case "TIMESTAMP":
      return nullability(`${type.kind}(${type.precision})`, type.nullable);
    case "TIMESTAMP_LTZ":
      return nullability(`TIMESTAMP(${type.precision}) WITH LOCAL TIME ZONE`, type.nullable);
    case "ARRAY":
    case "MULTISET":
      return nullability(`${type.kind}<${typeToString(type.element)}>`, type.nullable);
    case "MAP":
      return nullability(`MAP<${typeToString(type.key)}, ${typeToString(type.value)}>`, type.nullable);
    case "ROW":
      return nullability(`ROW<${type.fields.map(fieldToString).join(", ")}>`, type.nullable);
  }
}

export function isComplexType(type: DataType): type is ArrayType | MultisetType | MapType | RowType {
  return type.kind === "ARRAY" || type.kind === "MULTISET" || type.kind === "MAP" || type.kind === "ROW";
}

// ---------------------------------------------------------------------------------------------
// Parsing type strings (Java's tokenizer extended with ARRAY<..>, MAP<..>, MULTISET<..>, ROW<..>)
// ---------------------------------------------------------------------------------------------

enum Tok {
  BeginSubtype,
  EndSubtype,
  BeginParam,
  EndParam,
  Sep,
  Str,
  Int,
  Keyword,
  Ident,
  Dot,
}

interface Token {
  type: Tok;
  pos: number;
  value: string;
}

const KEYWORDS = new Set([
  "CHAR", "VARCHAR", "STRING", "BOOLEAN", "BINARY", "VARBINARY", "BYTES", "DECIMAL", "NUMERIC", "DEC",
  "TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE", "PRECISION", "DATE", "TIME",
  "WITH", "WITHOUT", "LOCAL", "ZONE", "TIMESTAMP", "TIMESTAMP_LTZ", "INTERVAL", "YEAR", "MONTH", "DAY",
  "HOUR", "MINUTE", "SECOND", "TO", "ARRAY", "VECTOR", "MULTISET", "MAP", "ROW", "NULL", "RAW", "LEGACY",
  "VARIANT", "BLOB", "GEOMETRY", "GEOGRAPHY", "NOT", "COMMENT", "DEFAULT",
]);

function isWhitespace(c: string): boolean {
  return /\s/.test(c);
}

function isDelimiter(c: string): boolean {
  return isWhitespace(c) || c === "<" || c === ">" || c === "(" || c === ")" || c === "," || c === ".";
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  const single: Record<string, Tok> = { "<": Tok.BeginSubtype, ">": Tok.EndSubtype, "(": Tok.BeginParam, ")": Tok.EndParam, ",": Tok.Sep, ".": Tok.Dot };
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    const t = single[c];
    if (t !== undefined) {
      tokens.push({ type: t, pos: i, value: c });
    } else if (c === "'" || c === "`") {
      const start = i;
      let s = "";
      let closed = false;
      for (i++; i < input.length; i++) {
        const d = input[i]!;
        if (d === c && input[i + 1] === c) {
          s += c;
          i++;
        } else if (d === c) {
          closed = true;
          break;
        } else s += d;
      }
      if (!closed) throw parseError(input, start, `Unterminated ${c === "'" ? "string literal" : "quoted identifier"}`);
      tokens.push({ type: c === "'" ? Tok.Str : Tok.Ident, pos: start, value: s });
    } else if (isWhitespace(c)) {
      continue;
    } else if (c >= "0" && c <= "9") {
      const start = i;
      while (i + 1 < input.length && input[i + 1]! >= "0" && input[i + 1]! <= "9") i++;
      tokens.push({ type: Tok.Int, pos: start, value: input.slice(start, i + 1) });
    } else {
      const start = i;
      while (i + 1 < input.length && !isDelimiter(input[i + 1]!)) i++;
      const word = input.slice(start, i + 1);
      const upper = word.toUpperCase();
      if (KEYWORDS.has(upper)) tokens.push({ type: Tok.Keyword, pos: start, value: upper });
      else tokens.push({ type: Tok.Ident, pos: start, value: word });
    }
  }
  return tokens;
}

function parseError(input: string, pos: number, cause: string): PaimonError {
  return invalid(`Could not parse type at position ${pos}: ${cause}. Input type string: '${input}'`);
}

class TypeParser {
  private i = 0;
  constructor(
    private readonly input: string,
    private readonly tokens: Token[],
    private readonly nextFieldId: () => number,
  ) {}

  parseAll(): DataType {
    const t = this.parseTypeWithNullability();
    if (this.i < this.tokens.length) throw this.error(`Unexpected token '${this.tokens[this.i]!.value}'`);
    return t;
  }

  private error(cause: string): PaimonError {
    const tok = this.tokens[Math.min(this.i, this.tokens.length - 1)];
    return parseError(this.input, this.i < this.tokens.length && tok ? tok.pos : this.input.length, cause);
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }

  private isKeyword(offset: number, kw: string): boolean {
    const t = this.peek(offset);
    return t !== undefined && t.type === Tok.Keyword && t.value === kw;
  }

  private isType(offset: number, type: Tok): boolean {
    return this.peek(offset)?.type === type;
  }

  private next(type?: Tok, what?: string): Token {
    const t = this.tokens[this.i];
    if (t === undefined) throw this.error(`Unexpected end${what ? `, expected ${what}` : ""}`);
    if (type !== undefined && t.type !== type) throw this.error(`Expected ${what ?? Tok[type]} but was '${t.value}'`);
    this.i++;
    return t;
  }

  private keyword(kw: string): void {
    const t = this.next(Tok.Keyword, `'${kw}'`);
    if (t.value !== kw) {
      this.i--;
      throw this.error(`Keyword '${kw}' expected but was '${t.value}'`);
    }
  }

  private int(): number {
    const t = this.next(Tok.Int, "an integer");
    const n = Number(t.value);
    if (!Number.isSafeInteger(n) || n > MAX_LENGTH) {
      this.i--;
      throw this.error(`Invalid integer value '${t.value}'`);
    }
    return n;
  }

  private parseNullability(): boolean {
    if (this.isKeyword(0, "NOT") && this.isKeyword(1, "NULL")) {
      this.i += 2;
      return false;
    }
    if (this.isKeyword(0, "NULL")) {
      this.i++;
      return true;
    }
    return true;
  }

  parseTypeWithNullability(): DataType {
    let type = this.parseTypeByKeyword();
    type = withNullable(type, this.parseNullability());
    // postfix notation: "<type> ARRAY" / "<type> MULTISET"
    while (this.isKeyword(0, "ARRAY") || this.isKeyword(0, "MULTISET")) {
      const kw = this.next().value;
      const wrapped: DataType = kw === "ARRAY" ? DataTypes.ARRAY(type) : DataTypes.MULTISET(type);
      type = withNullable(wrapped, this.parseNullability());
    }
    return type;
  }

  private optionalLength(def: number): number {
    if (this.isType(0, Tok.BeginParam)) {
      this.next();
      const n = this.int();
      this.next(Tok.EndParam, "')'");
      return n;
    }
    return def;
  }

  private beginSubtype(): string {
    const t = this.next(undefined, "'<'");
    if (t.type === Tok.BeginSubtype) return ">";
    if (t.type === Tok.BeginParam) return ")";
    this.i--;
    throw this.error(`Expected '<' but was '${t.value}'`);
  }

  private endSubtype(close: string): void {
    const t = this.next(undefined, `'${close}'`);
    if ((close === ">" && t.type !== Tok.EndSubtype) || (close === ")" && t.type !== Tok.EndParam)) {
      this.i--;
      throw this.error(`Expected '${close}' but was '${t.value}'`);
    }
  }

  private parseTypeByKeyword(): DataType {
    const t = this.next(undefined, "a type");
    if (t.type !== Tok.Keyword) {
      this.i--;
      throw this.error(`Unknown type '${t.value}'`);
    }
    switch (t.value) {
      case "CHAR":
        return DataTypes.CHAR(this.optionalLength(1));
      case "VARCHAR":
        return DataTypes.VARCHAR(this.optionalLength(1));
      case "STRING":
        return DataTypes.STRING();
      case "BOOLEAN":
        return DataTypes.BOOLEAN();
      case "BINARY":
        return DataTypes.BINARY(this.optionalLength(1));
      case "VARBINARY":
        return DataTypes.VARBINARY(this.optionalLength(1));
      case "BYTES":
        return DataTypes.BYTES();
      case "DECIMAL":
      case "NUMERIC":
      case "DEC": {
        let precision = 10;
        let scale = 0;
        if (this.isType(0, Tok.BeginParam)) {
          this.next();
          precision = this.int();
          if (this.isType(0, Tok.Sep)) {
            this.next();
            scale = this.int();
          }
          this.next(Tok.EndParam, "')'");
        }
        return DataTypes.DECIMAL(precision, scale);
      }
      case "TINYINT":
        return DataTypes.TINYINT();
      case "SMALLINT":
        return DataTypes.SMALLINT();
      case "INT":
      case "INTEGER":
        return DataTypes.INT();
      case "BIGINT":
        return DataTypes.BIGINT();
      case "FLOAT":
        return DataTypes.FLOAT();
      case "DOUBLE":
        if (this.isKeyword(0, "PRECISION")) this.next();
        return DataTypes.DOUBLE();
      case "DATE":
        return DataTypes.DATE();
      case "TIME": {
        const p = this.optionalLength(0);
        if (this.isKeyword(0, "WITHOUT")) {
          this.next();
          this.keyword("TIME");
          this.keyword("ZONE");
        }
        return DataTypes.TIME(p);
      }
      case "TIMESTAMP": {
        const p = this.optionalLength(6);
        if (this.isKeyword(0, "WITHOUT")) {
          this.next();
          this.keyword("TIME");
          this.keyword("ZONE");
        } else if (this.isKeyword(0, "WITH")) {
          this.next();
          this.keyword("LOCAL");
          this.keyword("TIME");
          this.keyword("ZONE");
          return DataTypes.TIMESTAMP_LTZ(p);
        }
        return DataTypes.TIMESTAMP(p);
      }
      case "TIMESTAMP_LTZ":
        return DataTypes.TIMESTAMP_LTZ(this.optionalLength(6));
      case "VARIANT":
        return { kind: "VARIANT", nullable: true };
      case "BLOB":
        return { kind: "BLOB", nullable: true };
      case "ARRAY":
      case "MULTISET": {
        const close = this.beginSubtype();
        const element = this.parseTypeWithNullability();
        this.endSubtype(close);
        return t.value === "ARRAY" ? DataTypes.ARRAY(element) : DataTypes.MULTISET(element);
      }
      case "MAP": {
        const close = this.beginSubtype();
        const key = this.parseTypeWithNullability();
        this.next(Tok.Sep, "','");
        const value = this.parseTypeWithNullability();
        this.endSubtype(close);
        return DataTypes.MAP(key, value);
      }
      case "ROW":
        return this.parseRow();
      default:
        this.i--;
        throw this.error(`Unsupported type '${t.value}'`);
    }
  }

  private parseRow(): RowType {
    const close = this.beginSubtype();
    const fields: DataField[] = [];
    const closing = close === ">" ? Tok.EndSubtype : Tok.EndParam;
    if (this.isType(0, Tok.Sep)) throw this.error("Field name expected");
    while (!this.isType(0, closing)) {
      if (fields.length > 0) this.next(Tok.Sep, "','");
      const nameTok = this.next(undefined, "a field name");
      if (nameTok.type !== Tok.Ident && nameTok.type !== Tok.Keyword) {
        this.i--;
        throw this.error(`Field name expected but was '${nameTok.value}'`);
      }
      // Keywords used as unquoted names keep the user's spelling.
      const name = nameTok.type === Tok.Keyword ? this.input.slice(nameTok.pos, nameTok.pos + nameTok.value.length) : nameTok.value;
      const type = this.parseTypeWithNullability();
      let description: string | null = null;
      if (this.isKeyword(0, "COMMENT")) {
        this.next();
        description = this.next(Tok.Str, "a string literal").value;
      } else if (this.isType(0, Tok.Str)) {
        description = this.next().value;
      }
      const id = this.nextFieldId();
      fields.push(DataTypes.FIELD(id, name, type, description));
    }
    this.endSubtype(close);
    return DataTypes.ROW(fields);
  }
}

export interface ParseTypeOptions {
  /** Supplies ids for ROW fields (called once per nested field, post-order as Java's ReassignFieldId). Default 0, 1, 2, … */
  nextFieldId?: () => number;
}

/**
 * Parses a Paimon type string: every atomic type with Java's synonyms ("INTEGER", "DEC",
 * "DOUBLE PRECISION", "TIMESTAMP_LTZ(3)", "… WITHOUT TIME ZONE", "<type> ARRAY"), nullability
 * ("NOT NULL", "NULL"), and nested "ARRAY<…>", "MULTISET<…>", "MAP<K, V>", "ROW<a INT, `b` STRING COMMENT '…'>".
 * Throws INVALID_ARGUMENT naming the string.
 */
export function parseDataType(input: string, options: ParseTypeOptions = {}): DataType {
  if (typeof input !== "string") throw invalid(`Type string expected, got ${String(input)}`);
  let counter = 0;
  const nextFieldId = options.nextFieldId ?? (() => counter++);
  const tokens = tokenize(input);
  if (tokens.length === 0) throw invalid(`Could not parse type: empty type string '${input}'`);
  const type = new TypeParser(input, tokens, nextFieldId).parseAll();
  validateDataType(type, input);
  return type;
}

/** A DataType given either as a type string or as plain data (validated). */
export function toDataType(type: string | DataType): DataType {
  if (typeof type === "string") return parseDataType(type);
  if (type === null || typeof type !== "object" || typeof (type as DataType).kind !== "string")
    throw invalid(`Invalid data type: ${JSON.stringify(type)}`);
  validateDataType(type);
  return type;
}

// ---------------------------------------------------------------------------------------------
// Schema JSON encoding (§2.3)
// ---------------------------------------------------------------------------------------------

export type TypeJson = string | { [key: string]: unknown };

export function fieldToJson(field: DataField): Record<string, unknown> {
  const out: Record<string, unknown> = { id: field.id, name: field.name, type: typeToJson(field.type) };
  if (field.description != null) out.description = field.description;
  if (field.defaultValue != null) out.defaultValue = field.defaultValue;
  return out;
}

/** Java's `DataType.serializeJson`: atomic types as their SQL string, complex types as objects. */
export function typeToJson(type: DataType): TypeJson {
  const nn = type.nullable ? "" : " NOT NULL";
  switch (type.kind) {
    case "ARRAY":
    case "MULTISET":
      return { type: type.kind + nn, element: typeToJson(type.element) };
    case "MAP":
      return { type: "MAP" + nn, key: typeToJson(type.key), value: typeToJson(type.value) };
    case "ROW":
      return { type: "ROW" + nn, fields: type.fields.map(fieldToJson) };
    default:
      return typeToString(type);
  }
}

export function fieldFromJson(json: unknown, context = "schema"): DataField {
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw invalid(`Invalid field JSON in ${context}: ${JSON.stringify(json)}`);
  const o = json as Record<string, unknown>;
  const id = typeof o.id === "number" ? o.id : typeof o.id === "string" ? Number(o.id) : NaN;
  if (!Number.isInteger(id)) throw invalid(`Field without a valid "id" in ${context}: ${JSON.stringify(json)}`);
  if (typeof o.name !== "string") throw invalid(`Field without a "name" in ${context}: ${JSON.stringify(json)}`);
  const field: DataField = { id, name: o.name, type: typeFromJson(o.type, context) };
  if (o.description != null) field.description = String(o.description);
  if (o.defaultValue != null) field.defaultValue = String(o.defaultValue);
  return field;
}

/**
 * Java's `DataTypeJsonParser.parseDataType`: strings are atomic SQL strings (nested type
 * strings are accepted too), objects are ARRAY/MULTISET/MAP/ROW. An explicit boolean
 * "nullable" key (written by pypaimon) takes precedence over Java's `contains("NOT NULL")` rule.
 */
export function typeFromJson(json: unknown, context = "schema"): DataType {
  if (typeof json === "string") return parseDataType(json);
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw invalid(`Can not parse type JSON in ${context}: ${JSON.stringify(json)}`);
  const o = json as Record<string, unknown>;
  const typeString = o.type;
  if (typeof typeString !== "string") throw invalid(`Can not parse type JSON in ${context}: ${JSON.stringify(json)}`);
  const nullable = typeof o.nullable === "boolean" ? o.nullable : !typeString.includes("NOT NULL");
  let type: DataType;
  if (typeString.startsWith("ARRAY")) type = DataTypes.ARRAY(typeFromJson(o.element, context));
  else if (typeString.startsWith("MULTISET")) type = DataTypes.MULTISET(typeFromJson(o.element, context));
  else if (typeString.startsWith("MAP")) type = DataTypes.MAP(typeFromJson(o.key, context), typeFromJson(o.value, context));
  else if (typeString.startsWith("ROW")) {
    if (!Array.isArray(o.fields)) throw invalid(`ROW type without "fields" in ${context}: ${JSON.stringify(json)}`);
    type = DataTypes.ROW(o.fields.map((f) => fieldFromJson(f, context)));
  } else throw invalid(`Can not parse type JSON in ${context}: ${JSON.stringify(json)}`);
  return withNullable(type, nullable);
}

// ---------------------------------------------------------------------------------------------
// Field ids
// ---------------------------------------------------------------------------------------------

/**
 * Java's `ReassignFieldId`: renumbers nested ROW fields from `counter` (the next id is
 * `counter.value + 1`); nested types are renumbered before the enclosing field (post-order).
 */
export function reassignFieldIds(type: DataType, counter: { value: number }): DataType {
  switch (type.kind) {
    case "ARRAY":
    case "MULTISET":
      return { ...type, element: reassignFieldIds(type.element, counter) };
    case "MAP": {
      const key = reassignFieldIds(type.key, counter);
      const value = reassignFieldIds(type.value, counter);
      return { ...type, key, value };
    }
    case "ROW":
      return {
        ...type,
        fields: type.fields.map((f) => {
          const t = reassignFieldIds(f.type, counter);
          const id = ++counter.value;
          return DataTypes.FIELD(id, f.name, t, f.description);
        }),
      };
    default:
      return type;
  }
}

/** All field ids used by `fields` and their nested ROW types. */
export function collectFieldIds(fields: readonly DataField[], into: number[] = []): number[] {
  const visit = (t: DataType): void => {
    if (t.kind === "ARRAY" || t.kind === "MULTISET") visit(t.element);
    else if (t.kind === "MAP") {
      visit(t.key);
      visit(t.value);
    } else if (t.kind === "ROW") collectFieldIds(t.fields, into);
  };
  for (const f of fields) {
    into.push(f.id);
    visit(f.type);
  }
  return into;
}

/** Paimon system field ids start at Integer.MAX_VALUE / 2. */
export const SYSTEM_FIELD_ID_START = 1073741823;

/** Highest non-system field id (-1 when there is none), as Java's `RowType.currentHighestFieldId`. */
export function highestFieldId(fields: readonly DataField[]): number {
  let max = -1;
  for (const id of collectFieldIds(fields)) if (id < SYSTEM_FIELD_ID_START && id > max) max = id;
  return max;
}

/** Whether reading a column written as `from` under `to` needs a value cast (not just Arrow relabelling): the types differ beyond nullability. */
export function needsValueCast(from: DataType, to: DataType): boolean {
  return !typesEqual({ ...from, nullable: true }, { ...to, nullable: true });
}

/** Structural equality of two types (field ids, names and descriptions included). */
export function typesEqual(a: DataType, b: DataType, ignoreFieldIds = false): boolean {
  if (a.kind !== b.kind || a.nullable !== b.nullable) return false;
  switch (a.kind) {
    case "DECIMAL":
      return a.precision === (b as DecimalType).precision && a.scale === (b as DecimalType).scale;
    case "CHAR":
    case "VARCHAR":
    case "BINARY":
    case "VARBINARY":
      return a.length === (b as LengthType).length;
    case "TIME":
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ":
      return a.precision === (b as PrecisionType).precision;
    case "ARRAY":
    case "MULTISET":
      return typesEqual(a.element, (b as ArrayType).element, ignoreFieldIds);
    case "MAP":
      return typesEqual(a.key, (b as MapType).key, ignoreFieldIds) && typesEqual(a.value, (b as MapType).value, ignoreFieldIds);
    case "ROW": {
      const bf = (b as RowType).fields;
      return (
        a.fields.length === bf.length &&
        a.fields.every(
          (f, i) =>
            (ignoreFieldIds || f.id === bf[i]!.id) &&
            f.name === bf[i]!.name &&
            (f.description ?? null) === (bf[i]!.description ?? null) &&
            typesEqual(f.type, bf[i]!.type, ignoreFieldIds),
        )
      );
    }
    default:
      return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Apache Arrow mapping (pypaimon `PyarrowFieldParser`, Java `ArrowFieldTypeConversion`)
// ---------------------------------------------------------------------------------------------

/** Arrow field-metadata key carrying the Paimon field id (as Parquet writers expect). */
export const ARROW_FIELD_ID_KEY = "PARQUET:field_id";

/**
 * Paimon type -> Arrow type: CHAR/VARCHAR/STRING -> Utf8, BINARY/VARBINARY/BYTES/BLOB -> Binary,
 * DECIMAL -> Decimal128(p, s), DATE -> DateDay, TIME -> Time32(ms), TIMESTAMP(p) -> Timestamp with
 * unit s (p=0) / ms (1..3) / us (4..6) / ns (7..9), TIMESTAMP_LTZ the same with time zone "UTC",
 * ARRAY/MULTISET... see `toArrowField`.
 */
/** The Arrow type of an atomic, non-temporal-instant type (shared by the in-memory and Parquet layouts); null otherwise. */
export function atomicArrowType(type: DataType): arrow.DataType | null {
  switch (type.kind) {
    case "BOOLEAN":
      return new arrow.Bool();
    case "TINYINT":
      return new arrow.Int8();
    case "SMALLINT":
      return new arrow.Int16();
    case "INT":
      return new arrow.Int32();
    case "BIGINT":
      return new arrow.Int64();
    case "FLOAT":
      return new arrow.Float32();
    case "DOUBLE":
      return new arrow.Float64();
    case "CHAR":
    case "VARCHAR":
      return new arrow.Utf8();
    case "BINARY":
    case "VARBINARY":
    case "BLOB":
      return new arrow.Binary();
    case "DECIMAL":
      return new arrow.Decimal(type.scale, type.precision, 128);
    case "DATE":
      return new arrow.DateDay();
    case "TIME":
      return new arrow.TimeMillisecond();
    default:
      return null;
  }
}

export function toArrowType(type: DataType): arrow.DataType {
  const atomic = atomicArrowType(type);
  if (atomic) return atomic;
  switch (type.kind) {
    case "TIMESTAMP":
    case "TIMESTAMP_LTZ": {
      const tz = type.kind === "TIMESTAMP_LTZ" ? "UTC" : null;
      const p = type.precision;
      if (p === 0) return new arrow.TimestampSecond(tz);
      if (p <= 3) return new arrow.TimestampMillisecond(tz);
      if (p <= 6) return new arrow.TimestampMicrosecond(tz);
      return new arrow.TimestampNanosecond(tz);
    }
    case "VARIANT":
      return new arrow.Struct([
        new arrow.Field("value", new arrow.Binary(), false),
        new arrow.Field("metadata", new arrow.Binary(), false),
      ]);
    case "ARRAY":
      return new arrow.List(new arrow.Field("element", toArrowType(type.element), type.element.nullable));
    case "MULTISET":
      // Paimon stores MULTISET<E> as MAP<E, INT NOT NULL>.
      return arrowMap(new arrow.Field("key", toArrowType(type.element), false), new arrow.Field("value", new arrow.Int32(), false));
    case "MAP":
      return arrowMap(new arrow.Field("key", toArrowType(type.key), false), new arrow.Field("value", toArrowType(type.value), type.value.nullable));
    case "ROW":
      return new arrow.Struct(type.fields.map((f) => toArrowField(f)));
    default:
      throw new PaimonError("UNSUPPORTED", `no Arrow type for ${type.kind}`);
  }
}

function arrowMap(key: arrow.Field, value: arrow.Field): arrow.DataType {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const entries = new arrow.Struct<any>([key, value]) as any;
  return new arrow.Map_(new arrow.Field("entries", entries, false), false);
}

/** Paimon field -> Arrow field with the field id in metadata `PARQUET:field_id` (and "description" if any). */
export function toArrowField(field: DataField): arrow.Field {
  const metadata = new Map<string, string>([[ARROW_FIELD_ID_KEY, String(field.id)]]);
  if (field.description) metadata.set("description", field.description);
  return new arrow.Field(field.name, toArrowType(field.type), field.type.nullable, metadata);
}

export function toArrowSchema(fields: readonly DataField[]): arrow.Schema {
  return new arrow.Schema(fields.map(toArrowField));
}

/**
 * Arrow type -> Paimon type (pypaimon's `to_paimon_type` rules): Int8..Int64, Float32/64, Bool,
 * Utf8/LargeUtf8 -> STRING, Binary/LargeBinary -> BYTES, FixedSizeBinary(n) -> BINARY(n),
 * Decimal -> DECIMAL(p, s), Timestamp -> TIMESTAMP(0/3/6/9) or TIMESTAMP_LTZ when it has a time zone,
 * Date -> DATE, Time -> TIME(0/3/6/9), List -> ARRAY, Map -> MAP, Struct -> ROW.
 * Nested ROW field ids come from `PARQUET:field_id` metadata or are numbered 0, 1, …
 */
export function fromArrowType(type: arrow.DataType, nullable = true): DataType {
  const T = arrow.Type;
  const t = (k: PrimitiveKind): DataType => ({ kind: k, nullable });
  switch (type.typeId) {
    case T.Bool:
      return t("BOOLEAN");
    case T.Int: {
      const it = type as arrow.Int;
      if (!it.isSigned) {
        if (it.bitWidth < 8) return t("TINYINT");
        if (it.bitWidth === 8) return t("SMALLINT");
        if (it.bitWidth === 16) return t("INT");
        if (it.bitWidth === 32) return t("BIGINT");
        throw invalid(`Unsupported Arrow type ${String(type)} (unsigned 64-bit integers do not fit BIGINT)`);
      }
      return t(it.bitWidth === 8 ? "TINYINT" : it.bitWidth === 16 ? "SMALLINT" : it.bitWidth === 32 ? "INT" : "BIGINT");
    }
    case T.Float: {
      const ft = type as arrow.Float;
      if (ft.precision === arrow.Precision.DOUBLE) return t("DOUBLE");
      return t("FLOAT");
    }
    case T.Utf8:
    case T.LargeUtf8:
      return withNullable(DataTypes.STRING(), nullable);
    case T.Binary:
    case T.LargeBinary:
      return withNullable(DataTypes.BYTES(), nullable);
    case T.FixedSizeBinary:
      return withNullable(DataTypes.BINARY((type as arrow.FixedSizeBinary).byteWidth), nullable);
    case T.Decimal: {
      const d = type as arrow.Decimal;
      return withNullable(DataTypes.DECIMAL(d.precision, d.scale), nullable);
    }
    case T.Date:
      return t("DATE");
    case T.Time: {
      const tt = type as arrow.Time;
      return withNullable(DataTypes.TIME(precisionOfUnit(tt.unit)), nullable);
    }
    case T.Timestamp: {
      const ts = type as arrow.Timestamp;
      const p = precisionOfUnit(ts.unit);
      return withNullable(ts.timezone ? DataTypes.TIMESTAMP_LTZ(p) : DataTypes.TIMESTAMP(p), nullable);
    }
    case T.List:
    case T.FixedSizeList: {
      const child = (type as arrow.List).children[0]!;
      return withNullable(DataTypes.ARRAY(fromArrowType(child.type, child.nullable)), nullable);
    }
    case T.Map: {
      const entries = (type as arrow.Map_).children[0]!.type as arrow.Struct;
      const [k, v] = entries.children;
      return withNullable(DataTypes.MAP(fromArrowType(k!.type, false), fromArrowType(v!.type, v!.nullable)), nullable);
    }
    case T.Struct: {
      const children = (type as arrow.Struct).children;
      return withNullable(DataTypes.ROW(children.map((c, i) => fromArrowField(c, i))), nullable);
    }
    default:
      throw invalid(`Unsupported Arrow type ${String(type)}`);
  }
}

function precisionOfUnit(unit: arrow.TimeUnit): number {
  switch (unit) {
    case arrow.TimeUnit.SECOND:
      return 0;
    case arrow.TimeUnit.MILLISECOND:
      return 3;
    case arrow.TimeUnit.MICROSECOND:
      return 6;
    default:
      return 9;
  }
}

/** Arrow field -> Paimon field; the id is taken from `PARQUET:field_id` metadata when present. */
export function fromArrowField(field: arrow.Field, defaultId: number): DataField {
  const idText = field.metadata.get(ARROW_FIELD_ID_KEY);
  const id = idText !== undefined && /^-?\d+$/.test(idText) ? Number(idText) : defaultId;
  return DataTypes.FIELD(id, field.name, fromArrowType(field.type, field.nullable), field.metadata.get("description") ?? null);
}

/** Arrow schema -> Paimon fields (ids from metadata, else 0, 1, … in order). */
export function fromArrowSchema(schema: arrow.Schema): DataField[] {
  return schema.fields.map((f, i) => fromArrowField(f, i));
}
