//! Stable sort permutation of a batch by (primary key, sequence number).

use crate::columns::{read_columns, NormalizedKeys};

/// Below this many rows a comparison sort beats the radix passes.
const RADIX_MIN_ROWS: usize = 2048;

/// Sorts rows `0..rows` by key, then by `sequence`, then by row index (which
/// makes the result stable), writing the permutation to `out`.
///
/// Rows are first ordered by their first normalized key word (a stable radix
/// sort for large batches), then each group of equal first words is settled
/// with the full comparison. Groups need no work when the first word is the
/// whole key and sequence numbers already ascend in row order, which is how a
/// writer assigns them.
pub fn sort_permutation(keys: &NormalizedKeys, sequence: &[i64], out: &mut [u32]) {
    let rows = out.len();
    let mut entries: Vec<(u64, u32)> = (0..rows).map(|r| (keys.first_word(r), r as u32)).collect();
    if rows >= RADIX_MIN_ROWS {
        entries = radix_sort_by_word(entries);
    } else {
        entries.sort_unstable(); // (word, index): stable by construction
    }
    let settled = keys.width == 1 && keys.first_word_exact() && sequence.windows(2).all(|w| w[0] <= w[1]);
    if !settled {
        let full = |a: &(u64, u32), b: &(u64, u32)| {
            let (ra, rb) = (a.1 as usize, b.1 as usize);
            keys.compare(ra, rb).then_with(|| sequence[ra].cmp(&sequence[rb])).then_with(|| a.1.cmp(&b.1))
        };
        let mut start = 0;
        while start < rows {
            let word = entries[start].0;
            let mut end = start + 1;
            while end < rows && entries[end].0 == word {
                end += 1;
            }
            if end - start > 1 {
                entries[start..end].sort_unstable_by(full);
            }
            start = end;
        }
    }
    for (o, e) in out.iter_mut().zip(entries.iter()) {
        *o = e.1;
    }
}

/// Stable LSD radix sort of (word, row) pairs by word, one byte per pass,
/// skipping bytes on which every word agrees.
fn radix_sort_by_word(mut src: Vec<(u64, u32)>) -> Vec<(u64, u32)> {
    let rows = src.len();
    let mut counts = vec![[0usize; 256]; 8];
    for e in &src {
        for (b, c) in counts.iter_mut().enumerate() {
            c[((e.0 >> (8 * b)) & 0xff) as usize] += 1;
        }
    }
    let mut dst: Vec<(u64, u32)> = vec![(0, 0); rows];
    for (b, c) in counts.iter().enumerate() {
        if c.iter().any(|&n| n == rows) {
            continue; // every word has the same byte here
        }
        let mut offsets = [0usize; 256];
        let mut at = 0;
        for (o, &n) in offsets.iter_mut().zip(c.iter()) {
            *o = at;
            at += n;
        }
        let shift = 8 * b;
        for &e in &src {
            let slot = &mut offsets[((e.0 >> shift) & 0xff) as usize];
            dst[*slot] = e;
            *slot += 1;
        }
        std::mem::swap(&mut src, &mut dst);
    }
    src
}

/// `columns_ptr`: `column_count` descriptors; `sequence_ptr`: `rows` i64;
/// `out_ptr`: `rows` u32.
#[cfg_attr(feature = "c-abi", no_mangle)]
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

#[cfg(test)]
mod tests {
    use super::radix_sort_by_word;

    #[test]
    fn radix_sort_is_stable() {
        let words = [5u64, 1, 5, u64::MAX, 0, 1 << 40, 1];
        let entries = words.iter().enumerate().map(|(i, &w)| (w, i as u32)).collect();
        let order: Vec<u32> = radix_sort_by_word(entries).iter().map(|e| e.1).collect();
        assert_eq!(order, [4, 1, 6, 0, 2, 5, 3]);
    }
}
