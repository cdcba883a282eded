//! A transposition table shared by all search threads, without locks.
//!
//! Each slot is two 64-bit atomics: the entry's data and the key XOR the data. A reader accepts a
//! slot only when the two agree with its key, so an entry torn by two threads writing at once is
//! simply not found (the lockless scheme of Hyatt and Mann): a miss, never a wrong score. Slots
//! come in buckets of two: the first keeps the deepest entry, the second takes every other store.
//! Clearing between searches is a generation bump, so it costs nothing until the generation counter
//! wraps.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

/// What a stored score means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bound {
    /// The exact value at the stored depth.
    Exact,
    /// The value is at least the score (the search failed high).
    Lower,
    /// The value is at most the score (the search failed low).
    Upper,
}

impl Bound {
    /// What a fail-soft `score` found within the window `(alpha, beta)` says of the value.
    pub fn of(score: i32, alpha: i32, beta: i32) -> Bound {
        if score <= alpha {
            Bound::Upper
        } else if score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }

    /// Whether a stored `score` with this bound settles a search within `(alpha, beta)`: it is
    /// exact, or a bound on the side of the window it falls.
    pub fn settles(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }
}

/// One stored search result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TtEntry {
    /// The score, relative to the node (see the engine for decisive scores).
    pub score: i32,
    /// Remaining depth searched; [`TtEntry::TO_THE_END`] for a search to the end of the game.
    pub depth: u8,
    /// How `score` bounds the value.
    pub bound: Bound,
    /// Index of the best move in the game's search move list, if known.
    pub best: Option<u8>,
    /// How much search the entry saves: the bit length of its subtree's node count (0 to 63).
    /// Replacement keeps the costlier entry, which also works when every depth is unlimited.
    pub work: u8,
}

impl TtEntry {
    /// The depth recorded for searches that went to the end of the game: the table's byte for
    /// [`crate::score::UNLIMITED`].
    pub const TO_THE_END: u8 = u8::MAX;

    /// The deepest depth-limited search the table can tell from one to the end of the game.
    pub const MAX_DEPTH: u32 = Self::TO_THE_END as u32 - 1;

    /// The byte that records a search of `depth` plies ([`crate::score::UNLIMITED`] and anything
    /// deeper than [`TtEntry::MAX_DEPTH`] meaning to the end).
    #[inline]
    pub fn depth_byte(depth: u32) -> u8 {
        depth.min(u32::from(Self::TO_THE_END)) as u8
    }

    #[inline]
    fn pack(self, generation: u8) -> u64 {
        let bound = match self.bound {
            Bound::Exact => 0u64,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let best = self.best.map_or(0u64, |b| b as u64 + 1);
        (self.score as u32 as u64)
            | (self.depth as u64) << 32
            | bound << 40
            | (best & 0x1FF) << 42
            | ((generation & GENERATION_MASK) as u64) << 51
            | ((self.work.min(63)) as u64) << 57
    }

    #[inline]
    fn unpack(data: u64) -> (TtEntry, u8) {
        let bound = match (data >> 40) & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        let best = ((data >> 42) & 0x1FF) as u16;
        let entry = TtEntry {
            score: data as u32 as i32,
            depth: (data >> 32) as u8,
            bound,
            best: best.checked_sub(1).map(|b| b as u8),
            work: (data >> 57) as u8 & 63,
        };
        (entry, ((data >> 51) as u8) & GENERATION_MASK)
    }
}

const GENERATION_MASK: u8 = 0x3F;

#[repr(C)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// Zeroed memory for the slots, from an anonymous mapping so the kernel can back it with huge
/// pages: a table of hundreds of MiB probed at random otherwise spends much of its time on
/// address translation misses.
struct SlotMemory {
    map: memmap2::MmapMut,
    len: usize,
}

impl SlotMemory {
    fn new(len: usize) -> std::io::Result<Self> {
        let map = memmap2::MmapMut::map_anon(len * std::mem::size_of::<Slot>())?;
        #[cfg(target_os = "linux")]
        {
            // Only a hint: without huge pages the table works the same, slower.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        let memory = Self { map, len };
        // Touch every page now, so the first searches do not pay for page faults (and, with huge
        // pages, for memory compaction) in the middle of their timing.
        let per_page = 4096 / std::mem::size_of::<Slot>();
        memory.slots().par_chunks(per_page).for_each(|page| page[0].data.store(0, Relaxed));
        Ok(memory)
    }

    fn slots(&self) -> &[Slot] {
        // SAFETY: the mapping is page-aligned (more than the 8 bytes `Slot` needs) and holds
        // exactly `len` slots; anonymous mappings are zero-filled and all-zero bytes are a valid
        // `AtomicU64`; every later write goes through the atomics (shared access is what they are
        // for); the slice borrows `self`, which owns the mapping, so it cannot outlive it.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<Slot>(), self.len) }
    }
}

/// The shared table.
pub struct TranspositionTable {
    memory: SlotMemory,
    /// Bucket index mask (number of buckets minus one).
    mask: u64,
    generation: AtomicU64,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TranspositionTable({} slots)", self.memory.len)
    }
}

impl TranspositionTable {
    /// A table of at most `mib` mebibytes (at least one bucket), rounded down to a power of two,
    /// or the system's refusal to map that much memory.
    pub fn try_new(mib: usize) -> std::io::Result<Self> {
        let bytes = mib.clamp(1, 1 << 30) << 20;
        let fit = bytes / 32; // two 16-byte slots per bucket
        let buckets = 1usize << (usize::BITS - 1 - fit.leading_zeros());
        let memory = SlotMemory::new(buckets * 2)?;
        Ok(Self { memory, mask: buckets as u64 - 1, generation: AtomicU64::new(1) })
    }

