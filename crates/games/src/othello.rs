//! Othello on 8 x 8 bitboards: legal moves, flips, passes, the end of the game with the empties
//! going to the winner, a fast perft, a midgame evaluation, and an exact endgame solver for the
//! last few empties that the engine hands positions to.
//!
//! Squares are numbered A1 = 0, B1 = 1, ..., H1 = 7, A2 = 8, ..., H8 = 63, the order of the board
//! strings of the `.obf` files. Notation: 64 characters (`X` black, `O` white, `-` empty), a space
//! and the side to move (`X` or `O`); a move is a square (`a1`..`h8`, either case) or `ps` for a
//! pass.

use gamegraph::game::{Evaluate, Game, Notation, NotationError, PositionKey, Stake};
use rayon::prelude::*;

/// The pass move.
pub const PASS: u8 = 64;

/// A position: the discs of the player to move and of the opponent, and who that player is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    /// Discs of the player to move.
    pub player: u64,
    /// Discs of the opponent.
    pub opponent: u64,
    /// Whether the player to move is black (`X`).
    pub black_to_move: bool,
}

/// Othello.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Othello;

const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The eight directions as (shift, mask applied after shifting to stop wrapping round the board).
const DIRECTIONS: [(i32, u64); 8] =
    [(1, NOT_A), (-1, NOT_H), (8, !0), (-8, !0), (9, NOT_A), (7, NOT_H), (-7, NOT_A), (-9, NOT_H)];

#[inline]
fn shift(b: u64, s: i32) -> u64 {
    if s > 0 {
        b << s
    } else {
        b >> -s
    }
}

/// The squares where the player with discs `p` can move against `o`.
#[inline]
pub fn legal_moves(p: u64, o: u64) -> u64 {
    let empty = !(p | o);
    let mut moves = 0;
    for (s, mask) in DIRECTIONS {
        let mut run = shift(p, s) & mask & o;
        for _ in 0..5 {
            run |= shift(run, s) & mask & o;
        }
        moves |= shift(run, s) & mask;
    }
    moves & empty
}

/// The opponent's discs turned by a disc of `p` put on `sq` (none: not a legal move).
#[inline]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    let mut flipped = 0;
    let from = 1u64 << sq;
    for (s, mask) in DIRECTIONS {
        let mut run = 0;
        let mut b = shift(from, s) & mask;
        while b & o != 0 {
            run |= b;
            b = shift(b, s) & mask;
        }
        if b & p != 0 {
            flipped |= run;
        }
    }
    flipped
}

impl Board {
    /// The start: D5 and E4 black, D4 and E5 white, black to move.
    pub fn start() -> Board {
        Board { player: 0x0000_0008_1000_0000, opponent: 0x0000_0010_0800_0000, black_to_move: true }
    }

    /// Empty squares.
    pub fn empties(&self) -> u32 {
        64 - (self.player | self.opponent).count_ones()
    }

    /// The board after a disc on `sq` with `flipped` discs turned, the opponent to move.
    #[inline]
    fn after(&self, sq: u32, flipped: u64) -> Board {
        Board {
            player: self.opponent & !flipped,
            opponent: self.player | flipped | (1u64 << sq),
            black_to_move: !self.black_to_move,
        }
    }

    /// The same discs with the other player to move.
    #[inline]
    fn passed(&self) -> Board {
        Board { player: self.opponent, opponent: self.player, black_to_move: !self.black_to_move }
    }

    /// The final score for the player to move: disc difference, empties to the winner.
    pub fn final_score(&self) -> i32 {
        let (p, o) = (self.player.count_ones() as i32, self.opponent.count_ones() as i32);
        let empties = 64 - p - o;
        match p.cmp(&o) {
            std::cmp::Ordering::Greater => p - o + empties,
            std::cmp::Ordering::Less => p - o - empties,
            std::cmp::Ordering::Equal => 0,
        }
    }
}

/// Leaves of the game tree `depth` plies below `board`, a pass counting as a ply and a finished
/// game as one leaf at every deeper depth; the first plies are spread over the cores.
pub fn perft(board: &Board, depth: u32) -> u64 {
    if depth <= 6 {
        return perft_serial(board.player, board.opponent, depth, false);
    }
    let moves = legal_moves(board.player, board.opponent);
    if moves == 0 {
        return perft_serial(board.player, board.opponent, depth, false);
    }
    let children: Vec<Board> =
        squares(moves).map(|sq| board.after(sq, flips(board.player, board.opponent, sq))).collect();
    children.par_iter().map(|c| perft(c, depth - 1)).sum()
}

