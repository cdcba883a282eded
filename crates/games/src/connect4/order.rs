//! The move order: the moves that create the most threats first, ties from the centre outwards;
//! and the small helpers the ordering loops share.

use super::*;

impl Connect4 {
    /// Sorts `moves` so that those creating the most threats come first, ties from the centre
    /// outwards.
    #[inline]
    pub(super) fn order_by_threats(&self, b: &Board, moves: &mut [u8]) {
        let playable = self.playable(b);
        // Fewer is better: many threats, then near the centre; the column in the low byte.
        let key = |c: u8| self.order_key(b.current, b.mask, playable & self.column_mask(u32::from(c)), c);
        // Insertion sort on precomputed keys: a handful of moves, no allocation.
        let mut keyed = [0u32; MAX_WIDTH];
        let n = moves.len().min(MAX_WIDTH);
        for (i, &c) in moves[..n].iter().enumerate() {
            insert_sorted(&mut keyed, i, key(c));
        }
        for (slot, &k) in moves.iter_mut().zip(&keyed[..n]) {
            *slot = k as u8;
        }
    }

    /// The sort key of playing `cell` (in column `c`): fewer is better, that is many threats,
    /// then near the centre; the column in the low byte.
    #[inline]
    pub(super) fn order_key(&self, current: u64, mask: u64, cell: u64, c: u8) -> u32 {
        self.order_key_of(self.completions(current | cell), mask, c)
    }

    /// [`Connect4::order_key`] of a move to column `c` after which our stones would complete a
    /// four at the cells `completions`.
    #[inline]
    pub(super) fn order_key_of(&self, completions: u64, mask: u64, c: u8) -> u32 {
        let threats = (completions & (self.board ^ mask)).count_ones();
        (64 - threats) << 16 | u32::from(self.centre_rank[c as usize]) << 8 | u32::from(c)
    }
}

/// The cells of the set `cells`, one at a time (each as a set of one), lowest bit first.
#[inline(always)]
pub(super) fn each_cell(mut cells: u64) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        (cells != 0).then(|| {
            let cell = cells & cells.wrapping_neg();
            cells ^= cell;
            cell
        })
    })
}

/// Inserts `key` into the sorted `keyed[..n]`, which has room for one more.
#[inline]
pub(super) fn insert_sorted(keyed: &mut [u32], n: usize, key: u32) {
    let mut j = n;
    while j > 0 && keyed[j - 1] > key {
        keyed[j] = keyed[j - 1];
        j -= 1;
    }
    keyed[j] = key;
}

impl Payoff for Connect4 {
    /// Scores are in the game's own units, as the stakes of final positions are.
    #[inline]
    fn payoff_score(&self, loss: Stake) -> i32 {
        -loss
    }
}

impl Evaluate for Connect4 {
    /// No heuristic: a depth-limited search sees the results it can prove and 0 beyond.
    #[inline]
    fn evaluate(&self, _b: &Board) -> i32 {
        0
    }
}

impl MoveOrdering for Connect4 {
    /// Moves that create the most threats first; ties from the centre outwards.
    #[inline]
    fn order_moves(&self, b: &Board, moves: &mut [u8], _depth: u32, _context: &mut SearchContext<'_>) {
        self.order_by_threats(b, moves);
    }

    #[inline]
    fn move_id(&self, mv: u8) -> Option<u16> {
        Some(u16::from(mv))
    }
}

impl Selectivity for Connect4 {}
