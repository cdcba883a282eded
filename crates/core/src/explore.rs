//! Building the explicit graph of a [`Game`] by visiting every position reachable from a root.
//!
//! Breadth-first with a hash map from position to id: ids are given in discovery order, which is
//! also the order positions are expanded in, so the forward CSR is written in one pass with no
//! recursion (deep games cannot overflow the stack).

use std::collections::HashMap;

use crate::game::Game;
use crate::graph::{Csr, GameGraph};
use crate::solution::{solve_graph, Model, Solution};

/// More positions are reachable than the caller allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("more than {limit} positions are reachable; raise the limit or use a game-specific solver")]
pub struct TooManyPositions {
    /// The limit that was exceeded.
    pub limit: usize,
}

/// The reachable part of a game as a graph, with the position and move behind every node and edge.
#[derive(Debug, Clone)]
pub struct ExploredGame<G: Game> {
    /// Node `i` is `positions[i]`; node 0 is the root.
    pub positions: Vec<G::Position>,
    /// The moves, in the order the game generates them, and the stakes of final positions.
    pub graph: GameGraph,
    /// The move behind each edge, indexed like the forward CSR's edge array.
    pub moves: Vec<G::Move>,
    ids: HashMap<G::Position, u32>,
}

impl<G: Game> ExploredGame<G> {
    /// Visits every position reachable from `root`, failing once more than `limit` are found.
    pub fn new(game: &G, root: G::Position, limit: usize) -> Result<Self, TooManyPositions> {
        let mut ids: HashMap<G::Position, u32> = HashMap::new();
        let mut positions = vec![root.clone()];
        ids.insert(root, 0);
        let mut offsets = vec![0u64];
        let mut targets: Vec<u32> = Vec::new();
        let mut moves: Vec<G::Move> = Vec::new();
        let mut stakes = Vec::new();
        let mut buffer = Vec::new();
        let mut next = 0;
        while next < positions.len() {
            let pos = positions[next].clone();
            next += 1;
            buffer.clear();
            game.moves(&pos, &mut buffer);
            stakes.push(if buffer.is_empty() { game.final_loss(&pos) } else { 0 });
            for &mv in &buffer {
                let child = game.play(&pos, mv);
                let id = match ids.get(&child) {
                    Some(&id) => id,
                    None => {
                        if positions.len() >= limit {
                            return Err(TooManyPositions { limit });
                        }
                        let id = positions.len() as u32;
                        ids.insert(child.clone(), id);
                        positions.push(child);
                        id
                    }
                };
                targets.push(id);
                moves.push(mv);
            }
            offsets.push(targets.len() as u64);
        }
        let graph = GameGraph::new(Csr::from_parts(offsets, targets), stakes);
        Ok(Self { positions, graph, moves, ids })
    }

    /// The id of a reachable position.
    pub fn id(&self, pos: &G::Position) -> Option<u32> {
        self.ids.get(pos).copied()
    }

    /// The moves of node `u` with the nodes they lead to.
    pub fn edges(&self, u: u32) -> impl Iterator<Item = (G::Move, u32)> + '_ {
        let first = self.graph.forward().first_edge(u);
        self.graph.successors(u).iter().enumerate().map(move |(i, &v)| (self.moves[first + i], v))
    }

    /// Solves every explored position under `model`.
    pub fn solve(&self, model: Model) -> Solution<u32> {
        solve_graph(&self.graph, model)
    }
}
