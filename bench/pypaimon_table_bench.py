"""The table benchmark workload through pypaimon, timed inside Python (interpreter start excluded).

usage: pypaimon_table_bench.py <warehouse> <rows> <compression>  -> one JSON line of timings (ms)
"""
import json
import sys
import time

import pyarrow as pa
from pypaimon import CatalogFactory, Schema


def data(rows):
    ids = pa.array(range(rows), pa.int64())
    names = pa.array([f"key-{(i * 2654435761) & 0xFFFFFFFF:08x}" for i in range(rows)], pa.string())
    values = pa.array([None if i % 10 == 0 else i * 0.5 for i in range(rows)], pa.float64())
    ts = pa.array([1_700_000_000_000_000 + i for i in range(rows)], pa.timestamp("us"))
    return pa.Table.from_arrays([ids, names, values, ts], names=["id", "name", "value", "ts"])


def main():
    warehouse, rows, codec = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    table_data = data(rows)
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("bench", True)
    ident = f"bench.t_{codec}"
    schema = Schema.from_pyarrow_schema(table_data.schema, options={"file.compression": codec})
    catalog.create_table(ident, schema, False)
    table = catalog.get_table(ident)
    t0 = time.perf_counter()
    wb = table.new_batch_write_builder()
    tw = wb.new_write()
    tc = wb.new_commit()
    tw.write_arrow(table_data)
    tc.commit(tw.prepare_commit())
    tw.close()
    tc.close()
    write_ms = (time.perf_counter() - t0) * 1000
    table = catalog.get_table(ident)
    t0 = time.perf_counter()
    rb = table.new_read_builder()
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    read_ms = (time.perf_counter() - t0) * 1000
    assert out.num_rows == rows
    t0 = time.perf_counter()
    rb = table.new_read_builder().with_projection(["id", "value"])
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    projected_ms = (time.perf_counter() - t0) * 1000
    assert out.num_rows == rows
    print(json.dumps({"writeMs": write_ms, "readMs": read_ms, "projectedMs": projected_ms, "inputBytes": table_data.nbytes}))


if __name__ == "__main__":
    main()
