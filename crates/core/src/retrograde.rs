//! The retrograde propagation kernel: labels positions win or lose backwards from seeds, in
//! O(V + E), on graphs with cycles too, on every core.
//!
//! One kernel serves the three value models of [`crate::solution::Model`] and the layered
//! databases of games whose moves leave the graph (a capture in Awari leads into a smaller,
//! already solved database). Seeds come in *levels* processed from the highest to the lowest; at
//! each level the seeds are decided, then the decisions spread to predecessors exactly as in the
//! classic outcome algorithm: a lose position makes every undecided predecessor win, a win
//! position decrements its predecessors' move counters and a counter that reaches zero makes that
//! predecessor lose. Because the win and lose sets only grow as the level falls, every position is
//! decided once, at the highest level where it can be, which is its value.
//!
//! Within a level the spreading goes in synchronous rounds: round `r` decides exactly the
//! positions whose remoteness is `r` (shortest win, longest loss among the moves that keep the
//! value). A round's frontier is expanded in parallel when it is large; the stores decide and
//! count with atomic operations, so each position is still decided exactly once and the result is
//! the same, bit for bit, whatever the number of threads.
//!
//! The kernel knows nothing of how predecessors are found ([`Predecessors`]: a stored reverse
//! graph, or a game's un-move generator over a dense index) nor of how labels are stored
//! ([`LabelStore`]: [`DenseStore`] here, a one-byte store for databases that need no remoteness).

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::game::Stake;

/// A node identifier usable as an array index.
pub trait NodeId: Copy + Eq + std::fmt::Debug + Send + Sync {
    /// The identifier as an index.
    fn index(self) -> usize;
    /// The identifier of an index.
    fn from_index(index: usize) -> Self;
}

impl NodeId for u32 {
    #[inline]
    fn index(self) -> usize {
        self as usize
    }
    #[inline]
    fn from_index(index: usize) -> Self {
        index as u32
    }
}

impl NodeId for u64 {
    #[inline]
    fn index(self) -> usize {
        self as usize
    }
    #[inline]
    fn from_index(index: usize) -> Self {
        index as u64
    }
}

/// How the kernel walks backwards: every position with a move into a given one.
pub trait Predecessors: Sync {
    /// The node identifier.
    type Node: NodeId;
    /// Working memory that one thread reuses from call to call (an un-move buffer, say).
    type Scratch: Default + Send;
    /// Calls `f` once per move into `node` (twice for a predecessor with two such moves) that
    /// stays in the graph.
    fn for_each_predecessor(&self, node: Self::Node, scratch: &mut Self::Scratch, f: impl FnMut(Self::Node));
    /// Hints that `node`'s predecessors will be asked for soon, for graphs stored in memory
    /// larger than the caches: at [`Prefetch::Where`] (two batches ahead) start loading where its
    /// list is, at [`Prefetch::List`] (one batch ahead) the list itself. Predecessors that are
    /// generated (un-moves) need no hint: the default does nothing.
    #[inline]
    fn prefetch(&self, node: Self::Node, stage: Prefetch) {
        let _ = (node, stage);
    }
}

/// How far ahead [`Predecessors::prefetch`] is asked: the kernel hints the batch after next
/// ([`Prefetch::Where`]) and the next one ([`Prefetch::List`]), so that by the time a batch is
/// expanded the loads of its stored lists, which depend on each other, have been done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefetch {
    /// Where the node's list is (its offset).
    Where,
    /// The list's start.
    List,
}

/// Which side a decided position is on, for the player to move there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The player to move can force the level.
    Win,
    /// The player not to move can force the level.
    Lose,
}

impl Side {
    /// The other side.
    pub fn opposite(self) -> Side {
        match self {
            Side::Win => Side::Lose,
            Side::Lose => Side::Win,
        }
    }
}

/// What the kernel records for a decided position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Label {
    /// Win or lose for the player to move.
    pub side: Side,
    /// The level at which the position was decided (its value in the stakes and minimax models).
    pub level: Stake,
    /// Moves to the end under optimal play: fastest win, slowest loss.
    pub remoteness: u32,
}

/// Where the propagation starts at a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seed<N> {
    /// A final position (no moves), decided at once as `side` for its mover.
    Final {
        /// The position.
        node: N,
        /// Its side for the player to move.
        side: Side,
        /// Its level.
        level: Stake,
    },
    /// A move of `node` that leaves the graph, into a position already decided elsewhere as
    /// `child` for the player to move there. Such a move counts in `node`'s move counter like any
    /// other; a node with several exits needs only its best one as a seed.
    Exit {
        /// The position with the move.
        node: N,
        /// The side of the position reached, for its mover.
        child: Side,
        /// The level of the position reached.
        level: Stake,
        /// The remoteness of the position reached (0 where distances are not kept): the seed
        /// takes effect in the round that decides positions one ply further, as a move inside
        /// the graph would.
        remoteness: u32,
    },
}

