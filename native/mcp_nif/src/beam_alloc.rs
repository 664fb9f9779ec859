//! The NIF's global allocator: blocks of [`LARGE_BYTES`] and more come
//! from the VM's allocator (`enif_alloc`, `enif_realloc`, `enif_free`),
//! smaller ones from the system's. The VM keeps the carriers of large
//! blocks mapped between uses, so a decode that writes a multi-megabyte
//! string does not fault in fresh pages on every call (with the system
//! allocator alone, page faults and page clearing were a quarter of
//! decoding a 4 MiB text); those blocks are also counted in
//! `erlang:memory/0`. Small blocks stay with the system allocator, whose
//! per-thread caches are several times faster than `enif_alloc` for the
//! parser's few stacks per call.
//!
//! Which allocator owns a block follows from its layout alone (size at or
//! above [`LARGE_BYTES`] with an alignment `enif_alloc` gives, 8 bytes),
//! and `dealloc`/`realloc` get the layout the block was made with, so a
//! block always goes back where it came from; a `realloc` across the line
//! moves the block.

use rustler::sys::{c_void, enif_alloc, enif_free, enif_realloc};
use std::alloc::{GlobalAlloc, Layout, System};

/// Alignment `enif_alloc` guarantees.
const BEAM_ALIGN: usize = 8;
/// Smallest block taken from the VM's allocator.
const LARGE_BYTES: usize = 64 * 1024;

pub struct BeamAllocator;

fn from_beam(size: usize, align: usize) -> bool {
    size >= LARGE_BYTES && align <= BEAM_ALIGN
}

// SAFETY: both allocators are thread-safe; `from_beam` sends every block
// back to the one that made it (see the module doc); enif_alloc's memory is
// aligned to BEAM_ALIGN, and null on failure, as GlobalAlloc expects.
unsafe impl GlobalAlloc for BeamAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if from_beam(layout.size(), layout.align()) {
            unsafe { enif_alloc(layout.size()).cast::<u8>() }
        } else {
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if from_beam(layout.size(), layout.align()) {
            unsafe { enif_free(ptr.cast::<c_void>()) }
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old_beam = from_beam(layout.size(), layout.align());
        let new_beam = from_beam(new_size, layout.align());
        match (old_beam, new_beam) {
            (true, true) => unsafe { enif_realloc(ptr.cast::<c_void>(), new_size).cast::<u8>() },
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            _ => {
                // SAFETY: the caller guarantees a non-zero new size that
                // does not overflow with this alignment.
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
                let moved = unsafe { self.alloc(new_layout) };
                if !moved.is_null() {
                    unsafe {
                        std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                }
                moved
            }
        }
    }
}

#[global_allocator]
static ALLOCATOR: BeamAllocator = BeamAllocator;
