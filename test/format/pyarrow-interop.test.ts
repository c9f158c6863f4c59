// Interop with pyarrow (what pypaimon uses), when the oracle venv exists; skipped otherwise.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readParquet, writeParquet } from "../../src/format/index.js";
import { DataTypes as T, notNull } from "../../src/spec/types.js";
import { batch, tableColumn } from "./helpers.js";

const python = join(process.cwd(), ".oracles/venv/bin/python");
const hasPyarrow = existsSync(python) && spawnSync(python, ["-c", "import pyarrow.parquet"], { encoding: "utf8" }).status === 0;
const dir = hasPyarrow ? mkdtempSync(join(tmpdir(), "paimon-fmt-")) : "";
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function py(script: string, ...args: string[]): string {
  const r = spawnSync(python, ["-c", script, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`python failed: ${r.stderr}`);
  return r.stdout;
}

const DUMP = `
import sys, json, math, decimal, datetime
import pyarrow as pa, pyarrow.parquet as pq
def conv(v):
    if v is None: return None
    if isinstance(v, bool): return v
    if isinstance(v, int): return str(v)
    if isinstance(v, float): return 'nan' if math.isnan(v) else repr(v)
    if isinstance(v, decimal.Decimal): return str(v)
    if isinstance(v, bytes): return v.hex()
    if isinstance(v, dict): return {k: conv(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)): return [conv(x) for x in v]
    return str(v)
t = pq.read_table(sys.argv[1])
out = {'ids': {f.name: (f.metadata or {}).get(b'PARQUET:field_id', b'').decode() for f in t.schema}, 'types': {f.name: str(f.type) for f in t.schema}, 'cols': {}}
for name in t.column_names:
    col = t.column(name)
    if pa.types.is_timestamp(col.type) or pa.types.is_date(col.type) or pa.types.is_time(col.type):
        col = col.cast(pa.int64() if pa.types.is_timestamp(col.type) or pa.types.is_time64(col.type) else pa.int32())
    out['cols'][name] = conv(col.to_pylist())
print(json.dumps(out))
`;

describe.skipIf(!hasPyarrow)("pyarrow interop", () => {
  const F = T.FIELD;
  const fields = [
    F(0, "id", notNull(T.BIGINT())),
    F(1, "s", T.STRING()),
    F(2, "d", T.DOUBLE()),
    F(3, "dec", T.DECIMAL(20, 2)),
    F(4, "dec9", T.DECIMAL(9, 3)),
    F(5, "ts6", T.TIMESTAMP(6)),
    F(6, "ltz3", T.TIMESTAMP_LTZ(3)),
    F(7, "date", T.DATE()),
    F(8, "arr", T.ARRAY(T.INT())),
    F(9, "m", T.MAP(T.STRING(), T.BIGINT())),
    F(10, "r", T.ROW([F(11, "x", T.INT()), F(12, "y", T.STRING())])),
    F(13, "ti", T.TINYINT()),
    F(14, "bin", T.BYTES()),
  ];
  const rows = {
    id: [-(2n ** 63n), 0n, 2n ** 63n - 1n],
    s: ["", "ünïcødé 𝄞", null],
    d: [-0, Number.NaN, 1.5],
    dec: [-(10n ** 19n) + 1n, 12345n, null],
    dec9: [999999999n, null, -1n],
    ts6: [-1n, 1700000000123456n, null],
    ltz3: [null, 1700000000123n, -86400001n],
    date: [-1, 0, 19000],
    arr: [[1, null], null, []],
    m: [new Map([["a", 1n]]), new Map(), null],
    r: [{ x: 1, y: "p" }, null, { x: null, y: null }],
    ti: [-128, 127, null],
    bin: [new Uint8Array([0, 255]), null, new Uint8Array([])],
  };

  it("pyarrow reads our file identically (values, types, field ids)", async () => {
    const file = await writeParquet(fields, batch(fields, rows));
    const path = join(dir, "ours.parquet");
    writeFileSync(path, file.bytes);
    const out = JSON.parse(py(DUMP, path));
    expect(out.ids).toMatchObject(Object.fromEntries(fields.map((f) => [f.name, String(f.id)])));
    expect(out.types).toMatchObject({ id: "int64", s: "string", d: "double", dec: "decimal128(20, 2)", dec9: "decimal128(9, 3)", ts6: "timestamp[us]", ltz3: "timestamp[ms, tz=UTC]", date: "date32[day]", ti: "int8", bin: "binary" });
    expect(out.cols.id).toEqual(rows.id.map(String));
    expect(out.cols.s).toEqual(rows.s);
    expect(out.cols.d).toEqual(["-0.0", "nan", "1.5"]);
    expect(out.cols.dec).toEqual(["-99999999999999999.99", "123.45", null]);
    expect(out.cols.dec9).toEqual(["999999.999", null, "-0.001"]);
    expect(out.cols.ts6).toEqual(["-1", "1700000000123456", null]);
    expect(out.cols.ltz3).toEqual([null, "1700000000123", "-86400001"]);
    expect(out.cols.date).toEqual(["-1", "0", "19000"]);
    expect(out.cols.arr).toEqual([["1", null], null, []]);
    expect(out.cols.m).toEqual([[["a", "1"]], [], null]);
    expect(out.cols.r).toEqual([{ x: "1", y: "p" }, null, { x: null, y: null }]);
    expect(out.cols.ti).toEqual(["-128", "127", null]);
    expect(out.cols.bin).toEqual(["00ff", null, ""]);
  });

  it("we read pyarrow's file (field ids, INT96 timestamps, nested, zstd)", async () => {
    const path = join(dir, "theirs.parquet");
    py(
      `
import sys, decimal, pyarrow as pa, pyarrow.parquet as pq
md = lambda i: {b'PARQUET:field_id': str(i).encode()}
schema = pa.schema([
  pa.field('id', pa.int64(), nullable=False, metadata=md(0)),
  pa.field('name', pa.string(), metadata=md(1)),
  pa.field('ts9', pa.timestamp('ns'), metadata=md(2)),
  pa.field('dec', pa.decimal128(10, 2), metadata=md(3)),
  pa.field('l', pa.list_(pa.field('element', pa.int32(), metadata=md(536870911 + 4*1024 + 1))), metadata=md(4)),
  pa.field('m', pa.map_(pa.string(), pa.int64()), metadata=md(5)),
  pa.field('big', pa.large_string(), metadata=md(6)),
])
t = pa.table({
  'id': [1, 2, 3],
  'name': ['a', None, 'ü'],
  'ts9': pa.array([1700000000123456789, None, -1], pa.timestamp('ns')),
  'dec': [decimal.Decimal('1.25'), None, decimal.Decimal('-99999999.99')],
  'l': [[1, 2], None, []],
  'm': [[('k', 1)], None, []],
  'big': ['x', 'y', None],
}, schema=schema)
pq.write_table(t, sys.argv[1], compression='zstd', use_deprecated_int96_timestamps=True)
`,
      path,
    );
    const bytes = new Uint8Array(readFileSync(path));
    const read = [
      F(1, "renamed", T.STRING()),
      F(0, "id", notNull(T.BIGINT())),
      F(2, "ts9", T.TIMESTAMP(9)),
      F(3, "dec", T.DECIMAL(10, 2)),
      F(4, "l", T.ARRAY(T.INT())),
      F(5, "m", T.MAP(T.STRING(), T.BIGINT())),
      F(6, "big", T.STRING()),
      F(7, "added", T.INT()),
    ];
    const t = await readParquet(bytes, { fields: read, fileName: path });
    expect(tableColumn(t, "renamed", T.STRING())).toEqual(["a", null, "ü"]);
    expect(tableColumn(t, "id", T.BIGINT())).toEqual([1n, 2n, 3n]);
    expect(tableColumn(t, "ts9", T.TIMESTAMP(9))).toEqual([1700000000123456789n, null, -1n]);
    expect(tableColumn(t, "dec", T.DECIMAL(10, 2))).toEqual([125n, null, -9999999999n]);
    expect(tableColumn(t, "l", T.ARRAY(T.INT()))).toEqual([[1, 2], null, []]);
    expect(tableColumn(t, "m", T.MAP(T.STRING(), T.BIGINT()))).toEqual([new Map([["k", 1n]]), null, new Map()]);
    expect(tableColumn(t, "big", T.STRING())).toEqual(["x", "y", null]);
    expect(tableColumn(t, "added", T.INT())).toEqual([null, null, null]);
  });
});
