//! Page compression for the Parquet writer (src/format/parquet-encode.ts): raw snappy blocks
//! (Parquet's SNAPPY codec is the raw format, no framing), by the pure-Rust `snap` crate — the
//! same encoder parquet-rs uses.

/// Largest snappy output for `len` input bytes (0 if `len` is too large for snappy).
#[cfg_attr(feature = "c-abi", no_mangle)]
pub extern "C" fn pr_snappy_max_compressed_len(len: usize) -> usize {
    snap::raw::max_compress_len(len)
}

/// Compresses `input[..len]` into `out[..capacity]` as one raw snappy block; returns the
/// compressed length, or 0 when `capacity` is below [`pr_snappy_max_compressed_len`] or the
/// input is too large.
///
/// # Safety
/// `input` and `out` must be valid for `len` and `capacity` bytes and must not overlap.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_snappy_compress(input: *const u8, len: usize, out: *mut u8, capacity: usize) -> usize {
    let src = if len == 0 { &[][..] } else { std::slice::from_raw_parts(input, len) };
    let dst = if capacity == 0 { &mut [][..] } else { std::slice::from_raw_parts_mut(out, capacity) };
    snap::raw::Encoder::new().compress(src, dst).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let input: Vec<u8> = (0..100_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        let mut out = vec![0u8; pr_snappy_max_compressed_len(input.len())];
        let n = unsafe { pr_snappy_compress(input.as_ptr(), input.len(), out.as_mut_ptr(), out.len()) };
        assert!(n > 0 && n < input.len());
        assert_eq!(snap::raw::Decoder::new().decompress_vec(&out[..n]).unwrap(), input);
    }
}