impl<N> Seed<N> {
    /// The level at which the seed enters.
    pub fn level(&self) -> Stake {
        match *self {
            Seed::Final { level, .. } | Seed::Exit { level, .. } => level,
        }
    }
}

/// Per-position storage that the kernel reads and writes from several threads at once: a move
/// counter for each undecided position, a [`Label`] for each decided one.
pub trait LabelStore: Sync {
    /// The node identifier.
    type Node: NodeId;
    /// Whether `node` has been decided.
    fn is_decided(&self, node: Self::Node) -> bool;
    /// The label of a decided node (a store may keep no remoteness and report 0).
    fn label(&self, node: Self::Node) -> Option<Label>;
    /// Decides `node` as `label` if it is still undecided; true when this call decided it.
    fn decide(&self, node: Self::Node, label: Label) -> bool;
    /// Counts one more move of `node` as leading to a position won by its mover. When `node` is
    /// undecided and that was its last uncounted move, decides it as `label` and returns true.
    fn decrement(&self, node: Self::Node, label: Label) -> bool;
}

/// Frontiers at least this large are expanded in parallel, in tasks of this many nodes.
const PARALLEL_CHUNK: usize = 2048;

/// Frontier nodes whose predecessors are gathered before any of them is updated.
const BATCH: usize = 64;

/// The positions decided in one round, grouped by side, so that expanding them needs no look at
/// their labels.
type Frontier<N> = Vec<(Side, Vec<N>)>;

/// Runs the propagation. `seeds` must come by decreasing level; the store must hold, for every
/// undecided node, its number of moves, exits included (0 for finals).
pub fn propagate<P, S>(preds: &P, store: &S, seeds: impl IntoIterator<Item = Seed<P::Node>>)
where
    P: Predecessors,
    S: LabelStore<Node = P::Node>,
{
    let mut seeds = seeds.into_iter().peekable();
    let mut previous_level = Stake::MAX;
    while let Some(level) = seeds.peek().map(Seed::level) {
        assert!(level <= previous_level, "seeds must come by decreasing level");
        previous_level = level;
        let mut at_level = LevelSeeds::new(level);
        while let Some(seed) = seeds.next_if(|s| s.level() == level) {
            match seed {
                Seed::Final { node, side, .. } => at_level.finals[side as usize].push(node),
                Seed::Exit { node, child, remoteness, .. } => at_level.exit(node, child, remoteness),
            }
        }
        propagate_level(preds, store, at_level, &|_| {});
    }
}

/// The seeds of one level, sorted by the round where they act: a node each, with no sort.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelSeeds<N> {
    /// Their level.
    pub level: Stake,
    /// The finals, by the side of their mover (`Side as usize`): decided in round 0.
    pub finals: [Vec<N>; 2],
    /// `exits[r][child]`: the exits that act in round `r`, by the side of the position they
    /// reach. An exit into a position at remoteness `d` acts in round `d + 1`, beside the moves
    /// inside the graph into positions decided in round `d`.
    pub exits: Vec<[Vec<N>; 2]>,
}

impl<N> LevelSeeds<N> {
    /// No seed yet at `level`.
    pub fn new(level: Stake) -> Self {
        Self { level, finals: [Vec::new(), Vec::new()], exits: Vec::new() }
    }

    /// Adds an exit of `node` into a position of side `child` at remoteness `remoteness`.
    pub fn exit(&mut self, node: N, child: Side, remoteness: u32) {
        self.round(remoteness as usize + 1)[child as usize].push(node);
    }

    /// The exits of round `round`, made if new.
    pub fn round(&mut self, round: usize) -> &mut [Vec<N>; 2] {
        if self.exits.len() <= round {
            self.exits.resize_with(round + 1, Default::default);
        }
        &mut self.exits[round]
    }

    /// Adds the seeds of `other` (same level) to these.
    pub fn append(&mut self, other: Self) {
        // Exactly the room needed: layers hold hundreds of millions of exits, and doubling a list's
        // room to add a smaller one would hold it twice.
        let join = |mine: &mut Vec<N>, mut theirs: Vec<N>| {
            mine.reserve_exact(theirs.len());
            mine.append(&mut theirs);
        };
        for (mine, theirs) in self.finals.iter_mut().zip(other.finals) {
            join(mine, theirs);
        }
        for (round, [won, lost]) in other.exits.into_iter().enumerate() {
            let mine = self.round(round);
            join(&mut mine[0], won);
            join(&mut mine[1], lost);
        }
    }
}

