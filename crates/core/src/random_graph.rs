//! Reproducible random game graphs with cycles, for benchmarks and tests.

use rayon::prelude::*;

use crate::game::Stake;
use crate::graph::{Csr, GameGraph};
use crate::rng::SplitMix64;

/// One node in this many is final (has no move).
const FINAL_ONE_IN: u64 = 8;

/// Largest stake magnitude given to a final node.
const MAX_STAKE: u64 = 10;

/// A random graph with `nodes` nodes and `edges` moves, the same for the same `seed`.
///
/// About one node in eight is final, with a stake drawn from -10..=10; the others share the moves
/// (each about the mean number, uniformly spread), and every move leads to a node drawn uniformly,
/// so cycles abound.
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
    let degrees = spread(edges, &inner, &mut rng);
    let mut offsets = vec![0u64; nodes + 1];
    for (&u, &d) in inner.iter().zip(&degrees) {
        offsets[u as usize + 1] = d;
    }
    for i in 1..offsets.len() {
        offsets[i] += offsets[i - 1];
    }
    // Targets in fixed-size chunks, each from its own generator: parallel and still reproducible.
    let mut targets = vec![0u32; edges];
    targets.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
        let mut rng = SplitMix64(seed ^ (c as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93));
        for t in chunk {
            *t = rng.below(nodes as u64) as u32;
        }
    });
    GameGraph::new(Csr::from_parts(offsets, targets), stakes)
}

/// Edges generated per independent random stream.
const CHUNK: usize = 1 << 20;

/// Out-degrees for the `inner` nodes summing to `edges`: each drawn uniformly around the mean,
/// then nudged one at a time at random nodes until the sum is exact.
fn spread(edges: usize, inner: &[u32], rng: &mut SplitMix64) -> Vec<u64> {
    if inner.is_empty() {
        return Vec::new();
    }
    let mean = (edges / inner.len()) as u64;
    let mut degrees: Vec<u64> = inner.iter().map(|_| rng.below(2 * mean + 1)).collect();
    let mut total: u64 = degrees.iter().sum();
    let n = inner.len() as u64;
    while total < edges as u64 {
        degrees[rng.below(n) as usize] += 1;
        total += 1;
    }
    while total > edges as u64 {
        let d = &mut degrees[rng.below(n) as usize];
        if *d > 0 {
            *d -= 1;
            total -= 1;
        }
    }
    degrees
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
