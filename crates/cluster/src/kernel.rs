//! One worker's share of a layer ([`Share`]) and the propagation of [`gamegraph::retrograde`] over
//! every worker ([`propagate`]): the same levels, rounds and decisions, with the decisions that
//! concern another worker's positions sent to it through timely's exchange.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use gamegraph::dense::OwnedRange;
use gamegraph::retrograde::{settle, DenseStore, Label, LabelStore, Seed, Side};
use gamegraph::Stake;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::{ConnectLoop, Feedback, Inspect, Probe, ToStream};
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
    /// Positions `0..len` cut into segments of `segment` positions (`full` of them, then a
    /// shorter one), each segment cut into `peers` consecutive ranges: worker `i` owns range `i`
    /// of every segment, at consecutive local indices (dense layers, whose forward pass walks a
    /// range in index order and whose files are written by range; see
    /// [`gamegraph::dense::DenseLayer::segment`]). Ranges of a full segment hold `size`
    /// positions, of the last one `tail` (the last worker's may be shorter: its store has holes).
    Ranges {
        /// Positions per segment.
        segment: u64,
        /// Full segments.
        full: u64,
        /// Positions per range of a full segment.
        size: u64,
        /// Positions per range of the last, shorter segment.
        tail: u64,
    },
}

impl Ownership {
    /// `len` positions in consecutive ranges over `peers` workers.
    pub fn ranges(len: u64, peers: usize) -> Self {
        Self::segments(len, len, peers)
    }

    /// `len` positions in segments of `segment`, each in consecutive ranges over `peers` workers.
    pub fn segments(len: u64, segment: u64, peers: usize) -> Self {
        let segment = segment.clamp(1, len.max(1));
        let full = len / segment;
        let size = segment.div_ceil(peers as u64).max(1);
        let tail = (len - full * segment).div_ceil(peers as u64).max(1);
        Ownership::Ranges { segment, full, size, tail }
    }

    /// The worker that owns `node`.
    #[inline]
    pub fn owner(self, node: Node) -> usize {
        match self {
            Ownership::Modulo { peers } => (node % peers as u64) as usize,
            Ownership::Ranges { segment, full, size, tail } => {
                let offset = node % segment;
                (if node / segment < full { offset / size } else { offset / tail }) as usize
            }
        }
    }

    /// `node`'s index among its owner's positions.
    #[inline]
    pub fn local(self, node: Node) -> usize {
        match self {
            Ownership::Modulo { peers } => (node / peers as u64) as usize,
            Ownership::Ranges { segment, full, size, tail } => {
                let (at, offset) = (node / segment, node % segment);
                (if at < full { at * size + offset % size } else { full * size + offset % tail }) as usize
            }
        }
    }

    /// The number of worker `index`'s position at local index `local`.
    #[inline]
    pub fn global(self, index: usize, local: usize) -> Node {
        match self {
            Ownership::Modulo { peers } => (local * peers + index) as Node,
            Ownership::Ranges { segment, full, size, tail } => {
                let (index, local) = (index as Node, local as Node);
                if local < full * size {
                    local / size * segment + index * size + local % size
                } else {
                    full * segment + index * tail + (local - full * size)
                }
            }
        }
    }

    /// The consecutive ranges of `0..len` that worker `index` owns, in order, with their local
    /// offsets (ranges of consecutive positions only).
    pub fn owned(self, index: usize, len: u64) -> Vec<OwnedRange> {
        let Ownership::Ranges { segment, full, size, tail } = self else {
            panic!("only ranges are owned in consecutive ranges")
        };
        let index = index as u64;
        let range = |at: u64, per: u64, local: u64| {
            let first = at * segment;
            let start = first + index * per;
            let end = (start + per).min(first + segment).min(len);
            (start < end).then(|| OwnedRange { start, local: local as usize, len: (end - start) as usize })
        };
        (0..full).filter_map(|at| range(at, size, at * size)).chain(range(full, tail, full * size)).collect()
    }
}

