//! A dense layer ([`gamegraph::dense::DenseLayer`]) solved over a cluster, as
//! [`gamegraph::dense::solve_layer`] solves it on one machine: each worker takes a range of the
//! indices, counts their moves and finds their exits in its own forward pass, and the kernel
//! runs from the finals and exits; each worker ends with the labels of its range.

use std::sync::Arc;

use gamegraph::dense::{forward_pass, CounterCells, DenseError, DenseLayer};
use timely::worker::Worker;

use crate::kernel::{all_levels, propagate, Node, Ownership, Share};

/// Solves `layer` in the minimax model on this worker and the others (every worker calls it
/// with the same layer), into a store of type `S` as [`gamegraph::dense::solve_layer`] would on
/// one machine: returns the first index of this worker's range and the labels of its indices,
/// in order. The forward pass is the one-machine one, run on this worker's range (on the
/// process's rayon threads); an error (a position with more moves than `S` counts) is this
/// worker's, the others may still be waiting for it.
pub fn solve_layer<L, S>(worker: &mut Worker, layer: Arc<L>) -> Result<(u64, S), DenseError>
where
    L: DenseLayer + Send + Sync + 'static,
    S: CounterCells<Node = Node> + 'static,
{
    let (index, peers) = (worker.index(), worker.peers());
    let ownership = Ownership::ranges(layer.len(), peers);
    let start = ownership.global(index, 0).min(layer.len());
    let end = ownership.global(index + 1, 0).min(layer.len());
    let len = (end - start) as usize;
    let mut store = S::with_len(len);
    let seeds = forward_pass::<L, S, Node>(&*layer, start, store.cells_mut(), &|_| {})?;
    let levels = all_levels(worker, seeds.levels());
    let predecessors = move |local: usize, f: &mut dyn FnMut(Node)| {
        let mut scratch = L::Scratch::default();
        layer.predecessors(ownership.global(index, local), &mut scratch, &mut *f);
    };
    let share = Share { index, ownership, store, predecessors };
    Ok((start, propagate(worker, share, &levels, seeds.by_level(len, &|_| {}))))
}
