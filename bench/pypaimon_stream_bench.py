"""The real-time benchmark's stream through pypaimon: to make each batch visible to a reader,
pypaimon must commit it. Per batch: write + commit, then a new scan + read of the table.

usage: pypaimon_stream_bench.py <warehouse> <batches> <rows_per_batch> [pk <key_space>]  -> one JSON line

With `pk`: a primary-key table (key id) fed an upsert stream, batch k holding ids
(k * rows_per_batch + i) % key_space (as bench/realtime-pk.mjs writes them); a reader sees the
distinct keys.
"""
import json
import sys
import time

import pyarrow as pa
from pypaimon import CatalogFactory, Schema


def batch(first, rows, key_space=None):
    ids = pa.array(range(first, first + rows) if key_space is None else [(first + i) % key_space for i in range(rows)], pa.int64())
    return pa.Table.from_arrays(
        [ids, pa.array([i * 0.5 for i in range(rows)], pa.float64()), pa.array([i & 1023 for i in range(rows)], pa.int32()),
         pa.array(["abcdef"] * rows, pa.string())],
        names=["id", "a", "b", "s"])


def main():
    warehouse, batches, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("b", True)
    key_space = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "pk" else None
    pa_schema = batch(0, 1).schema
    if key_space is None:
        schema = Schema.from_pyarrow_schema(pa_schema, options={"bucket": "1", "bucket-key": "id"})
    else:
        pa_schema = pa_schema.set(0, pa.field("id", pa.int64(), nullable=False))
        schema = Schema.from_pyarrow_schema(pa_schema, primary_keys=["id"], options={"bucket": "1"})
    catalog.create_table("b.stream", schema, False)
    latencies = []
    t_start = time.perf_counter()
    for k in range(batches):
        t0 = time.perf_counter()
        table = catalog.get_table("b.stream")
        wb = table.new_batch_write_builder()
        tw = wb.new_write()
        tc = wb.new_commit()
        data = batch(k * rows, rows, key_space)
        tw.write_arrow(data.cast(pa_schema))
        tc.commit(tw.prepare_commit())
        tw.close()
        tc.close()
        table = catalog.get_table("b.stream")
        rb = table.new_read_builder()
        out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
        assert out.num_rows == ((k + 1) * rows if key_space is None else min((k + 1) * rows, key_space))
        latencies.append((time.perf_counter() - t0) * 1000)
    total_ms = (time.perf_counter() - t_start) * 1000
    latencies.sort()
    print(json.dumps({"totalMs": total_ms, "p50Ms": latencies[len(latencies) // 2], "p99Ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]}))


if __name__ == "__main__":
    main()
