//! A dense layer solved over several workers against the one-machine dense path: the same label
//! (side, level, remoteness) for every index, and the same positions whose exit gives their value,
//! with finals, exits at every distance, and cycles, the layer cut into segments of any length
//! (each cut into one range a worker); and layers whose workers ask the owners of the smaller
//! layers' positions for their exits, against the same layer valuing them itself.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use gamegraph::dense::{self, ByteStore, DenseLayer, Exit, Forward, Leaving, OwnedRange, Reached};
use gamegraph::random_graph::random_graph;
use gamegraph::retrograde::{DenseStore, LabelStore};
use gamegraph::rng::SplitMix64;
use gamegraph::GameGraph;
use gamegraph_cluster::kernel::Ownership;
use gamegraph_cluster::{dense::solve_layer, exits::complete_asking, Cluster};
use proptest::prelude::*;

/// A random graph as a layer: its finals, and about one position in three with an exit, in
/// segments of `segment` indices.
struct TestLayer {
    graph: GameGraph,
    exits: Vec<Option<Exit>>,
    segment: u64,
    /// The positions the solve said their exit gives the value of.
    kept: Vec<AtomicBool>,
}

impl TestLayer {
    fn new(nodes: usize, edges: usize, seed: u64, segment: u64) -> Self {
        let graph = random_graph(nodes, edges, seed);
        let mut rng = SplitMix64(seed ^ 0x5eed);
        let exits = (0..nodes)
            .map(|_| {
                (rng.below(3) == 0)
                    .then(|| Exit { value: rng.below(11) as i32 - 5, remoteness: rng.below(4) as u32 })
            })
            .collect();
        Self::with_exits(graph, exits, segment)
    }

    /// The layer of `graph` whose positions have the exits `exits`.
    fn with_exits(graph: GameGraph, exits: Vec<Option<Exit>>, segment: u64) -> Self {
        let kept = (0..graph.nodes()).map(|_| AtomicBool::new(false)).collect();
        Self { graph, exits, segment, kept }
    }
}

impl DenseLayer for TestLayer {
    type Scratch = ();

    fn len(&self) -> u64 {
        self.graph.nodes() as u64
    }

    fn forward(&self, start: u64, out: &mut [Forward]) {
        for (i, fact) in out.iter_mut().enumerate() {
            let u = start as u32 + i as u32;
            let inside = self.graph.forward().degree(u);
            let exit = self.exits[u as usize];
            *fact = match self.graph.stake(u) {
                Some(stake) if exit.is_none() => Forward::Final(stake),
                _ => Forward::Moves { inside, exit },
            };
        }
    }

    fn predecessors(&self, index: u64, _: &mut (), mut f: impl FnMut(u64)) {
        self.graph.predecessors(index as u32).iter().for_each(|&p| f(u64::from(p)));
    }

    fn segment(&self) -> u64 {
        self.segment
    }

    fn exit_kept(&self, index: u64) {
        self.kept[index as usize].store(true, Relaxed);
    }
}

impl TestLayer {
    /// Which positions the solve kept the exit of.
    fn kept(&self) -> Vec<bool> {
        self.kept.iter().map(|k| k.load(Relaxed)).collect()
    }
}

/// Every index of every worker's ranges, with what the worker's store holds for it: each index
/// of the layer once.
fn by_index<T>(len: u64, parts: Vec<(Vec<OwnedRange>, Vec<T>)>) -> Result<Vec<T>, TestCaseError> {
    let mut all: Vec<(u64, T)> = Vec::new();
    for (ranges, mut held) in parts {
        for range in ranges.iter().rev() {
            prop_assert!(range.local + range.len <= held.len());
            let tail = held.split_off(range.local);
            all.extend(
                tail.into_iter().take(range.len).enumerate().map(|(i, t)| (range.start + i as u64, t)),
            );
        }
    }
    all.sort_by_key(|(u, _)| *u);
    let indices: Vec<u64> = all.iter().map(|(u, _)| *u).collect();
    prop_assert_eq!(indices, (0..len).collect::<Vec<_>>(), "every index once");
    Ok(all.into_iter().map(|(_, t)| t).collect())
}

/// A random layer (`nodes`, `edges`, `seed`, in segments of `segment`) solved by `workers`.
#[derive(Debug, Clone, Copy)]
struct Case {
    nodes: usize,
    edges: usize,
    seed: u64,
    segment: u64,
    workers: usize,
}

