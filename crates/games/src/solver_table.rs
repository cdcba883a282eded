//! The transposition table of a game's own exact solver for small subproblems (Othello's last
//! empties, Connect 4's last empty cells): bounds on the exact scores of the positions it solved
//! and the move that was best, kept from one call of the solver to the next, one table per thread.
//!
//! It is apart from the engine's table because these positions are the most numerous the engine
//! would otherwise store: in a table of their own, small enough to stay in the core's cache and
//! shared with no other thread, a probe costs a fraction of an engine node. Each entry holds the
//! whole position, so a hit is never a collision; its bounds are proven facts about the position,
//! true whatever window found them, so the table is never cleared, except when a thread moves
//! on to another variant of the game (a [`SolverTable::with_local`] tag), whose positions could
//! share keys with different scores.

use std::cell::RefCell;
use std::thread::LocalKey;

/// A position's identity in a [`SolverTable`]: the whole position, and a well-mixed hash of it.
pub(crate) trait SolverKey: Copy + Eq {
    /// A key that the table's empty slots hold; if a position has it, it finds bounds that say
    /// nothing.
    const EMPTY: Self;

    /// A hash whose high bits choose the slot.
    fn hash(self) -> u64;
}

/// What the table knows of one position: its exact score lies in `lower..=upper`, and `best` was
/// the best move found, as the game numbers its moves (the game's own "no move" if none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry<K> {
    pub key: K,
    pub lower: i8,
    pub upper: i8,
    pub best: u8,
}

impl<K> Entry<K> {
    /// The entry of the position `key` after a fail-soft search within `(alpha, beta)` returned
    /// `value`, its exact score having been known to lie in `known` before: beyond the window,
    /// the value bounds the score on that side; inside, it is the score. Scores fit in an `i8`.
    pub fn after_search(key: K, value: i32, (alpha, beta): (i32, i32), known: (i32, i32), best: u8) -> Self {
        let (lower, upper) = if value >= beta {
            (value, known.1)
        } else if value <= alpha {
            (known.0, value)
        } else {
            (value, value)
        };
        Entry { key, lower: lower as i8, upper: upper as i8, best }
    }

    /// The bounds as scores.
    pub fn bounds(&self) -> (i32, i32) {
        (i32::from(self.lower), i32::from(self.upper))
    }
}

/// A table of `2^BITS` entries, each position in one slot chosen by its hash; a new entry
/// replaces the old one there.
pub(crate) struct SolverTable<K, const BITS: u32> {
    entries: Box<[Entry<K>]>,
    /// The variant of the game whose positions the entries are.
    tag: u64,
}

impl<K: SolverKey, const BITS: u32> SolverTable<K, BITS> {
    /// An empty table.
    pub fn new() -> Self {
        let empty = Entry { key: K::EMPTY, lower: i8::MIN, upper: i8::MAX, best: u8::MAX };
        SolverTable { entries: vec![empty; 1 << BITS].into_boxed_slice(), tag: 0 }
    }

    /// The slot of `key`.
    #[inline]
    fn slot(key: K) -> usize {
        (key.hash() >> (64 - BITS)) as usize
    }

    /// What the table holds on the position `key`, if anything.
    #[inline]
    pub fn probe(&self, key: K) -> Option<Entry<K>> {
        let e = self.entries[Self::slot(key)];
        (e.key == key).then_some(e)
    }

    /// Keeps `entry` in its position's slot.
    #[inline]
    pub fn store(&mut self, entry: Entry<K>) {
        self.entries[Self::slot(entry.key)] = entry;
    }

    /// Runs `f` with this thread's table `local`, emptied first if it held the positions of
    /// another variant than `tag`.
    pub fn with_local<R>(
        local: &'static LocalKey<RefCell<Self>>,
        tag: u64,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        local.with(|table| match table.try_borrow_mut() {
            Ok(mut table) => {
                if table.tag != tag {
                    *table = Self::new();
                    table.tag = tag;
                }
                f(&mut table)
            }
            // Never reached: the solvers do not call themselves through here. Were it, a fresh
            // table would still give the right scores.
            Err(_) => f(&mut Self::new()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl SolverKey for (u64, u64) {
        const EMPTY: Self = (0, 0);
        fn hash(self) -> u64 {
            (self.0 ^ self.1.rotate_left(23)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        }
    }

    type Table = SolverTable<(u64, u64), 6>;

    #[test]
    fn an_entry_is_found_only_for_its_own_position() {
        let mut table = Table::new();
        let key = (0x0000_0010_0800_0000, 0x0000_0008_1000_0000);
        assert_eq!(table.probe(key), None);
        let entry = Entry { key, lower: -4, upper: 10, best: 19 };
        table.store(entry);
        assert_eq!(table.probe(key), Some(entry));
        assert_eq!(table.probe((key.1, key.0)), None);
        // A position in the same slot replaces it.
        let other = (1u64..)
            .map(|k| (key.0, key.1 ^ (k << 40)))
            .find(|&k| Table::slot(k) == Table::slot(key))
            .expect("some position shares the slot");
        table.store(Entry { key: other, lower: 0, upper: 0, best: 3 });
        assert_eq!(table.probe(key), None);
        assert_eq!(table.probe(other).map(|e| e.bounds()), Some((0, 0)));
        // The empty slots' bounds say nothing.
        let empty = Table::new().probe((0, 0)).expect("the empty key is in every slot");
        assert_eq!(empty.bounds(), (-128, 127));
    }

    #[test]
    fn an_entry_after_a_search_bounds_the_score_on_the_side_of_the_window() {
        let known = (-10, 10);
        let bounds = |value| Entry::after_search((1, 2), value, (-2, 3), known, 0).bounds();
        assert_eq!(bounds(5), (5, 10));
        assert_eq!(bounds(3), (3, 10));
        assert_eq!(bounds(-2), (-10, -2));
        assert_eq!(bounds(-7), (-10, -7));
        assert_eq!(bounds(1), (1, 1));
    }

    thread_local! {
        static LOCAL: RefCell<Table> = RefCell::new(Table::new());
    }

    #[test]
    fn another_variant_finds_the_table_empty() {
        let key = (5, 6);
        let entry = Entry { key, lower: 1, upper: 1, best: 0 };
        Table::with_local(&LOCAL, 1, |t| t.store(entry));
        assert_eq!(Table::with_local(&LOCAL, 1, |t| t.probe(key)), Some(entry));
        assert_eq!(Table::with_local(&LOCAL, 2, |t| t.probe(key)), None);
        // Nested use finds a fresh table rather than failing.
        Table::with_local(&LOCAL, 2, |t| {
            t.store(entry);
            assert_eq!(Table::with_local(&LOCAL, 2, |inner| inner.probe(key)), None);
        });
    }
}
