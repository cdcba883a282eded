//! Othello on 8 x 8 bitboards: legal moves, flips, passes, the end of the game with the empties
//! going to the winner, a fast perft, a midgame evaluation, and an exact endgame solver for the
//! last few empties that the engine hands positions to.
//!
//! Squares are numbered A1 = 0, B1 = 1, ..., H1 = 7, A2 = 8, ..., H8 = 63, the order of the board
//! strings of the `.obf` files. Notation: 64 characters (`X` black, `O` white, `-` empty), a space
//! and the side to move (`X` or `O`); a move is a square (`a1`..`h8`, either case) or `ps` for a
//! pass.

use gamegraph::game::{
    Evaluate, ExactHints, Game, MoveOrdering, Notation, NotationError, Payoff, PositionKey, Selectivity,
    Stake,
};
use gamegraph::SearchContext;

mod bitboard;
mod endgame;
pub mod eval;
pub mod patterns;

use bitboard::squares;
pub use bitboard::{flips, legal_moves, perft, stable_discs};
pub use endgame::{solve_small, SMALL};

/// From this many empties on, stable discs bound the score. Measured on FFO #48: 2.53 G nodes
/// against 2.59 G without; from 8 empties on, the count cost more time than it saved on #40-#44.
const STABILITY_FROM: u32 = 12;

/// From this many empties on, moves are also ordered by a search of `(empties - 14) / 2` plies
/// with the evaluation. Measured on FFO #40-#44 (two threads): 5.95 s; from 12 or 16 empties,
/// or a third as deep, 7 to 9 s; one ply deeper saves nodes but costs time (6.9 s).
const EVAL_ORDER_FROM: u32 = 14;

/// From this many empties on, the selective pass of an exact solve trusts probable bounds
/// ([`ExactHints::probable_bound`]): a [`PROBABLE_DEPTH`]-ply search of the evaluation at least
/// [`PROBABLE_MARGIN`] beyond the window. Measured on 2026-12-04 against no selective pass:
/// FFO #50-#53 on two threads 60.1 s and 2.89 G nodes against 89.0 s and 4.13 G; FFO #40-#49 on
/// one thread 34.8 s and 935 M nodes against 36.1 s and 967 M; `--random 12 --empties 22
/// --seed 1` (one thread) 30.5 s and 1190 M against 32.6 s and 1268 M. On #50-#53: from 16 or
/// 18 empties the same, from 20 68.0 s; 4 plies 67.2 s, 8 plies 66.9 s; margins of 4, 8 and 12
/// discs 71.8, 63.4 and 68.3 s.
const PROBABLE_FROM: u32 = 17;
/// The depth of the searches behind probable bounds (see [`PROBABLE_FROM`]).
const PROBABLE_DEPTH: u32 = 6;
/// How far beyond the window, in 1/[`eval::SCALE`] disc, the search behind a probable bound
/// must land (6 discs; see [`PROBABLE_FROM`]).
const PROBABLE_MARGIN: i32 = 6 * eval::SCALE;

/// The deepest ordering search. Uncapped, FFO #59 (34 empties, 10-ply ordering searches without a
/// table) took 440 s for 18 M nodes; capped at 8 it takes 12.8 s, at 6 0.6 s, but a cap of 6 also
/// cost FFO #57 (30 empties) 274 s and 3.0 G nodes against 253 s and 1.9 G. FFO #40-#58 never
/// order deeper than 8 plies, so their figures hold with this cap.
const EVAL_ORDER_DEPTH: u32 = 8;

