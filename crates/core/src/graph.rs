//! Explicit game graphs in compressed sparse row (CSR) form, forward and reverse.
//!
//! Node ids are 32-bit, so a graph of ten million positions and a hundred million moves fits in
//! about a gigabyte with both directions stored; the reverse graph is what retrograde analysis
//! walks, the forward graph is what move choice reads.

use rayon::prelude::*;

use crate::game::Stake;
use crate::huge_pages;
use crate::retrograde::{Predecessors, Prefetch};

/// Adjacency lists packed into two arrays: the neighbours of node `u` are
/// `targets[offsets[u]..offsets[u + 1]]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u64>,
    targets: Vec<u32>,
}

impl Csr {
    /// Builds from per-node offsets (`nodes + 1` entries, non-decreasing, starting at 0 and ending
    /// at `targets.len()`) and the concatenated neighbour lists.
    ///
    /// # Panics
    /// If the offsets do not describe `targets` (a bug in the caller, not bad input).
    pub fn from_parts(offsets: Vec<u64>, targets: Vec<u32>) -> Self {
        assert_eq!(offsets.first().copied(), Some(0), "CSR offsets start at 0");
        assert_eq!(offsets.last().copied(), Some(targets.len() as u64), "CSR offsets end at the edge count");
        Self { offsets, targets }
    }

    /// Builds from an edge list `(from, to)` over `nodes` nodes, keeping the input order of each
    /// node's edges.
    pub fn from_edges(nodes: usize, edges: &[(u32, u32)]) -> Self {
        let mut counts = vec![0u64; nodes + 1];
        for &(u, _) in edges {
            counts[u as usize + 1] += 1;
        }
        let mut filler = CsrFiller::from_counts(counts);
        for &(u, v) in edges {
            filler.push(u as usize, v);
        }
        filler.finish()
    }

    /// The same edges reversed: `v -> u` for every `u -> v`, each node's list in increasing `u`.
    ///
    /// Parallel without locks: the target nodes are split into ranges, one task per range, and each
    /// task scans all edges but counts and writes only those into its range, so every task owns a
    /// disjoint slice of the output.
    pub fn transpose(&self) -> Self {
        let nodes = self.nodes();
        let parts = rayon::current_num_threads().max(1);
        let bounds: Vec<usize> = (0..=parts).map(|p| nodes * p / parts).collect();
        // The reverse graph is what retrograde analysis walks at random: huge pages if large.
        let mut offsets = huge_pages::filled(nodes + 1, 0u64);
        split_at_bounds(&mut offsets[1..], &bounds).into_par_iter().enumerate().for_each(|(p, counts)| {
            let lo = bounds[p] as u32;
            for &v in &self.targets {
                if let Some(c) = counts.get_mut(v.wrapping_sub(lo) as usize) {
                    *c += 1;
                }
            }
        });
        prefix_sum(&mut offsets);
        let edge_bounds: Vec<usize> = bounds.iter().map(|&b| offsets[b] as usize).collect();
        let mut targets = huge_pages::filled(self.targets.len(), 0u32);
        split_at_bounds(&mut targets, &edge_bounds).into_par_iter().enumerate().for_each(|(p, out)| {
            let (lo, hi) = (bounds[p], bounds[p + 1]);
            let base = offsets[lo];
            let mut fill: Vec<u64> = offsets[lo..hi].iter().map(|&o| o - base).collect();
            for u in 0..nodes as u32 {
                for &v in self.neighbours(u) {
                    if let Some(slot) = fill.get_mut(v.wrapping_sub(lo as u32) as usize) {
                        out[*slot as usize] = u;
                        *slot += 1;
                    }
                }
            }
        });
        Self { offsets, targets }
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Number of edges.
    pub fn edges(&self) -> usize {
        self.targets.len()
    }

    /// The neighbours of `u`, in stored order.
    #[inline]
    pub fn neighbours(&self, u: u32) -> &[u32] {
        let u = u as usize;
        &self.targets[self.offsets[u] as usize..self.offsets[u + 1] as usize]
    }

    /// Index of the first edge of `u` in the edge array, so per-edge data can sit beside the CSR.
    #[inline]
    pub fn first_edge(&self, u: u32) -> usize {
        self.offsets[u as usize] as usize
    }

    /// The number of neighbours of `u`.
    #[inline]
    pub fn degree(&self, u: u32) -> u32 {
        (self.offsets[u as usize + 1] - self.offsets[u as usize]) as u32
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.offsets.capacity() * 8 + self.targets.capacity() * 4
    }
}

/// Splits `data` into the consecutive slices `bounds[i]..bounds[i + 1]` (`bounds` starts at 0 and
/// ends at `data.len()`, non-decreasing).
fn split_at_bounds<'a, T>(mut data: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut parts = Vec::with_capacity(bounds.len().saturating_sub(1));
    for w in bounds.windows(2) {
        let (head, tail) = std::mem::take(&mut data).split_at_mut(w[1] - w[0]);
        parts.push(head);
        data = tail;
    }
    parts
}

