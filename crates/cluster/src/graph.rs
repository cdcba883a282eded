//! Explicit game graphs solved over a cluster: every process reads the whole graph, each worker
//! keeps its share ([`share_of`]), and process 0 gathers the labels into a [`Solution`] equal to
//! [`gamegraph::solution::solve_graph`]'s.

use std::sync::Arc;

use gamegraph::retrograde::{Seed, Side};
use gamegraph::solution::Model;
use gamegraph::{GameGraph, Solution, Stake};

use crate::kernel::{gather, label_of, propagate, Node, Ownership, Share, Start};
use crate::{Cluster, ClusterError};

/// The levels of `model`'s seeds of `graph`'s finals, highest first, and the seeds themselves as
/// (level index, node, side).
fn levels_and_finals(graph: &GameGraph, model: Model) -> (Vec<Stake>, Vec<(usize, Node, Side)>) {
    let mut levels: Vec<Stake> = Vec::new();
    let mut finals = Vec::new();
    for seed in model.seeds(graph.finals()) {
        if let Seed::Final { node, side, level } = seed {
            if levels.last() != Some(&level) {
                levels.push(level);
            }
            finals.push((levels.len() - 1, Node::from(node), side));
        }
    }
    (levels, finals)
}

/// Worker `index`'s share of `graph` among `peers` workers: position `n` is worker `n % peers`'s.
pub fn share_of(
    graph: Arc<GameGraph>,
    finals: &[(usize, Node, Side)],
    index: usize,
    peers: usize,
) -> Share<impl Fn(usize, &mut dyn FnMut(Node))> {
    let ownership = Ownership::Modulo { peers };
    let owned = (index..graph.nodes()).step_by(peers);
    let moves = owned.map(|u| graph.forward().degree(u as u32)).collect();
    let starts = finals
        .iter()
        .filter(|f| ownership.owner(f.1) == index)
        .map(|&(level, node, side)| (level, node, Start::Final(side)))
        .collect();
    let predecessors = move |local: usize, f: &mut dyn FnMut(Node)| {
        let u = ownership.global(index, local) as u32;
        graph.predecessors(u).iter().for_each(|&p| f(Node::from(p)));
    };
    Share { index, ownership, moves, starts, predecessors }
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
        let (levels, finals) = levels_and_finals(&graph, model);
        let share = share_of(Arc::clone(&graph), &finals, index, peers);
        let ownership = share.ownership;
        let store = propagate(worker, share, &levels);
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