/// The weight of the searched value (in 1/128 disc) in the ordering key, where one more reply
/// for the opponent weighs 32768: 128 makes a reply worth 2 discs. Measured on 2026-12-03 with
/// the evaluation fitted to 489,903 positions, nodes on one thread against 96: FFO #40-#49
/// 1222.8 M against 1319.3 M, FFO #40-#44 131.8 M against 137.8 M, FFO #20-#39 the same,
/// `--random 12 --empties 22` seeds 1 and 2: 1268.9 M and 1289.8 M against 1252.7 M and
/// 1342.1 M; 160 was no better (1225.2 M on #40-#49, 1301.9 M on seed 1). With the weaker
/// first evaluation, 96 had measured best (FFO #40-#44: 64 6.07 s, 96 5.95 s, 128 6.14 s).
const EVAL_WEIGHT: i32 = 128;

/// How far below the best move found so far, in 1/[`eval::SCALE`] disc (4 discs), the ordering
/// search of a move still gives its exact value (see [`MoveOrder::keys`]). Measured on
/// 2026-12-04 against every ordering search exact, binaries interleaved: FFO #50-#59 on two
/// threads 347.6 s against 374.4 s (position by position; #58 21.6 s against 31.9 s, where the
/// ordering searches had taken 56% of the time; #55 the same 196 s); FFO #40-#49 on one thread
/// 914.5 M nodes against 935.4 M; `--random 20 --empties 22 --seed 1` 17.0-17.1 s against
/// 17.7-19.1 s. On FFO #40-#44 (one thread), margins of 2, 3, 4 and 6 discs: 107.4 M, 104.2 M,
/// 103.9 M and 112.3 M nodes against 111.1 M.
const ORDER_MARGIN: i32 = 4 * eval::SCALE;

/// The estimate of an exact solve's value (its first probe) searches `(empties - 6) / 2` plies,
/// at most 10: 7 plies at 20 empties, 9 at 24. Since the evaluation searches sort their moves,
/// that costs little. Measured on 2026-12-03, nodes on one thread (64 MiB table) against
/// `(empties - 10) / 2` plies at most 6: FFO #40-#49 996 M against 1203 M (9 positions fewer, one
/// the same), FFO #20-#39 122 M against 124 M, `--random 12 --empties 22` seeds 1 and 2 1283 M and
/// 1222 M against 1266 M and 1287 M, `--random 10 --empties 20 --seed 3` 331 M against 408 M, FFO
/// #51-#53 2.69 G against 2.76 G; two threads, FFO #40-#49 in 21.8 and 25.6 s against 28.0 and
/// 29.6 s. The depth's parity matters more than its size: `(empties - 7) / 2` (at most 10) and
/// `(empties - 8) / 2` (at most 8) searched more nodes than the old depths on FFO #40-#49 (1355 M,
/// 1493 M), `(empties - 5) / 2` (at most 11) 1150 M.
const ESTIMATE_FROM: u32 = 6;
/// The deepest estimate (see [`ESTIMATE_FROM`]).
const ESTIMATE_DEPTH: u32 = 10;

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
        endgame::final_score(self.player, self.opponent)
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

impl Payoff for Othello {
    /// Scores are disc differences, as the stakes of final positions are.
    fn payoff_score(&self, loss: Stake) -> i32 {
        -loss
    }
}

impl Evaluate for Othello {
    /// The predicted final disc difference (see [`eval`]).
    fn evaluate(&self, b: &Board) -> i32 {
        eval::evaluate(b.player, b.opponent)
    }
}

impl MoveOrdering for Othello {
    /// Fastest first with Edax's refinements (see `endgame::engine_order`), and from
    /// `EVAL_ORDER_FROM` empties on, the value of a shallow search of each move as well.
    fn order_moves(&self, b: &Board, moves: &mut [u8], depth: u32, context: &mut SearchContext<'_>) {
        let keys = MoveOrder::keys(b, depth, moves.iter().map(|&mv| (mv, self.play(b, mv))), context);
        moves.sort_by_key(|&mv| keys[usize::from(mv)]);
    }

    /// The search plays the moves before ordering them: ordering by the children saves turning
    /// their discs twice.
    const ORDERS_BY_CHILDREN: bool = true;