/// A [`Csr`] built in two passes over its edges: from each node's number of neighbours, then
/// given the neighbours, each node's in their order (nodes in any order).
#[derive(Debug)]
pub struct CsrFiller {
    offsets: Vec<u64>,
    /// Where each node's next neighbour goes.
    next: Vec<u64>,
    targets: Vec<u32>,
}

impl CsrFiller {
    /// Starts from `counts`: `nodes + 1` entries, 0 then the number of neighbours of each node.
    pub fn from_counts(mut counts: Vec<u64>) -> Self {
        prefix_sum(&mut counts);
        let nodes = counts.len().saturating_sub(1);
        let next = counts[..nodes].to_vec();
        let targets = vec![0u32; counts.last().copied().unwrap_or(0) as usize];
        Self { offsets: counts, next, targets }
    }

    /// Adds `v` as node `u`'s next neighbour.
    ///
    /// # Panics
    /// If `u` already has as many neighbours as counted (a bug in the caller).
    #[inline]
    pub fn push(&mut self, u: usize, v: u32) {
        let slot = &mut self.next[u];
        assert!(*slot < self.offsets[u + 1], "node {u} has more neighbours than counted");
        self.targets[*slot as usize] = v;
        *slot += 1;
    }

    /// The adjacency, once every counted neighbour has been pushed.
    ///
    /// # Panics
    /// If a node has fewer neighbours than counted (a bug in the caller).
    pub fn finish(self) -> Csr {
        assert!(
            self.next.iter().zip(&self.offsets[1..]).all(|(n, end)| n == end),
            "every counted neighbour pushed"
        );
        Csr { offsets: self.offsets, targets: self.targets }
    }
}

/// Turns counts at `1..` into offsets, in place.
pub(crate) fn prefix_sum(counts: &mut [u64]) {
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
}

/// A game graph: positions `0..nodes()`, the moves between them, and the stake `p_f` of every
/// final position (a position without moves).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameGraph {
    forward: Csr,
    reverse: Csr,
    stakes: Vec<Stake>,
}

impl GameGraph {
    /// Builds from forward adjacency and per-node stakes (the stake of a non-final node is
    /// ignored); computes the reverse graph.
    ///
    /// # Panics
    /// If `stakes` does not have one entry per node.
    pub fn new(forward: Csr, stakes: Vec<Stake>) -> Self {
        assert_eq!(forward.nodes(), stakes.len(), "one stake per node");
        let reverse = forward.transpose();
        Self { forward, reverse, stakes }
    }

    /// Builds from an edge list over `nodes` nodes and the stakes of the final nodes.
    pub fn from_edges(nodes: usize, edges: &[(u32, u32)], stakes: Vec<Stake>) -> Self {
        Self::new(Csr::from_edges(nodes, edges), stakes)
    }

    /// Number of positions.
    pub fn nodes(&self) -> usize {
        self.forward.nodes()
    }

    /// Number of moves.
    pub fn edges(&self) -> usize {
        self.forward.edges()
    }

    /// The positions reached by one move from `u`.
    #[inline]
    pub fn successors(&self, u: u32) -> &[u32] {
        self.forward.neighbours(u)
    }

    /// The positions from which one move reaches `u`.
    #[inline]
    pub fn predecessors(&self, u: u32) -> &[u32] {
        self.reverse.neighbours(u)
    }

