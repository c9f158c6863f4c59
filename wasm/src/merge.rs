//! K-way merge of sorted runs under the deduplicate merge engine.

use crate::columns::{read_columns, NormalizedKeys};
use std::cmp::Ordering;

const KIND_UPDATE_BEFORE: i8 = 1;
const KIND_DELETE: i8 = 3;

/// Runs are consecutive row ranges `bounds[r]..bounds[r + 1]` of one key table,
/// each sorted by (key, sequence). For every key the winner is the last row in
/// (key, sequence, run, row) order: the highest sequence, ties going to the
/// later run and then the later row. Winners are written in key order as
/// (run, row-within-run); returns how many.
pub fn merge_deduplicate(
    keys: &NormalizedKeys,
    sequence: &[i64],
    row_kinds: Option<&[i8]>,
    bounds: &[u32],
    drop_deletes: bool,
    out_run: &mut [u32],
    out_row: &mut [u32],
) -> usize {
    let runs = bounds.len() - 1;
    let mut cursor: Vec<usize> = bounds[..runs].iter().map(|&b| b as usize).collect();
    let end: Vec<usize> = bounds[1..].iter().map(|&b| b as usize).collect();
    let less = |cursor: &[usize], a: u32, b: u32| -> bool {
        let (ra, rb) = (cursor[a as usize], cursor[b as usize]);
        match keys.compare(ra, rb).then_with(|| sequence[ra].cmp(&sequence[rb])) {
            Ordering::Equal => a < b,
            o => o == Ordering::Less,
        }
    };
    let mut heap: Vec<u32> = (0..runs as u32).filter(|&r| cursor[r as usize] < end[r as usize]).collect();
    // Heapify.
    for i in (0..heap.len() / 2).rev() {
        sift_down(&mut heap, i, &cursor, &less);
    }
    let mut count = 0usize;
    let mut emit = |run: u32, row: usize| {
        if drop_deletes {
            if let Some(kinds) = row_kinds {
                let k = kinds[row];
                if k == KIND_DELETE || k == KIND_UPDATE_BEFORE {
                    return;
                }
            }
        }
        out_run[count] = run;
        out_row[count] = (row - bounds[run as usize] as usize) as u32;
        count += 1;
    };
    let mut last: Option<(u32, usize)> = None;
    while let Some(&run) = heap.first() {
        let row = cursor[run as usize];
        if let Some((last_run, last_row)) = last {
            if keys.compare(last_row, row) != Ordering::Equal {
                emit(last_run, last_row);
            }
        }
        last = Some((run, row));
        cursor[run as usize] += 1;
        if cursor[run as usize] == end[run as usize] {
            let tail = heap.pop().unwrap();
            if !heap.is_empty() {
                heap[0] = tail;
            }
        }
        if !heap.is_empty() {
            sift_down(&mut heap, 0, &cursor, &less);
        }
    }
    if let Some((last_run, last_row)) = last {
        emit(last_run, last_row);
    }
    count
}

#[inline]
fn sift_down<F: Fn(&[usize], u32, u32) -> bool>(heap: &mut [u32], mut i: usize, cursor: &[usize], less: &F) {
    let n = heap.len();
    loop {
        let l = 2 * i + 1;
        if l >= n {
            return;
        }
        let r = l + 1;
        let child = if r < n && less(cursor, heap[r], heap[l]) { r } else { l };
        if less(cursor, heap[child], heap[i]) {
            heap.swap(child, i);
            i = child;
        } else {
            return;
        }
    }
}

/// `columns_ptr`: descriptors over all runs' rows concatenated; `bounds_ptr`:
/// `run_count + 1` u32 row offsets; `row_kinds_ptr`: i8 per row or 0;
/// `out_run_ptr`/`out_row_ptr`: u32 capacity of all rows. Returns the count.
#[no_mangle]
pub unsafe extern "C" fn pr_merge_deduplicate(
    columns_ptr: u32,
    column_count: u32,
    bounds_ptr: u32,
    run_count: u32,
    sequence_ptr: u32,
    row_kinds_ptr: u32,
    drop_deletes: u32,
    out_run_ptr: u32,
    out_row_ptr: u32,
) -> u32 {
    let bounds = std::slice::from_raw_parts(bounds_ptr as usize as *const u32, run_count as usize + 1);
    let rows = bounds[run_count as usize] as usize;
    if rows == 0 {
        return 0;
    }
    let columns = read_columns(columns_ptr, column_count as usize);
    let keys = NormalizedKeys::build(&columns, rows);
    let sequence = std::slice::from_raw_parts(sequence_ptr as usize as *const i64, rows);
    let row_kinds = if row_kinds_ptr == 0 {
        None
    } else {
        Some(std::slice::from_raw_parts(row_kinds_ptr as usize as *const i8, rows))
    };
    let out_run = std::slice::from_raw_parts_mut(out_run_ptr as usize as *mut u32, rows);
    let out_row = std::slice::from_raw_parts_mut(out_row_ptr as usize as *mut u32, rows);
    merge_deduplicate(&keys, sequence, row_kinds, bounds, drop_deletes != 0, out_run, out_row) as u32
}
