//! Vectors for the large arrays that memory-bound loops touch at random (a graph's adjacency, a
//! layer's counters and labels), with their memory offered to the system as huge pages before it
//! is first written.
//!
//! With 4 KiB pages, a random access into an array of gigabytes also misses the address
//! translation cache, and the page-table walk costs about as much as the access itself. Systems
//! whose transparent huge pages are set to `madvise` (Debian's default) only use them where asked:
//! measured on this 2-core machine, `bench graph --nodes 100000000 --edges 1000000000` solved in
//! 42.7, 45.2 and 30.6 s (outcome, stakes, minimax) with 4 KiB pages, in 28.9, 29.9 and 24.6 s
//! with huge pages for every allocation (the system set to `always`), and in 24.2, 28.0 and
//! 24.5 s with them asked for the reverse graph and the labels only. Where huge pages are off,
//! or on other systems, nothing changes.

/// Arrays below this size are left alone. At 1e8 moves (arrays of 80 to 400 MB) huge pages
/// made the reverse graph's construction 3 to 4 s slower (4.5 s to 7.7-8.6 s) and the solves no
/// faster; at 1e9 moves (0.8 to 4 GB) they made the solves about 1.5 times faster.
const SMALLEST: usize = 512 << 20;

/// An empty vector with room for `capacity` values, its memory advised for huge pages. Fill it
/// (`resize`, `extend`) after this call: pages already written stay as they are.
pub fn with_capacity<T>(capacity: usize) -> Vec<T> {
    advised(capacity, SMALLEST)
}

/// [`with_capacity`], advised from `smallest` bytes on.
fn advised<T>(capacity: usize, smallest: usize) -> Vec<T> {
    let v: Vec<T> = Vec::with_capacity(capacity);
    let bytes = capacity.saturating_mul(std::mem::size_of::<T>());
    if bytes >= smallest {
        advise(v.as_ptr().cast::<u8>(), bytes);
    }
    v
}

/// A vector of `len` copies of `value`, its memory advised for huge pages before it is written.
pub fn filled<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut v = with_capacity(len);
    v.resize(len, value);
    v
}

/// Asks the system to back the whole pages inside `bytes` bytes from `start` with huge pages.
#[cfg(target_os = "linux")]
fn advise(start: *const u8, bytes: usize) {
    const PAGE: usize = 4096;
    let first = (start as usize).next_multiple_of(PAGE);
    let end = (start as usize).saturating_add(bytes) & !(PAGE - 1);
    if end <= first {
        return;
    }
    // SAFETY: madvise(2) with MADV_HUGEPAGE changes neither the contents, the protection nor the
    // mapping of the range: it only tells the kernel how it may back the pages from now on. The
    // range is page-aligned and lies inside one live allocation of this process (a vector's
    // buffer), so no other memory is concerned; if the kernel refuses (huge pages off, memory not
    // from a mapping), the call fails and nothing happens, which is why its result is ignored.
    unsafe {
        libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: *const u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    use super::*;

    /// Advised vectors, large and small, hold what they are filled with (advised from 4 KiB on
    /// here, so that the system call runs on ranges of every alignment).
    #[test]
    fn advised_vectors_hold_their_values() {
        for len in [0, 1, 1000, 4095, 4096, 3 << 20] {
            let mut bytes: Vec<u8> = advised(len, 4096);
            bytes.extend((0..len).map(|i| i as u8));
            assert!(bytes.iter().enumerate().all(|(i, &b)| b == i as u8));
            let mut counters: Vec<AtomicU64> = advised(len, 4096);
            counters.resize_with(len, || AtomicU64::new(1));
            counters.iter_mut().enumerate().for_each(|(i, c)| *c.get_mut() += i as u64);
            assert!(counters.iter().enumerate().all(|(i, c)| c.load(Relaxed) == i as u64 + 1));
        }
        let v = filled(1000, 7u32);
        assert!(v.len() == 1000 && v.iter().all(|&x| x == 7));
    }
}
