//! The kernels of `paimon-rt-kernels` as a WebAssembly component: `wit/kernels.wit`
//! is the interface, `jco new` wraps this crate's core module into the component.
//! Unlike the C ABI (whose JS caller validates), every input is checked here and
//! bad input is an `Err` naming what is wrong.

use std::cell::RefCell;

use paimon_rt_kernels::bitmap::{Bitmap32, Bitmap64, Layout64 as KernelLayout64, TieRule as KernelTieRule};
use paimon_rt_kernels::columns::{Column, NormalizedKeys, Values};
use paimon_rt_kernels::{binary_row, hash, merge, sort};

wit_bindgen::generate!({ world: "paimon-rt-kernels", path: "wit" });

use exports::paimon_rt::kernels::kernels::{
    Bitmap32 as Bitmap32Handle, Bitmap32Borrow, Bitmap64 as Bitmap64Handle, Bitmap64Borrow, ColumnValues, Guest,
    GuestBitmap32, GuestBitmap64, KeyColumn, Layout64, MergeResult, TieRule,
};

struct Kernels;

type Fallible<T> = Result<T, String>;

fn check(ok: bool, message: impl FnOnce() -> String) -> Fallible<()> {
    if ok {
        Ok(())
    } else {
        Err(message())
    }
}

/// Rows of one key column, after checking its own lists are consistent.
fn column_rows(c: usize, col: &KeyColumn) -> Fallible<usize> {
    let rows = match &col.values {
        ColumnValues::Boolean(v) => v.len(),
        ColumnValues::Int8(v) => v.len(),
        ColumnValues::Int16(v) => v.len(),
        ColumnValues::Int32(v) => v.len(),
        ColumnValues::Int64(v) | ColumnValues::TimestampMicros(v) | ColumnValues::TimestampNanos(v) => v.len(),
        ColumnValues::Float32(v) => v.len(),
        ColumnValues::Float64(v) => v.len(),
        ColumnValues::Decimal128(words) => {
            check(words.len() % 4 == 0, || format!("key column {c}: decimal128 needs 4 words per row, got {}", words.len()))?;
            words.len() / 4
        }
        ColumnValues::Bytes(b) => {
            check(!b.offsets.is_empty(), || format!("key column {c}: bytes offsets are empty (need rows + 1)"))?;
            check(b.offsets[0] >= 0, || format!("key column {c}: bytes offsets start below 0"))?;
            if let Some(i) = b.offsets.windows(2).position(|w| w[0] > w[1]) {
                return Err(format!("key column {c}: bytes offsets decrease at row {i}"));
            }
            let last = *b.offsets.last().unwrap() as usize;
            check(last <= b.data.len(), || format!("key column {c}: bytes offsets point outside its data"))?;
            b.offsets.len() - 1
        }
    };
    if let Some(validity) = &col.validity {
        check(validity.len() * 8 >= col.validity_offset as usize + rows, || {
            format!("key column {c}: validity bitmap is shorter than the column")
        })?;
    }
    Ok(rows)
}

/// Decimal words as i128 values (aligned, which the list of u32 is not).
fn decimals(words: &[u32]) -> Vec<i128> {
    words
        .chunks_exact(4)
        .map(|w| (w[0] as u128 | (w[1] as u128) << 32 | (w[2] as u128) << 64 | (w[3] as u128) << 96) as i128)
        .collect()
}

/// Checks every column has `rows` rows (`None`: the first column's) and returns the row count.
fn check_columns(keys: &[KeyColumn], rows: Option<usize>) -> Fallible<usize> {
    check(!keys.is_empty(), || "at least one key column is needed".to_string())?;
    let expected = match rows {
        Some(r) => r,
        None => column_rows(0, &keys[0])?,
    };
    for (c, col) in keys.iter().enumerate() {
        let n = column_rows(c, col)?;
        check(n == expected, || format!("key column {c} has {n} rows, expected {expected}"))?;
    }
    Ok(expected)
}

