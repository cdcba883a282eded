//! Random graphs shared by the property tests.

use gamegraph::graph::GameGraph;
use gamegraph::Stake;
use proptest::prelude::*;

/// Adjacency lists and stakes.
pub type PlainGraph = (Vec<Vec<usize>>, Vec<Stake>);

/// The graph of adjacency lists `succ` with the stakes of its final nodes.
pub fn graph(succ: &[Vec<usize>], stakes: &[Stake]) -> GameGraph {
    let edges: Vec<(u32, u32)> =
        succ.iter().enumerate().flat_map(|(u, vs)| vs.iter().map(move |&v| (u as u32, v as u32))).collect();
    GameGraph::from_edges(succ.len(), &edges, stakes.to_vec())
}

/// Graphs with cycles: up to `max_nodes` nodes, up to three moves each, stakes in -4..=4.
pub fn cyclic(max_nodes: usize) -> impl Strategy<Value = PlainGraph> {
    (1..max_nodes).prop_flat_map(|n| {
        (prop::collection::vec(prop::collection::vec(0..n, 0..4), n), prop::collection::vec(-4i32..5, n))
    })
}

/// Acyclic graphs (moves only go to higher ids): up to `max_nodes` nodes, stakes in -6..=6.
pub fn acyclic(max_nodes: usize) -> impl Strategy<Value = PlainGraph> {
    acyclic_with(max_nodes, 3)
}

/// [`acyclic`] with up to `max_moves` moves per position.
#[allow(dead_code)] // not every test file uses it
pub fn acyclic_with(max_nodes: usize, max_moves: usize) -> impl Strategy<Value = PlainGraph> {
    (1..max_nodes).prop_flat_map(move |n| {
        let succ =
            prop::collection::vec(prop::collection::vec(any::<prop::sample::Index>(), 0..=max_moves), n);
        (succ, prop::collection::vec(-6i32..7, n)).prop_map(move |(succ, stakes)| {
            let succ = succ
                .into_iter()
                .enumerate()
                .map(|(u, targets)| {
                    let later = n - u - 1;
                    if later == 0 {
                        Vec::new()
                    } else {
                        targets.into_iter().map(|i| u + 1 + i.index(later)).collect()
                    }
                })
                .collect();
            (succ, stakes)
        })
    })
}
