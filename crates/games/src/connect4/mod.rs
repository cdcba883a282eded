//! Connect 4 on any board with `width * (height + 1) <= 64`, 7 x 6 by default.
//!
//! Bitboards as in Pascal Pons' solver: column `c` uses bits `c * (height + 1) ..`, one spare bit on
//! top; a position is the stones of the player to move plus the mask of all stones. Scores are the
//! standard ones (docs/scores.md): a win scores `(width * height + 1 - m) / 2` where `m` counts the
//! stones before the winning one, a loss the opposite of the opponent's win, a draw 0. They are the
//! stakes of final positions too, so retrograde analysis of a small board and the search engine
//! give the same numbers.
//!
//! Notation: the columns played, 1-based (`4453`); moves are a column number.

mod bitboard;
mod bounds;
mod notation;
mod order;
mod solver;

use bitboard::{fours_starting, lines_completed_by};
use gamegraph::game::{
    Evaluate, ExactHints, Game, MoveOrdering, Notation, NotationError, Payoff, PositionKey, Selectivity,
    Stake,
};
use gamegraph::SearchContext;
use order::{each_cell, insert_sorted};
use solver::SMALL_EMPTIES;

/// The rules on one board size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connect4 {
    width: u32,
    height: u32,
    /// Whether [`PositionKey::key`] identifies a position with its mirror image.
    symmetric_keys: bool,
    bottom: u64,
    board: u64,
    /// The cells of each column (at most 32 columns fit in 64 bits), looked up rather than
    /// shifted into place at every node.
    columns: [u64; MAX_WIDTH],
    /// Each column's rank from the centre outwards (0 for the centre), the tie-break of the
    /// move order.
    centre_rank: [u8; MAX_WIDTH],
    /// The column of each cell (bit index).
    column_of_cell: [u8; 64],
    /// The cells an odd number of cells below the top of their column: in a column with an even
    /// number of empty cells, those that the player who plays there first gets when the other
    /// answers every stone with one on top of it ([`Connect4::follow_up_bounds`]).
    first_of_pairs: u64,
}

/// The widest board: one playable row and its spare bit per column.
const MAX_WIDTH: usize = 32;

/// A position: the stones of the player to move, all stones, and how many there are; plus the
/// same two bitboards mirrored left to right, kept up to date move by move so that the
/// symmetric table key costs two additions instead of a loop over the columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    current: u64,
    mask: u64,
    moves: u32,
    mirrored_current: u64,
    mirrored_mask: u64,
}

impl Board {
    /// Number of stones on the board.
    pub fn stones(&self) -> u32 {
        self.moves
    }
}

/// Why a board size is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSize(pub String);

impl std::fmt::Display for BadSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadSize {}

/// The board of the registry's default options (7 x 6), which are the one place it is written.
impl Default for Connect4 {
    fn default() -> Self {
        <Self as crate::BuiltinGame>::from_options(&crate::GameOptions::default())
            .expect("the default board fits")
    }
}

impl Connect4 {
    /// The game on a `width` x `height` board: at least 1 x 1, at most 64 bits with a spare row.
    pub fn new(width: u32, height: u32) -> Result<Self, BadSize> {
        if width == 0 || height == 0 || width * (height + 1) > 64 {
            return Err(BadSize(format!(
                "a {width} x {height} board does not fit: width and height at least 1, width * (height + 1) at most 64"
            )));
        }
        let bottom = (0..width).fold(0u64, |b, c| b | 1 << (c * (height + 1)));
        let column = (1u64 << height) - 1;
        let board = bottom.wrapping_mul(column);
        let mut columns = [0; MAX_WIDTH];
        for (c, cells) in columns.iter_mut().enumerate().take(width as usize) {
            *cells = column << (c as u32 * (height + 1));
        }
        let mut centre_rank = [0; MAX_WIDTH];
        for (c, rank) in centre_rank.iter_mut().enumerate().take(width as usize) {
            let distance = (2 * c as i32 + 1 - width as i32).unsigned_abs();
            *rank = (distance + u32::from(2 * c as u32 + 1 > width)) as u8;
        }
        let column_of_cell = std::array::from_fn(|bit| (bit as u32 / (height + 1)) as u8);
        let first_of_pairs = (1..height).step_by(2).fold(0u64, |rows, d| rows | bottom << (height - 1 - d));
        Ok(Self {
            width,
            height,
            symmetric_keys: true,
            bottom,
            board,
            columns,
            centre_rank,
            column_of_cell,
            first_of_pairs,
        })
    }

