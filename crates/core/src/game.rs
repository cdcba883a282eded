//! The [`Game`] trait that every game implements, and the opt-in traits that faster algorithms use.
//!
//! A game is described from the point of view of the player to move: a position with no legal move
//! is *final*, and the player to move there loses `p_f` ([`Game::final_loss`]). Everything the
//! solvers need beyond that (hashing, un-moves, a dense index, a heuristic evaluation, hints for
//! exact solving, a text notation) is a separate trait, so a new game starts with the few methods of [`Game`]
//! and adds the others when an algorithm asks for them.

use std::fmt::Debug;
use std::hash::Hash;

use crate::score::{Score, FINAL_SCALE, MAX_SCORE};
use crate::search_context::SearchContext;

/// Loss of the player to move at a final position (`p_f` in the seed documents); any sign.
pub type Stake = i32;

/// A two-player, perfect-information game without chance, in which the players alternate.
///
/// Implementations are values (not just types) so that one game can carry its parameters,
/// such as a board size or a rule variant.
pub trait Game {
    /// A position, including whatever decides the player to move. Plain data, so that searches
    /// can share positions between threads.
    type Position: Clone + Eq + Hash + Debug + Send + Sync;
    /// A move, small and cheap to copy.
    type Move: Copy + Eq + Debug + Send + Sync;

    /// The position the game starts from.
    fn start(&self) -> Self::Position;

    /// Appends the legal moves of `pos` to `moves` (which the caller has cleared); none at a final
    /// position. The buffer is the caller's so that searches do not allocate per node.
    fn moves(&self, pos: &Self::Position, moves: &mut Vec<Self::Move>);

    /// The position after `mv`, a legal move of `pos`.
    fn play(&self, pos: &Self::Position, mv: Self::Move) -> Self::Position;

    /// How much the player to move loses at a final position `pos` (`p_f`).
    ///
    /// The default, 1, is the normal-play convention: the player who cannot move has lost.
    /// Return 0 for a drawn final position and a negative number where the player to move wins.
    fn final_loss(&self, _pos: &Self::Position) -> Stake {
        1
    }

    /// Whether a position can recur during a game (the game graph has cycles). A repeated
    /// position then ends the game (see [`Game::repetition_loss`]); searches track their path and
    /// keep every result that depended on it out of their tables. Off by default: tracking the
    /// path costs time.
    const CYCLES: bool = false;

    /// How much the player to move loses when `pos` repeats a position of the game (only asked
    /// when [`Game::CYCLES`] is set). The default, 0, is endless play: a draw.
    fn repetition_loss(&self, _pos: &Self::Position) -> Stake {
        0
    }
}

/// A text notation for positions and moves, used by the command line, the web page and databases.
pub trait Notation: Game {
    /// The game's name on the command line (`tictactoe`, `nim`, ...).
    fn name(&self) -> String;

    /// Reads a position, with an error naming the offending column.
    fn parse_position(&self, text: &str) -> Result<Self::Position, NotationError>;

    /// Writes a position so that [`Notation::parse_position`] reads it back.
    fn format_position(&self, pos: &Self::Position) -> String;

    /// Reads a legal move of `pos`.
    fn parse_move(&self, pos: &Self::Position, text: &str) -> Result<Self::Move, NotationError>;

    /// Writes a move of `pos` so that [`Notation::parse_move`] reads it back.
    fn format_move(&self, pos: &Self::Position, mv: Self::Move) -> String;

    /// The move as players write it, where that differs from the notation moves are read in
    /// (chess: standard algebraic notation, `Nf3`, beside UCI's `g1f3`); `None` by default.
    fn display_move(&self, _pos: &Self::Position, _mv: Self::Move) -> Option<String> {
        None
    }

    /// The notation of `pos` as a user wrote it, `text` (which reads as `pos`), where it should
    /// differ from [`Notation::format_position`]: games whose notation is the moves played
    /// (Connect 4, where many sequences reach one board) keep the user's sequence, so that the
    /// line followed stays as typed. `None` by default: the game's own notation.
    fn format_given(&self, _text: &str, _pos: &Self::Position) -> Option<String> {
        None
    }

