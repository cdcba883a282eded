//! The small solver's own transposition table, one per thread (see [`crate::solver_table`]): what
//! it learnt of the positions with [`super::HASHED_FROM`] to [`super::SMALL`] empties.

use crate::solver_table::{SolverKey, SolverTable};
use gamegraph::SolverOwner;
use std::cell::RefCell;

/// A position: the discs of the player to move and of his opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Discs {
    pub player: u64,
    pub opponent: u64,
}

impl SolverKey for Discs {
    /// No position of the game has no disc at all.
    const EMPTY: Self = Discs { player: 0, opponent: 0 };

    #[inline]
    fn hash(self) -> u64 {
        let (p, o) = (self.player, self.opponent);
        (p ^ o.rotate_left(23)).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ o.wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
    }
}

/// 2^14 entries of 24 bytes: 384 KiB, within a core's second level cache. Measured on FFO
/// #50-#53 (two threads, with `SMALL` at 12 and from 9 empties): 2^12 entries 33.8 s, 2^14
/// 34.9-35.6 s, 2^16 36.8 s; on FFO #40-#44 (one thread) 2^20 and 2^22 entries, 24 and 96 MiB,
/// saved 2.5% of the nodes and no time.
pub(super) type Table = SolverTable<Discs, 14>;

/// The `best` of an entry that has no best move.
pub(super) const NO_MOVE: u8 = 64;

thread_local! {
    /// This thread's table, allocated the first time the thread solves a position.
    static TABLE: RefCell<Table> = RefCell::new(Table::unallocated());
}

/// Runs `f` with this thread's table, for `owner`.
pub(super) fn with_table<R>(owner: SolverOwner, f: impl FnOnce(&mut Table) -> R) -> R {
    Table::with_local(&TABLE, owner, 0, f)
}
