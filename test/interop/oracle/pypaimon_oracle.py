#!/usr/bin/env python3
"""pypaimon as a test oracle for paimon-rt.

Usage (run with the venv made by scripts/setup-oracles.sh, TZ=UTC):

  pypaimon_oracle.py write   <warehouse> <db.table> <spec.json>
  pypaimon_oracle.py read    <warehouse> <db.table> [--snapshot N] [--sort] [--projection a,b]
  pypaimon_oracle.py inspect <warehouse> <db.table>
  pypaimon_oracle.py samples <warehouse> <specs-dir>      # write every <db>.<table>.json spec
  pypaimon_oracle.py batch   <commands.json>              # run many commands in one process
  pypaimon_oracle.py serve                                # JSON argument lines on stdin, one result line each
  pypaimon_oracle.py version

`write` creates the database and (when the spec has "fields") the table, then makes one commit per
entry of "commits" with pypaimon's own batch writer, and prints {"table", "snapshots": [ids]}.
`read` prints one JSON object per row (keys in schema order) and nothing else on stdout.
Everything else (warnings, logs) goes to stderr. Exit code 1 with a message on stderr on failure.

See README.md next to this file for the spec format and the value encoding, which is shared with
the Java oracle and the TypeScript tests:

  NULL -> null; BOOLEAN -> true/false; TINYINT/SMALLINT/INT -> number; BIGINT -> decimal string;
  FLOAT/DOUBLE -> number (FLOAT widened to double), "NaN"/"Infinity"/"-Infinity" as strings;
  DECIMAL(p,s) -> plain decimal string with exactly s fraction digits ("-1.20");
  CHAR/VARCHAR/STRING -> string; BINARY/VARBINARY/BYTES -> base64 (standard alphabet, padded);
  DATE -> "YYYY-MM-DD"; TIME(p) -> number, milliseconds of the day;
  TIMESTAMP(p) and TIMESTAMP_LTZ(p) -> decimal string of epoch NANOseconds (LTZ: the UTC instant);
  ARRAY/MULTISET-as-array -> JSON array; MAP -> array of [key, value] pairs in stored order;
  ROW -> object keyed by field name.
"""

import base64
import datetime
import decimal
import json
import os
import sys
import traceback

os.environ.setdefault("TZ", "UTC")

import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

EPOCH_DATE = datetime.date(1970, 1, 1)
UNIT_NANOS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def fail(msg):
    print(f"pypaimon_oracle: {msg}", file=sys.stderr)
    sys.exit(1)


# ----------------------------------------------------------------------------------------------
# Paimon type strings ("ARRAY<INT NOT NULL>", "MAP<STRING, BIGINT>", "ROW<a INT, b STRING>") ->
# Paimon's JSON type form (what schema files hold), which pypaimon's DataTypeParser understands.

