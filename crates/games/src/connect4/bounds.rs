//! Bounds on a position's score without search: Allis' follow-up (claimeven) with paired odd
//! columns, and the aftereven, which settle or narrow a null window before the engine searches.

use super::*;

impl Connect4 {
    /// The bounds `(low, high)` on the score of the player to move (stones `current` among
    /// `mask`), narrowed from the plain ones by Allis' follow-up: the player who answers each
    /// stone with one right on top of it takes every other empty cell of each column, the top
    /// ones included, whatever the other does. That needs an even number of empty cells in each
    /// column; columns with an odd number are paired, and a stone at the bottom of one is
    /// answered at the bottom of the other. The answering player then gets the upper cells of
    /// the even columns' pairs and one of each pair of bottoms, so the other cannot win if his
    /// stones and the remaining cells hold no four, and loses if besides the answering player's
    /// stones and upper cells hold one, or if one of those is complete before any of his
    /// ([`Connect4::completes_first`], Allis' aftereven).
    ///
    /// With an even number of odd columns the opponent answers: at most 0 or -1. With an odd
    /// number the player to move starts in one of them and answers from then on: at least 0
    /// or 1. A bound that cannot settle the null window `window` is not computed.
    ///
    /// Measured on 2026-12-03, when only no odd column or one were handled and without the
    /// aftereven: 949,581 nodes a position against 977,646 on the first 100 of Test_L1_R2. The
    /// pairs of odd columns and the aftereven took it to 854,914 on 2026-12-05 (figures in
    /// docs/connect4-speed.md). Inside the small solver (then 8 empty cells and fewer) the bounds
    /// saved 0.5% of the nodes and cost time.
    #[inline]
    pub(super) fn follow_up_bounds(
        &self,
        current: u64,
        mask: u64,
        plain: (i32, i32),
        window: (i32, i32),
    ) -> (i32, i32) {
        let ((low, high), (alpha, beta)) = (plain, window);
        let null = beta <= alpha.saturating_add(1);
        // The lowest empty cells of the columns with an odd number of them.
        let odd = self.playable_cells(mask) & !self.first_of_pairs;
        if odd.count_ones().is_multiple_of(2) {
            if null && alpha < -1 {
                return plain;
            }
            let bound = self.high_when_opponent_answers(current, mask, odd, null && alpha >= 0);
            (low, bound.map_or(high, |h| high.min(h)))
        } else {
            if null && beta > 1 {
                return plain;
            }
            let bound = self.low_when_we_answer(current, mask, odd, null && beta <= 0);
            (bound.map_or(low, |l| low.max(l)), high)
        }
    }

    /// [`Connect4::follow_up_bounds`] when the opponent answers, pairing the columns whose lowest
    /// empty cells are `odd`: 0 or -1 if he holds the player to move to that (0 is enough if
    /// `zero_settles`).
    #[inline]
    pub(super) fn high_when_opponent_answers(
        &self,
        current: u64,
        mask: u64,
        odd: u64,
        zero_settles: bool,
    ) -> Option<i32> {
        let empty = self.board & !mask;
        let ours = current | (empty & (self.first_of_pairs | odd));
        let theirs = (current ^ mask) | (empty & !(self.first_of_pairs | odd));
        if !self.has_four(ours) {
            return Some(if zero_settles { 0 } else { -i32::from(self.has_four(theirs)) });
        }
        self.completes_first(theirs, ours, empty).then_some(-1)
    }

    /// [`Connect4::follow_up_bounds`] when the player to move starts at the bottom of one of the
    /// columns whose lowest empty cells are `odd` and answers from then on: 0 or 1 if that holds
    /// the opponent to it (0 is enough if `zero_settles`).
    #[inline]
    pub(super) fn low_when_we_answer(
        &self,
        current: u64,
        mask: u64,
        odd: u64,
        zero_settles: bool,
    ) -> Option<i32> {
        let mut low = None;
        for start in each_cell(odd) {
            let (rest, empty) = (odd ^ start, self.board & !(mask | start));
            let theirs = (current ^ mask) | (empty & (self.first_of_pairs | rest));
            let ours = current | start | (empty & !(self.first_of_pairs | rest));
            if !self.has_four(theirs) {
                if zero_settles {
                    return Some(0);
                }
                if self.has_four(ours) {
                    return Some(1);
                }
                low = Some(0);
            } else if self.completes_first(ours, theirs, empty) {
                return Some(1);
            }
        }
        low
    }

    /// Whether the answering player's stones and cells `answers` hold a four that is complete
    /// before any four of the other player's `others` can be (Allis' aftereven): every four of
    /// `others` needs, in each column of that four's `empty` cells, a cell above it, so it is
    /// filled after it. Measured (first 10 of Test_L1_R3, one thread): called at 28% of the
    /// nodes, true at 1% of the calls, and those cut 9% of the nodes.
    pub(super) fn completes_first(&self, answers: u64, others: u64, empty: u64) -> bool {
        self.line_steps().into_iter().any(|s| {
            each_cell(fours_starting(answers, s)).any(|start| {
                let four = start | start << s | start << (2 * s) | start << (3 * s);
                each_cell(four & empty).all(|cell| {
                    let column =
                        self.column_mask(u32::from(self.column_of_cell[cell.trailing_zeros() as usize]));
                    let above = column & !(cell | (cell - 1));
                    !self.has_four(others & !above)
                })
            })
        })
    }
}