fn perft_serial(p: u64, o: u64, depth: u32, passed: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = legal_moves(p, o);
    if moves == 0 {
        if passed {
            return 1; // the game is over: one leaf at every depth
        }
        return perft_serial(o, p, depth - 1, true);
    }
    if depth == 1 {
        return u64::from(moves.count_ones());
    }
    squares(moves)
        .map(|sq| {
            let f = flips(p, o, sq);
            perft_serial(o & !f, p | f | (1u64 << sq), depth - 1, false)
        })
        .sum()
}

/// The squares of a bitboard, lowest first.
#[inline]
fn squares(mut b: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let sq = b.trailing_zeros();
            b &= b - 1;
            sq
        })
    })
}

/// Positions with at most this many empties are solved by [`solve_small`] instead of the engine.
pub const SMALL: u32 = 7;

/// Exact fail-soft alpha-beta for the last few empties, without a table: the player to move has
/// `p`, the opponent `o`.
pub fn solve_small(p: u64, o: u64, alpha: i32, beta: i32) -> i32 {
    let empty = !(p | o);
    let empties = empty.count_ones();
    if empties == 1 {
        return last_empty(p, o, empty.trailing_zeros());
    }
    if empties >= FASTEST_FIRST {
        return solve_sorted(p, o, alpha, beta);
    }
    let mut best = -65;
    let mut alpha = alpha;
    let mut any = false;
    // Parity: empties in regions (quadrants) with an odd number of empties first.
    let mut order = [0u64; 2];
    for q in QUADRANTS {
        let quadrant = empty & q;
        order[usize::from(quadrant.count_ones() % 2 == 0)] |= quadrant;
    }
    for group in order {
        for sq in squares(group) {
            let f = flips(p, o, sq);
            if f == 0 {
                continue;
            }
            any = true;
            let v = -solve_small(o & !f, p | f | (1u64 << sq), -beta, -alpha);
            if raise(v, &mut best, &mut alpha, beta) {
                return best;
            }
        }
    }
    if any {
        return best;
    }
    no_move(p, o, alpha, beta)
}

/// From this many empties on, [`solve_small`] orders moves fastest first (fewest replies).
const FASTEST_FIRST: u32 = 6;

/// [`solve_small`] with the moves sorted by the opponent's number of replies.
fn solve_sorted(p: u64, o: u64, mut alpha: i32, beta: i32) -> i32 {
    let mut moves = [(0u32, 0u32, 0u64); 32];
    let mut n = 0;
    for sq in squares(legal_moves(p, o)) {
        let f = flips(p, o, sq);
        let (np, no) = (o & !f, p | f | (1u64 << sq));
        let replies = legal_moves(np, no).count_ones() * 4 + u32::from(CORNERS & (1u64 << sq) == 0);
        moves[n] = (replies, sq, f);
        n += 1;
    }
    if n == 0 {
        return no_move(p, o, alpha, beta);
    }
    let moves = &mut moves[..n];
    moves.sort_unstable_by_key(|m| m.0);
    let mut best = -65;
    for &(_, sq, f) in moves.iter() {
        let v = -solve_small(o & !f, p | f | (1u64 << sq), -beta, -alpha);
        if raise(v, &mut best, &mut alpha, beta) {
            return best;
        }
    }
    best
}

/// Takes a move's value `v` into a fail-soft node's best value and window; true on a cutoff.
#[inline]
fn raise(v: i32, best: &mut i32, alpha: &mut i32, beta: i32) -> bool {
    if v > *best {
        *best = v;
        *alpha = (*alpha).max(v);
    }
    v >= beta
}

const CORNERS: u64 = 0x8100_0000_0000_0081;

/// The player to move has no move: pass, or the game is over.
fn no_move(p: u64, o: u64, alpha: i32, beta: i32) -> i32 {
    if legal_moves(o, p) == 0 {
        return Board { player: p, opponent: o, black_to_move: true }.final_score();
    }
    -solve_small(o, p, -beta, -alpha)
}