/// Who owns which position, as an [`Ownership`] says, found with a comparison or two where a
/// position lies in the same range as the last one asked about, where [`Ownership::owner`] and
/// [`Ownership::local`] take a few divisions each.
#[derive(Debug, Clone)]
pub struct Owners {
    ownership: Ownership,
    /// Consecutive ranges: each one's first position, end, owner and first local index, by
    /// first position (none for [`Ownership::Modulo`]).
    ranges: Vec<(Node, Node, usize, usize)>,
    /// The range of the last position found.
    last: usize,
}

impl Owners {
    /// The owners of every position as `ownership` says, over `peers` workers.
    pub fn new(ownership: Ownership, peers: usize) -> Self {
        let ranges = match ownership {
            Ownership::Modulo { .. } => Vec::new(),
            // Cut as for a layer of any length: ranges past the layer's end are never asked.
            Ownership::Ranges { .. } => (0..peers)
                .flat_map(|w| {
                    let owned = ownership.owned(w, Node::MAX).into_iter();
                    owned.map(move |r| (r.start, r.start + r.len as u64, w, r.local))
                })
                .collect(),
        };
        Self { ownership, ..Self::of_ranges(ranges) }
    }

    /// The owners of the positions of `ranges` (first position, end, owner and first local
    /// index, in any order), none of them empty; no other position is asked about.
    pub fn of_ranges(mut ranges: Vec<(Node, Node, usize, usize)>) -> Self {
        ranges.sort_unstable();
        Self { ownership: Ownership::Modulo { peers: 1 }, ranges, last: 0 }
    }

    /// The owner of `node` and its local index there.
    #[inline]
    pub fn find(&mut self, node: Node) -> (usize, usize) {
        if self.ranges.is_empty() {
            return (self.ownership.owner(node), self.ownership.local(node));
        }
        let (start, end, _, _) = self.ranges[self.last];
        if !(start..end).contains(&node) {
            self.last = self.ranges.partition_point(|r| r.0 <= node).saturating_sub(1);
        }
        let (start, _, owner, local) = self.ranges[self.last];
        (owner, local + (node - start) as usize)
    }
}

/// What one worker holds of a layer: its positions' move counters (by local index, exits
/// included, in any store the kernel can count in) and how to find its positions' predecessors.
pub struct Share<P, S> {
    /// This worker's index among all workers.
    pub index: usize,
    /// Which worker owns which position.
    pub ownership: Ownership,
    /// The owned positions' move counters, by local index, to be turned into their labels.
    pub store: S,
    /// Calls its argument with every predecessor of the owned position at a local index (one
    /// per move into it), as cluster numbers.
    pub predecessors: P,
    /// Told of each owned position (by local index) whose label, once its exit has acted, is
    /// the one that exit gives, as the one-machine kernel tells
    /// [`gamegraph::dense::DenseLayer::exit_kept`].
    pub kept: Box<dyn Fn(usize)>,
}

/// Kernel messages this process's workers sent to other workers: what the exchange moved between
/// threads and, to workers of other processes, over the network.
static SENT_ELSEWHERE: AtomicU64 = AtomicU64::new(0);

/// How many kernel messages (eight bytes each) this process's workers have sent to other workers
/// since the process started: a measure of the traffic a partition causes.
pub fn messages_sent_elsewhere() -> u64 {
    SENT_ELSEWHERE.load(Ordering::Relaxed)
}

/// A message between workers: a position (above the low byte) and what happened to it (the low
/// byte), in eight bytes.
type Message = u64;

fn message(node: Node, what: u8) -> Message {
    debug_assert!(node < 1 << 56, "positions are numbered below 2^56");
    node << 8 | u64::from(what)
}
/// A final, won or lost by its mover (applied where it is found, never sent).
const FINAL_WON: u8 = 0;
const FINAL_LOST: u8 = 1;
/// One of the position's moves leads to a position decided won, or lost, for its mover.
const MOVE_TO_WON: u8 = 2;
const MOVE_TO_LOST: u8 = 3;

