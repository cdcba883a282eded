//! # gamegraph
//!
//! Solving two-player, perfect-information games (no chance, no hidden information), for any
//! game: this crate knows no particular game. It has two halves, after the two seed documents:
//!
//! - **Game graphs, solved backwards.** Positions are nodes, moves are arcs, a position without
//!   moves is final and its mover loses the stake `p_f`. [`graph`] stores graphs compactly (CSR,
//!   both directions), [`graph_text`] reads them, [`explore`] builds the graph of any [`Game`],
//!   and [`retrograde`] is the one propagation kernel that labels every position win, lose or draw
//!   in linear time, cycles included. [`solution`] reads its labels in the three value models
//!   (outcome with remoteness, the seed's stakes, zero-sum minimax) and picks optimal moves.
//! - **Minimax and alpha-beta.** [`search`] runs depth-limited minimax or fail-soft alpha-beta on
//!   any game with an [`Evaluate`] heuristic, counting nodes and leaves and recording what was
//!   pruned; [`tree`] applies it to the explicit trees of the seed (`A(B(4 9 6) C(3 7 5) D(8 2 10))`).
//!   [`engine`] is the full-strength version: a shared lockless transposition table ([`tt`]),
//!   principal-variation search, iterative deepening, exact solving by null-window probes and
//!   every core; [`graph_game`] lets it search explicit graphs, which is how it is tested against
//!   retrograde analysis. [`score`] is the one scale all of them share. A game's own solver of
//!   the last moves tags the tables it keeps with the search it works for ([`SolverOwner`]), and
//!   game code that searches inside a node gets that search's [`SearchContext`], so that
//!   searches never share, stop or clear each other's state.
//!
//! Databases ([`database`], and those of the games crate) are written through [`storage`]:
//! atomic writes, SHA-256 digests and manifests, in one place.
//!
//! A new game implements [`Game`] (start, moves, play, stake of final positions) and opts into the
//! other traits of [`game`] as the algorithms it wants need them. See `examples/` for a complete
//! game in a few dozen lines.

pub mod blocked;
pub mod database;
pub mod dense;
pub mod engine;
pub mod explore;
pub mod game;
pub mod graph;
pub mod graph_game;
pub mod graph_text;
pub mod huge_pages;
pub mod prefetch;
pub mod random_graph;
pub mod report;
pub mod retrograde;
pub mod rng;
pub mod score;
pub mod search;
pub mod search_context;
pub mod solution;
pub mod solver_owner;
pub mod storage;
pub mod tree;
pub mod tt;

pub use explore::ExploredGame;
pub use game::{
    DenseIndex, Evaluate, ExactHints, Game, MoveOrdering, Notation, NotationError, Payoff, PositionKey,
    Searchable, Selectivity, Stake, Unmoves,
};
pub use graph::GameGraph;
pub use score::{Outcome, Score, FINAL_SCALE};
pub use search_context::SearchContext;
pub use solution::{Model, Solution};
pub use solver_owner::SolverOwner;