impl Case {
    fn layer(self) -> Arc<TestLayer> {
        Arc::new(TestLayer::new(self.nodes, self.edges, self.seed, self.segment))
    }
}

fn same_labels(case: Case) -> Result<(), TestCaseError> {
    let (layer, workers) = (case.layer(), case.workers);
    let alone = case.layer();
    let expected: DenseStore<u64> = dense::solve_layer(&*alone, &|_| {}).unwrap();
    let shared = Arc::clone(&layer);
    let parts = Cluster::local(workers)
        .run(move |worker| {
            let told = AtomicU64::new(0);
            let progress = |units| {
                told.fetch_add(units, Relaxed);
            };
            let (ranges, store): (_, DenseStore<u64>) =
                solve_layer(worker, Arc::clone(&shared), &progress).unwrap();
            let labels = (0..store.len()).map(|i| store.label(i as u64)).collect::<Vec<_>>();
            (told.into_inner(), (ranges, labels))
        })
        .unwrap();
    for (told, (ranges, _)) in &parts {
        let owned: usize = ranges.iter().map(|r| r.len).sum();
        prop_assert_eq!(*told, 2 * owned as u64, "two units an owned index: {:?}", ranges);
    }
    let parts = parts.into_iter().map(|(_, part)| part).collect();
    for (u, label) in by_index(layer.len(), parts)?.into_iter().enumerate() {
        prop_assert_eq!(label, expected.label(u as u64), "index {} with {} workers", u, workers);
    }
    // The positions whose exit gives their value, whatever order a round's moves came in.
    prop_assert_eq!(layer.kept(), alone.kept(), "exits kept with {} workers", workers);
    Ok(())
}

/// The same layer into one byte a position, as Oware's layers are built: the workers' ranges
/// put end to end are the one-machine values.
fn same_values(case: Case) -> Result<(), TestCaseError> {
    let (layer, workers) = (case.layer(), case.workers);
    let expected = dense::solve_layer::<_, ByteStore<u64>>(&*layer, &|_| {}).unwrap().into_values();
    let shared = Arc::clone(&layer);
    let parts = Cluster::local(workers)
        .run(move |worker| {
            let (ranges, store) =
                solve_layer::<_, ByteStore<u64>>(worker, Arc::clone(&shared), &|_| {}).unwrap();
            (ranges, store.into_values())
        })
        .unwrap();
    prop_assert_eq!(by_index(layer.len(), parts)?, expected, "{} workers", workers);
    Ok(())
}

/// A random graph as a layer whose moves that leave it reach two smaller layers of random
/// values (each cut into its own segments): about one position in three has one to three such
/// moves, each worth its tag minus the value it reaches, at a distance of that value's index
/// modulo 4 (none for a draw); about half of them are marked. Solved on one machine, it values them itself (its
/// exits are their best); on a worker of a cluster it names them, and values only those that
/// reach the positions the worker owns.
struct AskingLayer {
    /// The layer with each position's best leaving move as its exit.
    valued: TestLayer,
    leaving: Vec<Vec<Leaving>>,
    lower: [(Vec<i8>, u64); 2],
    /// The worker this copy answers for, and the workers of the cluster (`None`: one machine).
    worker: Option<(usize, usize)>,
    /// What [`DenseLayer::exits_found`] told of each position: its best exit and best marked one.
    found: Mutex<Vec<Found>>,
}

/// What [`DenseLayer::exits_found`] tells of a position (`None`: nothing).
type Found = Option<(Option<Exit>, Option<Exit>)>;

impl AskingLayer {
    fn new(case: Case, worker: Option<(usize, usize)>) -> Self {
        let graph = random_graph(case.nodes, case.edges, case.seed);
        let mut rng = SplitMix64(case.seed ^ 0xa5c);
        let lower = [0, 1].map(|_| {
            let len = 1 + rng.below(50) as usize;
            let values: Vec<i8> = (0..len).map(|_| rng.below(11) as i8 - 5).collect();
            (values, 1 + rng.below(len as u64 + 5))
        });
        let leaving: Vec<Vec<Leaving>> = (0..case.nodes)
            .map(|_| {
                let moves = if rng.below(3) == 0 { 1 + rng.below(3) } else { 0 };
                (0..moves)
                    .map(|_| {
                        let layer = rng.below(2) as u32;
                        let index = rng.below(lower[layer as usize].0.len() as u64);
                        let marked = if rng.below(2) == 0 { Leaving::MARKED } else { 0 };
                        Leaving { layer, index, tag: rng.below(3) as u32 | marked }
                    })
                    .collect()
            })
            .collect();
        let exits = leaving
            .iter()
            .map(|moves| moves.iter().fold(None, |best, &mv| Some(value(&lower, mv).best_of(best))));
        let valued = TestLayer::with_exits(graph, exits.collect(), case.segment);
        let found = Mutex::new(vec![None; case.nodes]);
        Self { valued, leaving, lower, worker, found }
    }

