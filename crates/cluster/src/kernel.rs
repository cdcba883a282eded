//! One worker's share of a layer ([`Part`]) and the propagation of [`gamegraph::retrograde`] over
//! every worker ([`propagate`]): the same levels, rounds and decisions, with the decisions that
//! concern another worker's positions sent to it through timely's exchange.

use std::collections::BTreeMap;
use std::rc::Rc;

use gamegraph::retrograde::{settle, DenseStore, Label, LabelStore, Side};
use gamegraph::Stake;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{
    Capability, Concat, ConnectLoop, Exchange as _, Feedback, Inspect, Probe, ToStream,
};
use timely::dataflow::ProbeHandle;
use timely::worker::Worker;

/// A position's number across the cluster.
pub type Node = u64;

/// What one worker holds of a layer: the positions `n` with `n % peers == index`, each at local
/// index `n / peers`.
#[derive(Debug, Clone, Default)]
pub struct Part {
    /// This worker's index among all workers.
    pub index: usize,
    /// All workers.
    pub peers: usize,
    /// The move count of each owned position (0 for finals), by local index.
    pub moves: Vec<u32>,
    /// Where each owned position's predecessors start in `predecessors` (one more entry than
    /// `moves`).
    pub offsets: Vec<usize>,
    /// The predecessors of the owned positions, one per move into them, as cluster numbers.
    pub predecessors: Vec<Node>,
    /// The owned finals: the index of their level in the levels given to [`propagate`], the
    /// position, and its side for the player to move.
    pub finals: Vec<(usize, Node, Side)>,
}

impl Part {
    /// The worker that owns `node` among `peers`.
    pub fn owner(node: Node, peers: usize) -> usize {
        (node % peers as u64) as usize
    }

    /// `node`'s index in its owner's part.
    pub fn local(node: Node, peers: usize) -> usize {
        (node / peers as u64) as usize
    }

    /// The cluster number of this part's position at local index `local`.
    pub fn global(&self, local: usize) -> Node {
        (local * self.peers + self.index) as Node
    }

    fn predecessors_of(&self, local: usize) -> &[Node] {
        &self.predecessors[self.offsets[local]..self.offsets[local + 1]]
    }
}

/// A message between workers: a position and what happened to it. [`FINAL_WON`] and
/// [`FINAL_LOST`] seed a final; [`MOVE_TO_WON`] and [`MOVE_TO_LOST`] say that one of its moves
/// leads to a position just decided as won, or lost, for the player to move there.
type Message = (Node, u8);
const FINAL_WON: u8 = 0;
const FINAL_LOST: u8 = 1;
const MOVE_TO_WON: u8 = 2;
const MOVE_TO_LOST: u8 = 3;

/// A decided position, as gathered: its cluster number, 0 for won or 1 for lost, level and
/// remoteness.
pub type Decided = (Node, u8, Stake, u32);

/// Runs the propagation on this worker's `part`, level by level (`levels` from the highest, the
/// same on every worker), each level in synchronous rounds as timely timestamps. Returns the
/// owned positions' store, by local index.
pub fn propagate(worker: &mut Worker, part: Part, levels: &[Stake]) -> DenseStore<u64> {
    let peers = part.peers;
    let store = Rc::new(DenseStore::<u64>::new(part.moves.clone()));
    let part = Rc::new(part);
    for (k, &level) in levels.iter().enumerate() {
        let seeds: Vec<Message> = part
            .finals
            .iter()
            .filter(|f| f.0 == k)
            .map(|&(_, node, side)| (node, if side == Side::Win { FINAL_WON } else { FINAL_LOST }))
            .collect();
        let probe = ProbeHandle::new();
        let (store, part) = (Rc::clone(&store), Rc::clone(&part));
        worker.dataflow::<u32, _, _>(|scope| {
            let (handle, cycle) = scope.feedback(1u32);
            seeds
                .to_stream(scope)
                .container::<Vec<Message>>()
                .concat(cycle)
                .unary_frontier(Exchange::new(|m: &Message| m.0), "Retrograde", move |_, _| {
                    let mut pending: BTreeMap<u32, (Capability<u32>, Vec<Message>)> = BTreeMap::new();
                    move |(input, frontier), output| {
                        input.for_each_stamp(|cap, data| {
                            if let Some(cap) = cap.retain_least(output.output_index()) {
                                let entry = pending.entry(*cap.time()).or_insert_with(|| (cap, Vec::new()));
                                for batch in data {
                                    entry.1.append(batch);
                                }
                            }
                        });
                        // A round is processed once no message of it can still arrive.
                        while let Some(round) = pending.keys().next().copied() {
                            if frontier.frontier().less_equal(&round) {
                                break;
                            }
                            let (cap, messages) = pending.remove(&round).expect("a pending round");
                            let mut session = output.session(&cap);
                            for (node, what) in messages {
                                let local = Part::local(node, peers) as u64;
                                let Some(side) = decide(&store, local, what, level, round) else { continue };
                                let to = if side == Side::Win { MOVE_TO_WON } else { MOVE_TO_LOST };
                                for &p in part.predecessors_of(local as usize) {
                                    session.give((p, to));
                                }
                            }
                        }
                    }
                })
                .probe_with(&probe)
                .connect_loop(handle);
        });
        worker.step_or_park_while(None, || !probe.done());
    }
    drop(part);
    Rc::try_unwrap(store).unwrap_or_else(|_| panic!("the dataflows are done with the store"))
}

/// Applies one message to an owned position (`local`) in round `round` of `level`; returns the
/// position's side if this decided it.
fn decide(store: &DenseStore<u64>, local: u64, what: u8, level: Stake, round: u32) -> Option<Side> {
    match what {
        FINAL_WON | FINAL_LOST => {
            let side = if what == FINAL_WON { Side::Win } else { Side::Lose };
            store.decide(local, Label { side, level, remoteness: 0 }).then_some(side)
        }
        _ => {
            let child = if what == MOVE_TO_WON { Side::Win } else { Side::Lose };
            let label = Label { side: child.opposite(), level, remoteness: round };
            settle(store, local, child, label).then_some(label.side)
        }
    }
}

/// Sends every decided position of `store` (this worker's part) to worker 0, which returns them
/// all; the other workers return nothing.
pub fn gather(worker: &mut Worker, part_index: usize, peers: usize, store: &DenseStore<u64>) -> Vec<Decided> {
    let mine: Vec<Decided> = (0..store.len())
        .filter_map(|local| {
            let label = store.label(local as u64)?;
            let node = (local * peers + part_index) as Node;
            Some((node, if label.side == Side::Win { 0 } else { 1 }, label.level, label.remoteness))
        })
        .collect();
    let gathered = Rc::new(std::cell::RefCell::new(Vec::new()));
    let probe = ProbeHandle::new();
    let sink = Rc::clone(&gathered);
    worker.dataflow::<u32, _, _>(|scope| {
        mine.to_stream(scope)
            .container::<Vec<Decided>>()
            .exchange(|_| 0)
            .inspect(move |d: &Decided| sink.borrow_mut().push(*d))
            .probe_with(&probe);
    });
    worker.step_or_park_while(None, || !probe.done());
    let all = gathered.borrow_mut().split_off(0);
    all
}

/// The label of a gathered decision.
pub fn label_of(decided: &Decided) -> Label {
    let side = if decided.1 == 0 { Side::Win } else { Side::Lose };
    Label { side, level: decided.2, remoteness: decided.3 }
}
