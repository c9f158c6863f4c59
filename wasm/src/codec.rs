//! Parquet's SNAPPY pages: raw snappy blocks (no framing) by the pure-Rust `snap` crate — the
//! same codec parquet-rs uses. Compression for the writer (src/format/parquet-encode.ts),
//! decompression for the flat decoder (src/format/parquet-flat.ts). Malformed input is an error
//! return, never a panic.

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

/// The uncompressed length a raw snappy block `input[..len]` declares in its header, or -1 when
/// there is no header or it is malformed (or declares more than fits in an `isize`).
///
/// # Safety
/// `input` must be valid for `len` bytes.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_snappy_decompress_len(input: *const u8, len: usize) -> isize {
    if len == 0 {
        return -1; // `snap` reads no header as length 0; `decompress` refuses it
    }
    match snap::raw::decompress_len(std::slice::from_raw_parts(input, len)) {
        Ok(n) if n <= isize::MAX as usize => n as isize,
        _ => -1,
    }
}

/// Decompresses the raw snappy block `input[..len]` into `out[..capacity]`; returns the content's
/// length, or -1 when the block is malformed or truncated, or its content does not fit in
/// `capacity` bytes.
///
/// # Safety
/// `input` and `out` must be valid for `len` and `capacity` bytes and must not overlap.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_snappy_decompress(input: *const u8, len: usize, out: *mut u8, capacity: usize) -> isize {
    let src = if len == 0 { &[][..] } else { std::slice::from_raw_parts(input, len) };
    let dst = if capacity == 0 { &mut [][..] } else { std::slice::from_raw_parts_mut(out, capacity) };
    match snap::raw::Decoder::new().decompress(src, dst) {
        Ok(n) if n <= isize::MAX as usize => n as isize,
        _ => -1,
    }
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
        let mut back = vec![0u8; input.len()];
        assert_eq!(unsafe { pr_snappy_decompress_len(out.as_ptr(), n) }, input.len() as isize);
        assert_eq!(unsafe { pr_snappy_decompress(out.as_ptr(), n, back.as_mut_ptr(), back.len()) }, input.len() as isize);
        assert_eq!(back, input);
    }

    fn compress(input: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; pr_snappy_max_compressed_len(input.len())];
        let n = unsafe { pr_snappy_compress(input.as_ptr(), input.len(), out.as_mut_ptr(), out.len()) };
        out.truncate(n);
        out
    }

    fn decompress(block: &[u8], capacity: usize) -> (isize, Vec<u8>) {
        let mut out = vec![0u8; capacity];
        let n = unsafe { pr_snappy_decompress(block.as_ptr(), block.len(), out.as_mut_ptr(), out.len()) };
        (n, out)
    }

    #[test]
    fn decompresses_empty_and_literal_blocks() {
        assert_eq!(unsafe { pr_snappy_decompress_len([0u8].as_ptr(), 1) }, 0);
        assert_eq!(decompress(&[0], 0).0, 0);
        assert_eq!(unsafe { pr_snappy_decompress_len(std::ptr::null(), 0) }, -1); // no header at all
        assert_eq!(decompress(&[], 16).0, -1);
        // length 3, one literal tag of 3 bytes ("abc"), as the snappy format describes it
        let (n, out) = decompress(&[3, 2 << 2, b'a', b'b', b'c'], 3);
        assert_eq!((n, &out[..]), (3, &b"abc"[..]));
    }

    #[test]
    fn refuses_malformed_blocks() {
        let input: Vec<u8> = (0..50_000u32).flat_map(|i| (i % 1000).to_le_bytes()).collect();
        let block = compress(&input);
        // every truncation fails (or, cut inside the header, reads no length)
        for cut in 0..block.len() {
            assert_eq!(decompress(&block[..cut], input.len()).0, -1, "cut at {cut}");
        }
        // too little room for the declared content
        assert_eq!(decompress(&block, input.len() - 1).0, -1);
        // a declared length larger than the content (header rewritten): the copies end early
        let mut longer = vec![];
        let mut n = input.len() + 1;
        while n >= 0x80 {
            longer.push((n as u8) | 0x80);
            n >>= 7;
        }
        longer.push(n as u8);
        let header = { let mut h = 0; while block[h] & 0x80 != 0 { h += 1; } h + 1 };
        longer.extend_from_slice(&block[header..]);
        assert_eq!(decompress(&longer, input.len() + 1).0, -1);
        // a varint header running past 10 bytes, or declaring more than 32 bits
        assert_eq!(unsafe { pr_snappy_decompress_len([0xff; 11].as_ptr(), 11) }, -1);
        assert_eq!(decompress(&[0xff, 0xff, 0xff, 0xff, 0x7f, 0], 16).0, -1);
        // a copy reaching back before the start of the output
        assert_eq!(decompress(&[8, 0b0000_0001 | (4 << 2), 0x10], 8).0, -1); // copy-1: offset 16 of 0 bytes
        // flipped bytes: never a panic, and a success has exactly the declared length
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            let mut bad = block.clone();
            for _ in 0..3 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let at = (seed as usize) % bad.len();
                bad[at] ^= 1 << (seed >> 61);
            }
            let declared = unsafe { pr_snappy_decompress_len(bad.as_ptr(), bad.len()) };
            let (n, _) = decompress(&bad, input.len());
            assert!(n == -1 || n == declared, "{n} vs declared {declared}");
        }
    }
}
