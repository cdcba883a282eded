//! One worker's share of a layer ([`Share`]) and the propagation of [`gamegraph::retrograde`] over
//! every worker ([`propagate`]): the same levels, rounds and decisions, with the decisions that
//! concern another worker's positions sent to it through timely's exchange.

use std::collections::BTreeMap;
use std::rc::Rc;

use gamegraph::retrograde::{settle, DenseStore, Label, LabelStore, Side};
use gamegraph::Stake;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::{
    Capability, Concat, ConnectLoop, Exchange as _, Feedback, Inspect, Probe, ToStream,
};
use timely::dataflow::ProbeHandle;
use timely::worker::Worker;

/// A position's number across the cluster.
pub type Node = u64;

/// Which worker owns which positions: a pure function of the number, the same on every worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// Position `n` belongs to worker `n % peers`, at local index `n / peers` (explicit graphs:
    /// every region spreads over all workers).
    Modulo {
        /// All workers.
        peers: usize,
    },
    /// Positions `0..len` in `peers` consecutive ranges of `ceil(len / peers)` (dense layers,
    /// whose forward pass walks a range in index order and whose files are written by range).
    Ranges {
        /// All workers.
        peers: usize,
        /// Positions per range.
        size: u64,
    },
}

impl Ownership {
    /// `len` positions in consecutive ranges over `peers` workers.
    pub fn ranges(len: u64, peers: usize) -> Self {
        Ownership::Ranges { peers, size: len.div_ceil(peers as u64).max(1) }
    }

    /// The worker that owns `node`.
    #[inline]
    pub fn owner(self, node: Node) -> usize {
        match self {
            Ownership::Modulo { peers } => (node % peers as u64) as usize,
            Ownership::Ranges { size, .. } => (node / size) as usize,
        }
    }

    /// `node`'s index among its owner's positions.
    #[inline]
    pub fn local(self, node: Node) -> usize {
        match self {
            Ownership::Modulo { peers } => (node / peers as u64) as usize,
            Ownership::Ranges { size, .. } => (node % size) as usize,
        }
    }

    /// The number of worker `index`'s position at local index `local`.
    #[inline]
    pub fn global(self, index: usize, local: usize) -> Node {
        match self {
            Ownership::Modulo { peers } => (local * peers + index) as Node,
            Ownership::Ranges { size, .. } => index as Node * size + local as Node,
        }
    }
}

/// Where the propagation of one worker starts: a final (decided in round 0), or a move out of
/// the layer into a position decided before, which acts in the round after its remoteness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// A final, its side for the player to move.
    Final(Side),
    /// An exit into a position of side `child` (for its mover) at distance `remoteness`.
    Exit {
        /// The reached position's side for its mover.
        child: Side,
        /// The reached position's remoteness.
        remoteness: u32,
    },
}

/// What one worker holds of a layer: its positions' move counts (by local index), where the
/// propagation starts (by level index), and how to find its positions' predecessors.
pub struct Share<P> {
    /// This worker's index among all workers.
    pub index: usize,
    /// Which worker owns which position.
    pub ownership: Ownership,
    /// The move count of each owned position (0 for finals), exits included, by local index.
    pub moves: Vec<u32>,
    /// The owned starts: the index of their level in the levels given to [`propagate`], the
    /// position, and what it is.
    pub starts: Vec<(usize, Node, Start)>,
    /// Calls its argument with every predecessor of the owned position at a local index (one
    /// per move into it), as cluster numbers.
    pub predecessors: P,
}

/// Messages sent at once by a worker, at most.
const BATCH: usize = 4096;

/// A message between workers: a position (above the low byte) and what happened to it (the low
/// byte), in eight bytes.
type Message = u64;

fn message(node: Node, what: u8) -> Message {
    debug_assert!(node < 1 << 56, "positions are numbered below 2^56");
    node << 8 | u64::from(what)
}
/// A final, won or lost by its mover.
const FINAL_WON: u8 = 0;
const FINAL_LOST: u8 = 1;
/// One of the position's moves leads to a position just decided won, or lost, for its mover.
const MOVE_TO_WON: u8 = 2;
const MOVE_TO_LOST: u8 = 3;
/// An exit to a won (lost) position: `EXIT + 2 * remoteness (+ 1 if lost)`, in round 0, which
/// the owner sends on to act in round `remoteness + 1`.
const EXIT: u8 = 4;