const QUADRANTS: [u64; 4] =
    [0x0000_0000_0f0f_0f0f, 0x0000_0000_f0f0_f0f0, 0x0f0f_0f0f_0000_0000, 0xf0f0_f0f0_0000_0000];

/// The exact score with one empty square left.
#[inline]
fn last_empty(p: u64, o: u64, sq: u32) -> i32 {
    let discs = p.count_ones() as i32;
    let f = flips(p, o, sq);
    if f != 0 {
        // 64 - 2 * (opponent's discs after the move).
        let mine = discs + f.count_ones() as i32 + 1;
        return 2 * mine - 64;
    }
    let g = flips(o, p, sq);
    if g != 0 {
        let theirs = (o.count_ones() + g.count_ones() + 1) as i32;
        return 64 - 2 * theirs;
    }
    // Nobody can play the last square: it goes to the winner.
    let diff = 2 * discs - 63;
    match diff.signum() {
        1 => diff + 1,
        -1 => diff - 1,
        _ => 0,
    }
}

impl Game for Othello {
    type Position = Board;
    type Move = u8;

    fn start(&self) -> Board {
        Board::start()
    }

    fn moves(&self, b: &Board, moves: &mut Vec<u8>) {
        let legal = legal_moves(b.player, b.opponent);
        if legal != 0 {
            moves.extend(squares(legal).map(|sq| sq as u8));
        } else if legal_moves(b.opponent, b.player) != 0 {
            moves.push(PASS);
        }
    }

    fn play(&self, b: &Board, mv: u8) -> Board {
        if mv == PASS {
            return b.passed();
        }
        b.after(u32::from(mv), flips(b.player, b.opponent, u32::from(mv)))
    }

    fn final_loss(&self, b: &Board) -> Stake {
        -b.final_score()
    }
}

/// Weights of the squares for the midgame evaluation: corners good, squares next to them bad.
const SQUARE_WEIGHTS: [i32; 64] = [
    100, -20, 10, 5, 5, 10, -20, 100, //
    -20, -50, -2, -2, -2, -2, -50, -20, //
    10, -2, 1, 1, 1, 1, -2, 10, //
    5, -2, 1, 0, 0, 1, -2, 5, //
    5, -2, 1, 0, 0, 1, -2, 5, //
    10, -2, 1, 1, 1, 1, -2, 10, //
    -20, -50, -2, -2, -2, -2, -50, -20, //
    100, -20, 10, 5, 5, 10, -20, 100,
];

impl Evaluate for Othello {
    /// Mobility, square weights (corners), and parity near the end; in hundredths of a disc.
    fn evaluate(&self, b: &Board) -> i32 {
        let weights = |bits: u64| squares(bits).map(|sq| SQUARE_WEIGHTS[sq as usize]).sum::<i32>();
        let mobility = legal_moves(b.player, b.opponent).count_ones() as i32
            - legal_moves(b.opponent, b.player).count_ones() as i32;
        let parity = if b.empties() % 2 == 1 { 50 } else { -50 };
        let discs = b.player.count_ones() as i32 - b.opponent.count_ones() as i32;
        let disc_weight = if b.empties() < 14 { 60 } else { 5 };
        10 * (weights(b.player) - weights(b.opponent)) + 80 * mobility + parity + disc_weight * discs
    }

    fn final_score(&self, b: &Board) -> i32 {
        b.final_score()
    }

    fn solve_directly(&self, b: &Board, alpha: i32, beta: i32) -> Option<i32> {
        (b.empties() <= SMALL).then(|| solve_small(b.player, b.opponent, alpha, beta))
    }

    /// Fastest first: the moves that leave the opponent the fewest replies, corners breaking ties.
    fn order_moves(&self, b: &Board, moves: &mut [u8]) {
        moves.sort_by_cached_key(|&mv| {
            if mv == PASS {
                return 0;
            }
            let next = self.play(b, mv);
            let replies = legal_moves(next.player, next.opponent).count_ones() as i32;
            16 * replies - SQUARE_WEIGHTS[mv as usize] / 10
        });
    }

    fn score_bounds(&self, _b: &Board) -> (i32, i32) {
        (-64, 64)
    }

    fn move_id(&self, mv: u8) -> Option<u16> {
        Some(u16::from(mv))
    }
}