/// Runs the propagation of one level's seeds, all that the store holds at higher levels being
/// decided already. `kept` is told of every node whose label, once its exit has acted, is the
/// one that exit gives: its exit is its best move, or as good as its best (a chess table stores
/// such a position's value as whatever compresses best, its capture giving it back). Told in
/// any order, whatever order the moves of a round come in.
pub fn propagate_level<P, S>(
    preds: &P,
    store: &S,
    seeds: LevelSeeds<P::Node>,
    kept: &(dyn Fn(P::Node) + Sync),
) where
    P: Predecessors,
    S: LabelStore<Node = P::Node>,
{
    let LevelSeeds { level, finals, mut exits } = seeds;
    // Round 0: the finals.
    let [won, lost] = finals;
    let decide = |side: Side, nodes: Vec<P::Node>| {
        let label = Label { side, level, remoteness: 0 };
        let nodes: Vec<P::Node> = nodes.into_par_iter().filter(|&node| store.decide(node, label)).collect();
        (side, nodes)
    };
    let mut frontier = vec![decide(Side::Win, won), decide(Side::Lose, lost)];
    let mut round = 0;
    while frontier.iter().any(|(_, nodes)| !nodes.is_empty()) || round + 1 < exits.len() {
        round += 1;
        let mut next = expand(preds, store, &frontier, level, round as u32);
        let acting = exits.get_mut(round).map(std::mem::take).unwrap_or_default();
        for (child, nodes) in [Side::Win, Side::Lose].into_iter().zip(acting) {
            let side = child.opposite();
            let label = Label { side, level, remoteness: round as u32 };
            let decided: Vec<P::Node> = nodes
                .into_par_iter()
                .filter(|&node| {
                    let decided = settle(store, node, child, label);
                    // Decided by the exit, or before it (in this round, by a move inside) at
                    // the same label: either way the exit gives the node's value.
                    if decided || store.label(node) == Some(label) {
                        kept(node);
                    }
                    decided
                })
                .collect();
            if !decided.is_empty() {
                next.push((side, decided));
            }
        }
        frontier = next;
    }
}

/// Decides, at `level` and with remoteness `remoteness`, every undecided predecessor that the
/// decisions of `frontier` settle, and returns them.
fn expand<P, S>(
    preds: &P,
    store: &S,
    frontier: &Frontier<P::Node>,
    level: Stake,
    remoteness: u32,
) -> Frontier<P::Node>
where
    P: Predecessors,
    S: LabelStore<Node = P::Node>,
{
    let tasks: Vec<(Side, &[P::Node])> = frontier
        .iter()
        .flat_map(|(side, nodes)| nodes.chunks(PARALLEL_CHUNK).map(move |chunk| (*side, chunk)))
        .collect();
    let run = |&(side, nodes): &(Side, &[P::Node])| {
        let parent = Label { side: side.opposite(), level, remoteness };
        (parent.side, expand_nodes(preds, store, side, nodes, parent))
    };
    let parallel = tasks.len() > 1 && tasks.iter().map(|t| t.1.len()).sum::<usize>() >= 2 * PARALLEL_CHUNK;
    let next = if parallel { tasks.par_iter().map(run).collect() } else { tasks.iter().map(run).collect() };
    let mut next: Frontier<P::Node> = next;
    next.retain(|(_, nodes)| !nodes.is_empty());
    next
}

/// Expands `nodes`, all decided as `side`: their undecided predecessors that this settles are
/// decided as `parent` and returned.
fn expand_nodes<P, S>(preds: &P, store: &S, side: Side, nodes: &[P::Node], parent: Label) -> Vec<P::Node>
where
    P: Predecessors,
    S: LabelStore<Node = P::Node>,
{
    let mut scratch = P::Scratch::default();
    let mut batch = Vec::new();
    let mut decided = Vec::new();
    let groups: Vec<&[P::Node]> = nodes.chunks(BATCH).collect();
    for (g, group) in groups.iter().enumerate() {
        // Stored lists cost two dependent misses a node: hinted ahead, they overlap the work on
        // the batches before (1e9 edges, outcome model: 38.1 s to 21.7 s).
        for (ahead, stage) in [(2, Prefetch::Where), (1, Prefetch::List)] {
            for &n in groups.get(g + ahead).copied().unwrap_or_default() {
                preds.prefetch(n, stage);
            }
        }
        batch.clear();
        for &node in group.iter() {
            preds.for_each_predecessor(node, &mut scratch, |p| batch.push(p));
        }
        // Plain loads first: they do not depend on each other, so their cache misses overlap, and
        // the atomic updates after them (which order memory accesses) find the lines in cache.
        batch.retain(|&p| !store.is_decided(p));
        for &p in &batch {
            if settle(store, p, side, parent) {
                decided.push(p);
            }
        }
    }
    decided
}