class _TypeParser:
    def __init__(self, text):
        self.s = text
        self.i = 0

    def ws(self):
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def peek(self, lit):
        self.ws()
        return self.s[self.i:self.i + len(lit)].upper() == lit

    def expect(self, lit):
        if not self.peek(lit):
            raise ValueError(f"expected '{lit}' at {self.i} in type '{self.s}'")
        self.i += len(lit)

    def word(self):
        self.ws()
        j = self.i
        while j < len(self.s) and (self.s[j].isalnum() or self.s[j] == "_"):
            j += 1
        w = self.s[self.i:j]
        self.i = j
        return w

    def name(self):
        self.ws()
        if self.i < len(self.s) and self.s[self.i] == "`":
            j = self.s.index("`", self.i + 1)
            n = self.s[self.i + 1:j]
            self.i = j + 1
            return n
        return self.word()

    def nullability(self):
        if self.peek("NOT NULL"):
            self.expect("NOT NULL")
            return " NOT NULL"
        if self.peek("NULL"):
            self.expect("NULL")
        return ""

    def parse(self):
        save = self.i
        w = self.word().upper()
        if w in ("ARRAY", "MULTISET") and self.peek("<"):
            self.expect("<")
            elem = self.parse()
            self.expect(">")
            return {"type": w + self.nullability(), "element": elem}
        if w == "MAP" and self.peek("<"):
            self.expect("<")
            key = self.parse()
            self.expect(",")
            value = self.parse()
            self.expect(">")
            return {"type": "MAP" + self.nullability(), "key": key, "value": value}
        if w == "ROW" and self.peek("<"):
            self.expect("<")
            fields = []
            while True:
                n = self.name()
                t = self.parse()
                f = {"name": n, "type": t}
                if self.peek("COMMENT"):
                    self.expect("COMMENT")
                    self.ws()
                    q = self.s[self.i]
                    j = self.s.index(q, self.i + 1)
                    f["description"] = self.s[self.i + 1:j]
                    self.i = j + 1
                fields.append(f)
                if self.peek(","):
                    self.expect(",")
                    continue
                break
            self.expect(">")
            return {"type": "ROW" + self.nullability(), "fields": fields}
        # atomic: everything up to a top-level ',' or '>' (keeps "(10, 2)" and "WITH LOCAL TIME ZONE")
        self.i = save
        depth = 0
        j = self.i
        while j < len(self.s):
            c = self.s[j]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif depth == 0 and c in ",>":
                break
            j += 1
        atom = " ".join(self.s[self.i:j].split()).upper()
        self.i = j
        if not atom:
            raise ValueError(f"empty type in '{self.s}'")
        return atom


def type_json(t):
    """A spec type (string or Paimon JSON form) -> Paimon JSON form."""
    if isinstance(t, dict):
        return t
    p = _TypeParser(t)
    out = p.parse()
    p.ws()
    if p.i != len(p.s):
        raise ValueError(f"trailing text at {p.i} in type '{t}'")
    return out


def build_schema(spec):
    from pypaimon import Schema
    from pypaimon.schema.data_types import AtomicInteger, DataField, DataTypeParser

    fields_spec = spec["fields"]
    counter = AtomicInteger(len(fields_spec) - 1)  # nested ROW fields get ids after the top level
    fields = []
    for i, f in enumerate(fields_spec):
        dtype = DataTypeParser.parse_data_type(type_json(f["type"]), counter)
        fields.append(DataField(i, f["name"], dtype, f.get("description")))
    options = {k: _opt(v) for k, v in (spec.get("options") or {}).items()}
    return Schema(
        fields=fields,
        partition_keys=list(spec.get("partitionKeys") or []),
        primary_keys=list(spec.get("primaryKeys") or []),
        options=options,
        comment=spec.get("comment"),
    )


def _opt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# ----------------------------------------------------------------------------------------------
# JSON values -> Python values pyarrow accepts (driven by the Arrow type of the column)