/// A decided position, as gathered: its cluster number, 0 for won or 1 for lost, level and
/// remoteness.
pub type Decided = (Node, u8, Stake, u32);

/// The levels of every worker's starts, highest first: each worker gives its own, all get the
/// union.
pub fn all_levels(worker: &mut Worker, mine: Vec<Stake>) -> Vec<Stake> {
    let mut levels = send(worker, mine, Recipients::All);
    levels.sort_unstable_by(|a, b| b.cmp(a));
    levels.dedup();
    levels
}

/// Who receives what [`send`] sends.
#[derive(Clone, Copy)]
enum Recipients {
    /// Every worker.
    All,
    /// Worker 0.
    First,
}

/// Sends `mine` from this worker to `to`, and returns what this worker received once every
/// worker has sent (in no particular order).
fn send<D: timely::ExchangeData + Copy>(worker: &mut Worker, mine: Vec<D>, to: Recipients) -> Vec<D> {
    let gathered = Rc::new(std::cell::RefCell::new(Vec::new()));
    let probe = ProbeHandle::new();
    let sink = Rc::clone(&gathered);
    worker.dataflow::<u32, _, _>(|scope| {
        let stream = mine.to_stream(scope).container::<Vec<D>>();
        let stream = match to {
            Recipients::All => stream.broadcast(),
            Recipients::First => stream.exchange(|_| 0),
        };
        stream.inspect(move |d: &D| sink.borrow_mut().push(*d)).probe_with(&probe);
    });
    worker.step_or_park_while(None, || !probe.done());
    let received = gathered.borrow_mut().split_off(0);
    received
}

/// Runs the propagation on this worker's `share`, level by level (`levels` from the highest, the
/// same on every worker), each level in synchronous rounds as timely timestamps. Returns the
/// owned positions' store, by local index.
pub fn propagate<P>(worker: &mut Worker, share: Share<P>, levels: &[Stake]) -> DenseStore<u64>
where
    P: Fn(usize, &mut dyn FnMut(Node)) + 'static,
{
    let ownership = share.ownership;
    let store = Rc::new(DenseStore::<u64>::new(share.moves));
    let predecessors = Rc::new(share.predecessors);
    for (k, &level) in levels.iter().enumerate() {
        let seeds: Vec<Message> = share
            .starts
            .iter()
            .filter(|s| s.0 == k)
            .map(|&(_, node, start)| message(node, encode(start)))
            .collect();
        let probe = ProbeHandle::new();
        let (store, predecessors) = (Rc::clone(&store), Rc::clone(&predecessors));
        worker.dataflow::<u32, _, _>(|scope| {
            let (handle, cycle) = scope.feedback(1u32);
            seeds
                .to_stream(scope)
                .container::<Vec<Message>>()
                .concat(cycle)
                .unary_frontier(
                    Exchange::new(move |m: &Message| ownership.owner(m >> 8) as u64),
                    "Retrograde",
                    move |_, _| {
                        let mut pending: BTreeMap<u32, (Capability<u32>, Vec<Message>)> = BTreeMap::new();
                        let (mut now, mut later) = (Vec::new(), Vec::new());
                        // Sends the exits waiting in `later`, one session a round (a session
                        // per message would cost a whole buffer each).
                        macro_rules! give_later {
                            ($output:expr, $cap:expr) => {
                                later.sort_unstable_by_key(|l: &(u32, Message)| l.0);
                                for group in later.chunk_by(|a, b| a.0 == b.0) {
                                    let delayed = $cap.delayed(&group[0].0);
                                    let mut session = $output.session(&delayed);
                                    for &(_, m) in group {
                                        session.give(m);
                                    }
                                }
                                later.clear();
                            };
                        }
                        // Applies `messages` of `round`, sending what they produce (to the next
                        // round, exits to their own) in bounded batches, so that no buffer grows
                        // to a whole round.
                        macro_rules! apply {
                            ($output:expr, $messages:expr, $round:expr, $cap:expr) => {
                                for &m in $messages.iter() {
                                    step(
                                        &store,
                                        &*predecessors,
                                        ownership,
                                        level,
                                        m,
                                        $round,
                                        &mut now,
                                        &mut later,
                                    );
                                    if now.len() >= BATCH {
                                        $output.session($cap).give_container(&mut now);
                                        now.clear();
                                    }
                                    if later.len() >= BATCH {
                                        give_later!($output, $cap);
                                    }
                                }
                                if !now.is_empty() {
                                    $output.session($cap).give_container(&mut now);
                                    now.clear();
                                }
                                give_later!($output, $cap);
                            };
                        }
                        move |(input, frontier), output| {
                            // A waiting round is applied once no message of it can still arrive, before any
                            // later round's messages are.
                            while let Some(round) = pending.keys().next().copied() {
                                if frontier.frontier().less_equal(&round) {
                                    break;
                                }
                                let (cap, messages) = pending.remove(&round).expect("a pending round");
                                apply!(output, messages, round, &cap);
                            }
                            input.for_each_stamp(|cap, data| {
                                let Some(cap) = cap.retain_least(output.output_index()) else { return };
                                let round = *cap.time();
                                if frontier.frontier().iter().all(|f| *f >= round) {
                                    // No earlier round can still send anything, and a round's
                                    // messages commute: apply them as they come.
                                    for batch in data {
                                        apply!(output, batch, round, &cap);
                                    }
                                } else {
                                    let entry = pending.entry(round).or_insert_with(|| (cap, Vec::new()));
                                    for batch in data {
                                        entry.1.append(batch);
                                    }
                                }
                            });
                        }
                    },
                )
                .probe_with(&probe)
                .connect_loop(handle);
        });
        worker.step_or_park_while(None, || !probe.done());
    }
    drop(predecessors);
    Rc::try_unwrap(store).unwrap_or_else(|_| panic!("the dataflows are done with the store"))
}