impl PositionKey for Othello {
    fn key(&self, b: &Board) -> u64 {
        let mix = |x: u64| {
            let x = (x ^ (x >> 31)).wrapping_mul(0x7fb5_d329_728e_a185);
            (x ^ (x >> 27)).wrapping_mul(0x81da_def4_bc2d_d44d)
        };
        mix(b.player) ^ mix(b.opponent.rotate_left(17) ^ 0x9e37_79b9_7f4a_7c15)
    }
}

impl Notation for Othello {
    fn name(&self) -> String {
        "othello".into()
    }

    fn parse_position(&self, text: &str) -> Result<Board, NotationError> {
        let chars: Vec<char> = text.trim_end().chars().collect();
        let (mut black, mut white) = (0u64, 0u64);
        for (i, &c) in chars.iter().take(64).enumerate() {
            match c {
                'X' | 'x' | '*' => black |= 1 << i,
                'O' | 'o' => white |= 1 << i,
                '-' | '.' => {}
                _ => return Err(NotationError::new(i + 1, format!("'{c}' is not X, O or -"))),
            }
        }
        if chars.len() < 64 {
            return Err(NotationError::new(
                chars.len() + 1,
                format!("a board has 64 squares, found {}", chars.len()),
            ));
        }
        let side = chars[64..].iter().position(|c| !c.is_whitespace()).map(|i| (64 + i, chars[64 + i]));
        let black_to_move = match side {
            Some((_, 'X' | 'x' | '*')) => true,
            Some((_, 'O' | 'o')) => false,
            Some((at, c)) => {
                return Err(NotationError::new(at + 1, format!("'{c}' is not a side to move (X or O)")))
            }
            None => {
                return Err(NotationError::new(65, "the side to move (X or O) is missing after the board"))
            }
        };
        let (player, opponent) = if black_to_move { (black, white) } else { (white, black) };
        Ok(Board { player, opponent, black_to_move })
    }

    fn format_position(&self, b: &Board) -> String {
        let (black, white) = if b.black_to_move { (b.player, b.opponent) } else { (b.opponent, b.player) };
        let mut s: String = (0..64)
            .map(|i| match (black >> i & 1, white >> i & 1) {
                (1, _) => 'X',
                (_, 1) => 'O',
                _ => '-',
            })
            .collect();
        s.push(' ');
        s.push(if b.black_to_move { 'X' } else { 'O' });
        s
    }

    fn parse_move(&self, b: &Board, text: &str) -> Result<u8, NotationError> {
        let t = text.trim().to_ascii_lowercase();
        let mut legal = Vec::new();
        self.moves(b, &mut legal);
        let mv = if t == "ps" || t == "pass" {
            PASS
        } else {
            let bytes = t.as_bytes();
            if bytes.len() != 2 || !(b'a'..=b'h').contains(&bytes[0]) || !(b'1'..=b'8').contains(&bytes[1]) {
                return Err(NotationError::new(
                    1,
                    format!("'{}' is not a square (a1 to h8) or ps", text.trim()),
                ));
            }
            (bytes[1] - b'1') * 8 + (bytes[0] - b'a')
        };
        if legal.contains(&mv) {
            Ok(mv)
        } else if legal.is_empty() {
            Err(NotationError::new(1, "the game is over"))
        } else if legal == [PASS] {
            Err(NotationError::new(1, "no square is playable: the only move is ps (pass)"))
        } else {
            Err(NotationError::new(1, format!("{} is not a legal move here", text.trim())))
        }
    }

    fn format_move(&self, _b: &Board, mv: u8) -> String {
        if mv == PASS {
            return "PS".into();
        }
        format!("{}{}", (b'A' + mv % 8) as char, mv / 8 + 1)
    }

    fn render(&self, b: &Board) -> String {
        let text = self.format_position(b);
        let cells: Vec<char> = text.chars().collect();
        let mut out = String::from("  a b c d e f g h\n");
        for r in 0..8 {
            out.push_str(&format!("{} ", r + 1));
            for c in 0..8 {
                out.push(cells[r * 8 + c]);
                out.push(' ');
            }
            out.pop();
            out.push('\n');
        }
        out.push_str(&format!("({} to move)", if b.black_to_move { "X" } else { "O" }));
        out
    }

