//! Stable sort permutation of a batch by (primary key, sequence number).

use crate::columns::{read_columns, NormalizedKeys};
use std::cmp::Ordering;

/// Sorts rows `0..rows` by key, then by `sequence`, then by row index (which
/// makes the result stable), writing the permutation to `out`.
pub fn sort_permutation(keys: &NormalizedKeys, sequence: &[i64], out: &mut [u32]) {
    let rows = out.len();
    // The first key word travels with the index so most comparisons stay in cache.
    let mut entries: Vec<(u64, u32)> = (0..rows).map(|r| (keys.first_word(r), r as u32)).collect();
    entries.sort_unstable_by(|a, b| match a.0.cmp(&b.0) {
        Ordering::Equal => {
            let (ra, rb) = (a.1 as usize, b.1 as usize);
            keys.compare(ra, rb)
                .then_with(|| sequence[ra].cmp(&sequence[rb]))
                .then_with(|| a.1.cmp(&b.1))
        }
        o => o,
    });
    for (o, e) in out.iter_mut().zip(entries.iter()) {
        *o = e.1;
    }
}

/// `columns_ptr`: `column_count` descriptors; `sequence_ptr`: `rows` i64;
/// `out_ptr`: `rows` u32.
#[no_mangle]
pub unsafe extern "C" fn pr_sort_permutation(
    columns_ptr: u32,
    column_count: u32,
    rows: u32,
    sequence_ptr: u32,
    out_ptr: u32,
) {
    let rows = rows as usize;
    if rows == 0 {
        return;
    }
    let columns = read_columns(columns_ptr, column_count as usize);
    let keys = NormalizedKeys::build(&columns, rows);
    let sequence = std::slice::from_raw_parts(sequence_ptr as usize as *const i64, rows);
    let out = std::slice::from_raw_parts_mut(out_ptr as usize as *mut u32, rows);
    sort_permutation(&keys, sequence, out);
}