    /// Whether this worker owns the position `mv` reaches.
    fn owns(&self, mv: Leaving) -> bool {
        let (me, peers) = self.worker.expect("only a worker of a cluster values named moves");
        let reached = self.reached()[mv.layer as usize];
        Ownership::segments(reached.len, reached.segment, peers).owner(mv.index) == me
    }

    /// What a worker must be told of position `u`'s exits: `None` if it has no moves, else the
    /// best exit of its leaving moves and that of the marked ones.
    fn expected_found(&self, u: usize) -> Found {
        let mut fact = [Forward::Absent];
        self.valued.forward(u as u64, &mut fact);
        let Forward::Moves { .. } = fact[0] else { return None };
        let best = |marked_only: bool| {
            let moves = self.leaving[u].iter().filter(|mv| !marked_only || mv.tag & Leaving::MARKED != 0);
            moves.fold(None, |best, &mv| Some(value(&self.lower, mv).best_of(best)))
        };
        Some((best(false), best(true)))
    }
}

/// The exit `mv` gives, into the smaller layers `lower`.
fn value(lower: &[(Vec<i8>, u64); 2], mv: Leaving) -> Exit {
    let value = lower[mv.layer as usize].0[mv.index as usize];
    let tag = mv.tag & !Leaving::MARKED;
    let value = tag as i32 - i32::from(value);
    // A draw has no distance: exits of equal rank are then the same exit, whichever comes first.
    Exit { value, remoteness: if value == 0 { 0 } else { (mv.index % 4) as u32 } }
}

impl DenseLayer for AskingLayer {
    type Scratch = ();

    fn len(&self) -> u64 {
        self.valued.len()
    }

    fn forward(&self, start: u64, out: &mut [Forward]) {
        self.valued.forward(start, out);
    }

    fn predecessors(&self, index: u64, scratch: &mut (), f: impl FnMut(u64)) {
        self.valued.predecessors(index, scratch, f);
    }

    fn segment(&self) -> u64 {
        self.valued.segment
    }

    fn exit_kept(&self, index: u64) {
        self.valued.exit_kept(index);
    }

    fn asks(&self) -> bool {
        self.worker.is_some()
    }

    /// The facts of the layer, each exit the best of the moves into layer 0's positions that
    /// this worker owns (valued here, as a layer that holds a smaller layer whole values its
    /// moves), the others named.
    fn forward_leaving(
        &self,
        start: u64,
        out: &mut [Forward],
        marked: &mut [Option<Exit>],
        leave: &mut dyn FnMut(usize, Leaving),
    ) {
        self.valued.forward(start, out);
        for (i, fact) in out.iter_mut().enumerate() {
            let mut here = None;
            for &mv in &self.leaving[start as usize + i] {
                if mv.layer == 0 && self.owns(mv) {
                    here = Some(value(&self.lower, mv).best_of(here));
                    if mv.tag & Leaving::MARKED != 0 {
                        marked[i] = Some(value(&self.lower, mv).best_of(marked[i]));
                    }
                } else {
                    leave(i, mv);
                }
            }
            if let Forward::Moves { exit, .. } = fact {
                *exit = here;
            }
        }
    }

    fn reached(&self) -> Vec<Reached> {
        self.lower
            .iter()
            .map(|(values, segment)| Reached { len: values.len() as u64, segment: *segment })
            .collect()
    }

    fn exit_through(&self, mv: Leaving) -> Exit {
        assert!(self.owns(mv), "{mv:?} asked of a worker that does not own it");
        value(&self.lower, mv)
    }

    fn exits_found(&self, index: u64, best: Option<Exit>, marked: Option<Exit>) {
        let mut found = self.found.lock().unwrap();
        assert!(found[index as usize].is_none(), "{index} told twice");
        found[index as usize] = Some((best, marked));
    }
}

