//! Hash functions: XXH64 for key fingerprints, and Paimon's word-wise
//! Murmur3 (`MurmurHashUtils.hashBytesByWords`) for bucket assignment.

use crate::columns::{read_columns, Column, Values};

const P1: u64 = 11400714785074694791;
const P2: u64 = 14029467366897019727;
const P3: u64 = 1609587929392839161;
const P4: u64 = 9650029242287828579;
const P5: u64 = 2870177450012600261;

#[inline]
fn read_u64(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

#[inline]
fn read_u32(b: &[u8], i: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[i..i + 4]);
    u32::from_le_bytes(w)
}

#[inline]
fn xxh_round(acc: u64, input: u64) -> u64 {
    acc.wrapping_add(input.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1)
}

#[inline]
fn xxh_merge_round(acc: u64, val: u64) -> u64 {
    (acc ^ xxh_round(0, val)).wrapping_mul(P1).wrapping_add(P4)
}

/// XXH64 of `input` with `seed` (the reference algorithm, little-endian reads).
pub fn xxh64(input: &[u8], seed: u64) -> u64 {
    let len = input.len();
    let mut i = 0;
    let mut h: u64;
    if len >= 32 {
        let mut v1 = seed.wrapping_add(P1).wrapping_add(P2);
        let mut v2 = seed.wrapping_add(P2);
        let mut v3 = seed;
        let mut v4 = seed.wrapping_sub(P1);
        while i + 32 <= len {
            v1 = xxh_round(v1, read_u64(input, i));
            v2 = xxh_round(v2, read_u64(input, i + 8));
            v3 = xxh_round(v3, read_u64(input, i + 16));
            v4 = xxh_round(v4, read_u64(input, i + 24));
            i += 32;
        }
        h = v1.rotate_left(1).wrapping_add(v2.rotate_left(7)).wrapping_add(v3.rotate_left(12)).wrapping_add(v4.rotate_left(18));
        h = xxh_merge_round(h, v1);
        h = xxh_merge_round(h, v2);
        h = xxh_merge_round(h, v3);
        h = xxh_merge_round(h, v4);
    } else {
        h = seed.wrapping_add(P5);
    }
    h = h.wrapping_add(len as u64);
    while i + 8 <= len {
        h ^= xxh_round(0, read_u64(input, i));
        h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
        i += 8;
    }
    if i + 4 <= len {
        h ^= (read_u32(input, i) as u64).wrapping_mul(P1);
        h = h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
        i += 4;
    }
    while i < len {
        h ^= (input[i] as u64).wrapping_mul(P5);
        h = h.rotate_left(11).wrapping_mul(P1);
        i += 1;
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

/// Paimon's `MurmurHashUtils.hashBytesByWords` with seed 42; `bytes.len()`
/// must be a multiple of 4 (BinaryRow sizes are multiples of 8).
pub fn murmur_hash_by_words(bytes: &[u8]) -> i32 {
    let mut h: u32 = 42;
    let mut i = 0;
    while i + 4 <= bytes.len() {
        let mut k = read_u32(bytes, i);
        k = k.wrapping_mul(0xcc9e_2d51).rotate_left(15).wrapping_mul(0x1b87_3593);
        h ^= k;
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
        i += 4;
    }
    h ^= bytes.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

/// Appends the canonical fingerprint encoding of one key value: a null tag,
/// then the value little-endian (byte strings with a u32 length prefix).
fn encode_fingerprint_value(col: &Column, row: usize, out: &mut Vec<u8>) {
    if col.is_null(row) {
        out.push(0);
        return;
    }
    out.push(1);
    match col.values {
        Values::Bool(v) => out.push((v[row] != 0) as u8),
        Values::I8(v) => out.push(v[row] as u8),
        Values::I16(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        Values::I32(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        Values::I64(v) | Values::TimestampMicros(v) | Values::TimestampNanos(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        Values::F32(v) => out.extend_from_slice(&v[row].to_bits().to_le_bytes()),
        Values::F64(v) => out.extend_from_slice(&v[row].to_bits().to_le_bytes()),
        Values::Bytes { .. } => {
            let b = col.bytes(row);
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
        Values::Decimal128(v) => out.extend_from_slice(&v[row].to_le_bytes()),
    }
}

/// 64-bit fingerprint per row: XXH64 (with `seed`) of the row's key encoding.
pub fn fingerprint(columns: &[Column], seed: u64, out: &mut [u64]) {
    let mut scratch: Vec<u8> = Vec::with_capacity(64);
    for (row, o) in out.iter_mut().enumerate() {
        scratch.clear();
        for col in columns {
            encode_fingerprint_value(col, row, &mut scratch);
        }
        *o = xxh64(&scratch, seed);
    }
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_fingerprint(columns_ptr: u32, column_count: u32, rows: u32, seed: u64, out_ptr: u32) {
    if rows == 0 {
        return;
    }
    let columns = read_columns(columns_ptr, column_count as usize);
    let out = std::slice::from_raw_parts_mut(out_ptr as usize as *mut u64, rows as usize);
    fingerprint(&columns, seed, out);
}

/// Thomas Wang's 64-bit integer hash, as Paimon's `FastHash.getLongHash` (Java `long`
/// arithmetic: wrapping adds, arithmetic right shifts). Bloom-filter file indexes hash
/// integer-like values with it.
pub fn wang_hash64(key: i64) -> i64 {
    let mut key = (!key).wrapping_add(key << 21);
    key ^= key >> 24;
    key = key.wrapping_add(key << 3).wrapping_add(key << 8);
    key ^= key >> 14;
    key = key.wrapping_add(key << 2).wrapping_add(key << 4);
    key ^= key >> 28;
    key.wrapping_add(key << 31)
}

/// `floor(v * mul / div)` with Java `long` wrapping multiplication (timestamp unit changes).
#[inline]
fn rescale(v: i64, mul: i64, div: i64) -> i64 {
    let m = v.wrapping_mul(mul);
    if div == 1 {
        m
    } else {
        m.div_euclid(div)
    }
}

/// One XXH64 (with `seed`) per variable-length value: value `i` is
/// `bytes[offsets[i] - offsets[0] .. offsets[i + 1] - offsets[0]]` (Arrow int32 offsets).
pub fn xxh64_values(offsets: &[i32], bytes: &[u8], seed: u64, out: &mut [u64]) {
    let base = offsets[0];
    for (i, o) in out.iter_mut().enumerate() {
        let start = (offsets[i] - base) as usize;
        let end = (offsets[i + 1] - base) as usize;
        *o = xxh64(&bytes[start..end], seed);
    }
}

/// [`wang_hash64`] of `floor(values[i] * mul / div)` for every value.
pub fn wang_hash64_values(values: &[i64], mul: i64, div: i64, out: &mut [i64]) {
    for (o, &v) in out.iter_mut().zip(values) {
        *o = wang_hash64(rescale(v, mul, div));
    }
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_xxh64_bytes(offsets_ptr: u32, bytes_ptr: u32, rows: u32, seed: u64, out_ptr: u32) {
    if rows == 0 {
        return;
    }
    let rows = rows as usize;
    let offsets = std::slice::from_raw_parts(offsets_ptr as usize as *const i32, rows + 1);
    let len = (offsets[rows] - offsets[0]).max(0) as usize;
    let bytes = std::slice::from_raw_parts(bytes_ptr as usize as *const u8, len);
    let out = std::slice::from_raw_parts_mut(out_ptr as usize as *mut u64, rows);
    xxh64_values(offsets, bytes, seed, out);
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_wang_hash64(values_ptr: u32, rows: u32, mul: i64, div: i64, out_ptr: u32) {
    if rows == 0 || div <= 0 {
        return;
    }
    let values = std::slice::from_raw_parts(values_ptr as usize as *const i64, rows as usize);
    let out = std::slice::from_raw_parts_mut(out_ptr as usize as *mut i64, rows as usize);
    wang_hash64_values(values, mul, div, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh64_known_values() {
        assert_eq!(xxh64(b"", 0), 0xef46db3751d8e999);
        assert_eq!(xxh64(b"abc", 0), 0x44bc2cf5ad770999);
    }

    #[test]
    fn murmur_matches_paimon_vectors() {
        // INT 1 as a BinaryRow.
        let row = [0u8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(murmur_hash_by_words(&row), 1465514398);
    }

    #[test]
    fn wang_hash_matches_java_get_long_hash() {
        // Java Paimon 1.4.2: FastHash.FastHashVisitor.getLongHash(v)
        assert_eq!(wang_hash64(0), 0);
        assert_eq!(wang_hash64(1), 6614235796240398542);
        assert_eq!(wang_hash64(-1), 6614246905173314819);
        assert_eq!(wang_hash64(i64::MIN), 4316648529147585864);
        assert_eq!(wang_hash64(i64::MAX), -9102528624353286089);
        assert_eq!(wang_hash64(1704067200123), 2729851870475622856);
    }

    #[test]
    fn xxh64_values_hashes_each_slice() {
        let bytes = b"xxabcdef";
        // a sliced Arrow column: offsets need not start at 0
        let offsets = [2i32, 5, 5, 8];
        let mut out = [0u64; 3];
        xxh64_values(&offsets, &bytes[2..], 0, &mut out);
        assert_eq!(out, [xxh64(b"abc", 0), xxh64(b"", 0), xxh64(b"def", 0)]);
    }

    #[test]
    fn wang_hash_values_rescales_with_floor_division() {
        let mut out = [0i64; 3];
        wang_hash64_values(&[1_999, -1, 7], 1, 1_000, &mut out);
        assert_eq!(out, [wang_hash64(1), wang_hash64(-1), wang_hash64(0)]);
        wang_hash64_values(&[2, -3, 0], 1_000, 1, &mut out);
        assert_eq!(out, [wang_hash64(2_000), wang_hash64(-3_000), wang_hash64(0)]);
    }
}