    /// The notation of the position after `mv` from `pos`, written `text` by the user, where it
    /// should differ from the child's own notation: games whose notation is the moves played
    /// append the move to the user's sequence (see [`Notation::format_given`]). `None` by
    /// default.
    fn format_after(&self, _text: &str, _pos: &Self::Position, _mv: Self::Move) -> Option<String> {
        None
    }

    /// A human-friendly picture of the position for a terminal (several lines allowed).
    fn render(&self, pos: &Self::Position) -> String {
        self.format_position(pos)
    }

    /// The move slots to show when every move of a position is analysed, in display order: each
    /// legal move by default. Games with a fixed set of slots (the columns of Connect 4) list them
    /// all, with `None` for the ones that cannot be played now.
    fn move_slots(&self, pos: &Self::Position) -> Vec<(String, Option<Self::Move>)> {
        let mut moves = Vec::new();
        self.moves(pos, &mut moves);
        moves.into_iter().map(|mv| (self.format_move(pos, mv), Some(mv))).collect()
    }
}

/// A position or move that cannot be read: what is wrong and at which character (1-based column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct NotationError {
    /// 1-based column of the first offending character.
    pub column: usize,
    /// What is wrong there.
    pub message: String,
}

impl NotationError {
    /// An error at `column` (1-based).
    pub fn new(column: usize, message: impl Into<String>) -> Self {
        Self { column, message: message.into() }
    }
}

/// Positions mapped one-to-one onto `0..len()`, so that solvers can keep per-position data in flat
/// arrays instead of hash tables.
pub trait DenseIndex: Game {
    /// Size of the index space; some indices may not be positions.
    fn index_len(&self) -> u64;
    /// The index of `pos`.
    fn index(&self, pos: &Self::Position) -> u64;
    /// The position at `index`, or `None` when that index is not a position of the game.
    fn position(&self, index: u64) -> Option<Self::Position>;
}

/// Predecessors of a position: the positions from which one move leads to it. Retrograde analysis
/// over a [`DenseIndex`] walks the graph backwards with these instead of a stored reverse graph.
pub trait Unmoves: Game {
    /// Appends every position `q` with a legal move `q -> pos` to `out` (once per such move).
    fn unmoves(&self, pos: &Self::Position, out: &mut Vec<Self::Position>);
}

/// A 64-bit key for transposition tables, cheaper than hashing the whole position.
pub trait PositionKey: Game {
    /// A key that differs between distinct positions with high probability.
    fn key(&self, pos: &Self::Position) -> u64;
}

/// How the end of the game scores on the scale of the game's searches: a real win or loss
/// against the heuristic values of [`Evaluate`]. Every method has a default, so
/// `impl Payoff for MyGame {}` is a correct start for a game scored in wins and losses.
pub trait Payoff: Game {
    /// The score of the game ending with the player to move losing `loss` (a final position's
    /// `p_f`, or a repetition's). By default the payoff `-loss` scaled by [`FINAL_SCALE`], so
    /// that a real win or loss outweighs any heuristic; games whose evaluation is in the units
    /// of the payoff (stones, discs) return `-loss`.
    fn payoff_score(&self, loss: Stake) -> Score {
        loss.saturating_mul(-FINAL_SCALE).clamp(-MAX_SCORE, MAX_SCORE)
    }

    /// Exact score of a final position for the player to move: [`Payoff::payoff_score`] of its
    /// [`Game::final_loss`].
    fn final_score(&self, pos: &Self::Position) -> Score {
        self.payoff_score(self.final_loss(pos))
    }

    /// The score of a position repeated on the current path, which ends the game (only asked
    /// when [`Game::CYCLES`] is set): [`Payoff::payoff_score`] of its [`Game::repetition_loss`].
    fn repetition_score(&self, pos: &Self::Position) -> Score {
        self.payoff_score(self.repetition_loss(pos))
    }
}

/// The heuristic that a depth-limited search trusts where its depth runs out.
pub trait Evaluate: Payoff {
    /// Heuristic value of a non-final position for the player to move (larger is better), on
    /// the scale of [`Payoff::payoff_score`].
    fn evaluate(&self, pos: &Self::Position) -> Score;
}

