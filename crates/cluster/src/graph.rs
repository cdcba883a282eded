//! Explicit game graphs solved over a cluster: every process reads the graph as a stream
//! ([`GraphStream`]) and keeps only its own workers' part of it ([`GraphPart`]: their positions'
//! move counts, predecessors and stakes), and process 0 gathers the labels into a [`Solution`]
//! equal to [`gamegraph::solution::solve_graph`]'s.

use std::sync::Arc;

use gamegraph::graph::{Csr, CsrFiller, GraphStream};
use gamegraph::retrograde::{DenseStore, Seed};
use gamegraph::solution::Model;
use gamegraph::{Solution, Stake};

use crate::kernel::{all_levels, gather, label_of, propagate, Node, Ownership, PredecessorsOf, Share};
use crate::{Cluster, ClusterError};

/// What one worker keeps of a graph: its own positions (`n % peers == index`, by local index
/// `n / peers`), their moves counted, their predecessors and the stakes of those without moves.
#[derive(Debug)]
struct WorkerPart {
    /// Out-degree of each owned position.
    degrees: Vec<u32>,
    /// The predecessors (cluster numbers) of each owned position, by local index.
    predecessors: Arc<Csr>,
    /// The owned positions without moves and their stakes.
    finals: Vec<(Node, Stake)>,
}

/// What one process keeps of a graph: the parts of its own workers, never the whole graph (about
/// 16 bytes a position and 4 a move into them, over the processes).
#[derive(Debug)]
pub struct GraphPart {
    nodes: usize,
    /// The cluster index of this process's first worker.
    first: usize,
    ownership: Ownership,
    workers: Vec<WorkerPart>,
}

impl GraphPart {
    /// Reads `graph` twice (counting, then filling) and keeps the part of the workers of
    /// `cluster`'s process.
    pub fn read(graph: &impl GraphStream, cluster: &Cluster) -> Self {
        let peers = cluster.peers();
        let first = cluster.process * cluster.workers;
        let ownership = Ownership::Modulo { peers };
        let nodes = graph.nodes();
        // The worker (of this process) and local index of a position this process owns.
        let mine = |u: u32| -> Option<(usize, usize)> {
            let owner = ownership.owner(Node::from(u));
            (first..first + cluster.workers)
                .contains(&owner)
                .then(|| (owner - first, ownership.local(Node::from(u))))
        };
        let owned = |w: usize| nodes.saturating_sub(first + w).div_ceil(peers);
        let mut degrees: Vec<Vec<u32>> = (0..cluster.workers).map(|w| vec![0; owned(w)]).collect();
        let mut counts: Vec<Vec<u64>> = (0..cluster.workers).map(|w| vec![0; owned(w) + 1]).collect();
        graph.for_each_move(&mut |u, v| {
            if let Some((w, local)) = mine(u) {
                degrees[w][local] += 1;
            }
            if let Some((w, local)) = mine(v) {
                counts[w][local + 1] += 1;
            }
        });
        let mut predecessors: Vec<CsrFiller> = counts.into_iter().map(CsrFiller::from_counts).collect();
        graph.for_each_move(&mut |u, v| {
            if let Some((w, local)) = mine(v) {
                predecessors[w].push(local, u);
            }
        });
        let mut finals: Vec<Vec<(Node, Stake)>> = vec![Vec::new(); cluster.workers];
        graph.for_each_stake(&mut |u, stake| {
            if let Some((w, local)) = mine(u).filter(|&(w, local)| degrees[w][local] == 0) {
                finals[w].push((ownership.global(first + w, local), stake));
            }
        });
        let workers = degrees
            .into_iter()
            .zip(predecessors)
            .zip(finals)
            .map(|((degrees, predecessors), finals)| WorkerPart {
                degrees,
                predecessors: Arc::new(predecessors.finish()),
                finals,
            })
            .collect();
        Self { nodes, first, ownership, workers }
    }

    /// Number of positions of the whole graph.
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        let worker = |w: &WorkerPart| {
            w.degrees.capacity() * 4 + w.predecessors.heap_bytes() + w.finals.capacity() * 16
        };
        self.workers.iter().map(worker).sum()
    }

    /// The share of worker `index` (one of this process's), ready for the kernel.
    fn share(&self, index: usize) -> Share<impl PredecessorsOf, DenseStore<u64>> {
        let part = &self.workers[index - self.first];
        let predecessors = Arc::clone(&part.predecessors);
        let predecessors = move |local: usize, out: &mut Vec<Node>| {
            out.extend(predecessors.neighbours(local as u32).iter().map(|&p| Node::from(p)));
        };
        Share {
            index,
            ownership: self.ownership,
            store: DenseStore::new(part.degrees.clone()),
            predecessors,
            kept: Box::new(|_| {}),
        }
    }
}

/// Solves the graph `part` was read from in `model`, on the workers of `cluster` (the cluster
/// `part` was read for; every process calls it with its own part): the solution on process 0,
/// `None` on the others.
pub fn solve_graph(
    part: &Arc<GraphPart>,
    model: Model,
    cluster: &Cluster,
) -> Result<Option<Solution<u32>>, ClusterError> {
    let nodes = part.nodes;
    let part = Arc::clone(part);
    let results = cluster.run(move |worker| {
        let index = worker.index();
        let share = part.share(index);
        let ownership = share.ownership;
        let seeds = model.seeds(part.workers[index - part.first].finals.iter().copied());
        let mut levels: Vec<Stake> = seeds.iter().map(Seed::level).collect();
        levels.dedup();
        let levels = all_levels(worker, levels);
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

#[cfg(test)]
mod tests {
    use gamegraph::random_graph::random_graph;
    use gamegraph::GameGraph;

    use super::*;

    /// The parts of every process of clusters of 1 to 4 processes and 1 to 3 workers: each
    /// position belongs to one worker, which holds its out-degree, all its predecessors and,
    /// if it has no moves, its stake; no process holds more.
    #[test]
    fn processes_keep_their_own_positions_and_nothing_else() {
        let graph: GameGraph = random_graph(1000, 4000, 3);
        for processes in 1..=4 {
            for workers in 1..=3 {
                let hosts = vec![String::new(); processes];
                let mut seen = vec![0usize; graph.nodes()];
                let mut moves = 0;
                for process in 0..processes {
                    let cluster =
                        Cluster { hosts: hosts.clone(), process, workers, ..Cluster::local(workers) };
                    let part = GraphPart::read(&graph, &cluster);
                    assert_eq!(part.nodes(), graph.nodes());
                    for (w, worker) in part.workers.iter().enumerate() {
                        let index = part.first + w;
                        assert_eq!(worker.degrees.len(), worker.predecessors.nodes());
                        for (local, &degree) in worker.degrees.iter().enumerate() {
                            let u = part.ownership.global(index, local) as u32;
                            seen[u as usize] += 1;
                            assert_eq!(degree, graph.forward().degree(u));
                            assert_eq!(worker.predecessors.neighbours(local as u32), graph.predecessors(u));
                            moves += graph.predecessors(u).len();
                        }
                        let finals: Vec<(Node, Stake)> = graph
                            .finals()
                            .filter(|&(u, _)| part.ownership.owner(Node::from(u)) == index)
                            .map(|(u, p)| (Node::from(u), p))
                            .collect();
                        assert_eq!(worker.finals, finals);
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "{processes} x {workers}: every position once");
                assert_eq!(moves, graph.edges(), "{processes} x {workers}: every move once");
            }
        }
    }
}
