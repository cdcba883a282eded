//! Reports of solved trees and graphs as plain serialisable data, shared by the front ends (the
//! command line's `--json`, the web page's API) so that they show the same fields.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::graph_text::NamedGraph;
use crate::solution::Solution;
use crate::tree::{Tree, TreeAnalysis, TreeStep};

/// A node of the tree as drawn: what it is and what the search did there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeReport {
    /// The node's id; the root is 0.
    pub id: u32,
    /// Its path name, as in the steps.
    pub name: String,
    /// Its label, if it has one.
    pub label: Option<String>,
    /// Its children's ids.
    pub children: Vec<u32>,
    /// A leaf's value.
    pub leaf: Option<i32>,
    /// The value the search returned there (a bound where it cut), if it was visited.
    pub returned: Option<i32>,
    /// Whether it lies in a pruned subtree.
    pub pruned: bool,
    /// Whether MAX moves there.
    pub max: bool,
}

/// What a search of a tree found, as `gamegraph tree --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TreeReport {
    /// `minimax` or `alphabeta`.
    pub algo: &'static str,
    /// `natural`, `best` or `worst`.
    pub order: &'static str,
    /// The root's value.
    pub value: i32,
    /// The best root move.
    pub best: Option<String>,
    /// Leaves evaluated.
    pub leaves: u64,
    /// Leaves in the tree.
    pub total_leaves: usize,
    /// Nodes visited.
    pub nodes: u64,
    /// The subtrees not searched, by path name.
    pub pruned: Vec<String>,
    /// Every step, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<TreeStep>>,
    /// Every node, for drawing, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Vec<NodeReport>>,
}

impl TreeReport {
    /// The report of `analysis`, a search of `tree`, with its trace and the tree's nodes if asked.
    pub fn new(tree: &Tree, analysis: &TreeAnalysis, trace: bool, shape: bool) -> Self {
        Self {
            algo: analysis.algorithm.name(),
            order: analysis.order.name(),
            value: analysis.value,
            best: analysis.best.clone(),
            leaves: analysis.leaves,
            total_leaves: tree.leaf_count(),
            nodes: analysis.nodes,
            pruned: analysis.pruned.clone(),
            trace: trace.then(|| analysis.trace.clone()),
            shape: shape.then(|| node_reports(tree, analysis)),
        }
    }
}

fn node_reports(tree: &Tree, analysis: &TreeAnalysis) -> Vec<NodeReport> {
    let nodes = tree.nodes();
    let mut names = vec![String::new(); nodes.len()];
    // Children have larger ids than their parent, so names can be filled in id order.
    for (id, node) in nodes.iter().enumerate() {
        for (i, &child) in node.children.iter().enumerate() {
            let step = tree.move_name(id as u32, i as u32);
            names[child as usize] = if id == 0 { step } else { format!("{}/{step}", names[id]) };
        }
    }
    nodes
        .iter()
        .enumerate()
        .map(|(id, node)| NodeReport {
            id: id as u32,
            name: names[id].clone(),
            label: node.label.clone(),
            children: node.children.clone(),
            leaf: node.value,
            returned: analysis.returned[id],
            pruned: analysis.is_pruned[id],
            max: node.depth % 2 == 0,
        })
        .collect()
}

/// The solved value of one position of a graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PositionReport {
    /// `win`, `lose` or `draw` for the player to move.
    pub outcome: &'static str,
    /// The value in the model (none in the outcome model, none for a draw in the stakes model).
    pub value: Option<i32>,
    /// Moves to the end under optimal play; none for a draw.
    pub remoteness: Option<u32>,
    /// The positions reached by optimal moves.
    pub best: Vec<String>,
}

/// A solved graph, as `gamegraph graph --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GraphReport {
    /// `outcome`, `stakes` or `minimax`.
    pub model: &'static str,
    /// Every position by name.
    pub positions: BTreeMap<String, PositionReport>,
    /// The moves as pairs of names, for drawing, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<Vec<(String, String)>>,
}

impl GraphReport {
    /// The report of `solution`, solved from `graph`, with its moves if asked.
    pub fn new(graph: &NamedGraph, solution: &Solution, edges: bool) -> Self {
        let positions = (0..graph.graph.nodes() as u32)
            .map(|u| (graph.name(u), Self::position(graph, solution, u)))
            .collect();
        let name = |u: u32| graph.name(u);
        let edges = edges.then(|| {
            (0..graph.graph.nodes() as u32)
                .flat_map(|u| graph.graph.successors(u).iter().map(move |&v| (name(u), name(v))))
                .collect()
        });
        Self { model: solution.model().name(), positions, edges }
    }

    /// The report of position `u`.
    pub fn position(graph: &NamedGraph, solution: &Solution, u: u32) -> PositionReport {
        let succ = graph.graph.successors(u);
        let mut best: Vec<String> =
            solution.best_moves(u, succ.iter().copied()).into_iter().map(|i| graph.name(succ[i])).collect();
        best.dedup();
        PositionReport {
            outcome: solution.outcome(u).name(),
            value: solution.value(u),
            remoteness: solution.remoteness(u),
            best,
        }
    }
}