    /// As [`Othello::order_moves`], from the children.
    fn order_children<C>(
        &self,
        b: &Board,
        children: &mut [C],
        child: impl Fn(&C) -> (u8, &Board),
        depth: u32,
        context: &mut SearchContext<'_>,
    ) {
        let keys = MoveOrder::keys(
            b,
            depth,
            children.iter().map(|c| {
                let (mv, next) = child(c);
                (mv, *next)
            }),
            context,
        );
        children.sort_by_key(|c| keys[usize::from(child(c).0)]);
    }

    fn move_id(&self, mv: u8) -> Option<u16> {
        Some(u16::from(mv))
    }
}

impl Selectivity for Othello {}

/// One slot per move, the pass included: the ordering keys of a node, by move.
const MOVE_SLOTS: usize = PASS as usize + 1;

/// The ordering keys of one node's moves (smaller first): the cheap key of
/// [`endgame::engine_order`], and from `EVAL_ORDER_FROM` empties on, the value of a shallow
/// search of each move as well.
struct MoveOrder;

impl MoveOrder {
    /// The keys of `b`'s moves, given with the positions they lead to, by move (a pass keeps
    /// 0), for a subtree searched `depth` plies deep. The nodes of the ordering searches are
    /// counted in `context`, and they end early when its search is told to stop.
    ///
    /// The searches go in the order of the cheap keys, and each is exact only where its move
    /// could be the best: within [`ORDER_MARGIN`] of the best value found so far. A move worse
    /// than that is only bounded, and its search cut short.
    fn keys(
        b: &Board,
        depth: u32,
        moves: impl Iterator<Item = (u8, Board)>,
        context: &mut SearchContext<'_>,
    ) -> [i32; MOVE_SLOTS] {
        let mut keys = [0; MOVE_SLOTS];
        // (cheap key, move, position after it), passes left out.
        let mut keyed = [(0, 0, 0, 0); eval::MAX_MOVES];
        let mut n = 0;
        for (mv, next) in moves.filter(|&(mv, _)| mv != PASS).take(eval::MAX_MOVES) {
            let key = endgame::engine_order(next.player, next.opponent, u32::from(mv));
            keyed[n] = (key, mv, next.player, next.opponent);
            keys[usize::from(mv)] = key;
            n += 1;
        }
        // In a depth-limited search, the subtree ends before the game does.
        let empties = b.empties().min(depth);
        if empties < EVAL_ORDER_FROM || n < 2 {
            return keys;
        }
        let depth = ((empties - EVAL_ORDER_FROM) / 2).min(EVAL_ORDER_DEPTH);
        let indices = patterns::Indices::new(b.player, b.opponent);
        keyed[..n].sort_unstable();
        // The lowest value of a child for its player to move: the best move so far.
        let mut best = eval::BOUND;
        for &(key, mv, player, opponent) in &keyed[..n] {
            // The discs turned: the opponent's that the move took.
            let child = indices.play(u32::from(mv), b.opponent & !player);
            let high = best.saturating_add(ORDER_MARGIN).min(eval::BOUND);
            let value = eval::search_from(player, opponent, &child, depth, -eval::BOUND, high, context);
            best = best.min(value);
            keys[usize::from(mv)] = key + EVAL_WEIGHT * value;
        }
        keys
    }
}

impl ExactHints for Othello {
    fn solves_directly(&self, b: &Board) -> bool {
        b.empties() <= SMALL
    }

    fn solve_directly(
        &self,
        b: &Board,
        alpha: i32,
        beta: i32,
        context: &mut SearchContext<'_>,
    ) -> Option<i32> {
        Some(context.counting(|owner, nodes| solve_small(b.player, b.opponent, alpha, beta, owner, nodes)))
    }

    /// The value of a search of `(empties - ESTIMATE_FROM) / 2` plies (at most `ESTIMATE_DEPTH`)
    /// with the evaluation at the leaves: the first null window an exact solve probes.
    fn estimate(&self, b: &Board, context: &mut SearchContext<'_>) -> Option<i32> {
        let depth = (b.empties().saturating_sub(ESTIMATE_FROM) / 2).min(ESTIMATE_DEPTH);
        let fine = eval::search(b.player, b.opponent, depth, -eval::BOUND, eval::BOUND, context);
        Some(eval::to_discs(fine))
    }