/// A decided position, as gathered: its cluster number, 0 for won or 1 for lost, level and
/// remoteness.
pub type Decided = (Node, u8, Stake, u32);

/// The levels of every worker's starts, highest first: each worker gives its own, all get the
/// union.
pub fn all_levels(worker: &mut Worker, mine: Vec<Stake>) -> Vec<Stake> {
    let mut levels = everyone(worker, mine);
    levels.sort_unstable_by(|a, b| b.cmp(a));
    levels.dedup();
    levels
}

/// Sends `mine` from this worker to every worker, and returns what every worker sent (in no
/// particular order), once every worker has sent.
pub fn everyone<D: timely::ExchangeData + Copy>(worker: &mut Worker, mine: Vec<D>) -> Vec<D> {
    let received = Rc::new(RefCell::new(Vec::new()));
    let into = Rc::clone(&received);
    let probe = ProbeHandle::new();
    worker.dataflow::<u32, _, _>(|scope| {
        let stream = mine.to_stream(scope).container::<Vec<D>>().broadcast();
        stream.inspect(move |d: &D| into.borrow_mut().push(*d)).probe_with(&probe);
    });
    worker.step_or_park_while(None, || !probe.done());
    received.take()
}

/// Sends each of `mine` to the worker `to` names, and returns what this worker received once
/// every worker has sent.
pub fn exchange<D: timely::ExchangeData>(
    worker: &mut Worker,
    mine: Vec<D>,
    to: impl Fn(&D) -> u64 + 'static,
) -> Vec<D> {
    let received = Rc::new(RefCell::new(Vec::new()));
    let into = Rc::clone(&received);
    let probe = ProbeHandle::new();
    worker.dataflow::<u32, _, _>(|scope| {
        mine.to_stream(scope)
            .container::<Vec<D>>()
            .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(Exchange::new(to), "Receive", move |_, _| {
                move |input, _| input.for_each(|_, data| into.borrow_mut().append(data))
            })
            .probe_with(&probe);
    });
    worker.step_or_park_while(None, || !probe.done());
    received.take()
}

