//! Explicit game graphs solved over a cluster: every process reads the whole graph, each worker
//! keeps its share ([`part_of`]), and process 0 gathers the labels into a [`Solution`] equal to
//! [`gamegraph::solution::solve_graph`]'s.

use std::sync::Arc;

use gamegraph::retrograde::Side;
use gamegraph::solution::Model;
use gamegraph::{GameGraph, Solution, Stake};

use crate::kernel::{gather, label_of, propagate, Node, Part};
use crate::{Cluster, ClusterError};

/// The levels of `model`'s seeds of `graph`'s finals, highest first, and the seeds themselves as
/// (level index, node, side).
fn levels_and_finals(graph: &GameGraph, model: Model) -> (Vec<Stake>, Vec<(usize, Node, Side)>) {
    let seeds = model.seeds(graph.finals());
    let mut levels: Vec<Stake> = Vec::new();
    let mut finals = Vec::new();
    for seed in seeds {
        if let gamegraph::retrograde::Seed::Final { node, side, level } = seed {
            if levels.last() != Some(&level) {
                levels.push(level);
            }
            finals.push((levels.len() - 1, Node::from(node), side));
        }
    }
    (levels, finals)
}

/// Worker `index`'s share of `graph` among `peers` workers.
pub fn part_of(graph: &GameGraph, finals: &[(usize, Node, Side)], index: usize, peers: usize) -> Part {
    let owned: Vec<u32> = (index as u32..graph.nodes() as u32).step_by(peers).collect();
    let moves = owned.iter().map(|&u| graph.forward().degree(u)).collect();
    let mut offsets = vec![0];
    let mut predecessors = Vec::new();
    for &u in &owned {
        predecessors.extend(graph.predecessors(u).iter().map(|&p| Node::from(p)));
        offsets.push(predecessors.len());
    }
    let finals = finals.iter().copied().filter(|f| Part::owner(f.1, peers) == index).collect();
    Part { index, peers, moves, offsets, predecessors, finals }
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
        let part = part_of(&graph, &finals, index, peers);
        let store = propagate(worker, part, &levels);
        gather(worker, index, peers, &store)
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