    /// Turns the mirror-image sharing of table keys on or off (on by default).
    pub fn with_symmetric_keys(mut self, on: bool) -> Self {
        self.symmetric_keys = on;
        self
    }

    /// Board width.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Board height.
    pub fn height(&self) -> u32 {
        self.height
    }

    fn cells(&self) -> u32 {
        self.width * self.height
    }

    /// Whether column `c` (0-based) has room.
    pub fn can_play(&self, b: &Board, c: u32) -> bool {
        b.mask & self.top_cell(c) == 0
    }

    /// The cells where a stone could be played now.
    fn playable(&self, b: &Board) -> u64 {
        self.playable_cells(b.mask)
    }

    /// Whether the player who just moved has four in a row.
    pub fn last_mover_won(&self, b: &Board) -> bool {
        self.has_four(b.current ^ b.mask)
    }

    fn is_final(&self, b: &Board) -> bool {
        b.moves == self.cells() || self.last_mover_won(b)
    }

    /// The moves (cells) that do not let the opponent win at once; empty if every move does.
    fn non_losing(&self, b: &Board) -> u64 {
        self.non_losing_cells(b.current, b.mask)
    }

    /// [`Connect4::non_losing`] for the stones `current` of the player to move among `mask`.
    fn non_losing_cells(&self, current: u64, mask: u64) -> u64 {
        self.non_losing_against(mask, self.winning_cells(current ^ mask, mask))
    }

    /// [`Connect4::non_losing_cells`] where the opponent's winning cells are `threats`.
    #[inline]
    fn non_losing_against(&self, mask: u64, threats: u64) -> u64 {
        let mut possible = self.playable_cells(mask);
        let forced = possible & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0; // two threats at once: lost
            }
            possible = forced;
        }
        possible & !(threats >> 1)
    }

    /// The board with these stones, its mirror image computed column by column.
    fn board(&self, current: u64, mask: u64, moves: u32) -> Board {
        Board {
            current,
            mask,
            moves,
            mirrored_current: self.mirror(current),
            mirrored_mask: self.mirror(mask),
        }
    }

    /// Columns ordered from the centre outwards, the usual good first guess.
    fn centre_first(&self) -> impl Iterator<Item = u32> + '_ {
        let w = self.width as i32;
        (0..w).map(move |i| (w / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2) as u32).filter(move |&c| c < self.width)
    }

    /// Whether the player to move wins with his next stone.
    fn can_win_now(&self, b: &Board) -> bool {
        self.winning_cells(b.current, b.mask) & self.playable(b) != 0
    }

    /// The score of a win by the player to move with his next stone.
    fn win_now_score(&self, b: &Board) -> i32 {
        ((self.cells() + 1 - b.moves) / 2) as i32
    }

    /// The moves from the start that lead to `b` (a position has many; this finds one).
    fn sequence(&self, b: &Board) -> Option<Vec<u32>> {
        fn back(
            game: &Connect4,
            b: &Board,
            out: &mut Vec<u32>,
            dead: &mut std::collections::HashSet<(u64, u64)>,
        ) -> bool {
            if b.moves == 0 {
                return true;
            }
            if dead.contains(&(b.current, b.mask)) {
                return false;
            }
            let last = b.current ^ b.mask; // stones of the player who moved last
            for c in game.centre_first() {
                let col = b.mask & game.column_mask(c);
                if col == 0 {
                    continue;
                }
                let top = 1u64 << (63 - col.leading_zeros());
                if last & top == 0 {
                    continue;
                }
                let before = game.board(last ^ top, b.mask ^ top, b.moves - 1);
                if game.is_final(&before) {
                    continue;
                }
                out.push(c);
                if back(game, &before, out, dead) {
                    return true;
                }
                out.pop();
            }
            dead.insert((b.current, b.mask));
            false
        }
        let mut out = Vec::new();
        back(self, b, &mut out, &mut std::collections::HashSet::new()).then(|| {
            out.reverse();
            out
        })
    }

    /// Whether the first player (X) is to move.
    pub fn first_player_to_move(&self, b: &Board) -> bool {
        b.moves.is_multiple_of(2)
    }
}

