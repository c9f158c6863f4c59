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
    let out = Output { row_kinds, bounds, drop_deletes, out_run, out_row, count: 0 };
    let words = &keys.words[..];
    if keys.width == 1 && !keys.has_bytes() {
        // One exact word per key (any single non-null, non-string key).
        merge_words(words, bounds, sequence, out)
    } else if let (1, Some(col)) = (keys.width, keys.single_bytes_column()) {
        // One non-null string key: the prefix word, then the bytes on ties.
        merge_runs(bounds, |a, b| words[a].cmp(&words[b]).then_with(|| col.bytes(a).cmp(col.bytes(b))), sequence, out)
    } else {
        merge_runs(bounds, |a, b| keys.compare(a, b), sequence, out)
    }
}

struct Output<'a> {
    row_kinds: Option<&'a [i8]>,
    bounds: &'a [u32],
    drop_deletes: bool,
    out_run: &'a mut [u32],
    out_row: &'a mut [u32],
    count: usize,
}

impl<'a> Output<'a> {
    #[inline]
    fn emit(&mut self, run: usize, row: usize) {
        if self.drop_deletes {
            if let Some(kinds) = self.row_kinds {
                let k = kinds[row];
                if k == KIND_DELETE || k == KIND_UPDATE_BEFORE {
                    return;
                }
            }
        }
        self.out_run[self.count] = run as u32;
        self.out_row[self.count] = (row - self.bounds[run] as usize) as u32;
        self.count += 1;
    }
}

/// The merge proper over a tournament (loser) tree: `ceil(log2 runs)` key
/// comparisons per row, against about twice that for a binary heap.
#[inline(always)]
fn merge_runs<C: Fn(usize, usize) -> Ordering>(bounds: &[u32], compare_keys: C, sequence: &[i64], mut out: Output) -> usize {
    let runs = bounds.len() - 1;
    // Cursors and ends, plus one always-empty run that pads the tree.
    let empty_run = runs;
    let mut cursor: Vec<usize> = bounds[..runs].iter().map(|&b| b as usize).chain(Some(0)).collect();
    let end: Vec<usize> = bounds[1..].iter().map(|&b| b as usize).chain(Some(0)).collect();
    // Whether run `a`'s head comes before run `b`'s in (key, sequence, run) order;
    // an exhausted run comes after everything.
    let before = |cursor: &[usize], a: usize, b: usize| -> bool {
        let (ra, rb) = (cursor[a], cursor[b]);
        if ra == end[a] {
            return false;
        }
        if rb == end[b] {
            return true;
        }
        match compare_keys(ra, rb) {
            Ordering::Equal => match sequence[ra].cmp(&sequence[rb]) {
                Ordering::Equal => a < b,
                o => o == Ordering::Less,
            },
            o => o == Ordering::Less,
        }
    };
    // Loser tree over `size` leaves (runs padded to a power of two with empty ones).
    let size = runs.next_power_of_two();
    let leaf = |i: usize| if i < runs { i } else { empty_run };
    let mut tree = vec![empty_run; size];
    {
        // Winners of each subtree, built bottom-up; internal nodes keep the losers.
        let mut winners = vec![empty_run; 2 * size];
        for i in 0..size {
            winners[size + i] = leaf(i);
        }
        for node in (1..size).rev() {
            let (l, r) = (winners[2 * node], winners[2 * node + 1]);
            let (w, lose) = if before(&cursor, r, l) { (r, l) } else { (l, r) };
            winners[node] = w;
            tree[node] = lose;
        }
        tree[0] = winners[1];
    }
    if size == 1 {
        tree[0] = leaf(0);
    }
    let mut last: Option<(usize, usize)> = None;
    loop {
        let run = tree[0];
        let row = cursor[run];
        if row == end[run] {
            break; // the overall winner is exhausted: all are
        }
        if let Some((last_run, last_row)) = last {
            if compare_keys(last_row, row) != Ordering::Equal {
                out.emit(last_run, last_row);
            }
        }
        last = Some((run, row));
        cursor[run] += 1;
        // Replay the matches on the path from this run's leaf to the root.
        let mut winner = run;
        let mut node = (run + size) / 2;
        while node > 0 {
            if before(&cursor, tree[node], winner) {
                std::mem::swap(&mut tree[node], &mut winner);
            }
            node /= 2;
        }
        tree[0] = winner;
    }
    if let Some((last_run, last_row)) = last {
        out.emit(last_run, last_row);
    }
    out.count
}

/// A run's head in the single-word merge: its key word and sequence cached, so
/// that a match reads no key column. `tag` is the run, or `run + size` once the
/// run is exhausted (after every live head: the order is (key, seq, tag)).
#[derive(Clone, Copy)]
struct Head {
    key: u64,
    seq: i64,
    tag: u32,
}

impl Head {
    /// Whether `self` comes before `other` in (key, sequence, run) order; written
    /// without short-circuits so that it compiles to selects, not branches.
    #[inline(always)]
    fn before(self, other: Head) -> bool {
        (self.key < other.key)
            | ((self.key == other.key) & ((self.seq < other.seq) | ((self.seq == other.seq) & (self.tag < other.tag))))
    }
}

