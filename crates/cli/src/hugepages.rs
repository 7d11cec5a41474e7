//! The system allocator, asking for transparent huge pages on large blocks.
//!
//! A proof touches hundreds of megabytes of fresh memory (keys, scalars, buckets) once;
//! with 4 KiB pages the page faults alone cost tens of milliseconds, a visible share of
//! a small proof. Where the kernel's THP mode is `madvise`, blocks of 4 MiB and more are
//! advised `MADV_HUGEPAGE` (2 MiB pages, 512× fewer faults). The advice is only a hint:
//! if it fails nothing changes.

use std::alloc::{GlobalAlloc, Layout, System};

pub struct HugePageHint;

const THRESHOLD: usize = 4 << 20;

#[cfg(target_os = "linux")]
fn advise(ptr: *mut u8, size: usize) {
    const HUGE: usize = 2 << 20;
    // Only whole 2 MiB pages inside the block can become huge pages.
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + size) & !(HUGE - 1);
    if end > start {
        // SAFETY: the range lies inside a block we just allocated; madvise with
        // MADV_HUGEPAGE changes no contents and fails harmlessly.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_ptr: *mut u8, _size: usize) {}

// SAFETY: every call is forwarded to `System`; the advice never touches the contents.
unsafe impl GlobalAlloc for HugePageHint {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && layout.size() >= THRESHOLD {
            advise(p, layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() && layout.size() >= THRESHOLD {
            advise(p, layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() && new_size >= THRESHOLD {
            advise(p, new_size);
        }
        p
    }
}
