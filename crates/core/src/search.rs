//! Depth-limited minimax and alpha-beta over any game, in negamax form.
//!
//! This is the textbook search of the seed document, instrumented: it counts nodes and leaves,
//! records which subtrees alpha-beta pruned and, on request, every step (window on entry, value on
//! exit) so that a teaching front end can replay it. Scores are always from the point of view of
//! the player to move at the node, and a child's score is negated exactly once.

use crate::game::{Evaluate, MoveOrdering};
use crate::search_context::SearchContext;

use crate::score::{INFINITY, MAX_SCORE};

/// Which search to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Visits every node to the depth limit.
    Minimax,
    /// Fail-soft alpha-beta: the same root value, fewer nodes.
    AlphaBeta,
}

impl Algorithm {
    /// `minimax` or `alphabeta`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Minimax => "minimax",
            Algorithm::AlphaBeta => "alphabeta",
        }
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Algorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "minimax" => Ok(Algorithm::Minimax),
            "alphabeta" | "alpha-beta" => Ok(Algorithm::AlphaBeta),
            _ => Err(format!("unknown algorithm '{s}' (expected minimax or alphabeta)")),
        }
    }
}

/// What to search and what to record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    /// Minimax or alpha-beta.
    pub algorithm: Algorithm,
    /// Plies to look ahead; positions at the limit are scored by [`Evaluate::evaluate`].
    pub depth: u32,
    /// Record the move path of every pruned subtree (can be large on real games).
    pub record_pruned: bool,
    /// Record every step of the search (for step-by-step display; large on real games).
    pub trace: bool,
}

impl SearchOptions {
    /// `algorithm` to `depth` plies, recording nothing.
    pub fn new(algorithm: Algorithm, depth: u32) -> Self {
        Self { algorithm, depth, record_pruned: false, trace: false }
    }
}

/// What happened at one step of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    /// The search enters an inner node with the window `alpha`, `beta`.
    Enter,
    /// A leaf (final or at the depth limit) is evaluated to `value`.
    Leaf,
    /// A child of an inner node returned: `value` is the node's best so far, and `alpha`, `beta`
    /// the window its next child gets (alpha-beta narrows it; the seed document's point). A
    /// window that has closed (`alpha >= beta`) cuts the remaining children.
    Update,
    /// An inner node returns `value`; `alpha`, `beta` are its window as it ended.
    Exit,
    /// The subtree at `path` is skipped because the window closed.
    Prune,
}

impl StepKind {
    /// The step's name in reports: `enter`, `leaf`, `update`, `exit` or `prune`.
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Enter => "enter",
            StepKind::Leaf => "leaf",
            StepKind::Update => "update",
            StepKind::Exit => "exit",
            StepKind::Prune => "prune",
        }
    }
}

/// One step of a traced search; scores are for the player to move at `path`'s node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step<M> {
    /// What happened.
    pub kind: StepKind,
    /// The moves from the root to the node concerned.
    pub path: Vec<M>,
    /// The window's lower end ([`-INFINITY`](INFINITY) when open).
    pub alpha: i32,
    /// The window's upper end ([`INFINITY`] when open).
    pub beta: i32,
    /// The value found (leaves and exits).
    pub value: Option<i32>,
}

/// The result of a search and what it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult<M> {
    /// The root's value for the player to move.
    pub value: i32,
    /// The first move that achieves `value`; `None` at a final position or depth 0.
    pub best: Option<M>,
    /// Nodes visited, the root and leaves included.
    pub nodes: u64,
    /// Leaves evaluated (final positions and positions at the depth limit).
    pub leaves: u64,
    /// Nodes whose remaining moves were cut off.
    pub cutoffs: u64,
    /// The move paths of the subtrees that were not searched, when recorded.
    pub pruned: Vec<Vec<M>>,
    /// Every step, when traced.
    pub trace: Vec<Step<M>>,
}

/// Searches `root` as `options` say.
pub fn search<G: Evaluate + MoveOrdering>(
    game: &G,
    root: &G::Position,
    options: SearchOptions,
) -> SearchResult<G::Move> {
    let mut searcher = Searcher {
        game,
        options,
        path: Vec::new(),
        buffers: Vec::new(),
        result: SearchResult {
            value: 0,
            best: None,
            nodes: 0,
            leaves: 0,
            cutoffs: 0,
            pruned: Vec::new(),
            trace: Vec::new(),
        },
    };
    searcher.result.value = searcher.node(root, options.depth, -INFINITY, INFINITY);
    searcher.result
}

struct Searcher<'g, G: Evaluate + MoveOrdering> {
    game: &'g G,
    options: SearchOptions,
    path: Vec<G::Move>,
    /// One move buffer per ply, reused across nodes.
    buffers: Vec<Vec<G::Move>>,
    result: SearchResult<G::Move>,
}

impl<G: Evaluate + MoveOrdering> Searcher<'_, G> {
    fn step(&mut self, kind: StepKind, alpha: i32, beta: i32, value: Option<i32>) {
        if self.options.trace {
            self.result.trace.push(Step { kind, path: self.path.clone(), alpha, beta, value });
        }
    }

    fn node(&mut self, pos: &G::Position, depth: u32, alpha: i32, beta: i32) -> i32 {
        self.result.nodes += 1;
        let ply = self.path.len();
        if self.buffers.len() <= ply {
            self.buffers.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        moves.clear();
        self.game.moves(pos, &mut moves);
        if moves.is_empty() || depth == 0 {
            let value = if moves.is_empty() { self.game.final_score(pos) } else { self.game.evaluate(pos) }
                .clamp(-MAX_SCORE, MAX_SCORE);
            self.result.leaves += 1;
            self.step(StepKind::Leaf, alpha, beta, Some(value));
            self.buffers[ply] = moves;
            return value;
        }
        self.step(StepKind::Enter, alpha, beta, None);
        // Nodes the game's ordering visits are not nodes of this tree: not counted.
        self.game.order_moves(pos, &mut moves, depth, &mut SearchContext::default());
        let prune = self.options.algorithm == Algorithm::AlphaBeta;
        let mut best = -INFINITY;
        for (i, &mv) in moves.iter().enumerate() {
            let child = self.game.play(pos, mv);
            let (a, b) = if prune { (alpha.max(best), beta) } else { (-INFINITY, INFINITY) };
            self.path.push(mv);
            let score = -self.node(&child, depth - 1, -b, -a);
            self.path.pop();
            if score > best {
                best = score;
                if ply == 0 {
                    self.result.best = Some(mv);
                }
            }
            let window = if prune { (alpha.max(best), beta) } else { (-INFINITY, INFINITY) };
            self.step(StepKind::Update, window.0, window.1, Some(best));
            if prune && best >= beta {
                self.cut(&moves[i + 1..], window.0, window.1);
                break;
            }
        }
        let window = if prune { (alpha.max(best), beta) } else { (-INFINITY, INFINITY) };
        self.step(StepKind::Exit, window.0, window.1, Some(best));
        self.buffers[ply] = moves;
        best
    }

    /// Records a cutoff that skips `skipped`.
    fn cut(&mut self, skipped: &[G::Move], alpha: i32, beta: i32) {
        self.result.cutoffs += 1;
        if !(self.options.record_pruned || self.options.trace) {
            return;
        }
        for &mv in skipped {
            self.path.push(mv);
            if self.options.record_pruned {
                self.result.pruned.push(self.path.clone());
            }
            self.step(StepKind::Prune, alpha, beta, None);
            self.path.pop();
        }
    }
}