/// Runs `f` over kernel columns borrowing the checked WIT columns.
fn with_columns<T>(keys: &[KeyColumn], f: impl FnOnce(&[Column]) -> T) -> T {
    let decimal_values: Vec<Option<Vec<i128>>> = keys
        .iter()
        .map(|k| match &k.values {
            ColumnValues::Decimal128(w) => Some(decimals(w)),
            _ => None,
        })
        .collect();
    let columns: Vec<Column> = keys
        .iter()
        .zip(&decimal_values)
        .map(|(k, dec)| {
            let values = match &k.values {
                ColumnValues::Boolean(v) => Values::Bool(v),
                ColumnValues::Int8(v) => Values::I8(v),
                ColumnValues::Int16(v) => Values::I16(v),
                ColumnValues::Int32(v) => Values::I32(v),
                ColumnValues::Int64(v) => Values::I64(v),
                ColumnValues::Float32(v) => Values::F32(v),
                ColumnValues::Float64(v) => Values::F64(v),
                ColumnValues::Bytes(b) => Values::Bytes { offsets: &b.offsets, data: &b.data },
                ColumnValues::TimestampMicros(v) => Values::TimestampMicros(v),
                ColumnValues::TimestampNanos(v) => Values::TimestampNanos(v),
                ColumnValues::Decimal128(_) => Values::Decimal128(dec.as_deref().unwrap()),
            };
            Column::new(values, k.validity.as_deref(), k.validity_offset as usize)
        })
        .collect();
    f(&columns)
}

impl Guest for Kernels {
    type Bitmap32 = RoaringBitmap32;
    type Bitmap64 = RoaringBitmap64;

    fn sort_permutation(keys: Vec<KeyColumn>, sequence: Vec<i64>) -> Fallible<Vec<u32>> {
        let rows = check_columns(&keys, Some(sequence.len()))?;
        let mut out = vec![0u32; rows];
        if rows > 0 {
            with_columns(&keys, |columns| sort::sort_permutation(&NormalizedKeys::build(columns, rows), &sequence, &mut out));
        }
        Ok(out)
    }

    fn merge_deduplicate(
        keys: Vec<KeyColumn>,
        run_bounds: Vec<u32>,
        sequence: Vec<i64>,
        row_kinds: Option<Vec<i8>>,
        drop_deletes: bool,
    ) -> Fallible<MergeResult> {
        let rows = check_columns(&keys, Some(sequence.len()))?;
        check(run_bounds.len() >= 2 && run_bounds[0] == 0, || "run bounds need 0 first and one entry per run after it".to_string())?;
        check(run_bounds.windows(2).all(|w| w[0] <= w[1]), || "run bounds decrease".to_string())?;
        let last = *run_bounds.last().unwrap() as usize;
        check(last == rows, || format!("run bounds end at {last}, the keys have {rows} rows"))?;
        if let Some(kinds) = &row_kinds {
            check(kinds.len() == rows, || format!("{} row kinds for {rows} rows", kinds.len()))?;
        }
        let (mut run, mut row) = (vec![0u32; rows], vec![0u32; rows]);
        let count = if rows == 0 {
            0
        } else {
            with_columns(&keys, |columns| {
                let normalized = NormalizedKeys::build(columns, rows);
                merge::merge_deduplicate(&normalized, &sequence, row_kinds.as_deref(), &run_bounds, drop_deletes, &mut run, &mut row)
            })
        };
        run.truncate(count);
        row.truncate(count);
        Ok(MergeResult { run, row })
    }

    fn fingerprint_keys(keys: Vec<KeyColumn>, seed: u64) -> Fallible<Vec<u64>> {
        let rows = check_columns(&keys, None)?;
        let mut out = vec![0u64; rows];
        if rows > 0 {
            with_columns(&keys, |columns| hash::fingerprint(columns, seed, &mut out));
        }
        Ok(out)
    }

    fn assign_buckets(keys: Vec<KeyColumn>, buckets: i32) -> Fallible<Vec<i32>> {
        check(buckets >= 0, || format!("bucket count {buckets} is invalid"))?;
        let rows = check_columns(&keys, None)?;
        let mut out = vec![0i32; rows];
        if rows > 0 {
            with_columns(&keys, |columns| binary_row::bucket(columns, buckets, &mut out));
        }
        Ok(out)
    }

    fn xxh64_values(offsets: Vec<i32>, data: Vec<u8>, seed: u64) -> Fallible<Vec<u64>> {
        let rows = offsets.len().saturating_sub(1);
        if rows == 0 {
            return Ok(Vec::new());
        }
        let (first, last) = (offsets[0], offsets[rows]);
        check(first >= 0 && last >= first && last as usize <= data.len(), || "offsets exceed the byte buffer".to_string())?;
        check(offsets.windows(2).all(|w| w[0] <= w[1]), || "offsets decrease".to_string())?;
        let mut out = vec![0u64; rows];
        hash::xxh64_values(&offsets, &data[first as usize..], seed, &mut out);
        Ok(out)
    }

