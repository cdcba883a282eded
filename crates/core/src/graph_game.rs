//! An explicit game graph seen as a [`Game`], so that search (minimax, alpha-beta, the engine)
//! runs on graph files and can be checked against retrograde analysis of the same graph.

use crate::game::{Evaluate, ExactHints, Game, MoveOrdering, Payoff, PositionKey, Selectivity, Stake};
use crate::graph::GameGraph;

/// Positions are node ids, a move is the node it leads to; scores are the minimax payoffs
/// (`-p_f` at a final node, 0 for endless play), unscaled.
#[derive(Debug, Clone, Copy)]
pub struct GraphGame<'g> {
    graph: &'g GameGraph,
    start: u32,
}

impl<'g> GraphGame<'g> {
    /// The game on `graph` starting at node `start`.
    pub fn new(graph: &'g GameGraph, start: u32) -> Self {
        Self { graph, start }
    }
}

impl Game for GraphGame<'_> {
    type Position = u32;
    type Move = u32;

    fn start(&self) -> u32 {
        self.start
    }

    fn moves(&self, pos: &u32, moves: &mut Vec<u32>) {
        moves.extend_from_slice(self.graph.successors(*pos));
    }

    fn play(&self, _pos: &u32, mv: u32) -> u32 {
        mv
    }

    fn final_loss(&self, pos: &u32) -> Stake {
        self.graph.stake(*pos).unwrap_or(0)
    }

    const CYCLES: bool = true;
}

impl Payoff for GraphGame<'_> {
    /// Scores are the stakes themselves, so that values read like retrograde minimax values.
    fn payoff_score(&self, loss: Stake) -> i32 {
        -loss
    }
}

impl Evaluate for GraphGame<'_> {
    /// No heuristic: depth-limited searches see only what they can prove.
    fn evaluate(&self, _pos: &u32) -> i32 {
        0
    }
}

impl MoveOrdering for GraphGame<'_> {}
impl Selectivity for GraphGame<'_> {}
impl ExactHints for GraphGame<'_> {}

impl PositionKey for GraphGame<'_> {
    fn key(&self, pos: &u32) -> u64 {
        u64::from(*pos)
    }
}