    /// ProbCut: from 17 empties on, a 6-ply search with the evaluation (which predicts final
    /// scores) that lands 6 discs or more beyond the window is taken to mean the score does too
    /// (`PROBABLE_FROM`, `PROBABLE_DEPTH` and `PROBABLE_MARGIN` in the source say why).
    fn probable_bound(
        &self,
        b: &Board,
        alpha: i32,
        beta: i32,
        context: &mut SearchContext<'_>,
    ) -> Option<i32> {
        if b.empties() < PROBABLE_FROM {
            return None;
        }
        let mut search =
            |low: i32, high: i32| eval::search(b.player, b.opponent, PROBABLE_DEPTH, low, high, context);
        if beta < 64 {
            let above = beta * eval::SCALE + PROBABLE_MARGIN;
            if search(above - 1, above) >= above {
                return Some(beta);
            }
        }
        if alpha > -64 {
            let below = alpha * eval::SCALE - PROBABLE_MARGIN;
            if search(below, below + 1) <= below {
                return Some(alpha);
            }
        }
        None
    }

    /// Every score lies in -64..=64 (a wipeout proven at +64 needs no refutation of more), and
    /// stable discs narrow that: the opponent's bound the player's score from above, and the
    /// other way. They are counted only where they could bound it outside the window (were
    /// every disc of that side stable): elsewhere the count costs time for nothing, 3-4% of FFO
    /// #51 (see docs/othello-speed.md).
    fn score_bounds(&self, b: &Board, alpha: i32, beta: i32) -> (i32, i32) {
        if b.empties() < STABILITY_FROM {
            return (-64, 64);
        }
        let (mine, theirs) = (b.player.count_ones() as i32, b.opponent.count_ones() as i32);
        let high = if 64 - 2 * theirs <= alpha { endgame::stable_ceiling(b.player, b.opponent) } else { 64 };
        let low = if 2 * mine - 64 >= beta { -endgame::stable_ceiling(b.opponent, b.player) } else { -64 };
        (low, high)
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

/// Random games tried by [`random_position`] before it gives up.
const RANDOM_GAMES: u32 = 1000;

/// A position reached by playing uniformly random moves from the start until `empties` squares
/// are left (1 to 60), turned so that the player to move has a move (a forced pass is played):
/// test positions unlike the FFO sets, reproducible from the generator's seed. Games that end
/// sooner are played again; `None` if every one of a thousand did.
pub fn random_position(empties: u32, rng: &mut gamegraph::rng::SplitMix64) -> Option<Board> {
    let mut moves = Vec::new();
    (0..RANDOM_GAMES).find_map(|_| {
        let mut board = Board::start();
        loop {
            moves.clear();
            Othello.moves(&board, &mut moves);
            board = match moves[..] {
                [] => return None, // the game ended first
                [PASS] => board.passed(),
                _ if board.empties() <= empties => return Some(board),
                _ => Othello.play(&board, moves[rng.below(moves.len() as u64) as usize]),
            };
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perft_matches_the_standard_counts() {
        let counts = [1u64, 4, 12, 56, 244, 1396, 8200, 55092, 390216];
        for (depth, &count) in counts.iter().enumerate() {
            let b = Board::start();
            assert_eq!(perft(b.player, b.opponent, depth as u32), count, "depth {depth}");
        }
    }

    /// Ordering the children the search played puts them in the order of their moves, with and
    /// without the ordering searches (from 14 empties on). Random positions have a move, so no
    /// pass is among them.
    #[test]
    fn children_are_ordered_as_their_moves() {
        let mut rng = gamegraph::rng::SplitMix64(5);
        for i in 0..60 {
            let b = random_position(8 + i % 16, &mut rng).expect("random games reach the board");
            let mut moves = Vec::new();
            Othello.moves(&b, &mut moves);
            let mut children: Vec<(u8, Board)> = moves.iter().map(|&m| (m, Othello.play(&b, m))).collect();
            Othello.order_children(
                &b,
                &mut children,
                |c| (c.0, &c.1),
                u32::MAX,
                &mut SearchContext::default(),
            );
            Othello.order_moves(&b, &mut moves, u32::MAX, &mut SearchContext::default());
            assert_eq!(
                children.iter().map(|c| c.0).collect::<Vec<_>>(),
                moves,
                "{}",
                Othello.format_position(&b)
            );
            assert!(children.iter().all(|(m, c)| *c == Othello.play(&b, *m)));
        }
    }

    /// The ordering keys against ordering searches with the full window: a move within the
    /// margin of the best has its exact value in its key; any other, a value between the best
    /// plus the margin and its exact value (a fail-soft bound), so it sorts after them.
    #[test]
    fn ordering_keys_are_exact_near_the_best_move_and_bounds_elsewhere() {
        let mut rng = gamegraph::rng::SplitMix64(9);
        let (mut exact, mut bounded) = (0, 0);
        for i in 0..40 {
            let b = random_position(16 + i % 8, &mut rng).expect("random games reach the board");
            let mut moves = Vec::new();
            Othello.moves(&b, &mut moves);
            let context = &mut SearchContext::default();
            let keys =
                MoveOrder::keys(&b, u32::MAX, moves.iter().map(|&mv| (mv, Othello.play(&b, mv))), context);
            let depth = (b.empties() - EVAL_ORDER_FROM) / 2;
            let values: Vec<(u8, i32, i32)> = moves
                .iter()
                .map(|&mv| {
                    let next = Othello.play(&b, mv);
                    let cheap = endgame::engine_order(next.player, next.opponent, u32::from(mv));
                    (
                        mv,
                        cheap,
                        eval::search(next.player, next.opponent, depth, -eval::BOUND, eval::BOUND, context),
                    )
                })
                .collect();
            let best = values.iter().map(|v| v.2).min().expect("a move");
            for &(mv, cheap, value) in &values {
                let key = keys[usize::from(mv)];
                if moves.len() < 2 {
                    // A single move needs no order: no search, its cheap key alone.
                    assert_eq!(key, cheap, "{}", Othello.format_position(&b));
                } else if value < best + ORDER_MARGIN {
                    assert_eq!(key, cheap + EVAL_WEIGHT * value, "{}", Othello.format_position(&b));
                    exact += 1;
                } else {
                    let bound = (key - cheap) / EVAL_WEIGHT;
                    assert!(
                        (best + ORDER_MARGIN..=value).contains(&bound),
                        "{}",
                        Othello.format_position(&b)
                    );
                    bounded += 1;
                }
            }
        }
        assert!(exact > 40 && bounded > 40, "{exact} exact, {bounded} bounded");
    }

    #[test]
    fn random_positions_have_the_empties_asked_and_a_move() {
        let mut rng = gamegraph::rng::SplitMix64(7);
        let mut seen = std::collections::HashSet::new();
        for empties in [1, 10, 22, 59, 60] {
            for _ in 0..20 {
                let b = random_position(empties, &mut rng).expect("random games reach the board");
                assert_eq!(b.empties(), empties);
                assert_ne!(legal_moves(b.player, b.opponent), 0);
                assert_eq!(b.player & b.opponent, 0);
                seen.insert(b);
            }
        }
        // 60 empties is the start, 59 one of its four moves; from 22 empties down, games differ.
        assert!(seen.len() > 60, "{} distinct positions", seen.len());
        let again = random_position(22, &mut gamegraph::rng::SplitMix64(3));
        assert_eq!(again, random_position(22, &mut gamegraph::rng::SplitMix64(3)));
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
}