/// Runs the propagation on this worker's `share`, level by level (`levels` from the highest, the
/// same on every worker), each level in synchronous rounds, from `seeds`: the finals and exits
/// of the owned positions (as cluster numbers), by decreasing level, each level's finals before
/// its exits, each level among `levels`. Returns the owned positions' store, by local index.
///
/// Round `r` takes two timely timestamps. At `2r` a worker applies the messages it receives
/// and keeps the positions they decide; once its frontier has passed `2r + 1` (no worker can
/// still decide anything in round `r`), it tells their predecessors, sending at `2r + 1`
/// messages that arrive at `2r + 2`; a message to one of its own positions it applies at once,
/// in round `r + 1`, without the exchange (most of them, where the ownership follows the layer's
/// segments). So a message is applied on arrival, and what waits between rounds is a list of
/// decided positions (as in the one-machine kernel), never the messages.
/// Round 0 is local (a worker's finals are its own positions), so the exits that act in round
/// 1 are applied at once, read from `seeds` as they are applied; exits farther away wait for
/// their round.
pub fn propagate<P, S, I>(worker: &mut Worker, share: Share<P, S>, levels: &[Stake], seeds: I) -> S
where
    P: PredecessorsOf + 'static,
    S: LabelStore<Node = u64> + 'static,
    I: IntoIterator<Item = Seed<Node>>,
    I::IntoIter: 'static,
{
    let ownership = share.ownership;
    let store = Rc::new(share.store);
    let predecessors: Rc<dyn PredecessorsOf> = Rc::new(share.predecessors);
    let kept: Rc<dyn Fn(usize)> = Rc::from(share.kept);
    let seeds = Rc::new(RefCell::new(seeds.into_iter().peekable()));
    let sent_elsewhere = Rc::new(Cell::new(0u64));
    for &level in levels {
        let probe = ProbeHandle::new();
        let acted = Rc::new(RefCell::new(ExitLists::default()));
        let mut kernel = LevelKernel {
            store: Rc::clone(&store),
            predecessors: Rc::clone(&predecessors),
            kept: Rc::clone(&kept),
            acted: Rc::clone(&acted),
            index: share.index,
            level,
            decided: BTreeMap::new(),
            waiting: ExitLists::default(),
            owners: Owners::new(ownership, worker.peers()),
            live: Vec::new(),
            found: Vec::new(),
        };
        let seeds = Rc::clone(&seeds);
        let sent = Rc::clone(&sent_elsewhere);
        let index = share.index;
        worker.dataflow::<u32, _, _>(|scope| {
            let (handle, cycle) = scope.feedback(1u32);
            cycle
                .unary_frontier(
                    Exchange::new(move |m: &Message| {
                        let owner = ownership.owner(m >> 8);
                        sent.set(sent.get() + u64::from(owner != index));
                        owner as u64
                    }),
                    "Retrograde",
                    move |initial, info| {
                        let activator = scope.activator_for(info.address);
                        kernel.start(&mut seeds.borrow_mut());
                        // The capability for the earliest work left, if any.
                        let mut held = kernel.next_time().map(|time| initial.delayed(&time));
                        move |(input, frontier), output| {
                            input.for_each_stamp(|cap, data| {
                                let Some(cap) = cap.retain_least(output.output_index()) else { return };
                                let round = cap.time() / 2;
                                for batch in data {
                                    let local = |m: &Message| (ownership.local(m >> 8) as u64, *m as u8);
                                    kernel.act_all(batch.iter().map(local), round);
                                }
                                // Their decisions are told at 2 * round + 1.
                                let time = 2 * round + 1;
                                if held.as_ref().is_none_or(|h| *h.time() > time) {
                                    held = Some(cap.delayed(&time));
                                }
                            });
                            // The earliest work, once no worker can still do anything before it.
                            let mut budget = MESSAGES_PER_ACTIVATION;
                            while let Some(time) = kernel.next_time() {
                                if frontier.frontier().less_equal(&time) {
                                    break;
                                }
                                let cap = held.as_ref().expect("a capability for the work left");
                                let mut session = output.session(cap);
                                if !kernel.work(time, &mut |m| session.give(m), &mut budget) {
                                    // More in the next activation, so that no buffer grows to a
                                    // whole round.
                                    activator.activate();
                                    break;
                                }
                            }
                            match (kernel.next_time(), held.as_mut()) {
                                (Some(time), Some(h)) => h.downgrade(&time),
                                _ => held = None,
                            }
                            // Round k's moves inside arrive at 2k.
                            kernel.tell_kept(|k| !frontier.frontier().less_equal(&(2 * k)));
                        }
                    },
                )
                .probe_with(&probe)
                .connect_loop(handle);
        });
        worker.step_or_park_while(None, || !probe.done());
        // The level is over: every round is.
        tell_kept(&*store, level, &*kept, acted.take().iter());
    }
    debug_assert!(seeds.borrow_mut().next().is_none(), "every seed's level is among the levels, in order");
    SENT_ELSEWHERE.fetch_add(sent_elsewhere.get(), Ordering::Relaxed);
    drop(predecessors);
    Rc::try_unwrap(store).unwrap_or_else(|_| panic!("the dataflows are done with the store"))
}

/// Tells `kept` of the position (owned here) of each of `exits` (the round it acted in, the
/// position's local index and what the exit says) of `level` whose label is the one the exit
/// gives: whether the exit decided it or a move inside did the same in that round.
fn tell_kept<S: LabelStore<Node = u64>>(
    store: &S,
    level: Stake,
    kept: &dyn Fn(usize),
    exits: impl Iterator<Item = (u32, u64, u8)>,
) {
    for (round, local, what) in exits {
        if store.label(local) == Some(through_child(what, level, round).1) {
            kept(local as usize);
        }
    }
}