/// Takes into account a move of `node` into a position decided as `child` for its mover: a lost
/// child decides `node` as `label` (a win), a won one uses up one of its moves, the last deciding
/// it as `label` (a loss). True when this call decided `node`. The one step of the kernel, shared
/// with kernels that run it elsewhere (over a cluster).
#[inline]
pub fn settle<S: LabelStore>(store: &S, node: S::Node, child: Side, label: Label) -> bool {
    match child {
        Side::Lose => store.decide(node, label),
        Side::Win => store.decrement(node, label),
    }
}

/// Labels packed in one atomic word per position, eight bytes: the general-purpose [`LabelStore`],
/// with remoteness.
#[derive(Debug)]
pub struct DenseStore<N = u32> {
    /// State (2 bits), level (32 bits), then the move counter while undecided or the remoteness
    /// once decided (30 bits).
    words: Vec<AtomicU64>,
    node: std::marker::PhantomData<N>,
}

const STATE_SHIFT: u32 = 62;
const LEVEL_SHIFT: u32 = 30;
const COUNT_MASK: u64 = (1 << LEVEL_SHIFT) - 1;
const UNDECIDED: u64 = 0;
const WIN: u64 = 1;
const LOSE: u64 = 2;

/// The most moves a position may have in a [`DenseStore`], and the longest remoteness.
pub const MAX_COUNT: u32 = COUNT_MASK as u32;

impl<N: NodeId> DenseStore<N> {
    /// A store for positions whose move counts are `moves` (0 for finals).
    ///
    /// # Panics
    /// If a count exceeds [`MAX_COUNT`].
    pub fn new(moves: Vec<u32>) -> Self {
        let mut words = crate::huge_pages::with_capacity(moves.len());
        words.extend(moves.into_iter().map(|m| {
            assert!(m <= MAX_COUNT, "a position has more than {MAX_COUNT} moves");
            AtomicU64::new(u64::from(m))
        }));
        Self { words, node: std::marker::PhantomData }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// The words, for a forward pass to set the move counters of undecided positions in place.
    pub(crate) fn words_mut(&mut self) -> &mut [AtomicU64] {
        &mut self.words
    }

    /// Whether the store has no position.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8
    }

    fn encode(label: Label) -> u64 {
        let state = match label.side {
            Side::Win => WIN,
            Side::Lose => LOSE,
        };
        let remoteness = u64::from(label.remoteness.min(MAX_COUNT));
        (state << STATE_SHIFT) | (u64::from(label.level as u32) << LEVEL_SHIFT) | remoteness
    }

    #[inline]
    fn word(&self, node: N) -> &AtomicU64 {
        &self.words[node.index()]
    }
}

impl<N: NodeId> Clone for DenseStore<N> {
    fn clone(&self) -> Self {
        let words = self.words.iter().map(|w| AtomicU64::new(w.load(Ordering::Relaxed))).collect();
        Self { words, node: std::marker::PhantomData }
    }
}

impl<N: NodeId> LabelStore for DenseStore<N> {
    type Node = N;

    #[inline]
    fn is_decided(&self, node: N) -> bool {
        self.word(node).load(Ordering::Acquire) >> STATE_SHIFT != UNDECIDED
    }

    #[inline]
    fn label(&self, node: N) -> Option<Label> {
        let word = self.word(node).load(Ordering::Acquire);
        let side = match word >> STATE_SHIFT {
            WIN => Side::Win,
            LOSE => Side::Lose,
            _ => return None,
        };
        let level = (word >> LEVEL_SHIFT) as u32 as Stake;
        Some(Label { side, level, remoteness: (word & COUNT_MASK) as u32 })
    }

    #[inline]
    fn decide(&self, node: N, label: Label) -> bool {
        let new = Self::encode(label);
        self.word(node)
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
                (w >> STATE_SHIFT == UNDECIDED).then_some(new)
            })
            .is_ok()
    }

    #[inline]
    fn decrement(&self, node: N, label: Label) -> bool {
        let decided = Self::encode(label);
        let update = self.word(node).fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            if w >> STATE_SHIFT != UNDECIDED {
                None
            } else if w & COUNT_MASK == 1 {
                Some(decided)
            } else {
                Some(w - 1)
            }
        });
        matches!(update, Ok(w) if w & COUNT_MASK == 1)
    }
}