    fn record_position<'a>(&self, line: &'a str) -> &'a str {
        // The board and the side to move: the first 66 characters, whatever follows.
        let end = line.char_indices().nth(66).map_or(line.len(), |(i, _)| i);
        line[..end].trim_end_matches(';').trim_end()
    }

    fn format_solution(
        &self,
        text: &str,
        score: i32,
        best: Option<&str>,
        moves: &[(String, Option<i32>)],
    ) -> String {
        let mut scored: Vec<&(String, Option<i32>)> = moves.iter().filter(|m| m.1.is_some()).collect();
        scored.sort_by_key(|m| std::cmp::Reverse(m.1));
        if scored.is_empty() {
            return match best {
                Some(best) => format!("{text}; {best}:{score:+};"),
                None => format!("{text}; {score:+};"),
            };
        }
        let listed: Vec<String> = scored.iter().map(|(m, v)| format!("{m}:{:+}", v.unwrap_or(0))).collect();
        format!("{text}; {};", listed.join("; "))
    }
}

impl Othello {
    /// The board as an 8 x 8 grid; a legal square plays there.
    pub fn board_view(&self, b: &Board) -> crate::BoardView {
        let legal = legal_moves(b.player, b.opponent);
        let (black, white) = if b.black_to_move { (b.player, b.opponent) } else { (b.opponent, b.player) };
        let cells = (0..64u32)
            .map(|sq| {
                let bit = 1u64 << sq;
                let mv = (legal & bit != 0).then(|| self.format_move(b, sq as u8));
                if black & bit != 0 {
                    crate::Cell::new("", "first", None)
                } else if white & bit != 0 {
                    crate::Cell::new("", "second", None)
                } else {
                    crate::Cell::new("", "empty", mv)
                }
            })
            .collect();
        let to_move = if b.black_to_move { "black (X)" } else { "white (O)" };
        let note = (legal == 0 && legal_moves(b.opponent, b.player) != 0)
            .then(|| "no square is playable: pass".to_string());
        crate::BoardView { rows: 8, cols: 8, cells, to_move: to_move.into(), note }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perft_matches_the_standard_counts() {
        let counts = [1u64, 4, 12, 56, 244, 1396, 8200, 55092, 390216];
        for (depth, &count) in counts.iter().enumerate() {
            assert_eq!(perft(&Board::start(), depth as u32), count, "depth {depth}");
        }
    }

    #[test]
    fn notation_round_trips() {
        let text = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";
        let b = Othello.parse_position(text).unwrap();
        assert_eq!(Othello.format_position(&b), text);
        assert_eq!(Othello.parse_move(&b, "g8").unwrap(), 62);
        assert_eq!(Othello.format_move(&b, 62), "G8");
        assert_eq!(Othello.parse_position("XO-").unwrap_err().column, 4);
        assert_eq!(Othello.parse_position("XO- X").unwrap_err().column, 4);
        assert_eq!(Othello.parse_position(&format!("{} Z", &text[..64])).unwrap_err().column, 66);
    }

    /// The small solver against plain minimax over the Game trait.
    #[test]
    fn small_solver_equals_minimax() {
        fn minimax(b: &Board) -> i32 {
            let mut moves = Vec::new();
            Othello.moves(b, &mut moves);
            if moves.is_empty() {
                return b.final_score();
            }
            moves.iter().map(|&m| -minimax(&Othello.play(b, m))).max().unwrap()
        }
        let text = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";
        let mut b = Othello.parse_position(text).unwrap();
        // Play the first legal moves until 7 empties remain, checking every window on the way.
        while b.empties() > 0 {
            if b.empties() <= 8 {
                let exact = minimax(&b);
                assert_eq!(
                    solve_small(b.player, b.opponent, -64, 64),
                    exact,
                    "{}",
                    Othello.format_position(&b)
                );
                for (a, w) in [(-64, exact), (exact, 64), (exact - 1, exact + 1)] {
                    let v = solve_small(b.player, b.opponent, a, w);
                    if v <= a {
                        assert!(exact <= v);
                    } else if v >= w {
                        assert!(exact >= v);
                    } else {
                        assert_eq!(v, exact);
                    }
                }
            }
            let mut moves = Vec::new();
            Othello.moves(&b, &mut moves);
            if moves.is_empty() {
                break;
            }
            b = Othello.play(&b, moves[moves.len() / 2]);
        }
    }
}
