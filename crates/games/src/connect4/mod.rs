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

mod bounds;
mod notation;
mod order;
mod solver;

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

/// The cells of `stones` that start four of them in a row, the others `step`, `2 * step` and
/// `3 * step` bits higher.
#[inline(always)]
fn fours_starting(stones: u64, step: u32) -> u64 {
    let pairs = stones & (stones >> step);
    pairs & (pairs >> (2 * step))
}

/// The cells (occupied or not, spare row included) that complete four in a row with `stones`
/// on a board `height` high.
#[inline(always)]
fn lines_completed_by(stones: u64, height: u32) -> u64 {
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

    fn column_mask(&self, c: u32) -> u64 {
        self.columns[c as usize]
    }

    fn top_cell(&self, c: u32) -> u64 {
        1u64 << (self.height - 1 + c * (self.height + 1))
    }

    /// Whether column `c` (0-based) has room.
    pub fn can_play(&self, b: &Board, c: u32) -> bool {
        b.mask & self.top_cell(c) == 0
    }

    /// The cells where a stone could be played now.
    fn playable(&self, b: &Board) -> u64 {
        self.playable_cells(b.mask)
    }

    /// [`Connect4::playable`] among the stones `mask`.
    fn playable_cells(&self, mask: u64) -> u64 {
        mask.wrapping_add(self.bottom) & self.board
    }

    /// The empty cells that would complete four in a row for the stones `stones`.
    fn winning_cells(&self, stones: u64, mask: u64) -> u64 {
        self.completions(stones) & (self.board ^ mask)
    }

    /// The cells, empty or not, that would complete four in a row for the stones `stones`.
    ///
    /// The hot spot of the search (every node, and every move ordered): the usual heights get
    /// their own copy with constant shifts, half the instructions of shifts by a variable.
    #[inline]
    fn completions(&self, stones: u64) -> u64 {
        match self.height {
            6 => lines_completed_by(stones, 6),
            5 => lines_completed_by(stones, 5),
            7 => lines_completed_by(stones, 7),
            4 => lines_completed_by(stones, 4),
            h => lines_completed_by(stones, h),
        }
    }

    /// Whether `stones` contain four in a row.
    fn has_four(&self, stones: u64) -> bool {
        self.line_steps().into_iter().any(|s| fours_starting(stones, s) != 0)
    }

    /// The bit steps of the four directions of a line: up, horizontal and the two diagonals.
    #[inline(always)]
    fn line_steps(&self) -> [u32; 4] {
        let h = self.height;
        [1, h + 1, h, h + 2]
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

    /// The lowest empty cell of column `c` in `mask`.
    fn drop_cell(&self, mask: u64, c: u32) -> u64 {
        mask.wrapping_add(self.bottom) & self.column_mask(c)
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

    fn mirror(&self, key: u64) -> u64 {
        let stride = self.height + 1;
        let column = (1u64 << stride) - 1;
        (0..self.width)
            .fold(0, |m, c| m | ((key >> (c * stride)) & column) << ((self.width - 1 - c) * stride))
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
        let mut nodes = 0;
        let score = self.solve_small(b, alpha, beta, context.owner(), &mut nodes);
        context.count_nodes(nodes);
        Some(score)
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
mod tests {
    use super::*;
    use gamegraph::rng::SplitMix64;

    /// The value of `b` by plain minimax over the rules, the oracle of the small solver.
    fn minimax(game: &Connect4, b: &Board) -> i32 {
        memo_minimax(game, b, &mut std::collections::HashMap::new())
    }

    /// The positions of one game of random moves on `game`'s board, the final one excepted.
    fn random_line(game: &Connect4, rng: &mut SplitMix64) -> Vec<Board> {
        let mut line = Vec::new();
        let mut b = game.start();
        let mut moves = Vec::new();
        loop {
            moves.clear();
            game.moves(&b, &mut moves);
            if moves.is_empty() {
                return line;
            }
            line.push(b);
            b = game.play(&b, moves[rng.below(moves.len() as u64) as usize]);
        }
    }

    /// Positions that the small solver takes, with at most 18 empty cells (plain minimax of
    /// positions with 21 takes minutes), not over, from random play on boards of several sizes.
    fn small_positions(count: usize) -> Vec<(Connect4, Board)> {
        let mut rng = SplitMix64(7);
        let mut out = Vec::new();
        let sizes = [(7, 6), (5, 4), (4, 4), (6, 5), (4, 3)];
        while out.len() < count {
            let (width, height) = sizes[out.len() % sizes.len()];
            let game = Connect4::new(width, height).expect("a board that fits");
            let line = random_line(&game, &mut rng);
            let mut small = line.into_iter().filter(|b| game.cells() - b.moves <= SMALL_EMPTIES.min(18));
            if let Some(b) = small.find(|_| rng.below(3) == 0) {
                out.push((game, b));
            }
        }
        out
    }

    /// The small solver is exact and fail-soft on every window: a result at or below alpha
    /// bounds the value from above, at or above beta from below, and else is the value. The
    /// positions include threats to block, double threats and full boards but for a cell.
    #[test]
    fn small_solver_is_fail_soft_on_every_window() {
        let (mut forced, mut lost, mut played) = (0, 0, 0);
        let context = &mut SearchContext::default();
        for (game, b) in small_positions(300) {
            let value = minimax(&game, &b);
            let threats = game.winning_cells(b.current ^ b.mask, b.mask) & game.playable(&b);
            forced += usize::from(threats != 0);
            lost += usize::from(threats.count_ones() >= 2);
            assert!(game.solves_directly(&b));
            let windows = (-12..12).map(|a| (a, a + 1)).chain([(-30, 30), (-3, 2), (0, 5)]);
            for (alpha, beta) in windows {
                let r = game.solve_directly(&b, alpha, beta, context).expect("solved");
                let nodes = context.take_nodes();
                crate::testing::check_fail_soft(r, value, alpha, beta, &game.format_position(&b));
                // The nodes are the positions played into: none when two threats cannot be
                // blocked, as the engine counted the position handed over.
                assert!(threats.count_ones() < 2 || nodes == 0, "{nodes} nodes in a lost position");
                played += nodes;
            }
        }
        assert!(forced > 20 && lost > 5, "too few threats among the positions: {forced}, {lost}");
        assert!(played > 0);
    }

    /// The small solver's table keeps one board size at a time: the same stones on a board one
    /// column wider are another position, with another score, under the same key.
    #[test]
    fn the_small_solvers_table_keeps_board_sizes_apart() {
        let narrow = Connect4::new(4, 4).expect("a board that fits");
        let wide = Connect4::new(5, 4).expect("a board that fits");
        let mut rng = SplitMix64(5);
        let (mut memo_narrow, mut memo_wide) = (Default::default(), Default::default());
        let mut differ = 0;
        // One owner for both boards, on one thread: the table is the same.
        let context = &mut SearchContext::default();
        for _ in 0..20 {
            for b in random_line(&narrow, &mut rng).iter().filter(|b| b.moves >= 2) {
                let w = wide.board(b.current, b.mask, b.moves);
                let exact =
                    (memo_minimax(&narrow, b, &mut memo_narrow), memo_minimax(&wide, &w, &mut memo_wide));
                differ += usize::from(exact.0 != exact.1);
                for (game, b, exact) in [(&narrow, b, exact.0), (&wide, &w, exact.1), (&narrow, b, exact.0)] {
                    assert!(game.solves_directly(b));
                    let solved = game.solve_directly(b, -30, 30, context).expect("solved");
                    assert_eq!(solved, exact, "{} on {}x4", game.format_position(b), game.width);
                }
            }
        }
        assert!(differ > 20, "only {differ} positions worth differently on the two boards");
    }

    #[test]
    fn detects_fours_in_every_direction() {
        let g = Connect4::default();
        for (moves, won) in [
            ("1212121", true),
            ("1122334", true),
            ("12234334544", true),
            ("76654554344", true),
            ("1223343444", false),
        ] {
            let b = g.parse_position(moves).unwrap();
            assert_eq!(g.last_mover_won(&b), won, "{moves}");
        }
    }

    #[test]
    fn rejects_bad_sequences() {
        let g = Connect4::default();
        assert_eq!(g.parse_position("12121218").unwrap_err().column, 8);
        assert_eq!(g.parse_position("12121212").unwrap_err().column, 8, "continues after a win");
        assert_eq!(g.parse_position("1111111").unwrap_err().column, 7, "column full");
        assert_eq!(g.parse_position("4x").unwrap_err().column, 2);
        assert_eq!(g.parse_position("40").unwrap_err().column, 2);
    }

    #[test]
    fn notation_round_trips_through_a_sequence() {
        let g = Connect4::default();
        for s in ["", "4", "4453", "444444", "1234567123", "37313333717124171162542"] {
            let b = g.parse_position(s).unwrap();
            let again = g.parse_position(&g.format_position(&b)).unwrap();
            assert_eq!(again, b, "{s}");
        }
    }

    #[test]
    fn sizes_must_fit_in_64_bits() {
        assert!(Connect4::new(8, 7).is_ok());
        assert!(Connect4::new(9, 7).is_err());
        assert!(Connect4::new(0, 4).is_err());
        assert!(Connect4::new(16, 3).is_ok());
    }

    /// Minimax over the rules, remembering the positions valued in `memo` (shared between
    /// positions of one board size), so that positions with more empty cells stay cheap.
    fn memo_minimax(
        game: &Connect4,
        b: &Board,
        memo: &mut std::collections::HashMap<(u64, u64), i32>,
    ) -> i32 {
        if let Some(&v) = memo.get(&(b.current, b.mask)) {
            return v;
        }
        let mut moves = Vec::new();
        game.moves(b, &mut moves);
        let v = if moves.is_empty() {
            -game.final_loss(b)
        } else {
            moves.iter().map(|&m| -memo_minimax(game, &game.play(b, m), memo)).max().unwrap_or(0)
        };
        memo.insert((b.current, b.mask), v);
        v
    }

    /// The follow-up bounds hold the exact value of positions from random play, on boards of
    /// even and odd heights, for the whole window and for null windows around 0; each of the four
    /// bounds (cannot win, loses, cannot lose, wins) is met many times, as are the bounds that
    /// need two or more odd columns and those that need the aftereven.
    #[test]
    fn follow_up_bounds_hold_the_value() {
        let mut rng = SplitMix64(11);
        let mut narrowed = [0usize; 6]; // high 0, high -1, low 0, low 1, two odd columns or more, aftereven
        for (width, height, empties) in [(4, 4, 14), (5, 4, 12), (4, 5, 13), (6, 3, 12), (7, 6, 10)] {
            let game = Connect4::new(width, height).expect("a board that fits");
            let mut memo = std::collections::HashMap::new();
            for _ in 0..150 {
                for b in random_line(&game, &mut rng).iter().filter(|b| game.cells() - b.moves <= empties) {
                    let value = memo_minimax(&game, b, &mut memo);
                    let p = game.format_position(b);
                    for window in [(-i32::MAX, i32::MAX), (-3, -2), (-2, -1), (-1, 0), (0, 1), (1, 2), (2, 3)]
                    {
                        let (low, high) = game.follow_up_bounds(b.current, b.mask, (-100, 100), window);
                        assert!(
                            low <= value && value <= high,
                            "{width}x{height} {p} in {window:?}: {value} not in [{low}, {high}]"
                        );
                    }
                    let (low, high) = game.follow_up_bounds(b.current, b.mask, (-100, 100), (-100, 100));
                    assert!(
                        low <= value && value <= high,
                        "{width}x{height} {p}: {value} not in [{low}, {high}]"
                    );
                    let odd = game.playable_cells(b.mask) & !game.first_of_pairs;
                    let empty = game.board & !b.mask;
                    let ours = b.current | (empty & (game.first_of_pairs | odd));
                    let aftereven = odd.count_ones().is_multiple_of(2) && high == -1 && game.has_four(ours);
                    let two_odd = odd.count_ones() >= 2 && (high <= 0 || low >= 0);
                    let hits = [high == 0, high == -1, low == 0, low == 1, two_odd, aftereven];
                    for (count, hit) in narrowed.iter_mut().zip(hits) {
                        *count += usize::from(hit);
                    }
                }
            }
        }
        assert!(narrowed.iter().all(|&n| n >= 20), "each bound met often enough: {narrowed:?}");
    }

    #[test]
    fn mirrored_positions_share_a_key() {
        let g = Connect4::default();
        let a = g.parse_position("1123").unwrap();
        let b = g.parse_position("7765").unwrap();
        assert_eq!(g.key(&a), g.key(&b));
        assert_ne!(g.key(&a), g.key(&g.parse_position("1124").unwrap()));
    }
}
