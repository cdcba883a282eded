//! The small solver's own transposition table, one per thread: what it learnt of the positions
//! with [`super::HASHED_FROM`] to [`super::SMALL`] empties, bounds on their exact scores and the
//! move that was best, kept from one call of the solver to the next.
//!
//! It is apart from the engine's table because these positions are the most numerous the engine
//! would otherwise store: in a table of their own, small enough to stay in the core's cache and
//! shared with no other thread, a probe costs a fraction of an engine node. Each entry holds the
//! whole position, so a hit is never a collision; its bounds are proven facts about the position,
//! true whatever window found them, so the table is never cleared.

use std::cell::RefCell;

/// The entries of each thread's table. 2^14 entries of 24 bytes: 384 KiB, within a core's second
/// level cache. Measured on FFO #50-#53 (two threads, with `SMALL` at 12 and from 9 empties):
/// 2^12 entries 33.8 s, 2^14 34.9-35.6 s, 2^16 36.8 s; on FFO #40-#44 (one thread) 2^20 and
/// 2^22 entries, 24 and 96 MiB, saved 2.5% of the nodes and no time.
const ENTRIES: usize = 1 << 14;

/// What the table knows of one position: its exact score lies in `lower..=upper`, and `best` was
/// the best move found (a square), or [`NO_MOVE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    player: u64,
    opponent: u64,
    pub lower: i8,
    pub upper: i8,
    pub best: u8,
}

/// The `best` of an entry that has no best move.
pub(super) const NO_MOVE: u8 = 64;

impl Entry {
    /// The entry for `p` to move against `o`, with the score in `lower..=upper` (both within
    /// -64..=64) and the best move `best`.
    pub fn new(p: u64, o: u64, lower: i32, upper: i32, best: u8) -> Entry {
        Entry { player: p, opponent: o, lower: lower as i8, upper: upper as i8, best }
    }
}

/// A table of [`ENTRIES`] entries, each position in one slot chosen by its hash; a new entry
/// replaces the old one there.
pub(super) struct Table {
    entries: Box<[Entry]>,
}

impl Table {
    fn new() -> Table {
        // No position of the game has no disc at all: the empty entry never matches one.
        let empty = Entry::new(0, 0, -64, 64, NO_MOVE);
        Table { entries: vec![empty; ENTRIES].into_boxed_slice() }
    }

    /// The slot of `p` to move against `o`.
    #[inline]
    fn slot(p: u64, o: u64) -> usize {
        let h = (p ^ o.rotate_left(23)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ o.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        (h >> 32) as usize % ENTRIES
    }

    /// What the table holds on `p` to move against `o`, if anything.
    #[inline]
    pub fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        let e = self.entries[Self::slot(p, o)];
        (e.player == p && e.opponent == o).then_some(e)
    }

    /// Keeps `entry` in its position's slot.
    #[inline]
    pub fn store(&mut self, entry: Entry) {
        self.entries[Self::slot(entry.player, entry.opponent)] = entry;
    }
}

thread_local! {
    /// This thread's table, allocated the first time the thread solves a position.
    static TABLE: RefCell<Table> = RefCell::new(Table::new());
}

/// Runs `f` with this thread's table.
pub(super) fn with_table<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    TABLE.with(|table| match table.try_borrow_mut() {
        Ok(mut table) => f(&mut table),
        // Never reached: the solver does not call itself through here. Were it, a fresh table
        // would still give the right scores.
        Err(_) => f(&mut Table::new()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_found_only_for_its_own_position() {
        let mut table = Table::new();
        let (p, o) = (0x0000_0010_0800_0000, 0x0000_0008_1000_0000);
        assert_eq!(table.probe(p, o), None);
        table.store(Entry::new(p, o, -4, 10, 19));
        assert_eq!(table.probe(p, o), Some(Entry::new(p, o, -4, 10, 19)));
        // The same discs with the other side to move are another position.
        assert_eq!(table.probe(o, p), None);
        // A position in the same slot replaces it.
        let other = (1u64..)
            .map(|k| (p, o ^ (k << 40)))
            .find(|&(p2, o2)| Table::slot(p2, o2) == Table::slot(p, o))
            .expect("some position shares the slot");
        table.store(Entry::new(other.0, other.1, 0, 0, NO_MOVE));
        assert_eq!(table.probe(p, o), None);
        assert_eq!(table.probe(other.0, other.1).map(|e| (e.lower, e.upper)), Some((0, 0)));
    }
}
