//! The retrograde propagation kernel: labels positions win or lose backwards from seeds, in
//! O(V + E), on graphs with cycles too.
//!
//! One kernel serves the three value models of [`crate::solution::Model`]. Seeds come in *levels*
//! processed from the highest to the lowest; at each level the seeds are decided, then the
//! decisions spread to predecessors exactly as in the classic outcome algorithm: a lose position
//! makes every undecided predecessor win, a win position decrements its predecessors' move
//! counters and a counter that reaches zero makes that predecessor lose. Because the win and lose
//! sets only grow as the level falls, every position is decided once, at the highest level where
//! it can be, which is its value; a first-in first-out queue per level makes each remoteness the
//! shortest win or the longest loss among the moves that keep that value.
//!
//! The kernel knows nothing of how predecessors are found ([`Predecessors`]: a stored reverse
//! graph, or a game's un-move generator over a dense index) nor of how labels are stored
//! ([`LabelStore`]: [`DenseStore`] here, a packed store for databases that need a few bytes per
//! position).

use crate::game::Stake;

/// A node identifier usable as an array index.
pub trait NodeId: Copy + Eq + std::fmt::Debug {
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
pub trait Predecessors {
    /// The node identifier.
    type Node: NodeId;
    /// Calls `f` once per move into `node` (twice for a predecessor with two such moves).
    fn for_each_predecessor(&self, node: Self::Node, f: impl FnMut(Self::Node));
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

/// A final position that enters the propagation at a given level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seed<N> {
    /// The position.
    pub node: N,
    /// Its side for the player to move.
    pub side: Side,
    /// Its level.
    pub level: Stake,
}

/// Per-position storage that the kernel reads and writes: a move counter for each undecided
/// position, a [`Label`] for each decided one.
pub trait LabelStore {
    /// The node identifier.
    type Node: NodeId;
    /// Whether `node` has been decided.
    fn is_decided(&self, node: Self::Node) -> bool;
    /// The label of a decided node.
    fn label(&self, node: Self::Node) -> Option<Label>;
    /// Records the label of an undecided node.
    fn decide(&mut self, node: Self::Node, label: Label);
    /// Counts one more move of undecided `node` as leading to a win position; returns true when
    /// none of its moves is left uncounted.
    fn decrement(&mut self, node: Self::Node) -> bool;
}

/// Runs the propagation. `seeds` must be sorted by decreasing level; the store must hold, for
/// every undecided non-final node, its number of moves.
pub fn propagate<P, S>(preds: &P, store: &mut S, seeds: &[Seed<P::Node>])
where
    P: Predecessors,
    S: LabelStore<Node = P::Node>,
{
    debug_assert!(seeds.windows(2).all(|w| w[0].level >= w[1].level), "seeds sorted by decreasing level");
    let mut queue: Vec<P::Node> = Vec::new();
    for group in seeds.chunk_by(|a, b| a.level == b.level) {
        let level = group[0].level;
        queue.clear();
        for seed in group {
            if !store.is_decided(seed.node) {
                store.decide(seed.node, Label { side: seed.side, level, remoteness: 0 });
                queue.push(seed.node);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let node = queue[head];
            head += 1;
            let label = store.label(node).expect("queued nodes are decided");
            let parent = Label { side: label.side.opposite(), level, remoteness: label.remoteness + 1 };
            preds.for_each_predecessor(node, |p| {
                if store.is_decided(p) {
                    return;
                }
                if label.side == Side::Lose || store.decrement(p) {
                    store.decide(p, parent);
                    queue.push(p);
                }
            });
        }
    }
}

/// Labels in flat arrays, nine bytes per position: the general-purpose [`LabelStore`].
#[derive(Debug, Clone)]
pub struct DenseStore<N = u32> {
    side: Vec<u8>,
    /// Move counter while undecided, remoteness once decided.
    count: Vec<u32>,
    level: Vec<Stake>,
    node: std::marker::PhantomData<N>,
}

const UNDECIDED: u8 = 0;
const WIN: u8 = 1;
const LOSE: u8 = 2;

impl<N: NodeId> DenseStore<N> {
    /// A store for positions whose move counts are `moves` (0 for finals).
    pub fn new(moves: Vec<u32>) -> Self {
        let n = moves.len();
        Self { side: vec![UNDECIDED; n], count: moves, level: vec![0; n], node: std::marker::PhantomData }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.side.len()
    }

    /// Whether the store has no position.
    pub fn is_empty(&self) -> bool {
        self.side.is_empty()
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.side.capacity() + self.count.capacity() * 4 + self.level.capacity() * 4
    }
}

impl<N: NodeId> LabelStore for DenseStore<N> {
    type Node = N;

    #[inline]
    fn is_decided(&self, node: N) -> bool {
        self.side[node.index()] != UNDECIDED
    }

    #[inline]
    fn label(&self, node: N) -> Option<Label> {
        let i = node.index();
        let side = match self.side[i] {
            WIN => Side::Win,
            LOSE => Side::Lose,
            _ => return None,
        };
        Some(Label { side, level: self.level[i], remoteness: self.count[i] })
    }

    #[inline]
    fn decide(&mut self, node: N, label: Label) {
        let i = node.index();
        self.side[i] = match label.side {
            Side::Win => WIN,
            Side::Lose => LOSE,
        };
        self.level[i] = label.level;
        self.count[i] = label.remoteness;
    }

    #[inline]
    fn decrement(&mut self, node: N) -> bool {
        let c = &mut self.count[node.index()];
        *c -= 1;
        *c == 0
    }
}