/// Applies one message of round `round` of `level`: an exit is sent on to its round (`later`),
/// and a decision sends one message a predecessor for the next round (`now`).
#[allow(clippy::too_many_arguments)]
#[inline]
fn step(
    store: &DenseStore<u64>,
    predecessors: &dyn PredecessorsOf,
    ownership: Ownership,
    level: Stake,
    m: Message,
    round: u32,
    now: &mut Vec<Message>,
    later: &mut Vec<(u32, Message)>,
) {
    let (node, what) = (m >> 8, m as u8);
    if what >= EXIT {
        // Sent on to act in the round after the reached position's.
        let remoteness = u32::from((what - EXIT) / 2);
        later.push((remoteness, message(node, MOVE_TO_WON + (what - EXIT) % 2)));
        return;
    }
    let local = ownership.local(node);
    let Some(side) = decide(store, local as u64, what, level, round) else { return };
    let to = if side == Side::Win { MOVE_TO_WON } else { MOVE_TO_LOST };
    predecessors(local, &mut |p| now.push(message(p, to)));
}

/// How [`step`] walks back from an owned position (by local index) to its predecessors.
trait PredecessorsOf: Fn(usize, &mut dyn FnMut(Node)) {}

impl<F: Fn(usize, &mut dyn FnMut(Node))> PredecessorsOf for F {}

/// A start as a message of round 0.
fn encode(start: Start) -> u8 {
    match start {
        Start::Final(Side::Win) => FINAL_WON,
        Start::Final(Side::Lose) => FINAL_LOST,
        Start::Exit { child, remoteness } => {
            let remoteness = u8::try_from(remoteness).ok().filter(|&r| r < (u8::MAX - EXIT) / 2);
            let remoteness =
                remoteness.expect("exits of the cluster kernel reach positions at most 124 plies away");
            EXIT + 2 * remoteness + u8::from(child == Side::Lose)
        }
    }
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

/// Sends every decided position of `store` (this worker's share) to worker 0, which returns them
/// all; the other workers return nothing.
pub fn gather(
    worker: &mut Worker,
    index: usize,
    ownership: Ownership,
    store: &DenseStore<u64>,
) -> Vec<Decided> {
    let mine: Vec<Decided> = (0..store.len())
        .filter_map(|local| {
            let label = store.label(local as u64)?;
            let node = ownership.global(index, local);
            Some((node, if label.side == Side::Win { 0 } else { 1 }, label.level, label.remoteness))
        })
        .collect();
    send(worker, mine, Recipients::First)
}

/// Waits until every worker of every process has called it (after writing its part of a file,
/// say).
pub fn barrier(worker: &mut Worker) {
    send(worker, Vec::<u8>::new(), Recipients::All);
}

/// The label of a gathered decision.
pub fn label_of(decided: &Decided) -> Label {
    let side = if decided.1 == 0 { Side::Win } else { Side::Lose };
    Label { side, level: decided.2, remoteness: decided.3 }
}