/// Exits of owned positions by the round they act in, four bytes each: the position's local
/// index and the side of the position the exit reaches. A layer's exits can be most of its
/// positions, and a chess table's mostly act at one level, all held from its start: as
/// messages (eight bytes) they would take twice what the forward pass held them in.
#[derive(Default)]
struct ExitLists(BTreeMap<(u32, u32), Vec<u32>>);

impl ExitLists {
    /// Adds the exit `what` ([`MOVE_TO_WON`] or [`MOVE_TO_LOST`]) of the position at `local`,
    /// acting in `round`. A list holds the local indices that share their bits above the 31st.
    fn push(&mut self, round: u32, local: u64, what: u8) {
        let list = self.0.entry((round, (local >> 31) as u32)).or_default();
        list.push((local as u32 & 0x7FFF_FFFF) << 1 | u32::from(what == MOVE_TO_WON));
    }

    /// The first round with exits, if any.
    fn first_round(&self) -> Option<u32> {
        self.0.keys().next().map(|&(round, _)| round)
    }

    /// Removes and returns the exits of the first round.
    fn take_first(&mut self) -> ExitLists {
        let Some(round) = self.first_round() else { return ExitLists::default() };
        let later = self.0.split_off(&(round + 1, 0));
        ExitLists(std::mem::replace(&mut self.0, later))
    }

    /// Adds `other`'s exits.
    fn append(&mut self, other: ExitLists) {
        for (key, mut list) in other.0 {
            self.0.entry(key).or_default().append(&mut list);
        }
    }

    /// Each exit: its round, its position's local index and what it says.
    fn iter(&self) -> impl Iterator<Item = (u32, u64, u8)> + '_ {
        self.0.iter().flat_map(|(&(round, high), list)| {
            list.iter().map(move |&e| {
                let what = if e & 1 == 1 { MOVE_TO_WON } else { MOVE_TO_LOST };
                (round, u64::from(high) << 31 | u64::from(e >> 1), what)
            })
        })
    }
}

/// Messages a worker sends in one activation, at most, before it lets the others run.
const MESSAGES_PER_ACTIVATION: usize = 1 << 16;

/// One level's propagation on one worker: its share's store, the positions it decided and has
/// not told yet, and the exits waiting for their round.
struct LevelKernel<S> {
    store: Rc<S>,
    predecessors: Rc<dyn PredecessorsOf>,
    /// Told of the positions whose exit gives their label.
    kept: Rc<dyn Fn(usize)>,
    /// By round, the exits acted in it: once the round is over here (its moves inside may come
    /// after its exits), those whose position's label is the one they give are `kept`.
    acted: Rc<RefCell<ExitLists>>,
    /// This worker's index.
    index: usize,
    level: Stake,
    /// By round, the positions decided in it (local index and side), to be told to their
    /// predecessors once the round is over everywhere.
    decided: BTreeMap<u32, Vec<Decision>>,
    /// By round, the exits that act in it (after round 1).
    waiting: ExitLists,
    /// Finds the owner and local index of a position (of the seeds, of the predecessors found).
    owners: Owners,
    /// The messages [`LevelKernel::act_live`] applies next, by local index (empty between
    /// calls, kept for its memory).
    live: Vec<(u64, u8)>,
    /// The predecessors of a decided position, kept for the next.
    found: Vec<Node>,
}

/// Decided positions whose predecessors [`LevelKernel::work`] finds before it updates them: the
/// one-machine kernel's batch.
const DECISIONS_AT_ONCE: usize = 64;

/// A decided position by local index, with its side in the low bit (1 for won).
type Decision = u64;

