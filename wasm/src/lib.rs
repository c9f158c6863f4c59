//! paimon-rt kernels: the hot paths of the TypeScript library, compiled to
//! `wasm32-unknown-unknown` with a plain C ABI: the loader in `src/kernel/wasm.ts`
//! copies typed arrays into linear memory and calls these exports directly,
//! with no JS glue in between.
//! wasm-pack builds it; wasm-bindgen is a dependency only because wasm-pack
//! requires one, and no item uses it, so the module has no imports.
//! The `c-abi` feature (default) exports the `pr_*` functions; `component/`
//! builds the same kernels as a WebAssembly component over a WIT interface.
//!
//! Memory contract: the host allocates every input and output buffer with
//! [`pr_alloc`] (16-byte aligned), passes pointers, and frees them with
//! [`pr_free`]. Kernels never keep pointers past a call.

pub mod binary_row;
pub mod bitmap;
pub mod codec;
pub mod columns;
pub mod hash;
pub mod merge;
pub mod pages;
pub mod sort;

use std::alloc::{alloc, dealloc, Layout};

/// Alignment of every host allocation; enough for i128 and SIMD-width loads.
const HOST_ALIGN: usize = 16;

/// SHA-256 (hex) of the crate sources, set by `scripts/build-wasm.mjs`, stored
/// as a custom section so that tests can detect a stale committed module.
const SOURCE_HASH: &str = env!("PAIMON_RT_KERNEL_SOURCE_HASH");

const fn hash_bytes(s: &str) -> [u8; 64] {
    let b = s.as_bytes();
    let mut out = [b'0'; 64];
    let mut i = 0;
    while i < 64 && i < b.len() {
        out[i] = b[i];
        i += 1;
    }
    out
}

#[used]
#[link_section = "paimon_rt_source_hash"]
static SOURCE_HASH_SECTION: [u8; 64] = hash_bytes(SOURCE_HASH);

/// Allocates `size` bytes (16-byte aligned) for the host. Returns 0 on failure.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub extern "C" fn pr_alloc(size: usize) -> *mut u8 {
    if size == 0 {
        return HOST_ALIGN as *mut u8;
    }
    match Layout::from_size_align(size, HOST_ALIGN) {
        Ok(layout) => unsafe { alloc(layout) },
        Err(_) => std::ptr::null_mut(),
    }
}

/// Frees a block returned by [`pr_alloc`] with the same `size`.
#[cfg_attr(feature = "c-abi", no_mangle)]
pub unsafe extern "C" fn pr_free(ptr: *mut u8, size: usize) {
    if size == 0 || ptr.is_null() {
        return;
    }
    dealloc(ptr, Layout::from_size_align_unchecked(size, HOST_ALIGN));
}
