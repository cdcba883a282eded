//! Explicit game graphs solved over a cluster: every process reads the whole graph, each worker
//! keeps its share ([`share_of`]), and process 0 gathers the labels into a [`Solution`] equal to
//! [`gamegraph::solution::solve_graph`]'s.

use std::sync::Arc;

use gamegraph::retrograde::{DenseStore, Seed};
use gamegraph::solution::Model;
use gamegraph::{GameGraph, Solution, Stake};

use crate::kernel::{gather, label_of, propagate, Node, Ownership, PredecessorsOf, Share};
use crate::{Cluster, ClusterError};

/// The levels of `model`'s seeds of `graph`'s finals, highest first (the same on every worker).
fn levels(graph: &GameGraph, model: Model) -> Vec<Stake> {
    let mut levels: Vec<Stake> = model.seeds(graph.finals()).iter().map(Seed::level).collect();
    levels.dedup();
    levels
}

/// Worker `index`'s share of `graph` among `peers` workers: position `n` is worker `n % peers`'s.
pub fn share_of(
    graph: Arc<GameGraph>,
    index: usize,
    peers: usize,
) -> Share<impl PredecessorsOf, DenseStore<u64>> {
    let ownership = Ownership::Modulo { peers };
    let owned = (index..graph.nodes()).step_by(peers);
    let store = DenseStore::new(owned.map(|u| graph.forward().degree(u as u32)).collect());
    let predecessors = move |local: usize, f: &mut dyn FnMut(Node)| {
        let u = ownership.global(index, local) as u32;
        graph.predecessors(u).iter().for_each(|&p| f(Node::from(p)));
    };
    Share { index, ownership, store, predecessors }
}

/// The seeds of `model` at the finals of `graph` that `ownership` gives worker `index`, by
/// decreasing level.
fn seeds_of(graph: &GameGraph, model: Model, ownership: Ownership, index: usize) -> Vec<Seed<Node>> {
    let owned_finals = graph.finals().filter(|&(u, _)| ownership.owner(Node::from(u)) == index);
    model.seeds(owned_finals.map(|(u, stake)| (Node::from(u), stake)))
}

/// Solves `graph` in `model` on the workers of `cluster`: the solution on process 0, `None` on
/// the others.
pub fn solve_graph(
    graph: Arc<GameGraph>,
    model: Model,
    cluster: &Cluster,
) -> Result<Option<Solution<u32>>, ClusterError> {
    let nodes = graph.nodes();
    let results = cluster.run(move |worker| {
        let (index, peers) = (worker.index(), worker.peers());
        let levels = levels(&graph, model);
        let share = share_of(Arc::clone(&graph), index, peers);
        let ownership = share.ownership;
        let seeds = seeds_of(&graph, model, ownership, index);
        let store = propagate(worker, share, &levels, seeds);
        gather(worker, index, ownership, &store)
    })?;
    if cluster.process != 0 {
        return Ok(None);
    }
    let mut labels = vec![None; nodes];
    for decided in results.into_iter().flatten() {
        labels[decided.0 as usize] = Some(label_of(&decided));
    }
    Ok(Some(Solution::from_labels(model, labels)))
}