/// How a game puts its likely best moves first, which decides how much alpha-beta prunes. Every
/// method has a default that keeps the generation order, so `impl MoveOrdering for MyGame {}` is
/// a correct start.
pub trait MoveOrdering: Game {
    /// Reorders `moves` so that the likely best come first; the default keeps the generation order.
    /// `depth` is how many plies the caller will search below (`u32::MAX`: to the end of the
    /// game), so that a game can spend more on ordering where the subtree is big enough to repay it.
    /// A game that searches on its own to order (a shallow search per move) counts its nodes and
    /// watches for a stop through `context`.
    fn order_moves(
        &self,
        _pos: &Self::Position,
        _moves: &mut [Self::Move],
        _depth: u32,
        _context: &mut SearchContext<'_>,
    ) {
    }

    /// Whether the game orders moves by the positions they lead to: then a search plays every
    /// move once, before ordering, and orders the children with [`MoveOrdering::order_children`]
    /// instead of [`MoveOrdering::order_moves`], so that no child is played twice.
    const ORDERS_BY_CHILDREN: bool = false;

    /// Reorders `children` as [`MoveOrdering::order_moves`] orders their moves; `child` gives
    /// each one's move of `pos` and the position it leads to (a caller keeps more with them, such
    /// as table keys). Only called where [`MoveOrdering::ORDERS_BY_CHILDREN`] is set. The default
    /// orders the moves and puts the children in their order.
    fn order_children<C>(
        &self,
        pos: &Self::Position,
        children: &mut [C],
        child: impl Fn(&C) -> (Self::Move, &Self::Position),
        depth: u32,
        context: &mut SearchContext<'_>,
    ) {
        let mut moves: Vec<Self::Move> = children.iter().map(|c| child(c).0).collect();
        self.order_moves(pos, &mut moves, depth, context);
        children.sort_by_key(|c| moves.iter().position(|&m| m == child(c).0));
    }

    /// A small number identifying a move across positions (a cell, a column), for the history
    /// heuristic; `None` (the default) disables history for this game.
    fn move_id(&self, _mv: Self::Move) -> Option<u16> {
        None
    }
}

/// Where a depth-limited search looks deeper or shallower than its nominal depth: quiescence,
/// extensions, null moves, reductions. Every method has a default that turns its technique off,
/// so `impl Selectivity for MyGame {}` is a plain full-width search; exact solves use none of it.
pub trait Selectivity: Game {
    /// The moves still worth searching where the depth runs out, before the evaluation can be
    /// trusted (quiescence search): keeps those of `moves` (every move of `pos` on entry) in the
    /// order to try them, and returns whether the player to move may instead stand on the
    /// evaluation (not in check in chess, where every move stays). The default keeps none: the
    /// evaluation is taken as it is, as in a plain depth-limited search.
    fn horizon_moves(&self, _pos: &Self::Position, moves: &mut Vec<Self::Move>) -> bool {
        moves.clear();
        true
    }

    /// Whether a move into `pos` is searched one ply deeper than the others (a check in chess),
    /// so that forcing sequences are not cut at the horizon; false by default.
    fn extends(&self, _pos: &Self::Position) -> bool {
        false
    }

    /// The position after the player to move passes, where a pass is safe to assume no better
    /// than the best move (null-move pruning): not in check, and not where zugzwang is likely.
    /// `None`, the default, turns null-move pruning off for the game.
    fn null_move(&self, _pos: &Self::Position) -> Option<Self::Position> {
        None
    }

    /// Whether `mv`, a move of `pos`, is quiet enough to be searched less deep when it comes
    /// late in the order (late move reductions): one that changes little and is rarely best
    /// when the moves ordered first are not (not a capture, a promotion or an escape from check
    /// in chess). False by default: the game's moves are never reduced.
    fn is_quiet(&self, _pos: &Self::Position, _mv: Self::Move) -> bool {
        false
    }
}

/// What an exact solve (a search to the end of the game) can use beyond the heuristic: values the
/// game knows without search, the moves worth searching, bounds and a first guess. Every method
/// has a default that assumes nothing, so `impl ExactHints for MyGame {}` is a correct start.
pub trait ExactHints: Payoff + MoveOrdering {
    /// The exact score of a non-final position when it is known without search (a win on the
    /// next move, a database entry); `None` by default. Exact searches trust it as a leaf value.
    fn immediate_score(&self, _pos: &Self::Position) -> Option<Score> {
        None
    }