impl<S: LabelStore<Node = u64>> LevelKernel<S> {
    /// Round 0 and what can be done with it: decides this worker's finals of the level, then
    /// applies its exits to positions decided at distance 0 (round 1); farther exits wait.
    fn start(&mut self, seeds: &mut std::iter::Peekable<impl Iterator<Item = Seed<Node>>>) {
        let level = self.level;
        while let Some(seed) = seeds.next_if(|s| s.level() == level) {
            let m = seed_message(&seed);
            let local = self.owners.find(m >> 8).1 as u64;
            match seed {
                Seed::Final { .. } => self.act_at(local, m as u8, 0),
                Seed::Exit { remoteness: 0, .. } => {
                    self.act_at(local, m as u8, 1);
                    self.acted.borrow_mut().push(1, local, m as u8);
                }
                Seed::Exit { remoteness, .. } => self.waiting.push(remoteness + 1, local, m as u8),
            }
        }
    }

    /// Applies a message's `what` to the owned position `local` in round `round`, and keeps the
    /// position if that decided it.
    #[inline]
    fn act_at(&mut self, local: u64, what: u8, round: u32) {
        if let Some(side) = decide(&*self.store, local, what, self.level, round) {
            self.decided.entry(round).or_default().push(local << 1 | u64::from(side == Side::Win));
        }
    }

    /// Applies `messages` (each to a position owned here, by local index) in round `round`, as
    /// [`LevelKernel::act_at`] one by one would. A message to a decided position changes
    /// nothing: plain loads drop them first, so that their cache misses overlap, and the atomic
    /// updates after them (which order memory accesses) find their lines in cache, as in the
    /// one-machine kernel.
    fn act_all(&mut self, messages: impl Iterator<Item = (u64, u8)>, round: u32) {
        self.live.extend(messages);
        self.act_live(round);
    }

    /// Applies the messages gathered in [`LevelKernel::live`] in round `round`, as
    /// [`LevelKernel::act_all`] does, and empties it.
    fn act_live(&mut self, round: u32) {
        let store = &*self.store;
        self.live.retain(|&(local, _)| !store.is_decided(local));
        let mut decided = self.decided.remove(&round).unwrap_or_default();
        for &(local, what) in &self.live {
            if let Some(side) = decide(store, local, what, self.level, round) {
                decided.push(local << 1 | u64::from(side == Side::Win));
            }
        }
        if !decided.is_empty() {
            self.decided.insert(round, decided);
        }
        self.live.clear();
    }

    /// Tells [`LevelKernel::kept`] of the exits acted in the rounds that `over` says are over
    /// here (no move of theirs can still arrive).
    fn tell_kept(&self, over: impl Fn(u32) -> bool) {
        let mut acted = self.acted.borrow_mut();
        while acted.first_round().is_some_and(&over) {
            tell_kept(&*self.store, self.level, &*self.kept, acted.take_first().iter());
        }
    }

    /// The timestamp of the earliest work left: telling round `r`'s decisions (`2r + 1`), or
    /// applying the exits of round `k` (`2k - 1`, where round `k`'s messages are sent).
    fn next_time(&self) -> Option<u32> {
        let tell = self.decided.keys().next().map(|&r| 2 * r + 1);
        let exits = self.waiting.first_round().map(|k| 2 * k - 1);
        tell.into_iter().chain(exits).min()
    }