    fn wang_hash64_values(values: Vec<i64>, mul: i64, div: i64) -> Fallible<Vec<i64>> {
        check(div > 0, || "div must be positive".to_string())?;
        let mut out = vec![0i64; values.len()];
        hash::wang_hash64_values(&values, mul, div, &mut out);
        Ok(out)
    }
}

fn tie_rule(rule: TieRule) -> KernelTieRule {
    match rule {
        TieRule::Java => KernelTieRule::Java,
        TieRule::Croaring => KernelTieRule::CRoaring,
    }
}

/// The methods both bitmap resources share. A bitmap combined with itself must not
/// be borrowed twice (the RefCell would panic), so those cases are settled here, as
/// the C ABI does: or/and with itself change nothing, and-not empties it.
macro_rules! shared_bitmap_methods {
    ($value:ty, $borrow:ident, $resource:ident, $bitmap:ident) => {
        fn contains_many(&self, values: Vec<$value>) -> Vec<bool> {
            let b = self.0.borrow();
            values.iter().map(|&v| b.contains(v)).collect()
        }
        fn cardinality(&self) -> u64 {
            self.0.borrow().cardinality()
        }
        fn to_list(&self) -> Vec<$value> {
            self.0.borrow().iter().collect()
        }
        fn run_optimize(&self, rule: TieRule) -> bool {
            self.0.borrow_mut().run_optimize(tie_rule(rule))
        }
        fn or_inplace(&self, other: $borrow<'_>) {
            let other = other.get::<$resource>();
            if !std::ptr::eq(self, other) {
                self.0.borrow_mut().or_inplace(&other.0.borrow())
            }
        }
        fn and_inplace(&self, other: $borrow<'_>) {
            let other = other.get::<$resource>();
            if !std::ptr::eq(self, other) {
                self.0.borrow_mut().and_inplace(&other.0.borrow())
            }
        }
        fn and_not_inplace(&self, other: $borrow<'_>) {
            let other = other.get::<$resource>();
            if std::ptr::eq(self, other) {
                *self.0.borrow_mut() = $bitmap::new();
            } else {
                self.0.borrow_mut().and_not_inplace(&other.0.borrow())
            }
        }
    };
}

/// Interior mutability: resource methods take `&self`.
pub struct RoaringBitmap32(RefCell<Bitmap32>);

impl GuestBitmap32 for RoaringBitmap32 {
    fn new() -> Self {
        RoaringBitmap32(RefCell::new(Bitmap32::new()))
    }
    fn deserialize(bytes: Vec<u8>) -> Fallible<(Bitmap32Handle, u32)> {
        let (bitmap, used) = Bitmap32::deserialize(&bytes).map_err(|e| format!("not a portable 32-bit roaring bitmap: {e}"))?;
        Ok((Bitmap32Handle::new(RoaringBitmap32(RefCell::new(bitmap))), used as u32))
    }
    fn add_many(&self, values: Vec<u32>) {
        self.0.borrow_mut().add_many(&values)
    }
    fn remove_many(&self, values: Vec<u32>) {
        self.0.borrow_mut().remove_many(&values)
    }
    fn add_range(&self, min: u32, max_inclusive: u32) {
        if min <= max_inclusive {
            self.0.borrow_mut().add_range_closed(min, max_inclusive)
        }
    }
    shared_bitmap_methods!(u32, Bitmap32Borrow, RoaringBitmap32, Bitmap32);
    fn serialize(&self) -> Vec<u8> {
        self.0.borrow().serialize()
    }
}

pub struct RoaringBitmap64(RefCell<Bitmap64>);

impl GuestBitmap64 for RoaringBitmap64 {
    fn new() -> Self {
        RoaringBitmap64(RefCell::new(Bitmap64::new()))
    }
    fn deserialize(bytes: Vec<u8>) -> Fallible<(Bitmap64Handle, u32)> {
        let (bitmap, used) = Bitmap64::deserialize(&bytes).map_err(|e| format!("not a portable 64-bit roaring bitmap: {e}"))?;
        Ok((Bitmap64Handle::new(RoaringBitmap64(RefCell::new(bitmap))), used as u32))
    }
    fn add_many(&self, values: Vec<u64>) {
        self.0.borrow_mut().add_many(&values)
    }
    shared_bitmap_methods!(u64, Bitmap64Borrow, RoaringBitmap64, Bitmap64);
    fn serialize(&self, layout: Layout64) -> Vec<u8> {
        self.0.borrow().serialize(match layout {
            Layout64::Navigable => KernelLayout64::Navigable,
            Layout64::Iceberg => KernelLayout64::Iceberg,
        })
    }
}

export!(Kernels);