    /// Whether the game solves `pos` faster than the engine (a specialised solver for the last
    /// few moves): the engine then looks `pos` up in its table, calls
    /// [`ExactHints::solve_directly`] if the table does not settle it, and stores the result
    /// there. False by default.
    fn solves_directly(&self, _pos: &Self::Position) -> bool {
        false
    }

    /// The exact fail-soft score of `pos` within the window `alpha`, `beta`, asked where
    /// [`ExactHints::solves_directly`] says so; `None` (the default) to let the engine search.
    /// A result at or below `alpha` is an upper bound, at or above `beta` a lower bound. The
    /// positions the game visits are counted in `context`, so that search statistics count them.
    ///
    /// What the solver keeps between calls (its table) serves [`SearchContext::owner`] alone: a
    /// table kept for another owner, or for an older generation of this one (the engine was
    /// cleared since), holds nothing that counts.
    fn solve_directly(
        &self,
        _pos: &Self::Position,
        _alpha: Score,
        _beta: Score,
        _context: &mut SearchContext<'_>,
    ) -> Option<Score> {
        None
    }

    /// A guess of the exact score of `pos`, on the scale of [`Payoff::final_score`]: an exact
    /// solve probes it first and then steps away from it, instead of bisecting the whole score
    /// range. `None` (the default) to bisect. The closer the guess, the fewer probes (each a
    /// search of the whole tree) the solve needs.
    fn estimate(&self, _pos: &Self::Position, _context: &mut SearchContext<'_>) -> Option<Score> {
        None
    }

    /// Prepares a node of an exact search: returns its exact score when known at once, or else
    /// appends the moves the search needs to consider (none at a final position).
    ///
    /// The engine calls it on the root only after [`ExactHints::immediate_score`] returned `None`,
    /// and on positions reached by a move this method returned, so a game may rely on what its
    /// own move choice guarantees (no immediate win for the opponent after a non-losing move, say)
    /// and leave out moves that provably cannot be better than one it keeps. By default: the
    /// immediate score, else every move.
    fn search_moves(&self, pos: &Self::Position, moves: &mut Vec<Self::Move>) -> Option<Score> {
        if let Some(score) = self.immediate_score(pos) {
            return Some(score);
        }
        self.moves(pos, moves);
        None
    }

    /// A probable bound on the exact score of `pos` outside the window `(alpha, beta)`, from a
    /// cheap shallow search (ProbCut): `Some(beta)` if the score is very likely at least `beta`,
    /// `Some(alpha)` if very likely at most `alpha`, else `None` (the default, always). An exact
    /// solve first runs a selective pass that trusts these guesses, to fill its table with good
    /// moves and find a close estimate cheaply, then the exact pass, which never uses them.
    fn probable_bound(
        &self,
        _pos: &Self::Position,
        _alpha: Score,
        _beta: Score,
        _context: &mut SearchContext<'_>,
    ) -> Option<Score> {
        None
    }

    /// Bounds `(low, high)` on the exact score of a position for which
    /// [`ExactHints::search_moves`] returned moves, searched within the window `(alpha, beta)`:
    /// a bound outside the window settles the node at once, and one inside narrows the window.
    /// A bound that costs time to compute may be left at the end of the score range where it
    /// cannot fall outside the window. By default the whole score range.
    fn score_bounds(&self, _pos: &Self::Position, _alpha: Score, _beta: Score) -> (Score, Score) {
        (-MAX_SCORE, MAX_SCORE)
    }
}

/// Everything the search engine ([`crate::engine::Engine`]) asks of a game: its heuristic and
/// payoff, move ordering, selectivity, exact-solve hints and position keys. Implemented for every
/// game that has them all; a game without a use for one implements it empty (`impl Selectivity
/// for MyGame {}`), which turns its techniques off.
pub trait Searchable: Evaluate + MoveOrdering + Selectivity + ExactHints + PositionKey {}

impl<G: Evaluate + MoveOrdering + Selectivity + ExactHints + PositionKey> Searchable for G {}
