//! Parquet page decoding for the flat decoder (src/format/parquet-flat.ts): the per-value loops
//! that a process's first read would otherwise run in V8's interpreter until the JIT compiles
//! them (a wasm kernel runs compiled from its first call).

/// PLAIN BYTE_ARRAY values (each a 4-byte little-endian length, then its bytes) of `rows` rows,
/// compacted in place: the values' bytes end up contiguous at the start of `page`.
/// `valid` holds validity bits (row `i` is bit `bit + i`; null: every row valid); a null row
/// takes no value. `offsets[i]` becomes `base` plus the bytes of rows `0..=i` (Arrow's end
/// offset of row `i`). Returns the number of value bytes, or -1 when a length or a value runs
/// past `page[..len]`.
///
/// # Safety
/// `page` must be valid for `len` bytes, `offsets` for `rows` i32s and `valid` (when not null)
/// for `(bit + rows + 7) / 8` bytes; `offsets` must not overlap the others.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_plain_byte_arrays(page: *mut u8, len: usize, rows: usize, valid: *const u8, bit: usize, base: i32, offsets: *mut i32) -> i32 {
    let offsets = if rows == 0 { &mut [][..] } else { std::slice::from_raw_parts_mut(offsets, rows) };
    let valid = if valid.is_null() { None } else { Some(std::slice::from_raw_parts(valid, (bit + rows + 7) / 8)) };
    match compact(page, len, valid, bit, base, offsets) {
        Some(n) => n as i32,
        None => -1,
    }
}

unsafe fn compact(page: *mut u8, len: usize, valid: Option<&[u8]>, bit: usize, base: i32, offsets: &mut [i32]) -> Option<usize> {
    let mut pos = 0usize; // next length prefix
    let mut out = 0usize; // value bytes written (always <= pos: each value drops its 4-byte prefix)
    for (i, slot) in offsets.iter_mut().enumerate() {
        let present = match valid {
            None => true,
            Some(v) => (v[(bit + i) >> 3] >> ((bit + i) & 7)) & 1 == 1,
        };
        if present {
            if len - pos < 4 {
                return None;
            }
            let n = u32::from_le_bytes(std::ptr::read_unaligned(page.add(pos) as *const [u8; 4])) as usize;
            pos += 4;
            if n > len - pos {
                return None;
            }
            std::ptr::copy(page.add(pos), page.add(out), n);
            pos += n;
            out += n;
        }
        *slot = base.wrapping_add(out as i32);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(values: &[&[u8]]) -> Vec<u8> {
        values.iter().flat_map(|v| (v.len() as u32).to_le_bytes().into_iter().chain(v.iter().copied())).collect()
    }

    #[test]
    fn compacts_values_and_skips_nulls() {
        let mut p = page(&[b"ab", b"", "ü€".as_bytes()]);
        let len = p.len();
        let mut offsets = [0i32; 4];
        // rows 0..4 at bit 3 of 0b0101_1000: rows 0, 1 and 3 valid, row 2 null
        let valid = [0b0101_1000u8];
        let n = unsafe { pr_plain_byte_arrays(p.as_mut_ptr(), len, 4, valid.as_ptr(), 3, 10, offsets.as_mut_ptr()) };
        assert_eq!(n, 7);
        assert_eq!(&p[..7], "abü€".as_bytes());
        assert_eq!(offsets, [12, 12, 12, 17]);
    }

    #[test]
    fn rejects_values_past_the_end() {
        for mut p in [page(&[b"abc"])[..6].to_vec(), vec![1, 0, 0], page(&[b"a"])] {
            let len = p.len();
            let mut offsets = [0i32; 2];
            let n = unsafe { pr_plain_byte_arrays(p.as_mut_ptr(), len, 2, std::ptr::null(), 0, 0, offsets.as_mut_ptr()) };
            assert_eq!(n, -1);
        }
    }
}