    /// The forward adjacency.
    pub fn forward(&self) -> &Csr {
        &self.forward
    }

    /// Whether `u` has no move.
    #[inline]
    pub fn is_final(&self, u: u32) -> bool {
        self.forward.degree(u) == 0
    }

    /// `p_f(u)` for a final position `u`, `None` for the others.
    pub fn stake(&self, u: u32) -> Option<Stake> {
        self.is_final(u).then(|| self.stakes[u as usize])
    }

    /// The final positions with their stakes.
    pub fn finals(&self) -> impl Iterator<Item = (u32, Stake)> + '_ {
        (0..self.nodes() as u32).filter_map(|u| self.stake(u).map(|p| (u, p)))
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.forward.heap_bytes() + self.reverse.heap_bytes() + self.stakes.capacity() * 4
    }
}

/// A game graph read move by move, as often as needed, without being held whole: what a process
/// of a cluster reads to keep only its own workers' part of a graph larger than one machine.
///
/// Every call yields the same nodes, moves and stakes in the same order.
pub trait GraphStream: Sync {
    /// Number of positions (`0..nodes()`).
    fn nodes(&self) -> usize;

    /// Calls `f` with every move `(from, to)`.
    fn for_each_move(&self, f: &mut dyn FnMut(u32, u32));

    /// Calls `f` with every position and its stake (which only counts for a position without
    /// moves, a final).
    fn for_each_stake(&self, f: &mut dyn FnMut(u32, Stake));
}

impl GraphStream for GameGraph {
    fn nodes(&self) -> usize {
        GameGraph::nodes(self)
    }

    fn for_each_move(&self, f: &mut dyn FnMut(u32, u32)) {
        for u in 0..self.nodes() as u32 {
            self.successors(u).iter().for_each(|&v| f(u, v));
        }
    }

    fn for_each_stake(&self, f: &mut dyn FnMut(u32, Stake)) {
        self.stakes.iter().enumerate().for_each(|(u, &p)| f(u as u32, p));
    }
}

impl Predecessors for GameGraph {
    type Node = u32;
    type Scratch = ();

    #[inline]
    fn for_each_predecessor(&self, node: u32, _: &mut (), mut f: impl FnMut(u32)) {
        for &p in self.predecessors(node) {
            f(p);
        }
    }

    #[inline]
    fn prefetch(&self, node: u32, stage: Prefetch) {
        let reverse = &self.reverse;
        let at = node as usize;
        match stage {
            Prefetch::Where => crate::prefetch::prefetch(&reverse.offsets[at]),
            Prefetch::List => {
                if let Some(first) = reverse.targets.get(reverse.offsets[at] as usize) {
                    crate::prefetch::prefetch(first);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_reverses_every_edge() {
        let edges = [(0, 1), (0, 2), (2, 1), (1, 0), (2, 2)];
        let csr = Csr::from_edges(3, &edges);
        assert_eq!(csr.neighbours(0), &[1, 2]);
        let rev = csr.transpose();
        assert_eq!(rev.neighbours(0), &[1]);
        assert_eq!(rev.neighbours(1), &[0, 2]);
        assert_eq!(rev.neighbours(2), &[0, 2]);
        assert_eq!(rev.transpose(), csr);
    }

    #[test]
    fn parallel_transpose_reverses_a_large_random_graph() {
        let g = crate::random_graph::random_graph(5000, 40_000, 3);
        let mut forward: Vec<(u32, u32)> =
            (0..5000u32).flat_map(|u| g.successors(u).iter().map(move |&v| (u, v))).collect();
        let mut backward: Vec<(u32, u32)> =
            (0..5000u32).flat_map(|v| g.predecessors(v).iter().map(move |&u| (u, v))).collect();
        assert!(g.predecessors(17).windows(2).all(|w| w[0] <= w[1]), "lists in increasing order");
        forward.sort_unstable();
        backward.sort_unstable();
        assert_eq!(forward, backward);
    }

    #[test]
    fn finals_are_nodes_without_moves() {
        let g = GameGraph::from_edges(3, &[(0, 1)], vec![9, 4, -2]);
        assert_eq!(g.finals().collect::<Vec<_>>(), vec![(1, 4), (2, -2)]);
        assert_eq!(g.stake(0), None);
    }
}