def to_py(v, t):
    if v is None:
        return None
    if pa.types.is_boolean(t):
        if not isinstance(v, bool):
            raise ValueError(f"expected boolean, got {v!r}")
        return v
    if pa.types.is_integer(t):
        return int(v)
    if pa.types.is_floating(t):
        return float(v)  # float("NaN"), float("Infinity") work too
    if pa.types.is_decimal(t):
        return decimal.Decimal(str(v))
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return str(v)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return base64.b64decode(v, validate=True)
    if pa.types.is_date(t):
        return datetime.date.fromisoformat(v) if isinstance(v, str) else EPOCH_DATE + datetime.timedelta(days=int(v))
    if pa.types.is_time(t):
        ms = int(v)
        return datetime.time(ms // 3_600_000, ms // 60_000 % 60, ms // 1000 % 60, ms % 1000 * 1000)
    if pa.types.is_timestamp(t):
        nanos = int(v)
        per = UNIT_NANOS[t.unit]
        if nanos % per:
            raise ValueError(f"timestamp {v} ns is not a whole number of {t.unit}")
        return nanos // per  # pyarrow takes integers in the column's unit (tz columns: UTC instants)
    if pa.types.is_map(t):
        return [(to_py(k, t.key_type), to_py(x, t.item_type)) for k, x in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [to_py(e, t.value_type) for e in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: to_py(v.get(t.field(i).name), t.field(i).type) for i in range(t.num_fields)}
    raise ValueError(f"unsupported Arrow type {t}")


def rows_to_arrow(rows, schema):
    for r in rows:
        unknown = set(r) - set(schema.names) - {"_kind"}
        if unknown:
            raise ValueError(f"unknown columns {sorted(unknown)} in row {r}")
        if r.get("_kind", "+I") != "+I":
            raise ValueError("pypaimon cannot write row kinds other than +I (use the Java oracle)")
    arrays = []
    for f in schema:
        vals = [to_py(r.get(f.name), f.type) for r in rows]
        if any(isinstance(x, int) for x in vals) and pa.types.is_timestamp(f.type):
            arrays.append(pa.array(vals, type=pa.int64()).cast(f.type))
        else:
            arrays.append(pa.array(vals, type=f.type))
    return pa.Table.from_arrays(arrays, schema=schema)


# ----------------------------------------------------------------------------------------------
# Arrow arrays -> JSON values (lossless encoding; see module docstring)

def _finite_or_text(x):
    if x is None:
        return None
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def encode_array(arr):
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    t = arr.type
    valid = arr.is_valid().to_pylist() if len(arr) else []
    if pa.types.is_timestamp(t):
        per = UNIT_NANOS[t.unit]
        ints = arr.cast(pa.int64()).to_pylist()
        return [None if x is None else str(x * per) for x in ints]
    if pa.types.is_time(t):
        ints = arr.cast(pa.int64() if pa.types.is_time64(t) else pa.int32()).to_pylist()
        if pa.types.is_time32(t) and t.unit == "s":
            return [None if x is None else x * 1000 for x in ints]
        if pa.types.is_time64(t):
            div = 1000 if t.unit == "us" else 1_000_000
            return [None if x is None else x // div for x in ints]
        return ints
    if pa.types.is_date(t):
        return [None if x is None else x.isoformat() for x in arr.to_pylist()]
    if pa.types.is_int64(t) or pa.types.is_uint64(t):
        return [None if x is None else str(x) for x in arr.to_pylist()]
    if pa.types.is_integer(t) or pa.types.is_boolean(t):
        return arr.to_pylist()
    if pa.types.is_floating(t):
        return [_finite_or_text(x) for x in arr.to_pylist()]
    if pa.types.is_decimal(t):
        return [None if x is None else format(x, "f") for x in arr.to_pylist()]
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return arr.to_pylist()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return [None if x is None else base64.b64encode(x).decode("ascii") for x in arr.to_pylist()]
    if pa.types.is_map(t):
        offsets = arr.offsets.to_pylist()
        keys = encode_array(arr.keys)
        items = encode_array(arr.items)
        return [[[keys[j], items[j]] for j in range(offsets[i], offsets[i + 1])] if valid[i] else None
                for i in range(len(arr))]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offsets = arr.offsets.to_pylist()
        values = encode_array(arr.values)
        return [values[offsets[i]:offsets[i + 1]] if valid[i] else None for i in range(len(arr))]
    if pa.types.is_fixed_size_list(t):
        n = t.list_size
        values = encode_array(arr.values)
        base = arr.offset * n
        return [values[base + i * n: base + (i + 1) * n] if valid[i] else None for i in range(len(arr))]
    if pa.types.is_struct(t):
        children = [encode_array(c) for c in arr.flatten()]
        names = [t.field(k).name for k in range(t.num_fields)]
        return [{names[k]: children[k][i] for k in range(len(names))} if valid[i] else None
                for i in range(len(arr))]
    if pa.types.is_null(t):
        return [None] * len(arr)
    raise ValueError(f"cannot encode Arrow type {t}")


def table_to_rows(tbl):
    cols = [encode_array(tbl.column(i)) for i in range(tbl.num_columns)]
    names = tbl.column_names
    return [{names[k]: cols[k][i] for k in range(len(names))} for i in range(tbl.num_rows)]


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


# ----------------------------------------------------------------------------------------------
# Commands

def catalog_for(warehouse):
    from pypaimon import CatalogFactory
    return CatalogFactory.create({"warehouse": warehouse})


def split_identifier(ident):
    if ident.count(".") != 1:
        fail(f"identifier must be <db>.<table>, got {ident!r}")
    return ident.split(".")


def latest_snapshot_id(table):
    snap = table.snapshot_manager().get_latest_snapshot() if hasattr(table, "snapshot_manager") else None
    return None if snap is None else snap.id


def cmd_write(warehouse, ident, spec):
    db, _ = split_identifier(ident)
    catalog = catalog_for(warehouse)
    catalog.create_database(db, True)
    if spec.get("fields"):
        catalog.create_table(ident, build_schema(spec), bool(spec.get("ignoreIfExists", False)))
    table = catalog.get_table(ident)
    snapshots = []
    for n, commit in enumerate(spec.get("commits") or []):
        if isinstance(commit, list):
            commit = {"rows": commit}
        wb = table.new_batch_write_builder()
        if "overwrite" in commit and commit["overwrite"] is not False:
            part = commit["overwrite"]
            wb = wb.overwrite(part if isinstance(part, dict) else None)
        tw = wb.new_write()
        tc = wb.new_commit()
        try:
            data = rows_to_arrow(commit.get("rows") or [], tw.table_pyarrow_schema)
            if data.num_rows:
                tw.write_arrow(data)
            tc.commit(tw.prepare_commit())
        except Exception as e:  # name the commit in the error
            raise RuntimeError(f"commit #{n} of {ident}: {e}") from e
        finally:
            tw.close()
            tc.close()
        table = catalog.get_table(ident)
        snapshots.append(latest_snapshot_id(table))
    print(dumps({"table": ident, "snapshots": snapshots}))


def cmd_read(warehouse, ident, snapshot=None, sort=False, projection=None):
    table = catalog_for(warehouse).get_table(ident)
    if snapshot is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot)})
    rb = table.new_read_builder()
    if projection:
        rb = rb.with_projection(projection)
    splits = rb.new_scan().plan().splits()
    tbl = rb.new_read().to_arrow(splits)
    rows = table_to_rows(tbl) if tbl is not None else []
    lines = [dumps(r) for r in rows]
    if sort:
        lines.sort(key=lambda line: json.dumps(json.loads(line), sort_keys=True, ensure_ascii=False))
    out = sys.stdout
    for line in lines:
        out.write(line + "\n")


