//! A dense layer ([`gamegraph::dense::DenseLayer`]) solved over a cluster, as
//! [`gamegraph::dense::solve_layer`] solves it on one machine: each worker takes a range of the
//! indices, counts their moves and finds their exits in its own forward pass, and the kernel
//! runs from the finals and exits; each worker ends with the values of its range.

use std::sync::Arc;

use gamegraph::dense::{DenseLayer, Forward};
use gamegraph::retrograde::{DenseStore, LabelStore, Seed, Side};
use gamegraph::solution::Model;
use gamegraph::Stake;
use timely::worker::Worker;

use crate::kernel::{all_levels, propagate, Node, Ownership, Share, Start};

/// Indices walked by one call of the layer's forward pass.
const CHUNK: usize = 16_384;

/// Solves `layer` in the minimax model on this worker and the others (every worker calls it
/// with the same layer): returns the first index of this worker's range and the labels of its
/// indices, in order.
pub fn solve_layer<L>(worker: &mut Worker, layer: Arc<L>) -> (u64, DenseStore<u64>)
where
    L: DenseLayer + Send + Sync + 'static,
{
    let (index, peers) = (worker.index(), worker.peers());
    let ownership = Ownership::ranges(layer.len(), peers);
    let start = ownership.global(index, 0).min(layer.len());
    let end = ownership.global(index + 1, 0).min(layer.len());
    let mut moves = Vec::with_capacity((end - start) as usize);
    // (level, node, start), levels as stakes until all workers agree on their order.
    let mut starts: Vec<(Stake, Node, Start)> = Vec::new();
    let mut facts = vec![Forward::Absent; CHUNK];
    let mut at = start;
    while at < end {
        let n = CHUNK.min((end - at) as usize);
        layer.forward(at, &mut facts[..n]);
        for (i, fact) in facts[..n].iter().enumerate() {
            let node = at + i as u64;
            let count = match *fact {
                Forward::Absent => 0,
                Forward::Final(stake) => {
                    if let Some(Seed::Final { side, level, .. }) = Model::Minimax.seed(node, stake) {
                        starts.push((level, node, Start::Final(side)));
                    }
                    0
                }
                Forward::Moves { inside, exit } => {
                    if let Some(exit) = exit.filter(|e| e.value != 0) {
                        // An exit worth something to the mover reaches a position its opponent loses.
                        let child = if exit.value > 0 { Side::Lose } else { Side::Win };
                        let start = Start::Exit { child, remoteness: exit.remoteness };
                        starts.push((exit.value.abs(), node, start));
                    }
                    inside + u32::from(exit.is_some())
                }
            };
            moves.push(count);
        }
        at += n as u64;
    }
    let mut mine: Vec<Stake> = starts.iter().map(|s| s.0).collect();
    mine.sort_unstable();
    mine.dedup();
    let levels = all_levels(worker, mine);
    let starts = starts
        .into_iter()
        .map(|(level, node, start)| {
            let k = levels.iter().position(|&l| l == level).expect("every level is agreed");
            (k, node, start)
        })
        .collect();
    let predecessors = move |local: usize, f: &mut dyn FnMut(Node)| {
        let mut scratch = L::Scratch::default();
        layer.predecessors(ownership.global(index, local), &mut scratch, &mut *f);
    };
    (start, propagate(worker, Share { index, ownership, moves, starts, predecessors }, &levels))
}

/// The value of each position of `store` for the player to move, a signed byte each (0 for
/// endless play), as [`gamegraph::dense::ByteStore::into_values`] gives them.
pub fn values(store: &DenseStore<u64>) -> Vec<u8> {
    (0..store.len())
        .map(|local| match store.label(local as u64) {
            None => 0,
            Some(label) if label.side == Side::Win => label.level as i8 as u8,
            Some(label) => (-label.level) as i8 as u8,
        })
        .collect()
}