/// The engine is generic, so it is compiled in the crates that use it, and calls the methods of
/// this impl and of the search trait impls (`Payoff`, `MoveOrdering`, `ExactHints`,
/// `PositionKey`) at every node:
/// `#[inline]` lets them be inlined there across the crate boundary.
/// Measured on 2026-12-04 (one thread): Test_L1_R2 (first 100) 112 ms against 123 ms, six pairs
/// of runs interleaved; Test_L2_R2 (first 500) 3.69 ms against 3.83 ms; callgrind (x86-64-v3,
/// first 30 of Test_L2_R2) 1.288 G instructions against 1.324 G.
impl Game for Connect4 {
    type Position = Board;
    type Move = u8;

    fn start(&self) -> Board {
        self.board(0, 0, 0)
    }

    #[inline]
    fn moves(&self, b: &Board, moves: &mut Vec<u8>) {
        if self.is_final(b) {
            return;
        }
        moves.extend((0..self.width).filter(|&c| self.can_play(b, c)).map(|c| c as u8));
    }

    #[inline]
    fn play(&self, b: &Board, mv: u8) -> Board {
        let c = u32::from(mv);
        Board {
            current: b.current ^ b.mask,
            mask: b.mask | self.drop_cell(b.mask, c),
            moves: b.moves + 1,
            mirrored_current: b.mirrored_current ^ b.mirrored_mask,
            mirrored_mask: b.mirrored_mask | self.drop_cell(b.mirrored_mask, self.width - 1 - c),
        }
    }

    #[inline]
    fn final_loss(&self, b: &Board) -> Stake {
        if self.last_mover_won(b) {
            // The winner had moves - 1 stones on the board before his winning one.
            ((self.cells() + 2 - b.moves) / 2) as Stake
        } else {
            0
        }
    }
}

impl ExactHints for Connect4 {
    #[inline]
    fn solves_directly(&self, b: &Board) -> bool {
        self.cells() - b.moves <= SMALL_EMPTIES
    }

    /// Any position that is not over: a win with the next stone is found at once, the rest by
    /// the game's own solver (`solver.rs`).
    #[inline]
    fn solve_directly(
        &self,
        b: &Board,
        alpha: i32,
        beta: i32,
        context: &mut SearchContext<'_>,
    ) -> Option<i32> {
        if self.can_win_now(b) {
            return Some(self.win_now_score(b));
        }
        Some(context.counting(|owner, nodes| self.solve_small(b, alpha, beta, owner, nodes)))
    }

    #[inline]
    fn immediate_score(&self, b: &Board) -> Option<i32> {
        if self.is_final(b) {
            return None;
        }
        if self.can_win_now(b) {
            return Some(self.win_now_score(b));
        }
        if self.non_losing(b) == 0 {
            // Whatever we play, the opponent wins with his next stone.
            return Some(-(((self.cells() - b.moves) / 2) as i32));
        }
        None
    }

    /// As in Pons' solver: the opponent cannot win at once here (the root was checked, and every
    /// other node follows a non-losing move), so only the non-losing moves are searched.
    #[inline]
    fn search_moves(&self, b: &Board, moves: &mut Vec<u8>) -> Option<i32> {
        let allowed = self.non_losing(b);
        if allowed == 0 {
            return Some(-(((self.cells() - b.moves) / 2) as i32));
        }
        if b.moves + 2 >= self.cells() {
            return Some(0); // two stones left, no immediate win for either side: a draw
        }
        // One move per allowed cell, in column order.
        moves.reserve(self.width as usize);
        moves.extend(each_cell(allowed).map(|cell| self.column_of_cell[cell.trailing_zeros() as usize]));
        None
    }

    /// No immediate win for us, and our move leaves none to the opponent; narrowed by Allis'
    /// follow-up where the columns' empty cells pair up (see `follow_up_bounds`).
    #[inline]
    fn score_bounds(&self, b: &Board, alpha: i32, beta: i32) -> (i32, i32) {
        let low = -((self.cells().saturating_sub(2 + b.moves) / 2) as i32);
        let high = ((self.cells() - 1 - b.moves) / 2) as i32;
        self.follow_up_bounds(b.current, b.mask, (low, high), (alpha, beta))
    }
}

impl PositionKey for Connect4 {
    /// `current + mask` identifies a position exactly; with symmetric keys, the smaller of it and
    /// its mirror image's.
    #[inline]
    fn key(&self, b: &Board) -> u64 {
        let key = b.current + b.mask;
        if self.symmetric_keys {
            key.min(b.mirrored_current + b.mirrored_mask)
        } else {
            key
        }
    }
}

#[cfg(test)]
mod tests;