    /// Does the work of `time` (see [`LevelKernel::next_time`]), sending at most `budget`
    /// messages into `out`; false if some of it is left for later.
    fn work(&mut self, time: u32, out: &mut dyn FnMut(Message), budget: &mut usize) -> bool {
        if let Some(round) = self.waiting.first_round().filter(|k| 2 * k - 1 == time) {
            let exits = self.waiting.take_first();
            self.act_all(exits.iter().map(|(_, local, what)| (local, what)), round);
            self.acted.borrow_mut().append(exits);
            return true;
        }
        let (round, mut list) = self.decided.pop_first().expect("decisions to tell");
        // Messages to this worker's own positions skip the exchange: they are applied here, in
        // the round they would arrive in, as the exchange would apply them after this one. They
        // are applied a few decisions' worth at a time, as the one-machine kernel does, so that
        // the cells they touch are still in cache when their updates come.
        let mut found = std::mem::take(&mut self.found);
        while *budget > 0 && !list.is_empty() {
            for decision in list.drain(list.len().saturating_sub(DECISIONS_AT_ONCE)..) {
                let to = if decision & 1 == 1 { MOVE_TO_WON } else { MOVE_TO_LOST };
                found.clear();
                (self.predecessors)((decision >> 1) as usize, &mut found);
                for &p in &found {
                    match self.owners.find(p) {
                        (owner, local) if owner == self.index => self.live.push((local as u64, to)),
                        _ => out(message(p, to)),
                    }
                }
                *budget = budget.saturating_sub(found.len());
            }
            self.act_live(round + 1);
        }
        self.found = found;
        if list.is_empty() {
            return true;
        }
        list.shrink_to_fit();
        self.decided.insert(round, list);
        false
    }
}

/// How a worker walks back from an owned position (by local index) to its predecessors: any
/// function that appends them to a vector, as cluster numbers (one per move into it).
pub trait PredecessorsOf: Fn(usize, &mut Vec<Node>) {}

impl<F: Fn(usize, &mut Vec<Node>)> PredecessorsOf for F {}

/// A seed as the message that applies it: a final decided, or a move to a position decided.
fn seed_message(seed: &Seed<Node>) -> Message {
    match *seed {
        Seed::Final { node, side, .. } => {
            message(node, if side == Side::Win { FINAL_WON } else { FINAL_LOST })
        }
        Seed::Exit { node, child, .. } => {
            message(node, if child == Side::Win { MOVE_TO_WON } else { MOVE_TO_LOST })
        }
    }
}

/// Applies one message to an owned position (`local`) in round `round` of `level`; returns the
/// position's side if this decided it.
fn decide<S: LabelStore<Node = u64>>(
    store: &S,
    local: u64,
    what: u8,
    level: Stake,
    round: u32,
) -> Option<Side> {
    match what {
        FINAL_WON | FINAL_LOST => {
            let side = if what == FINAL_WON { Side::Win } else { Side::Lose };
            store.decide(local, Label { side, level, remoteness: 0 }).then_some(side)
        }
        _ => {
            let (child, label) = through_child(what, level, round);
            settle(store, local, child, label).then_some(label.side)
        }
    }
}

/// What a message `what` ([`MOVE_TO_WON`] or [`MOVE_TO_LOST`]) says in `round` of `level`: the
/// side of the child the move leads to, and the label the move gives its position.
fn through_child(what: u8, level: Stake, round: u32) -> (Side, Label) {
    let child = if what == MOVE_TO_WON { Side::Win } else { Side::Lose };
    (child, Label { side: child.opposite(), level, remoteness: round })
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
    to_first(worker, mine)
}

/// Sends `mine` from this worker to worker 0, which returns what every worker sent (in no
/// particular order); the other workers return nothing.
pub fn to_first<D: timely::ExchangeData>(worker: &mut Worker, mine: Vec<D>) -> Vec<D> {
    exchange(worker, mine, |_| 0)
}

/// Waits until every worker of every process has called it (after writing its part of a file,
/// say).
pub fn barrier(worker: &mut Worker) {
    everyone(worker, Vec::<u8>::new());
}