/// [`merge_runs`] for keys of one exact word each: the same loser tree, with the
/// heads' key words and sequences held in the tree nodes.
fn merge_words(words: &[u64], bounds: &[u32], sequence: &[i64], mut out: Output) -> usize {
    let runs = bounds.len() - 1;
    let size = runs.next_power_of_two();
    let rows = bounds[runs] as usize;
    let (words, sequence) = (&words[..rows], &sequence[..rows]);
    let mut cursor = vec![0usize; size];
    let mut end = vec![0usize; size];
    let head = |run: usize, row: usize, end: usize| -> Head {
        if row < end {
            Head { key: words[row], seq: sequence[row], tag: run as u32 }
        } else {
            Head { key: u64::MAX, seq: i64::MAX, tag: (run + size) as u32 }
        }
    };
    let mut winners = vec![Head { key: u64::MAX, seq: i64::MAX, tag: u32::MAX }; 2 * size];
    for i in 0..size {
        if i < runs {
            cursor[i] = bounds[i] as usize;
            end[i] = (bounds[i + 1] as usize).min(rows);
        }
        winners[size + i] = head(i, cursor[i], end[i]);
    }
    // Internal nodes keep the losers, built bottom-up; `tree[0]` is not used.
    let mut tree = vec![winners[0]; size];
    for node in (1..size).rev() {
        let (l, r) = (winners[2 * node], winners[2 * node + 1]);
        let (w, lose) = if r.before(l) { (r, l) } else { (l, r) };
        winners[node] = w;
        tree[node] = lose;
    }
    let mut win = winners[1];
    let mut last: Option<(usize, usize, u64)> = None;
    while (win.tag as usize) < size {
        let run = win.tag as usize;
        let row = cursor[run];
        if let Some((last_run, last_row, last_key)) = last {
            if last_key != win.key {
                out.emit(last_run, last_row);
            }
        }
        last = Some((run, row, win.key));
        cursor[run] = row + 1;
        // Replay the matches on the path from this run's leaf to the root.
        let mut cand = head(run, row + 1, end[run]);
        let mut node = (run + size) / 2;
        while node > 0 {
            let t = tree[node];
            let t_wins = t.before(cand);
            tree[node] = if t_wins { cand } else { t };
            cand = if t_wins { t } else { cand };
            node /= 2;
        }
        win = cand;
    }
    if let Some((last_run, last_row, _)) = last {
        out.emit(last_run, last_row);
    }
    out.count
}

/// `columns_ptr`: descriptors over all runs' rows concatenated; `bounds_ptr`:
/// `run_count + 1` u32 row offsets; `row_kinds_ptr`: i8 per row or 0;
/// `out_run_ptr`/`out_row_ptr`: u32 capacity of all rows. Returns the count.
#[cfg_attr(feature = "c-abi", no_mangle)]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the merge over one word per key through `merge_words` and through
    /// the generic loser tree; both must give the same winners.
    fn both(words: &[u64], sequence: &[i64], kinds: &[i8], bounds: &[u32], drop_deletes: bool) -> (Vec<(u32, u32)>, Vec<(u32, u32)>) {
        let rows = words.len();
        let mut results = Vec::new();
        for fast in [true, false] {
            let (mut out_run, mut out_row) = (vec![0u32; rows], vec![0u32; rows]);
            let out = Output { row_kinds: Some(kinds), bounds, drop_deletes, out_run: &mut out_run, out_row: &mut out_row, count: 0 };
            let n = if fast {
                merge_words(words, bounds, sequence, out)
            } else {
                merge_runs(bounds, |a, b| words[a].cmp(&words[b]), sequence, out)
            };
            results.push(out_run[..n].iter().copied().zip(out_row[..n].iter().copied()).collect());
        }
        let fast = results.remove(0);
        (fast, results.remove(0))
    }

    #[test]
    fn cached_words_match_the_generic_merge() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let key_pool = [0u64, 1, 2, u64::MAX - 1, u64::MAX, 1 << 63];
        let seq_pool = [0i64, 1, 2, i64::MIN, i64::MAX - 1, i64::MAX];
        for case in 0..3000 {
            let runs = 1 + (next() % if case % 2 == 0 { 70 } else { 5 }) as usize;
            let mut words = Vec::new();
            let mut sequence = Vec::new();
            let mut bounds = vec![0u32];
            for _ in 0..runs {
                let n = (next() % 12) as usize;
                let mut run: Vec<(u64, i64)> = (0..n)
                    .map(|_| {
                        let k = if next() % 3 == 0 { next() } else { key_pool[(next() % 6) as usize] };
                        (k, seq_pool[(next() % 6) as usize])
                    })
                    .collect();
                run.sort();
                for (k, s) in run {
                    words.push(k);
                    sequence.push(s);
                }
                bounds.push(words.len() as u32);
            }
            let kinds: Vec<i8> = (0..words.len()).map(|_| (next() % 4) as i8).collect();
            let drop_deletes = case % 3 == 0;
            let (fast, generic) = both(&words, &sequence, &kinds, &bounds, drop_deletes);
            assert_eq!(fast, generic, "case {case}: bounds {bounds:?} words {words:?} sequence {sequence:?}");
        }
    }
}