    /// Like [`TranspositionTable::try_new`].
    ///
    /// # Panics
    /// If the memory cannot be mapped.
    pub fn new(mib: usize) -> Self {
        Self::try_new(mib).expect("memory for the transposition table")
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.memory.len * std::mem::size_of::<Slot>()
    }

    /// Forgets every entry, in constant time.
    pub fn clear(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    /// The current generation, and the value it mixes into keys so that entries of other
    /// generations fail verification.
    #[inline]
    fn generation(&self) -> (u8, u64) {
        let g = self.generation.load(Relaxed);
        ((g as u8) & GENERATION_MASK, g.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))
    }

    fn bucket(&self, key: u64) -> usize {
        // The high bits pick the bucket; the whole key is verified on probe.
        ((key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) & self.mask) as usize * 2
    }

    /// Asks the processor to start loading `key`'s bucket into cache, for a probe soon after.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        crate::prefetch::prefetch(&self.memory.slots()[self.bucket(key)]);
    }

    /// The entry stored for `key` in the current generation.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let (_, salt) = self.generation();
        let b = self.bucket(key);
        for slot in &self.memory.slots()[b..b + 2] {
            let data = slot.data.load(Relaxed);
            if slot.check.load(Relaxed) ^ data == key ^ salt {
                return Some(TtEntry::unpack(data).0);
            }
        }
        None
    }

    /// Stores `entry` for `key`. The first slot of a bucket keeps the entry that saves the most
    /// (deeper, then more work); the second takes the rest, and an entry pushed out of the first
    /// slot moves to the second.
    #[inline]
    pub fn store(&self, key: u64, entry: TtEntry) {
        let (generation, salt) = self.generation();
        let b = self.bucket(key);
        let key = key ^ salt;
        let data = entry.pack(generation);
        let slots = self.memory.slots();
        let (first, second) = (&slots[b], &slots[b + 1]);
        let first_data = first.data.load(Relaxed);
        let first_check = first.check.load(Relaxed);
        let (old, old_generation) = TtEntry::unpack(first_data);
        let same_key = first_check ^ first_data == key;
        // Generation tags are 6 bits: an old entry can look current, which only costs
        // replacement quality; verification uses the full salted key.
        let stale = old_generation != generation;
        if same_key || stale || (entry.depth, entry.work) >= (old.depth, old.work) {
            if !same_key && !stale {
                second.check.store(first_check, Relaxed);
                second.data.store(first_data, Relaxed);
            }
            first.check.store(key ^ data, Relaxed);
            first.data.store(data, Relaxed);
        } else {
            second.check.store(key ^ data, Relaxed);
            second.data.store(data, Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(score: i32, depth: u8, bound: Bound, best: Option<u8>) -> TtEntry {
        TtEntry { score, depth, bound, best, work: depth / 4 }
    }

    #[test]
    fn packs_every_field() {
        for e in [
            entry(-7, 3, Bound::Upper, Some(0)),
            entry(i32::MAX - 1, TtEntry::TO_THE_END, Bound::Exact, None),
            entry(i32::MIN + 1, 0, Bound::Lower, Some(255)),
        ] {
            assert_eq!(TtEntry::unpack(e.pack(5)), (e, 5));
        }
    }

    #[test]
    fn stores_probes_and_clears() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.bytes(), 1 << 20);
        let e = entry(12, 4, Bound::Lower, Some(2));
        tt.store(42, e);
        assert_eq!(tt.probe(42), Some(e));
        assert_eq!(tt.probe(43), None);
        tt.clear();
        assert_eq!(tt.probe(42), None);
        for _ in 0..300 {
            tt.store(42, e);
            assert_eq!(tt.probe(42), Some(e));
            tt.clear();
            assert_eq!(tt.probe(42), None, "every generation, including after the tag wraps, starts empty");
        }
    }

    #[test]
    fn deep_entries_survive_shallow_ones() {
        let tt = TranspositionTable::new(1);
        // Find three keys in the same bucket.
        let keys: Vec<u64> = (1..).filter(|&k| tt.bucket(k) == tt.bucket(1)).take(3).collect();
        let deep = entry(1, 20, Bound::Exact, None);
        tt.store(keys[0], deep);
        tt.store(keys[1], entry(2, 1, Bound::Exact, None));
        tt.store(keys[2], entry(3, 2, Bound::Exact, None));
        assert_eq!(tt.probe(keys[0]), Some(deep));
        assert_eq!(tt.probe(keys[2]).map(|e| e.score), Some(3));
    }
}