/// The label of a gathered decision.
pub fn label_of(decided: &Decided) -> Label {
    let side = if decided.1 == 0 { Side::Win } else { Side::Lose };
    Label { side, level: decided.2, remoteness: decided.3 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Exit lists give back every exit pushed, local indices beyond 32 bits included, round by
    /// round from the first.
    #[test]
    fn exit_lists_keep_each_exit_by_round() {
        let pushed = [
            (3, 5, MOVE_TO_WON),
            (1, (1 << 31) + 7, MOVE_TO_LOST),
            (1, 0, MOVE_TO_WON),
            (3, (1 << 40) + (1 << 31) - 1, MOVE_TO_LOST),
            (1, (1 << 31) - 1, MOVE_TO_WON),
        ];
        let mut lists = ExitLists::default();
        pushed.iter().for_each(|&(round, local, what)| lists.push(round, local, what));
        let mut all: Vec<_> = lists.iter().collect();
        let mut expected = pushed.to_vec();
        all.sort_unstable();
        expected.sort_unstable();
        assert_eq!(all, expected);
        let first = lists.take_first();
        assert!(first.iter().all(|e| e.0 == 1) && first.iter().count() == 3);
        assert_eq!(lists.first_round(), Some(3));
        lists.append(first);
        assert_eq!(lists.iter().count(), pushed.len());
    }

    proptest! {
        /// Every position has one owner, at a local index that leads back to it, inside one of
        /// the ranges its owner is told it owns; the ranges of all workers cover `0..len` once.
        #[test]
        fn segments_give_each_position_one_owner_and_place(
            len in 0u64..300,
            segment in 1u64..120,
            peers in 1usize..6,
        ) {
            let ownership = Ownership::segments(len, segment, peers);
            let mut owned = vec![None; len as usize];
            for index in 0..peers {
                let ranges = ownership.owned(index, len);
                for pair in ranges.windows(2) {
                    prop_assert!(pair[0].start + pair[0].len as u64 <= pair[1].start);
                    prop_assert!(pair[0].local + pair[0].len <= pair[1].local);
                }
                for range in ranges {
                    prop_assert!(range.len > 0);
                    for k in 0..range.len {
                        let node = range.start + k as u64;
                        prop_assert_eq!(owned[node as usize], None);
                        owned[node as usize] = Some(index);
                        prop_assert_eq!(ownership.owner(node), index);
                        prop_assert_eq!(ownership.local(node), range.local + k);
                        prop_assert_eq!(ownership.global(index, range.local + k), node);
                    }
                }
            }
            prop_assert!(owned.iter().all(Option::is_some));
        }

        /// Owners found by range give every position's owner and local index, whatever
        /// position was asked about before.
        #[test]
        fn owners_found_by_range_are_the_ownership_s(
            len in 1u64..300,
            segment in 1u64..120,
            peers in 1usize..6,
            seed in any::<u64>(),
        ) {
            let mut rng = gamegraph::rng::SplitMix64(seed);
            for ownership in [Ownership::segments(len, segment, peers), Ownership::Modulo { peers }] {
                let mut owners = Owners::new(ownership, peers);
                for _ in 0..2 * len {
                    let node = rng.below(len);
                    prop_assert_eq!(owners.find(node), (ownership.owner(node), ownership.local(node)));
                }
            }
        }
    }

    /// A chess table's two halves (segments) over two workers: each owns the same offsets of both,
    /// so a position and the one at its offset in the other half have one owner.
    #[test]
    fn both_halves_are_cut_alike() {
        let ownership = Ownership::segments(2 * 1000 + 7, 1000, 2);
        for offset in [0, 499, 500, 999] {
            assert_eq!(ownership.owner(offset), ownership.owner(1000 + offset));
        }
        assert_eq!(ownership.owner(499), 0);
        assert_eq!(ownership.owner(500), 1);
        // The 7 indices after the halves make a short segment of their own, cut in two.
        assert_eq!(
            ownership.owned(0, 2007).last().unwrap(),
            &OwnedRange { start: 2000, local: 1000, len: 4 }
        );
        assert_eq!(
            ownership.owned(1, 2007).last().unwrap(),
            &OwnedRange { start: 2004, local: 1000, len: 3 }
        );
    }
}
