//! The three value models of a game graph and the solved values they give every position.
//!
//! All three are computed by the one kernel of [`crate::retrograde`]; a model only decides which
//! final positions seed it at which level, and how a label reads as a value.

use std::fmt;
use std::str::FromStr;

use crate::game::Stake;
use crate::graph::GameGraph;
use crate::retrograde::{propagate, DenseStore, Label, LabelStore, NodeId, Predecessors, Seed, Side};
pub use crate::score::Outcome;

/// How positions are valued (docs/models.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Model {
    /// Win / lose / draw with remoteness; a final position is lost, whatever its stake.
    Outcome,
    /// The seed's stake `p`: the winner keeps the win first, then the largest stake; the loser the
    /// smallest. Draws (endless play) have no stake.
    Stakes,
    /// Zero-sum payoff: a final position pays `-p_f` to the player to move, endless play pays 0.
    #[default]
    Minimax,
}

impl Model {
    /// Every model, in documentation order.
    pub const ALL: [Model; 3] = [Model::Outcome, Model::Stakes, Model::Minimax];

    /// The model's name as written on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Model::Outcome => "outcome",
            Model::Stakes => "stakes",
            Model::Minimax => "minimax",
        }
    }

    /// How a final position with stake `p_f` enters the propagation, if at all.
    pub fn seed<N>(self, node: N, stake: Stake) -> Option<Seed<N>> {
        let (side, level) = match self {
            Model::Outcome => (Side::Lose, 0),
            Model::Stakes => (Side::Lose, stake),
            Model::Minimax => match stake {
                0 => return None,
                p if p > 0 => (Side::Lose, p),
                p => (Side::Win, p.checked_neg().unwrap_or(Stake::MAX)),
            },
        };
        Some(Seed::Final { node, side, level })
    }

    /// The seeds of `finals`, sorted as the kernel wants them (decreasing level).
    pub fn seeds<N>(self, finals: impl IntoIterator<Item = (N, Stake)>) -> Vec<Seed<N>> {
        let mut seeds: Vec<Seed<N>> = finals.into_iter().filter_map(|(n, p)| self.seed(n, p)).collect();
        seeds.sort_by_key(|s| std::cmp::Reverse(s.level()));
        seeds
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Model {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Model::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown model '{s}' (expected outcome, stakes or minimax)"))
    }
}

/// The value of every position of a graph under one model.
#[derive(Debug, Clone)]
pub struct Solution<N: NodeId = u32> {
    model: Model,
    store: DenseStore<N>,
}

impl<N: NodeId> Solution<N> {
    /// The solution that `store`, propagated in `model`, holds.
    pub(crate) fn from_store(model: Model, store: DenseStore<N>) -> Self {
        Self { model, store }
    }

    /// The solution whose labels are `labels`, node by node (`None`: a draw), as a kernel run
    /// elsewhere (over a cluster) found them.
    pub fn from_labels(model: Model, labels: impl IntoIterator<Item = Option<Label>>) -> Self {
        let labels: Vec<Option<Label>> = labels.into_iter().collect();
        let store = DenseStore::new(vec![1; labels.len()]);
        for (node, label) in labels.into_iter().enumerate() {
            if let Some(label) = label {
                store.decide(N::from_index(node), label);
            }
        }
        Self { model, store }
    }

    /// The model solved.
    pub fn model(&self) -> Model {
        self.model
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    /// The kernel's label, `None` for positions left undecided (draws).
    pub fn label(&self, node: N) -> Option<Label> {
        self.store.label(node)
    }

    /// Win, lose or draw for the player to move.
    pub fn outcome(&self, node: N) -> Outcome {
        match self.label(node) {
            Some(Label { side: Side::Win, .. }) => Outcome::Win,
            Some(Label { side: Side::Lose, .. }) => Outcome::Lose,
            None => Outcome::Draw,
        }
    }

    /// The value: `None` in the outcome model, the stake `p` in the stakes model (`None` for a
    /// draw), the payoff for the player to move in the minimax model (0 for a draw).
    pub fn value(&self, node: N) -> Option<Stake> {
        let label = self.label(node);
        match self.model {
            Model::Outcome => None,
            Model::Stakes => label.map(|l| l.level),
            Model::Minimax => Some(label.map_or(0, |l| match l.side {
                Side::Win => l.level,
                Side::Lose => -l.level,
            })),
        }
    }

    /// Moves to the end with optimal play (fastest win, slowest loss); `None` for a draw.
    pub fn remoteness(&self, node: N) -> Option<u32> {
        self.label(node).map(|l| l.remoteness)
    }

    /// Whether moving from `node` to `child` is optimal: it keeps the value and, for a decided
    /// position, brings the end one move closer (so a winner cannot cycle forever).
    pub fn is_best_move(&self, node: N, child: N) -> bool {
        is_best_move(self.label(node), self.label(child))
    }

    /// The indices, in `children` order, of the optimal moves of `node`.
    pub fn best_moves(&self, node: N, children: impl IntoIterator<Item = N>) -> Vec<usize> {
        children
            .into_iter()
            .enumerate()
            .filter(|&(_, c)| self.is_best_move(node, c))
            .map(|(i, _)| i)
            .collect()
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.store.heap_bytes()
    }
}

/// Whether a move from a position labelled `node` to one labelled `child` is optimal (`None` is
/// undecided, a draw): it keeps the value and, from a decided position, brings the end one move
/// closer, so the winner wins as fast and the loser loses as slowly as possible, and a winner can
/// never be led round a cycle.
pub fn is_best_move(node: Option<Label>, child: Option<Label>) -> bool {
    match (node, child) {
        (None, None) => true,
        (Some(s), Some(c)) => {
            c.side == s.side.opposite() && c.level == s.level && c.remoteness + 1 == s.remoteness
        }
        _ => false,
    }
}

/// Solves `graph` under `model` with its stored reverse edges.
pub fn solve_graph(graph: &GameGraph, model: Model) -> Solution<u32> {
    let moves = (0..graph.nodes() as u32).map(|u| graph.forward().degree(u)).collect();
    solve_with(graph, moves, graph.finals(), model)
}

/// Solves a graph given only its predecessors, every node's number of moves (0 for finals and for
/// identifiers that are not positions) and the stakes of the finals.
pub fn solve_with<P: Predecessors>(
    preds: &P,
    moves: Vec<u32>,
    finals: impl IntoIterator<Item = (P::Node, Stake)>,
    model: Model,
) -> Solution<P::Node> {
    let store = DenseStore::new(moves);
    propagate(preds, &store, model.seeds(finals));
    Solution { model, store }
}
