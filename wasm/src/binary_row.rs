//! Paimon BinaryRow encoding of key columns (little-endian, 8-byte slots,
//! inline strings up to 7 bytes) and the Java-compatible fixed-bucket function.

use crate::columns::{read_columns, Column, Values};
use crate::hash::murmur_hash_by_words;

/// Encodes row `row` of `columns` into `out` exactly as Java's `BinaryRowWriter`
/// (RowKind INSERT, canonical zero padding). `out` is cleared first.
pub fn encode_row(columns: &[Column], row: usize, out: &mut Vec<u8>) {
    let arity = columns.len();
    let null_bytes = ((arity + 63 + 8) / 64) * 8;
    let fixed = null_bytes + 8 * arity;
    out.clear();
    out.resize(fixed, 0);
    for (i, col) in columns.iter().enumerate() {
        let slot = null_bytes + 8 * i;
        let null = col.is_null(row);
        if null {
            let bit = i + 8;
            out[bit >> 3] |= 1 << (bit & 7);
        }
        match col.values {
            // Non-compact timestamps and decimals keep their var-part reservation when null, as Java's
            // generated projections do (`writeTimestamp(pos, null, p)` / `writeDecimal(pos, null, p)`).
            Values::TimestampMicros(v) | Values::TimestampNanos(v) => {
                let per_milli: i64 = if let Values::TimestampMicros(_) = col.values { 1_000 } else { 1_000_000 };
                let (millis, nano_of_milli) = if null {
                    (0i64, 0u64)
                } else {
                    let x = v[row];
                    let nanos = x.rem_euclid(per_milli) * (1_000_000 / per_milli);
                    (x.div_euclid(per_milli), nanos as u64)
                };
                let offset = out.len() as u64;
                out.extend_from_slice(&millis.to_le_bytes());
                out[slot..slot + 8].copy_from_slice(&((offset << 32) | nano_of_milli).to_le_bytes());
            }
            Values::Decimal128(v) => {
                let offset = out.len();
                out.resize(offset + 16, 0);
                let len = if null {
                    0
                } else {
                    let bytes = minimal_twos_complement_be(v[row]);
                    out[offset..offset + bytes.len()].copy_from_slice(&bytes);
                    bytes.len()
                };
                out[slot..slot + 8].copy_from_slice(&(((offset as u64) << 32) | len as u64).to_le_bytes());
            }
            _ if null => {}
            Values::Bool(v) => out[slot] = (v[row] != 0) as u8,
            Values::I8(v) => out[slot] = v[row] as u8,
            Values::I16(v) => out[slot..slot + 2].copy_from_slice(&v[row].to_le_bytes()),
            Values::I32(v) => out[slot..slot + 4].copy_from_slice(&v[row].to_le_bytes()),
            Values::I64(v) => out[slot..slot + 8].copy_from_slice(&v[row].to_le_bytes()),
            Values::F32(v) => out[slot..slot + 4].copy_from_slice(&v[row].to_bits().to_le_bytes()),
            Values::F64(v) => out[slot..slot + 8].copy_from_slice(&v[row].to_bits().to_le_bytes()),
            Values::Bytes { .. } => {
                let b = col.bytes(row);
                if b.len() <= 7 {
                    out[slot..slot + b.len()].copy_from_slice(b);
                    out[slot + 7] = 0x80 | b.len() as u8;
                } else {
                    let offset = out.len() as u64;
                    out.extend_from_slice(b);
                    let padded = (out.len() + 7) & !7;
                    out.resize(padded, 0);
                    out[slot..slot + 8].copy_from_slice(&((offset << 32) | b.len() as u64).to_le_bytes());
                }
            }
        }
    }
}

/// `BigInteger.toByteArray()`: the shortest big-endian two's complement form.
fn minimal_twos_complement_be(v: i128) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        let redundant = (b == 0x00 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    bytes[start..].to_vec()
}

/// Paimon's default fixed-bucket function: `abs(hash(keyRow) % buckets)`.
/// With `buckets == 0` the raw BinaryRow hash is written instead.
pub fn bucket(columns: &[Column], buckets: i32, out: &mut [i32]) {
    let mut scratch: Vec<u8> = Vec::with_capacity(64);
    for (row, o) in out.iter_mut().enumerate() {
        encode_row(columns, row, &mut scratch);
        let h = murmur_hash_by_words(&scratch);
        *o = if buckets == 0 { h } else { (h % buckets).abs() };
    }
}

#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_bucket(columns_ptr: u32, column_count: u32, rows: u32, buckets: i32, out_ptr: u32) {
    if rows == 0 {
        return;
    }
    let columns = read_columns(columns_ptr, column_count as usize);
    let out = std::slice::from_raw_parts_mut(out_ptr as usize as *mut i32, rows as usize);
    bucket(&columns, buckets, out);
}

#[cfg(test)]
mod tests {
    use super::minimal_twos_complement_be;

    #[test]
    fn twos_complement_is_minimal() {
        assert_eq!(minimal_twos_complement_be(0), vec![0]);
        assert_eq!(minimal_twos_complement_be(12345), vec![0x30, 0x39]);
        assert_eq!(minimal_twos_complement_be(128), vec![0x00, 0x80]);
        assert_eq!(minimal_twos_complement_be(-1), vec![0xff]);
        assert_eq!(minimal_twos_complement_be(-129), vec![0xff, 0x7f]);
    }
}