def cmd_inspect(warehouse, ident):
    table = catalog_for(warehouse).get_table(ident)
    path = table.table_path if hasattr(table, "table_path") else None
    if path is None:
        db, name = split_identifier(ident)
        path = os.path.join(warehouse, f"{db}.db", name)
    path = str(path)
    if path.startswith("file:"):
        path = path[len("file:"):]
        while path.startswith("//"):
            path = path[1:]
    snaps = []
    sdir = os.path.join(path, "snapshot")
    if os.path.isdir(sdir):
        for n in os.listdir(sdir):
            if n.startswith("snapshot-") and n[len("snapshot-"):].isdigit():
                with open(os.path.join(sdir, n), encoding="utf-8") as f:
                    snaps.append(json.load(f))
    snaps.sort(key=lambda s: s["id"])
    files = []
    for dirpath, _, names in os.walk(path):
        for n in names:
            full = os.path.join(dirpath, n)
            files.append({"path": os.path.relpath(full, path), "size": os.path.getsize(full)})
    files.sort(key=lambda f: f["path"])
    print(dumps({
        "table": ident,
        "location": path,
        "schemaFields": [{"id": f.id, "name": f.name, "type": f.type.to_dict()} for f in table.table_schema.fields],
        "partitionKeys": table.table_schema.partition_keys,
        "primaryKeys": table.table_schema.primary_keys,
        "options": table.table_schema.options,
        "snapshots": snaps,
        "files": files,
    }))


def cmd_samples(warehouse, specs_dir):
    names = sorted(n for n in os.listdir(specs_dir) if n.endswith(".json"))
    for n in names:
        ident = n[:-len(".json")]
        with open(os.path.join(specs_dir, n), encoding="utf-8") as f:
            cmd_write(warehouse, ident, json.load(f))


