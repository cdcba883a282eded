//! The transposition table of a game's own exact solver for small subproblems (Othello's last
//! empties, Connect 4's last empty cells): bounds on the exact scores of the positions it solved
//! and the move that was best, kept from one call of the solver to the next, one table per thread.
//!
//! It is apart from the engine's table because these positions are the most numerous the engine
//! would otherwise store: in a table of their own, small enough to stay in the core's cache and
//! shared with no other thread, a probe costs a fraction of an engine node. Each entry holds the
//! whole position, so a hit is never a collision; its bounds are proven facts about the position,
//! true whatever window found them. So the table needs emptying only when a thread moves on to
//! another variant of the game (a [`SolverTable::with_local`] tag), whose positions could share
//! keys with different scores, or to another search (another [`SolverOwner`]); and it forgets
//! when its own engine is told to (the owner's generation), so that measurements start from
//! nothing. A search never finds, or clears, another search's entries.

use std::cell::RefCell;
use std::thread::LocalKey;

use gamegraph::SolverOwner;

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
    /// The table's generation when the entry was stored; entries of others are forgotten.
    generation: u8,
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
        Entry::new(key, lower, upper, best)
    }

    /// The entry saying that the score of `key` lies in `lower..=upper` and `best` is its best
    /// move. Scores fit in an `i8`.
    pub fn new(key: K, lower: i32, upper: i32, best: u8) -> Self {
        Entry { key, lower: lower as i8, upper: upper as i8, best, generation: 0 }
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
    /// The search the entries serve and the variant of the game whose positions they are; none
    /// before the table is allocated.
    tag: Option<(u64, u64)>,
    /// The generation of the entries that count.
    generation: u8,
}

impl<K: SolverKey, const BITS: u32> SolverTable<K, BITS> {
    /// An empty table.
    pub fn new() -> Self {
        let empty = Entry::new(K::EMPTY, i8::MIN.into(), i8::MAX.into(), u8::MAX);
        SolverTable { entries: vec![empty; 1 << BITS].into_boxed_slice(), tag: None, generation: 0 }
    }

    /// A table without room yet, for a thread that may never solve: [`SolverTable::with_local`]
    /// makes room the first time.
    pub fn unallocated() -> Self {
        SolverTable { entries: Box::default(), tag: None, generation: 0 }
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
        (e.key == key && e.generation == self.generation).then_some(e)
    }

    /// Keeps `entry` in its position's slot.
    #[inline]
    pub fn store(&mut self, entry: Entry<K>) {
        self.entries[Self::slot(entry.key)] = Entry { generation: self.generation, ..entry };
    }

    /// Runs `f` with this thread's table `local` for `owner`, emptied first if it held the
    /// positions of another search or of another variant than `tag`, and forgetting what it
    /// held for an older generation of the same search.
    pub fn with_local<R>(
        local: &'static LocalKey<RefCell<Self>>,
        owner: SolverOwner,
        tag: u64,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        local.with(|table| match table.try_borrow_mut() {
            Ok(mut table) => {
                let tag = (owner.id(), tag);
                if table.tag != Some(tag) {
                    *table = Self::new();
                    table.tag = Some(tag);
                }
                // It wraps after 256: entries forgotten 256 times ago come back, which is
                // harmless, as they are true.
                table.generation = owner.generation() as u8;
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
        let entry = Entry::new(key, -4, 10, 19);
        table.store(entry);
        assert_eq!(table.probe(key), Some(entry));
        assert_eq!(table.probe((key.1, key.0)), None);
        // A position in the same slot replaces it.
        let other = (1u64..)
            .map(|k| (key.0, key.1 ^ (k << 40)))
            .find(|&k| Table::slot(k) == Table::slot(key))
            .expect("some position shares the slot");
        table.store(Entry::new(other, 0, 0, 3));
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
        static LOCAL: RefCell<Table> = RefCell::new(Table::unallocated());
    }

    #[test]
    fn another_variant_or_another_search_finds_the_table_empty() {
        let owner = SolverOwner::new();
        let local =
            |tag, f: &dyn Fn(&mut Table) -> Option<Entry<_>>| Table::with_local(&LOCAL, owner, tag, f);
        let key = (5, 6);
        let entry = Entry::new(key, 1, 1, 0);
        local(1, &|t| {
            t.store(entry);
            None
        });
        assert_eq!(local(1, &|t| t.probe(key)), Some(entry));
        assert_eq!(local(2, &|t| t.probe(key)), None);
        local(1, &|t| {
            t.store(entry);
            None
        });
        assert_eq!(
            Table::with_local(&LOCAL, SolverOwner::new(), 1, |t| t.probe(key)),
            None,
            "another search"
        );
        // Nested use finds a fresh table rather than failing.
        let nested = local(2, &|t| {
            t.store(entry);
            local(2, &|inner| inner.probe(key))
        });
        assert_eq!(nested, None);
    }

    #[test]
    fn a_table_forgets_when_told_and_remembers_otherwise() {
        thread_local! {
            static OWN: RefCell<Table> = RefCell::new(Table::unallocated());
        }
        let mut owner = SolverOwner::new();
        let mut local = |forget: bool, f: &dyn Fn(&mut Table) -> Option<Entry<_>>| {
            if forget {
                owner = owner.at_generation(owner.generation() + 1);
            }
            Table::with_local(&OWN, owner, 7, f)
        };
        let (key, other) = ((5, 6), (8, 9));
        local(false, &|t| {
            t.store(Entry::new(key, -3, 2, 1));
            None
        });
        assert_eq!(local(false, &|t| t.probe(key)).map(|e| e.bounds()), Some((-3, 2)));
        assert_eq!(local(true, &|t| t.probe(key)), None);
        local(false, &|t| {
            t.store(Entry::new(other, 0, 0, 2));
            None
        });
        assert_eq!(local(false, &|t| t.probe(other)).map(|e| e.bounds()), Some((0, 0)));
        // 256 more bring `other`'s generation round again: its entry, still true, counts again.
        for _ in 0..255 {
            local(true, &|_| None);
        }
        assert_eq!(local(true, &|t| t.probe(other)).map(|e| e.bounds()), Some((0, 0)));
        assert_eq!(local(false, &|t| t.probe(key)), None);
    }
}
