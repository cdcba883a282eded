//! Reproducible random game graphs with cycles, for benchmarks and tests.

use crate::game::Stake;
use crate::graph::{Csr, GameGraph};
use crate::rng::SplitMix64;

/// One node in this many is final (has no move).
const FINAL_ONE_IN: u64 = 8;

/// Largest stake magnitude given to a final node.
const MAX_STAKE: u64 = 10;

/// A random graph with `nodes` nodes and `edges` moves, the same for the same `seed`.
///
/// About one node in eight is final, with a stake drawn from -10..=10; every move goes from a
/// non-final node, drawn uniformly, to any node, drawn uniformly, so cycles abound.
pub fn random_graph(nodes: usize, edges: usize, seed: u64) -> GameGraph {
    assert!(nodes < u32::MAX as usize, "node ids are 32-bit");
    if nodes == 0 {
        return GameGraph::new(Csr::from_parts(vec![0], Vec::new()), Vec::new());
    }
    let mut rng = SplitMix64(seed);
    let mut stakes: Vec<Stake> = vec![0; nodes];
    let mut inner: Vec<u32> = Vec::with_capacity(nodes);
    for (u, stake) in stakes.iter_mut().enumerate() {
        if rng.below(FINAL_ONE_IN) == 0 {
            *stake = rng.below(2 * MAX_STAKE + 1) as Stake - MAX_STAKE as Stake;
        } else {
            inner.push(u as u32);
        }
    }
    if inner.is_empty() && edges > 0 {
        inner.push(0);
    }
    let mut offsets = vec![0u64; nodes + 1];
    for _ in 0..edges {
        let u = inner[rng.below(inner.len() as u64) as usize];
        offsets[u as usize + 1] += 1;
    }
    for i in 1..offsets.len() {
        offsets[i] += offsets[i - 1];
    }
    let targets: Vec<u32> = (0..edges).map(|_| rng.below(nodes as u64) as u32).collect();
    GameGraph::new(Csr::from_parts(offsets, targets), stakes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_graph() {
        let a = random_graph(1000, 5000, 7);
        assert_eq!(a, random_graph(1000, 5000, 7));
        assert_ne!(a, random_graph(1000, 5000, 8));
        assert_eq!((a.nodes(), a.edges()), (1000, 5000));
        let finals = a.finals().count();
        assert!((60..200).contains(&finals), "{finals} finals");
    }
}