/// The asking layer of `case` solved by its workers, each asked only of the positions it owns,
/// against the layer solved on one machine: the same labels and the same positions kept, and
/// each position's best exit and best marked exit told to the worker that owns it.
fn same_labels_asking(case: Case) -> Result<(), TestCaseError> {
    let alone = AskingLayer::new(case, None);
    let expected: DenseStore<u64> = dense::solve_layer(&alone, &|_| {}).unwrap();
    let parts = Cluster::local(case.workers)
        .run(move |worker| {
            let layer = Arc::new(AskingLayer::new(case, Some((worker.index(), worker.peers()))));
            let (ranges, store): (_, DenseStore<u64>) =
                solve_layer(worker, Arc::clone(&layer), &|_| {}).unwrap();
            let labels = (0..store.len()).map(|i| store.label(i as u64)).collect::<Vec<_>>();
            let found = std::mem::take(&mut *layer.found.lock().unwrap());
            ((layer.valued.kept(), found), (ranges, labels))
        })
        .unwrap();
    let mut kept = vec![false; case.nodes];
    for ((worker_kept, _), _) in &parts {
        kept.iter_mut().zip(worker_kept).for_each(|(k, w)| *k |= w);
    }
    same_exits_found(&alone, parts.iter().map(|((_, found), _)| found), case.workers)?;
    let parts = parts.into_iter().map(|(_, part)| part).collect();
    for (u, label) in by_index(alone.len(), parts)?.into_iter().enumerate() {
        prop_assert_eq!(label, expected.label(u as u64), "index {} with {} workers", u, case.workers);
    }
    prop_assert_eq!(kept, alone.valued.kept(), "exits kept with {} workers", case.workers);
    Ok(())
}

/// Checks that what the workers' layers were told, `told` (one list a worker), tells each
/// position's best exit and best marked exit once, as `alone` (the one-machine layer) expects.
fn same_exits_found<'a>(
    alone: &AskingLayer,
    told: impl Iterator<Item = &'a Vec<Found>>,
    workers: usize,
) -> Result<(), TestCaseError> {
    let mut found = vec![None; alone.len() as usize];
    for worker_found in told {
        for (f, w) in found.iter_mut().zip(worker_found).filter(|(_, w)| w.is_some()) {
            prop_assert!(f.is_none(), "a position told to two workers");
            *f = *w;
        }
    }
    for (u, found) in found.iter().enumerate() {
        prop_assert_eq!(*found, alone.expected_found(u), "exits found at {} with {} workers", u, workers);
    }
    Ok(())
}

/// Completes a layer whose exits the workers ask each other for ([`complete_asking`]): each
/// position's best exit and best marked exit is told to the worker that owns it, as the
/// one-machine layer finds them.
fn same_exits_completing(case: Case) -> Result<(), TestCaseError> {
    let alone = AskingLayer::new(case, None);
    let told = Cluster::local(case.workers)
        .run(move |worker| {
            let layer = Arc::new(AskingLayer::new(case, Some((worker.index(), worker.peers()))));
            complete_asking(worker, &layer).unwrap();
            let found = std::mem::take(&mut *layer.found.lock().unwrap());
            found
        })
        .unwrap();
    same_exits_found(&alone, told.iter(), case.workers)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn workers_completing_a_layer_are_told_its_one_machine_exits(
        nodes in 1usize..300, density in 0usize..4, seed in any::<u64>(), workers in 1usize..5,
        segment in 1u64..400,
    ) {
        same_exits_completing(Case { nodes, edges: nodes * density, seed, segment, workers })?;
    }

    #[test]
    fn workers_that_ask_for_their_exits_find_the_one_machine_labels(
        nodes in 1usize..300, density in 0usize..4, seed in any::<u64>(), workers in 1usize..5,
        segment in 1u64..400,
    ) {
        same_labels_asking(Case { nodes, edges: nodes * density, seed, segment, workers })?;
    }

    #[test]
    fn workers_find_the_one_machine_labels_of_a_layer(
        nodes in 1usize..300, density in 0usize..4, seed in any::<u64>(), workers in 1usize..5,
        segment in 1u64..400,
    ) {
        same_labels(Case { nodes, edges: nodes * density, seed, segment, workers })?;
    }

    #[test]
    fn workers_find_the_one_machine_values_of_a_layer_in_bytes(
        nodes in 1usize..300, density in 0usize..4, seed in any::<u64>(), workers in 1usize..5,
        segment in 1u64..400,
    ) {
        same_values(Case { nodes, edges: nodes * density, seed, segment, workers })?;
    }
}
