//! Reproducible random game graphs with cycles, for benchmarks and tests.

use rayon::prelude::*;

use crate::game::Stake;
use crate::graph::{Csr, GameGraph, GraphStream};
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
    RandomGraph::new(nodes, edges, seed).build()
}

/// The graph of [`random_graph`] as a [`GraphStream`]: its moves drawn again at every reading
/// instead of held, so that each process of a cluster keeps only its own part of a graph too
/// large for one machine. Each reading holds 12 bytes a position, never the moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomGraph {
    nodes: usize,
    edges: usize,
    seed: u64,
}

impl RandomGraph {
    /// The graph of `random_graph(nodes, edges, seed)`.
    ///
    /// # Panics
    /// If `nodes` is not below 2^32 - 1 (node ids are 32-bit).
    pub fn new(nodes: usize, edges: usize, seed: u64) -> Self {
        assert!(nodes < u32::MAX as usize, "node ids are 32-bit");
        Self { nodes, edges: if nodes == 0 { 0 } else { edges }, seed }
    }

    /// Number of moves.
    pub fn edges(&self) -> usize {
        self.edges
    }

    /// The whole graph in memory, both directions.
    pub fn build(&self) -> GameGraph {
        let (stakes, inner, degrees) = self.layout(true);
        let mut offsets = vec![0u64; self.nodes + 1];
        for (&u, &d) in inner.iter().zip(&degrees) {
            offsets[u as usize + 1] = d;
        }
        crate::graph::prefix_sum(&mut offsets);
        // Targets in fixed-size chunks, each from its own generator: parallel and still reproducible.
        let mut targets = vec![0u32; self.edges];
        targets.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
            let mut rng = self.chunk_rng(c);
            chunk.iter_mut().for_each(|t| *t = self.target(&mut rng));
        });
        GameGraph::new(Csr::from_parts(offsets, targets), stakes)
    }

    /// Every node's stake (if `with_stakes`; empty otherwise), the nodes that have moves, and
    /// their out-degrees.
    fn layout(&self, with_stakes: bool) -> (Vec<Stake>, Vec<u32>, Vec<u64>) {
        let mut rng = SplitMix64(self.seed);
        let mut stakes = Vec::with_capacity(if with_stakes { self.nodes } else { 0 });
        let mut inner: Vec<u32> = Vec::with_capacity(self.nodes);
        self.draw_stakes(&mut rng, |u, stake| {
            if with_stakes {
                stakes.push(stake.unwrap_or(0));
            }
            if stake.is_none() {
                inner.push(u);
            }
        });
        if inner.is_empty() && self.edges > 0 {
            inner.push(0);
        }
        let degrees = spread(self.edges, &inner, &mut rng);
        (stakes, inner, degrees)
    }

    /// Draws whether each node is final, in node order: `f(u, Some(stake))` for a final,
    /// `f(u, None)` for a node that will get moves.
    fn draw_stakes(&self, rng: &mut SplitMix64, mut f: impl FnMut(u32, Option<Stake>)) {
        for u in 0..self.nodes as u32 {
            if rng.below(FINAL_ONE_IN) == 0 {
                f(u, Some(rng.below(2 * MAX_STAKE + 1) as Stake - MAX_STAKE as Stake));
            } else {
                f(u, None);
            }
        }
    }

    /// The generator of the targets of moves `c * CHUNK..(c + 1) * CHUNK`.
    fn chunk_rng(&self, c: usize) -> SplitMix64 {
        SplitMix64(self.seed ^ (c as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93))
    }

    /// The next move's target.
    fn target(&self, rng: &mut SplitMix64) -> u32 {
        rng.below(self.nodes as u64) as u32
    }
}

impl GraphStream for RandomGraph {
    fn nodes(&self) -> usize {
        self.nodes
    }

    fn for_each_move(&self, f: &mut dyn FnMut(u32, u32)) {
        let (_, inner, degrees) = self.layout(false);
        let mut rng = self.chunk_rng(0);
        let mut drawn = 0usize;
        for (&u, &d) in inner.iter().zip(&degrees) {
            for _ in 0..d {
                if drawn > 0 && drawn.is_multiple_of(CHUNK) {
                    rng = self.chunk_rng(drawn / CHUNK);
                }
                f(u, self.target(&mut rng));
                drawn += 1;
            }
        }
    }

    fn for_each_stake(&self, f: &mut dyn FnMut(u32, Stake)) {
        self.draw_stakes(&mut SplitMix64(self.seed), |u, stake| f(u, stake.unwrap_or(0)));
    }
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

    /// The streamed graph is the built one, move for move and stake for stake, across chunks of
    /// the target generator and for graphs without moves or nodes.
    #[test]
    fn the_stream_reads_the_built_graph() {
        for (nodes, edges, seed) in
            [(1000, 5000, 7), (3000, 3 * CHUNK + 17, 2), (5, 0, 1), (0, 10, 1), (1, 4, 3)]
        {
            let graph = random_graph(nodes, edges, seed);
            let stream = RandomGraph::new(nodes, edges, seed);
            let mut moves = Vec::new();
            stream.for_each_move(&mut |u, v| moves.push((u, v)));
            let mut expected = Vec::new();
            graph.for_each_move(&mut |u, v| expected.push((u, v)));
            assert_eq!(moves, expected, "moves of ({nodes}, {edges}, {seed})");
            assert_eq!(stream.edges(), graph.edges());
            let mut stakes = Vec::new();
            stream.for_each_stake(&mut |u, p| stakes.push((u, p)));
            let mut expected = Vec::new();
            graph.for_each_stake(&mut |u, p| expected.push((u, p)));
            assert_eq!(stakes, expected, "stakes of ({nodes}, {edges}, {seed})");
        }
    }
}
