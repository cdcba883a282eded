//! A cache hint for memory-bound loops (the transposition table's probes, the retrograde
//! kernel's walk back along stored edges): start loading a value's cache line now, so that its
//! miss overlaps other work instead of stalling the load that needs it.

/// Asks the processor to start loading the cache line that holds `value`. Only a hint: it changes
/// no value and never faults; on targets without a prefetch instruction it does nothing.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 target has (it is in the baseline
    // target features); it only hints the cache, never reads into a value nor faults, and the
    // pointer comes from a live reference anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::prefetch;

    #[test]
    fn prefetching_changes_nothing() {
        let values: Vec<u64> = (0..4096).collect();
        values.iter().rev().for_each(prefetch);
        assert!(values.iter().enumerate().all(|(i, &v)| v == i as u64));
    }
}
