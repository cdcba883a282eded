//! The bitboard operations: columns and cells as bits, four-in-a-row detection and the cells
//! that complete a four, mirror images. Column `c` uses bits `c * (height + 1) ..`, with one
//! spare bit on top so that shifts never carry a line from one column into the next.

use super::Connect4;

/// The cells of `stones` that start four of them in a row, the others `step`, `2 * step` and
/// `3 * step` bits higher.
#[inline(always)]
pub(super) fn fours_starting(stones: u64, step: u32) -> u64 {
    let pairs = stones & (stones >> step);
    pairs & (pairs >> (2 * step))
}

/// The cells (occupied or not, spare row included) that complete four in a row with `stones`
/// on a board `height` high.
#[inline(always)]
pub(super) fn lines_completed_by(stones: u64, height: u32) -> u64 {
    let h = u64::from(height);
    // Vertical.
    let mut r = (stones << 1) & (stones << 2) & (stones << 3);
    // Horizontal and the two diagonals: shifts of h + 1, h and h + 2 bits.
    for shift in [h + 1, h, h + 2] {
        let mut p = (stones << shift) & (stones << (2 * shift));
        r |= p & (stones << (3 * shift));
        r |= p & (stones >> shift);
        p = (stones >> shift) & (stones >> (2 * shift));
        r |= p & (stones << shift);
        r |= p & (stones >> (3 * shift));
    }
    r
}

impl Connect4 {
    pub(super) fn column_mask(&self, c: u32) -> u64 {
        self.columns[c as usize]
    }

    pub(super) fn top_cell(&self, c: u32) -> u64 {
        1u64 << (self.height - 1 + c * (self.height + 1))
    }

    /// [`Connect4::playable`] among the stones `mask`.
    pub(super) fn playable_cells(&self, mask: u64) -> u64 {
        mask.wrapping_add(self.bottom) & self.board
    }

    /// The empty cells that would complete four in a row for the stones `stones`.
    pub(super) fn winning_cells(&self, stones: u64, mask: u64) -> u64 {
        self.completions(stones) & (self.board ^ mask)
    }

    /// The cells, empty or not, that would complete four in a row for the stones `stones`.
    ///
    /// The hot spot of the search (every node, and every move ordered): the usual heights get
    /// their own copy with constant shifts, half the instructions of shifts by a variable.
    #[inline]
    pub(super) fn completions(&self, stones: u64) -> u64 {
        match self.height {
            6 => lines_completed_by(stones, 6),
            5 => lines_completed_by(stones, 5),
            7 => lines_completed_by(stones, 7),
            4 => lines_completed_by(stones, 4),
            h => lines_completed_by(stones, h),
        }
    }

    /// Whether `stones` contain four in a row.
    pub(super) fn has_four(&self, stones: u64) -> bool {
        self.line_steps().into_iter().any(|s| fours_starting(stones, s) != 0)
    }

    /// The bit steps of the four directions of a line: up, horizontal and the two diagonals.
    #[inline(always)]
    pub(super) fn line_steps(&self) -> [u32; 4] {
        let h = self.height;
        [1, h + 1, h, h + 2]
    }

    /// The lowest empty cell of column `c` in `mask`.
    pub(super) fn drop_cell(&self, mask: u64, c: u32) -> u64 {
        mask.wrapping_add(self.bottom) & self.column_mask(c)
    }

    pub(super) fn mirror(&self, key: u64) -> u64 {
        let stride = self.height + 1;
        let column = (1u64 << stride) - 1;
        (0..self.width)
            .fold(0, |m, c| m | ((key >> (c * stride)) & column) << ((self.width - 1 - c) * stride))
    }
}