def cmd_batch(file):
    """Runs every command of a JSON array of argument lists (["read", wh, "db.t", "--sort"], …) in
    this process, in order; prints one line per command: {"ok": true, "out": "<its stdout>"} or
    {"ok": false, "error": "<message>"}. Saves the interpreter start-up per command."""
    import contextlib
    import io

    with open(file, encoding="utf-8") as f:
        commands = json.load(f)
    real_out = sys.stdout
    for args in commands:
        buf = io.StringIO()
        err = None
        try:
            if args and args[0] == "batch":
                raise ValueError("nested batch")
            with contextlib.redirect_stdout(buf):
                main(list(args))
        except SystemExit as e:
            if e.code not in (None, 0):
                err = f"exit {e.code}"
        except BaseException as e:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            err = f"{type(e).__name__}: {e}"
        if err is None:
            real_out.write(dumps({"ok": True, "out": buf.getvalue()}) + "\n")
        else:
            real_out.write(dumps({"ok": False, "error": f"{' '.join(map(str, args))}: {err}"}) + "\n")
        real_out.flush()


def cmd_serve():
    """Serves commands until stdin ends: each input line a JSON argument list, each answered by
    one line as cmd_batch answers (the error with what the command printed to stderr, as a
    one-command process would report it). The tests' harness keeps one such process per test
    worker for commands on local warehouses (no interpreter and pypaimon start per command)."""
    import contextlib
    import io

    real_out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        buf, errbuf = io.StringIO(), io.StringIO()
        ok = True
        try:
            args = json.loads(line)
            if args and args[0] == "serve":
                raise ValueError(f"not served: {args[0]}")
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(errbuf):
                try:
                    main(list(args))
                except SystemExit as e:
                    if e.code not in (None, 0):
                        ok = False
                except BaseException as e:  # noqa: BLE001
                    traceback.print_exc()
                    print(f"pypaimon_oracle: {type(e).__name__}: {e}", file=sys.stderr)
                    ok = False
        except BaseException as e:  # noqa: BLE001
            errbuf.write(f"{type(e).__name__}: {e}\n")
            ok = False
        result = {"ok": True, "out": buf.getvalue()} if ok else {"ok": False, "error": errbuf.getvalue()}
        real_out.write(dumps(result) + "\n")
        real_out.flush()


def main(argv):
    if not argv:
        fail(__doc__)
    cmd, args = argv[0], argv[1:]
    if cmd == "batch" and len(args) == 1:
        cmd_batch(args[0])
    elif cmd == "serve" and not args:
        cmd_serve()
    elif cmd == "version":
        import pypaimon
        ver = getattr(pypaimon, "__version__", None)
        if ver is None:
            from importlib.metadata import version
            ver = version("pypaimon")
        print(dumps({"pypaimon": ver, "pyarrow": pa.__version__, "python": sys.version.split()[0]}))
    elif cmd == "write" and len(args) == 3:
        with open(args[2], encoding="utf-8") as f:
            spec = json.load(f)
        cmd_write(args[0], args[1], spec)
    elif cmd == "read" and len(args) >= 2:
        snapshot, sort, projection = None, False, None
        rest = args[2:]
        i = 0
        while i < len(rest):
            if rest[i] == "--snapshot":
                snapshot = int(rest[i + 1])
                i += 2
            elif rest[i] == "--sort":
                sort = True
                i += 1
            elif rest[i] == "--projection":
                projection = [c for c in rest[i + 1].split(",") if c]
                i += 2
            else:
                fail(f"unknown read option {rest[i]}")
        cmd_read(args[0], args[1], snapshot, sort, projection)
    elif cmd == "inspect" and len(args) == 2:
        cmd_inspect(args[0], args[1])
    elif cmd == "samples" and len(args) == 2:
        cmd_samples(args[0], args[1])
    else:
        fail(__doc__)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001
        traceback.print_exc(file=sys.stderr)
        fail(f"{type(e).__name__}: {e}")
