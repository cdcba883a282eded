//! Solving a dense index backwards: the one path for every solve whose positions are numbered
//! `0..len` and walked back by un-moves instead of a stored graph. That is a whole small game (any
//! [`crate::Game`] with a [`DenseIndex`] and [`Unmoves`], see [`solve_game`]) or one layer of a larger
//! one whose other moves leave it into layers solved before (Awari by stone count, where captures
//! leave; chess tables, where captures and promotions do).
//!
//! A [`DenseLayer`] says, for each index, whether it is a position, how many of its moves stay in
//! the layer and the best value among those that leave it (its *exit*); and it lists the
//! predecessors of a position. [`solve_layer`] counts in a parallel forward pass, then runs the
//! one kernel of [`crate::retrograde`] from the finals and the exits, in the minimax model (an
//! exit worth `v` to the mover is a move to a position decided at level `|v|`). The labels go into
//! a [`CounterCells`] store chosen by the caller: [`DenseStore`] keeps remoteness, [`ByteStore`]
//! keeps one byte a position when only values matter, [`OutcomeStore`] two bytes with remoteness
//! when the values are only win or lose (distances to mate).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering};

use rayon::prelude::*;

use crate::blocked::BlockedFile;
use crate::game::{DenseIndex, Stake, Unmoves};
use crate::retrograde::{
    propagate_level, DenseStore, Label, LabelStore, LevelSeeds, NodeId, Predecessors, Seed, Side,
};
use crate::solution::{Model, Solution};

/// What the forward pass finds at one index of a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forward {
    /// The index is not a position (an illegal placement, say): it stays undecided.
    Absent,
    /// A final position, whose mover loses this stake.
    Final(Stake),
    /// A position with `inside` moves to positions of the layer and, if some of its moves leave
    /// the layer, the best of those.
    Moves {
        /// Moves that stay in the layer.
        inside: u32,
        /// The best move for the mover among those that leave the layer, if any.
        exit: Option<Exit>,
    },
}

/// The best move of a position that leaves its layer, into a position solved before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// Its value for the mover.
    pub value: Stake,
    /// The remoteness of the position it reaches (plies to the end of the game from there), so
    /// that the solve's remoteness counts plies through exits (distance to mate across chess
    /// tables); 0 for layers that keep no distances.
    pub remoteness: u32,
}

impl Exit {
    /// An exit worth `value` to the mover, without distance.
    pub fn new(value: Stake) -> Self {
        Self { value, remoteness: 0 }
    }

    /// Whether the mover prefers this exit to `other`: a higher value, or the same value
    /// sooner when it wins and later when it loses (as perfect play chooses).
    pub fn better_than(self, other: Exit) -> bool {
        let key = |e: Exit| (e.value, -i64::from(e.value) * i64::from(e.remoteness));
        key(self) > key(other)
    }

    /// The better of `best` (if any) and this exit.
    pub fn best_of(self, best: Option<Exit>) -> Exit {
        match best {
            Some(b) if !self.better_than(b) => b,
            _ => self,
        }
    }
}

/// A move that leaves its layer, named by the position it reaches instead of valued: what a
/// layer whose solver holds only a share of the layers solved before (a worker of a cluster)
/// gives for each such move, so that the owner of that position values it
/// ([`DenseLayer::forward_leaving`], [`DenseLayer::exit_through`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaving {
    /// The layer it reaches, numbered as in [`DenseLayer::reached`].
    pub layer: u32,
    /// The position it reaches, an index of that layer.
    pub index: u64,
    /// What else the move's value depends on (Oware: the stones it captures), and
    /// [`Leaving::MARKED`] for a move of the kind the layer tells apart
    /// ([`DenseLayer::exits_found`]).
    pub tag: u32,
}

impl Leaving {
    /// The bit of [`Leaving::tag`] that marks a move whose exit the layer is told of apart from
    /// the others (a chess capture: version 4 files leave out the values captures give).
    pub const MARKED: u32 = 1 << 31;
}

/// A layer that [`Leaving`] moves reach: how many indices it has and how it is cut into
/// segments ([`DenseLayer::segment`]), which says who owns each of its positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reached {
    /// Its indices.
    pub len: u64,
    /// Its segment.
    pub segment: u64,
}

/// Positions numbered densely, with their forward facts and their predecessors.
pub trait DenseLayer: Sync {
    /// Working memory one thread reuses for [`DenseLayer::predecessors`].
    type Scratch: Default + Send;

    /// How many indices the layer has (some may not be positions).
    fn len(&self) -> u64;

    /// Whether the layer has no index.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The forward facts of the indices `start..start + out.len()`, in order: a chunk, so that a
    /// layer can walk its index incrementally instead of decoding every index.
    fn forward(&self, start: u64, out: &mut [Forward]);

    /// Calls `f` with the index of every position that has a move to the position at `index`
    /// staying in the layer (once per such move).
    fn predecessors(&self, index: u64, scratch: &mut Self::Scratch, f: impl FnMut(u64));

    /// How many consecutive indices make a segment of the layer (the last one may be shorter):
    /// a cluster cuts every segment into one range a worker, so that a layer whose moves mostly
    /// lead from one segment to about the same offset in another keeps most of them between
    /// one worker's positions. A chess table's segment is one side to move's half: a move flips
    /// the side to move, and most moves keep the kings, the first digit within a half. The
    /// whole layer, by default.
    fn segment(&self) -> u64 {
        self.len()
    }

    /// Told, during the solve, of each position whose value is the one its exit gives (its best
    /// move leaves the layer, or one that does is as good): a layer whose stored values can
    /// leave such positions out (a chess table, whose captures give them back) keeps them. Not
    /// told of exits worth a draw, whose positions stay undecided. Nothing, by default.
    fn exit_kept(&self, index: u64) {
        let _ = index;
    }

    /// Whether the forward pass must name the moves that leave the layer
    /// ([`DenseLayer::forward_leaving`]) because this layer holds only a share of the layers
    /// they reach (its solver's, [`LayeredBuild::hold_share`]). No, by default.
    fn asks(&self) -> bool {
        false
    }

    /// The forward facts of the chunk, as [`DenseLayer::forward`] gives them, except that a
    /// move into a position of a layer solved before that this solver does not hold is given to
    /// `leave` (with its offset in the chunk) instead of valued: a fact's exit is then only the
    /// best of the moves valued here (the end of the game, say, or a position of a layer held
    /// whole), and `None` if there are none. `marked`, as long as `out` and all `None`, gets at
    /// each offset the best of the moves valued here that [`Leaving::MARKED`] would mark. By
    /// default the facts of [`DenseLayer::forward`], with nothing left or marked.
    fn forward_leaving(
        &self,
        start: u64,
        out: &mut [Forward],
        marked: &mut [Option<Exit>],
        leave: &mut dyn FnMut(usize, Leaving),
    ) {
        let _ = (marked, leave);
        self.forward(start, out);
    }

    /// The layers that [`Leaving::layer`] numbers, in that order. None, by default.
    fn reached(&self) -> Vec<Reached> {
        Vec::new()
    }

    /// The exit that `leaving` (given by [`DenseLayer::forward_leaving`] of any solver's layer)
    /// gives its mover, read in the share of the layer it reaches that this layer holds, which
    /// owns that position. Only called where [`DenseLayer::forward_leaving`] leaves moves.
    fn exit_through(&self, leaving: Leaving) -> Exit {
        unreachable!("{leaving:?}: this layer leaves no move unvalued")
    }

    /// Told, once the moves [`DenseLayer::forward_leaving`] named at `index` are valued, of
    /// the position's best exit and best marked exit (the moves valued in the layer included,
    /// named moves marked by their tag's [`Leaving::MARKED`]): what the layer's own
    /// [`DenseLayer::forward`] sees when it values every move (a chess table's capture marks).
    /// Only called for positions with moves, where the layer asks, from any thread. Nothing, by
    /// default.
    fn exits_found(&self, index: u64, best: Option<Exit>, marked: Option<Exit>) {
        let _ = (index, best, marked);
    }

    /// Whether the build this layer belongs to was told to stop (a user's Ctrl-C): the solve
    /// then ends with [`DenseError::Interrupted`] within one chunk of its forward pass or one
    /// level of its propagation. Never, by default.
    fn interrupted(&self) -> bool {
        false
    }
}

/// A [`LabelStore`] that starts as one move counter per index.
pub trait CounterCells: LabelStore + Send + Sized {
    /// One index's cell.
    type Cell: Send;
    /// A store of `len` cells, every counter 0.
    fn with_len(len: usize) -> Self;
    /// The cells, for the forward pass to set the counters.
    fn cells_mut(&mut self) -> &mut [Self::Cell];
    /// Sets an undecided cell's move counter; `None` if the store cannot count that many moves.
    fn set_counter(cell: &mut Self::Cell, count: u32) -> Option<()>;
}

/// A layer that does not fit the store or the exit encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DenseError {
    /// The layer said to stop ([`DenseLayer::interrupted`]): nothing was solved.
    #[error("interrupted")]
    Interrupted,
    /// A position has more moves than the store counts.
    #[error("a position has {0} moves, more than this store counts")]
    TooManyMoves(u32),
    /// An exit's value does not fit in a signed byte.
    #[error("an exit is worth {0}, beyond the +-127 that exits can hold")]
    ExitTooLarge(Stake),
    /// An exit's remoteness does not fit in two bytes.
    #[error("an exit reaches a position {0} plies from the end, beyond the 65,534 that exits can hold")]
    ExitTooFar(u32),
}

/// Positions handled per parallel task in the forward pass (offsets in a chunk fit in a `u16`).
const CHUNK: usize = 1 << 14;

/// The exits of one chunk of a layer that act at one level and reach positions of one side:
/// their offsets in the chunk and the remoteness of the positions they reach. Two bytes an exit,
/// four where distances are kept, and nothing for the positions without one.
struct ChunkExits {
    start: u64,
    level: Stake,
    child: Side,
    offsets: Vec<u16>,
    /// Empty while every exit of the list reaches a position at remoteness 0.
    distances: Vec<u16>,
}

impl ChunkExits {
    fn push(&mut self, offset: u16, distance: u16) {
        // `distances` is empty or as long as `offsets`: the first distance brings the zeros
        // of the exits before it.
        if distance != 0 || !self.distances.is_empty() {
            self.distances.resize(self.offsets.len(), 0);
            self.distances.push(distance);
        }
        self.offsets.push(offset);
    }
}

/// What the forward pass finds in one chunk: its finals and its exits.
type ChunkSeeds<N> = (Vec<Seed<N>>, Vec<ChunkExits>);

/// Where the propagation of a range of a layer starts, as its forward pass found it: every final
/// and every exit worth something, held compactly (two bytes an exit, four with a distance) until
/// the kernel takes them level by level.
pub struct LayerSeeds<N> {
    finals: Vec<Seed<N>>,
    exits: Vec<ChunkExits>,
}

impl<N> Default for LayerSeeds<N> {
    fn default() -> Self {
        Self { finals: Vec::new(), exits: Vec::new() }
    }
}

impl<N: NodeId> LayerSeeds<N> {
    /// The seeds of consecutive chunks, in order.
    fn from_chunks(chunks: Vec<ChunkSeeds<N>>) -> Self {
        let (finals, exits): (Vec<_>, Vec<_>) = chunks.into_iter().unzip();
        Self { finals: finals.into_iter().flatten().collect(), exits: exits.into_iter().flatten().collect() }
    }

    /// Adds the seeds of `later`, a forward pass over indices after this one's.
    pub fn append(&mut self, mut later: LayerSeeds<N>) {
        self.finals.append(&mut later.finals);
        self.exits.append(&mut later.exits);
    }

    /// The levels at which the seeds enter, each once, highest first.
    pub fn levels(&self) -> Vec<Stake> {
        let mut levels: Vec<Stake> =
            self.finals.iter().map(Seed::level).chain(self.exits.iter().map(|e| e.level)).collect();
        levels.sort_unstable_by(|a, b| b.cmp(a));
        levels.dedup();
        levels
    }

    /// The seeds by decreasing level: at each level the finals, then the exits, in index order.
    /// Each chunk's list is freed as soon as it is read, so that the exits move into the
    /// kernel's rounds instead of being held twice. `progress` is told of `len` units spread
    /// over the levels.
    pub fn by_level<'a>(
        self,
        len: usize,
        progress: &'a (dyn Fn(u64) + Sync),
    ) -> impl Iterator<Item = Seed<N>> + 'a
    where
        N: 'a,
    {
        self.grouped(len, progress).flat_map(|(_, finals, lists)| {
            let exits = lists.into_iter().flat_map(|list| {
                let ChunkExits { start, level, child, offsets, distances } = list;
                let distances = distances.into_iter().chain(std::iter::repeat(0));
                offsets.into_iter().zip(distances).map(move |(offset, remoteness)| Seed::Exit {
                    node: N::from_index(start as usize + usize::from(offset)),
                    child,
                    level,
                    remoteness: u32::from(remoteness),
                })
            });
            finals.into_iter().chain(exits)
        })
    }

    /// The finals and the chunks' exit lists of each level, highest first, each chunk's lists in
    /// index order.
    fn grouped<'a>(
        self,
        len: usize,
        progress: &'a (dyn Fn(u64) + Sync),
    ) -> impl Iterator<Item = (Stake, Vec<Seed<N>>, Vec<ChunkExits>)> + 'a
    where
        N: 'a,
    {
        let levels = self.levels();
        let LayerSeeds { mut finals, mut exits } = self;
        finals.sort_by_key(|s| std::cmp::Reverse(s.level()));
        // Stable: each level's chunks stay in index order.
        exits.sort_by_key(|e| std::cmp::Reverse(e.level));
        // Level `i` of `count` is told its share of `len`, so that the shares add up to `len`;
        // without a level, `len` is told at once.
        let (len, count) = (len as u64, levels.len() as u64);
        if count == 0 {
            progress(len);
        }
        let mut finals = finals.into_iter().peekable();
        let mut exits = exits.into_iter().peekable();
        levels.into_iter().enumerate().map(move |(i, level)| {
            let i = i as u64;
            progress((i + 1) * len / count - i * len / count);
            let at_level: Vec<Seed<N>> =
                std::iter::from_fn(|| finals.next_if(|s| s.level() == level)).collect();
            let lists: Vec<ChunkExits> = std::iter::from_fn(|| exits.next_if(|e| e.level == level)).collect();
            (level, at_level, lists)
        })
    }
}

impl<N: NodeId + Send> LayerSeeds<N> {
    /// The seeds level by level, highest first, each sorted by the round where it acts, in
    /// parallel: a layer of chess has hundreds of millions of exits, which one thread would
    /// take seconds to sort while the other waits. Each chunk's list is freed as it is sorted.
    /// `progress` is told of `len` units spread over the levels.
    pub fn into_levels<'a>(
        self,
        len: usize,
        progress: &'a (dyn Fn(u64) + Sync),
    ) -> impl Iterator<Item = LevelSeeds<N>> + 'a
    where
        N: 'a,
    {
        self.grouped(len, progress).map(|(level, finals, lists)| {
            let mut seeds = LevelSeeds::new(level);
            for seed in finals {
                if let Seed::Final { node, side, .. } = seed {
                    seeds.finals[side as usize].push(node);
                }
            }
            let sorted = lists
                .into_par_iter()
                .fold(
                    || LevelSeeds::new(level),
                    |mut seeds, list| {
                        let distances = list.distances.iter().copied().chain(std::iter::repeat(0));
                        for (&offset, distance) in list.offsets.iter().zip(distances) {
                            let node = N::from_index(list.start as usize + usize::from(offset));
                            seeds.exit(node, list.child, u32::from(distance));
                        }
                        seeds
                    },
                )
                .reduce(|| LevelSeeds::new(level), append_smaller);
            append_smaller(seeds, sorted)
        })
    }
}

/// `a` and `b` in one, the smaller appended to the larger (the order of seeds does not matter).
fn append_smaller<N>(a: LevelSeeds<N>, b: LevelSeeds<N>) -> LevelSeeds<N> {
    let size = |s: &LevelSeeds<N>| s.exits.iter().flatten().map(Vec::len).sum::<usize>();
    let (mut large, small) = if size(&a) >= size(&b) { (a, b) } else { (b, a) };
    large.append(small);
    large
}

/// Solves `layer` into a store of type `S`, in the minimax model: finals seed at their stake,
/// exits at their value, and what nothing decides is a draw (endless play). `progress` is told
/// of `2 * len` units of work as they are done (the forward pass, then the seeding).
pub fn solve_layer<L, S>(layer: &L, progress: &(dyn Fn(u64) + Sync)) -> Result<S, DenseError>
where
    L: DenseLayer,
    S: CounterCells,
{
    let len = usize::try_from(layer.len()).expect("a dense layer fits in memory");
    let mut store = S::with_len(len);
    let seeds: LayerSeeds<S::Node> = forward_pass::<L, S, _>(layer, 0, store.cells_mut(), progress)?;
    let preds = LayerPredecessors::<L, S::Node>(layer, PhantomData);
    let mut levels = seeds.into_levels(len, progress);
    // Asked before each level is taken, since taking one reports its progress: a stop that
    // comes as the forward pass ends reports none of the propagation.
    loop {
        if layer.interrupted() {
            return Err(DenseError::Interrupted);
        }
        let Some(level) = levels.next() else { break };
        propagate_level(&preds, &store, level, &|node| layer.exit_kept(node.index() as u64));
    }
    Ok(store)
}

/// The forward pass over the indices `start..start + cells.len()` of `layer`, in parallel: sets
/// each index's move counter in `cells` (exits included) and returns where the propagation
/// starts, numbered from 0 for the layer's first index (not the range's). `progress` is told of
/// `cells.len()` units as they are done. A cluster runs it on the range each worker owns.
pub fn forward_pass<L, S, N>(
    layer: &L,
    start: u64,
    cells: &mut [S::Cell],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<LayerSeeds<N>, DenseError>
where
    L: DenseLayer,
    S: CounterCells,
    N: NodeId,
{
    let chunks: Vec<ChunkSeeds<N>> = cells
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, cells)| {
            if layer.interrupted() {
                return Err(DenseError::Interrupted);
            }
            let start = start as usize + c * CHUNK;
            let mut facts = vec![Forward::Absent; cells.len()];
            layer.forward(start as u64, &mut facts);
            let seeds = seed_chunk::<S, N>(start, &facts, cells)?;
            progress(cells.len() as u64);
            Ok(seeds)
        })
        .collect::<Result<_, _>>()?;
    Ok(LayerSeeds::from_chunks(chunks))
}

/// The move counters and seeds of the indices `start..start + cells.len()` of a layer from
/// their forward facts `facts`, which the caller found: as [`forward_pass`] does with the facts
/// it finds. For a solver that values the moves leaving the layer itself
/// ([`DenseLayer::forward_leaving`]: a cluster worker asks the owners of their positions).
pub fn seed_facts<S, N>(
    start: u64,
    facts: &[Forward],
    cells: &mut [S::Cell],
) -> Result<LayerSeeds<N>, DenseError>
where
    S: CounterCells,
    N: NodeId,
{
    assert_eq!(facts.len(), cells.len(), "a fact a cell");
    let chunks: Vec<ChunkSeeds<N>> = cells
        .par_chunks_mut(CHUNK)
        .zip(facts.par_chunks(CHUNK))
        .enumerate()
        .map(|(c, (cells, facts))| seed_chunk::<S, N>(start as usize + c * CHUNK, facts, cells))
        .collect::<Result<_, _>>()?;
    Ok(LayerSeeds::from_chunks(chunks))
}

/// What [`forward_leaving`] finds: the facts of a range's indices, the best marked exit valued
/// at each, and the moves named (with their offsets from the range's start).
pub type Named = (Vec<Forward>, Vec<Option<Exit>>, Vec<(usize, Leaving)>);

/// The forward facts of the `len` indices of `layer` from `start`, in parallel, each move that
/// leaves the layer into a position this solver does not hold named (with its offset from
/// `start`) instead of valued ([`DenseLayer::forward_leaving`]): for a solver that asks the
/// owners of the positions they reach, then completes the facts' exits and counts them with
/// [`seed_facts`].
pub fn forward_leaving<L: DenseLayer>(layer: &L, start: u64, len: usize) -> Named {
    let mut facts = vec![Forward::Absent; len];
    let mut marked = vec![None; len];
    let leaving: Vec<Vec<(usize, Leaving)>> = facts
        .par_chunks_mut(CHUNK)
        .zip(marked.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(c, (facts, marked))| {
            let first = c * CHUNK;
            let mut leaving = Vec::new();
            layer.forward_leaving(start + first as u64, facts, marked, &mut |offset, mv| {
                leaving.push((first + offset, mv))
            });
            leaving
        })
        .collect();
    (facts, marked, leaving.into_iter().flatten().collect())
}

/// Tells `layer` ([`DenseLayer::exits_found`]) of the best exit and best marked exit of each
/// position with moves of the `facts` of its indices from `start`, once their named moves are
/// valued (`marked` at the same offsets), in parallel.
pub fn tell_exits_found<L: DenseLayer>(layer: &L, start: u64, facts: &[Forward], marked: &[Option<Exit>]) {
    facts.par_iter().zip(marked).enumerate().with_min_len(CHUNK).for_each(|(i, (fact, &marked))| {
        if let Forward::Moves { exit, .. } = *fact {
            layer.exits_found(start + i as u64, exit, marked);
        }
    });
}

/// The exits of `moves` (each given by [`DenseLayer::forward_leaving`] of some solver's layer),
/// in order, valued by `layer` ([`DenseLayer::exit_through`]) in parallel: each is a read at
/// random in the layer's share of a smaller layer, which many threads overlap.
pub fn exits_through<L: DenseLayer>(layer: &L, moves: &[Leaving]) -> Vec<Exit> {
    const EXITS_A_TASK: usize = 256;
    moves.par_iter().with_min_len(EXITS_A_TASK).map(|&mv| layer.exit_through(mv)).collect()
}

/// The move counters (into `cells`) and the seeds of one chunk of at most [`CHUNK`] indices
/// from `start`, from their forward facts.
fn seed_chunk<S, N>(
    start: usize,
    facts: &[Forward],
    cells: &mut [S::Cell],
) -> Result<ChunkSeeds<N>, DenseError>
where
    S: CounterCells,
    N: NodeId,
{
    debug_assert!(facts.len() <= CHUNK, "offsets in a chunk fit in two bytes");
    let mut finals = Vec::new();
    let mut exits: Vec<ChunkExits> = Vec::new();
    for (i, (fact, cell)) in facts.iter().zip(cells.iter_mut()).enumerate() {
        let count = match *fact {
            Forward::Absent => 0,
            Forward::Final(stake) => {
                finals.extend(Model::Minimax.seed(N::from_index(start + i), stake));
                0
            }
            Forward::Moves { inside, exit: best } => {
                if let Some(best) = best.filter(|e| e.value != 0) {
                    chunk_exits(&mut exits, start as u64, best)?.push(i as u16, exit_distance(best)?);
                }
                inside + u32::from(best.is_some())
            }
        };
        S::set_counter(cell, count).ok_or(DenseError::TooManyMoves(count))?;
    }
    // The lists live until the kernel takes them: no spare capacity meanwhile.
    for list in &mut exits {
        list.offsets.shrink_to_fit();
        list.distances.shrink_to_fit();
    }
    Ok((finals, exits))
}

/// The list of `exits` (one chunk's) where `exit` goes, added if new.
fn chunk_exits(exits: &mut Vec<ChunkExits>, start: u64, exit: Exit) -> Result<&mut ChunkExits, DenseError> {
    let level = exit
        .value
        .checked_abs()
        .filter(|&l| l <= i8::MAX.into())
        .ok_or(DenseError::ExitTooLarge(exit.value))?;
    // An exit worth something to the mover reaches a position its opponent loses.
    let child = if exit.value > 0 { Side::Lose } else { Side::Win };
    let at = match exits.iter().position(|e| e.level == level && e.child == child) {
        Some(at) => at,
        None => {
            exits.push(ChunkExits { start, level, child, offsets: Vec::new(), distances: Vec::new() });
            exits.len() - 1
        }
    };
    Ok(&mut exits[at])
}

/// The remoteness an exit carries, as stored.
fn exit_distance(exit: Exit) -> Result<u16, DenseError> {
    u16::try_from(exit.remoteness)
        .ok()
        .filter(|&d| d != u16::MAX)
        .ok_or(DenseError::ExitTooFar(exit.remoteness))
}

/// The kernel's view of a layer's predecessors.
struct LayerPredecessors<'l, L, N>(&'l L, PhantomData<N>);

impl<L: DenseLayer, N: NodeId> Predecessors for LayerPredecessors<'_, L, N> {
    type Node = N;
    type Scratch = L::Scratch;

    #[inline]
    fn for_each_predecessor(&self, node: N, scratch: &mut L::Scratch, mut f: impl FnMut(N)) {
        self.0.predecessors(node.index() as u64, scratch, |i| f(N::from_index(i as usize)));
    }
}

impl<N: NodeId> CounterCells for DenseStore<N> {
    type Cell = AtomicU64;

    fn with_len(len: usize) -> Self {
        DenseStore::new(vec![0; len])
    }

    fn cells_mut(&mut self) -> &mut [AtomicU64] {
        self.words_mut()
    }

    fn set_counter(cell: &mut AtomicU64, count: u32) -> Option<()> {
        // An undecided word is its move counter alone.
        (count <= crate::retrograde::MAX_COUNT).then(|| *cell.get_mut() = u64::from(count))
    }
}

/// One byte a position: a move counter (at most 63) while undecided, then the side and a level
/// of at most 63; no remoteness. For layers of a game whose values are small and whose positions
/// have few moves (Awari), where memory is what limits the size solved.
#[derive(Debug)]
pub struct ByteStore<N = u32> {
    cells: Vec<AtomicU8>,
    node: PhantomData<N>,
}

/// Set in a decided cell; the low six bits hold the level.
const DECIDED: u8 = 0x80;
/// Set in a decided cell won by the player to move.
const WON: u8 = 0x40;
/// The level's bits, and the largest counter.
const LEVEL: u8 = 0x3F;

impl<N> ByteStore<N> {
    /// The value for the player to move at each index, 0 for undecided (endless play), as signed
    /// bytes.
    pub fn into_values(self) -> Vec<u8> {
        self.cells.into_par_iter().map(|c| byte_value(c.into_inner()) as u8).collect()
    }
}

/// A decided cell's value for the player to move, 0 for an undecided one.
fn byte_value(cell: u8) -> i8 {
    match (cell & DECIDED != 0, cell & WON != 0) {
        (false, _) => 0,
        (true, true) => (cell & LEVEL) as i8,
        (true, false) => -((cell & LEVEL) as i8),
    }
}

fn encode(label: Label) -> u8 {
    debug_assert!(label.level <= i32::from(LEVEL), "a byte store keeps levels up to 63");
    DECIDED | if label.side == Side::Win { WON } else { 0 } | label.level as u8
}

impl<N: NodeId> LabelStore for ByteStore<N> {
    type Node = N;

    #[inline]
    fn is_decided(&self, node: N) -> bool {
        self.cells[node.index()].load(Ordering::Relaxed) & DECIDED != 0
    }

    #[inline]
    fn label(&self, node: N) -> Option<Label> {
        let cell = self.cells[node.index()].load(Ordering::Relaxed);
        (cell & DECIDED != 0).then(|| Label {
            side: if cell & WON != 0 { Side::Win } else { Side::Lose },
            level: i32::from(cell & LEVEL),
            remoteness: 0,
        })
    }

    #[inline]
    fn decide(&self, node: N, label: Label) -> bool {
        let new = encode(label);
        self.cells[node.index()]
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| (c & DECIDED == 0).then_some(new))
            .is_ok()
    }

    #[inline]
    fn decrement(&self, node: N, label: Label) -> bool {
        let decided = encode(label);
        let update =
            self.cells[node.index()].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| match c {
                c if c & DECIDED != 0 => None,
                1 => Some(decided),
                c => Some(c - 1),
            });
        update == Ok(1)
    }
}

impl<N: NodeId> CounterCells for ByteStore<N> {
    type Cell = AtomicU8;

    fn with_len(len: usize) -> Self {
        Self { cells: (0..len).into_par_iter().map(|_| AtomicU8::new(0)).collect(), node: PhantomData }
    }

    fn cells_mut(&mut self) -> &mut [AtomicU8] {
        &mut self.cells
    }

    fn set_counter(cell: &mut AtomicU8, count: u32) -> Option<()> {
        (count <= u32::from(LEVEL)).then(|| *cell.get_mut() = count as u8)
    }
}

/// Two bytes a position: a move counter (at most 16,383) while undecided, then win or lose and
/// the remoteness (at most 16,383). One level only (a win or a loss, no stakes): for layers whose
/// values are outcomes with a distance, as chess tables with their distance to mate, where the
/// eight bytes of a [`DenseStore`] would limit the size solved.
#[derive(Debug)]
pub struct OutcomeStore<N = u32> {
    cells: Vec<AtomicU16>,
    node: PhantomData<N>,
}

/// Set in a decided [`OutcomeStore`] cell.
const OUTCOME_DECIDED: u16 = 0x8000;
/// Set in a decided cell won by the player to move.
const OUTCOME_WON: u16 = 0x4000;
/// The counter's or the remoteness's bits.
const OUTCOME_COUNT: u16 = 0x3FFF;

impl<N> OutcomeStore<N> {
    /// The largest remoteness (and move count) a cell holds.
    pub const MAX_REMOTENESS: u32 = OUTCOME_COUNT as u32;

    /// One `u16` a position, `f(index, label)` (no label for an undecided one), written over the
    /// store's own memory: a large layer's result needs no second copy.
    pub fn into_u16(self, f: impl Fn(usize, Option<Label>) -> u16 + Sync) -> Vec<u16> {
        // Same size and alignment: the collect reuses the allocation.
        let mut cells: Vec<u16> = self.cells.into_iter().map(AtomicU16::into_inner).collect();
        cells.par_iter_mut().enumerate().for_each(|(i, cell)| *cell = f(i, decode_outcome(*cell)));
        cells
    }
}

fn decode_outcome(cell: u16) -> Option<Label> {
    (cell & OUTCOME_DECIDED != 0).then(|| Label {
        side: if cell & OUTCOME_WON != 0 { Side::Win } else { Side::Lose },
        level: 1,
        remoteness: u32::from(cell & OUTCOME_COUNT),
    })
}

fn encode_outcome(label: Label) -> u16 {
    debug_assert!(label.level == 1, "an outcome store keeps one level");
    let remoteness = label.remoteness.min(u32::from(OUTCOME_COUNT)) as u16;
    OUTCOME_DECIDED | if label.side == Side::Win { OUTCOME_WON } else { 0 } | remoteness
}

impl<N: NodeId> LabelStore for OutcomeStore<N> {
    type Node = N;

    #[inline]
    fn is_decided(&self, node: N) -> bool {
        self.cells[node.index()].load(Ordering::Relaxed) & OUTCOME_DECIDED != 0
    }

    #[inline]
    fn label(&self, node: N) -> Option<Label> {
        decode_outcome(self.cells[node.index()].load(Ordering::Relaxed))
    }

    #[inline]
    fn decide(&self, node: N, label: Label) -> bool {
        let new = encode_outcome(label);
        self.cells[node.index()]
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| (c & OUTCOME_DECIDED == 0).then_some(new))
            .is_ok()
    }

    #[inline]
    fn decrement(&self, node: N, label: Label) -> bool {
        let decided = encode_outcome(label);
        let update =
            self.cells[node.index()].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| match c {
                c if c & OUTCOME_DECIDED != 0 => None,
                1 => Some(decided),
                c => Some(c - 1),
            });
        update == Ok(1)
    }
}

impl<N: NodeId> CounterCells for OutcomeStore<N> {
    type Cell = AtomicU16;

    fn with_len(len: usize) -> Self {
        // Read and updated at random by the propagation: huge pages spare it most address
        // translation misses.
        let mut cells = crate::huge_pages::with_capacity(len);
        (0..len).into_par_iter().map(|_| AtomicU16::new(0)).collect_into_vec(&mut cells);
        Self { cells, node: PhantomData }
    }

    fn cells_mut(&mut self) -> &mut [AtomicU16] {
        &mut self.cells
    }

    fn set_counter(cell: &mut AtomicU16, count: u32) -> Option<()> {
        (count <= u32::from(OUTCOME_COUNT)).then(|| *cell.get_mut() = count as u16)
    }
}

/// A whole game over its dense index, as a layer without exits: what [`solve_game`] solves on
/// one machine, and what a cluster splits over its workers. It holds the game or a pointer to it
/// (`&G`, `Arc<G>`), so that a layer shared between threads can own its game.
pub struct GameLayer<R>(pub R);

impl<R, G> DenseLayer for GameLayer<R>
where
    R: std::ops::Deref<Target = G> + Sync,
    G: DenseIndex + Unmoves + Sync,
{
    type Scratch = Vec<G::Position>;

    fn len(&self) -> u64 {
        self.0.index_len()
    }

    fn forward(&self, start: u64, out: &mut [Forward]) {
        let mut moves = Vec::new();
        for (i, fact) in out.iter_mut().enumerate() {
            let Some(pos) = self.0.position(start + i as u64) else { continue };
            moves.clear();
            self.0.moves(&pos, &mut moves);
            *fact = match moves.len() {
                0 => Forward::Final(self.0.final_loss(&pos)),
                n => Forward::Moves { inside: n as u32, exit: None },
            };
        }
    }

    fn predecessors(&self, index: u64, buffer: &mut Vec<G::Position>, mut f: impl FnMut(u64)) {
        buffer.clear();
        if let Some(pos) = self.0.position(index) {
            self.0.unmoves(&pos, buffer);
        }
        for q in buffer.iter() {
            f(self.0.index(q));
        }
    }
}

/// A database built layer after layer, each layer reading the ones before it (Awari by stone
/// count, chess tables by material): what a driver that solves each layer its own way (over a
/// cluster, each process writing its range of the layer's file) needs of the game's storage.
/// The layers are numbered from 0 in the order they are built; [`LayeredBuild::next`] is the
/// first one not complete (those after it may be complete already, and are then skipped).
pub trait LayeredBuild {
    /// A layer, owning what it reads of the layers before it.
    type Layer: DenseLayer + Send + Sync + 'static;
    /// The store a layer's labels are counted in ([`ByteStore`] where one byte of value a
    /// position suffices).
    type Store: CounterCells<Node = u64> + 'static;
    /// Why the storage failed.
    type Error: std::fmt::Display;
    /// A layer held in part whose stored values leave out what some of its moves give (a chess
    /// table's version 4 file leaves out what its captures give), to be completed
    /// ([`LayeredBuild::completing`]).
    type Completing: DenseLayer + Send + Sync + 'static;
    /// A layer's file written in compressed blocks by the solvers together
    /// ([`LayeredBuild::share_file`]); [`Unblocked`](crate::blocked::Unblocked) where every file
    /// is written by range.
    type Blocked: BlockedFile + 'static;

    /// The first layer not complete yet.
    fn next(&self) -> usize;

    /// Layer [`LayeredBuild::next`], to solve.
    fn layer(&self) -> Self::Layer;

    /// Where the values of layer [`LayeredBuild::next`] are written, each position's at its
    /// index (see [`LayeredBuild::stored`]), before [`LayeredBuild::finish`] makes them
    /// complete.
    fn partial_path(&self) -> std::path::PathBuf;

    /// Gives `write`, part after part, what the partial file holds of the indices of `layer` in
    /// `ranges` (one solver's share of the layer), whose labels `store` holds at each range's
    /// local offset: parts of at most [`STORED_PART`] bytes, so that the file's bytes are never
    /// held beside the store whole. Stops at the first error `write` gives, and gives it. A
    /// build that writes its layers in blocks ([`LayeredBuild::share_file`]) has nothing to
    /// write by range: by default, an error says so.
    fn stored(
        &self,
        layer: &Self::Layer,
        ranges: &[OwnedRange],
        store: Self::Store,
        write: &mut dyn FnMut(StoredRange) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let _ = (layer, ranges, store, write);
        Err(std::io::Error::other("this build writes its layers in blocks, not by range"))
    }

    /// What this solver's share of `layer` (its `ranges`, whose labels `store` holds) gives the
    /// layer's file: by default the store, written by range ([`LayeredBuild::stored`]). The
    /// layer is solved and given up: a build may drop here what it held of the layers before
    /// that the next layers do not read.
    fn share_file(
        &mut self,
        layer: std::sync::Arc<Self::Layer>,
        ranges: &[OwnedRange],
        store: Self::Store,
    ) -> ShareFile<Self::Layer, Self::Store, Self::Blocked> {
        let _ = ranges;
        ShareFile::ByRange(layer, store)
    }

    /// Makes layer `n` ([`LayeredBuild::next`]) complete from its partial file and records it
    /// (done by one process of a build).
    fn finish(&mut self, n: usize) -> Result<(), Self::Error>;

    /// Makes layer `n` ([`LayeredBuild::next`]) complete from the blocks its solvers compressed
    /// in `order` ([`LayeredBuild::share_file`]): `blocks` gives each block's part and
    /// compressed length, in the file's order, and `parts` the files that hold the blocks of
    /// each solver, in the file's order ([`crate::blocked::PartsReader`]). Done by one process
    /// of a build, which then records the layer.
    fn finish_blocked(
        &mut self,
        n: usize,
        file: &Self::Blocked,
        order: &<Self::Blocked as BlockedFile>::Order,
        blocks: &[(usize, u64)],
        parts: &[std::path::PathBuf],
    ) -> Result<(), Self::Error>;

    /// Reads layer `n` ([`LayeredBuild::next`]) that another process made complete.
    fn reload(&mut self, n: usize) -> Result<(), Self::Error>;

    /// Holds, from now on, only this solver's share of each layer (one worker of a cluster):
    /// the ranges that `share` gives of a layer of that size and cut. Its layers then name the
    /// moves that leave them ([`DenseLayer::asks`]) and value those whose positions it owns
    /// ([`DenseLayer::exit_through`]), so that no worker reads the positions of another. By
    /// default a build keeps holding every layer whole, and its layers value their exits.
    fn hold_share(&mut self, share: ShareOf) -> Result<(), Self::Error> {
        let _ = share;
        Ok(())
    }

    /// The next layer this solver holds a share of that must be completed before layer
    /// [`LayeredBuild::next`] is solved, if one is left: every solver's driver walks its share
    /// of it forward, its [`DenseLayer::forward_leaving`] naming the moves that complete a
    /// position's value into positions other solvers hold, and tells it each position's best
    /// ([`DenseLayer::exits_found`]); then gives it back ([`LayeredBuild::completed`]). A layer's
    /// moves reach only layers completed before it. None, by default: a build that holds whole
    /// layers completes them itself as it reads them.
    fn completing(&mut self) -> Option<Self::Completing> {
        None
    }

    /// Takes back what `layer` (given by [`LayeredBuild::completing`]) learnt, once every
    /// position of this solver's share of it was told its best move. The driver may still hold
    /// `layer` a while after.
    fn completed(&mut self, layer: &Self::Completing) {
        let _ = layer;
    }
}

/// What one solver's share of a solved layer gives the layer's file
/// ([`LayeredBuild::share_file`]).
pub enum ShareFile<L, S, B> {
    /// The layer and its labels, to write by range into the partial file
    /// ([`LayeredBuild::stored`]).
    ByRange(std::sync::Arc<L>, S),
    /// The layer's file, written in compressed blocks by every solver, and the entries of this
    /// solver's ranges, by local offset.
    Blocked(B, Vec<u16>),
}

/// The ranges of a layer of a given size and cut that one solver owns
/// ([`LayeredBuild::hold_share`]): the same function of the layer on every call.
pub type ShareOf = std::sync::Arc<dyn Fn(Reached) -> Vec<OwnedRange> + Send + Sync>;

/// Consecutive indices of a layer that one solver owns, and where their labels start in its
/// store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnedRange {
    /// The first index.
    pub start: u64,
    /// Where the first index's label is in the solver's store.
    pub local: usize,
    /// How many indices.
    pub len: usize,
}

/// The most bytes a [`StoredRange`] holds.
pub const STORED_PART: usize = 1 << 22;

/// One solver's part of a layer's partial file ([`LayeredBuild::stored`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRange {
    /// The whole file's length in bytes.
    pub file_len: u64,
    /// Where `bytes` go in the file.
    pub offset: u64,
    /// The values of the range, as stored.
    pub bytes: Vec<u8>,
}

impl StoredRange {
    /// Gives `write` the parts of a solver's share of a layer's partial file, `width` bytes an
    /// index at its index times `width`, for the indices of `ranges` below `end` (the file's
    /// indices): each range cut into parts of at most [`STORED_PART`] bytes, whose bytes `bytes`
    /// makes from their local indices. What every [`LayeredBuild::stored`] does with its store.
    pub fn write_parts(
        ranges: &[OwnedRange],
        width: usize,
        end: u64,
        bytes: impl Fn(std::ops::Range<usize>) -> Vec<u8>,
        write: &mut dyn FnMut(StoredRange) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let per_part = STORED_PART / width;
        for r in ranges.iter().filter(|r| r.start < end) {
            let len = (end - r.start).min(r.len as u64) as usize;
            for at in (0..len).step_by(per_part) {
                let local = r.local + at..r.local + len.min(at + per_part);
                let offset = width as u64 * (r.start + at as u64);
                write(StoredRange { file_len: width as u64 * end, offset, bytes: bytes(local) })?;
            }
        }
        Ok(())
    }
}

/// Solves every position of a game's dense index in the minimax model without building a
/// graph: forward moves are only counted, and the propagation walks backwards with un-moves.
/// Indices that are not positions come out as undecided.
pub fn solve_game<G: DenseIndex + Unmoves + Sync>(game: &G) -> Result<Solution<u64>, DenseError> {
    let store: DenseStore<u64> = solve_layer(&GameLayer(game), &|_| {})?;
    Ok(Solution::from_store(Model::Minimax, store))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A share's parts cover each range's indices below the end exactly once, at `width` bytes
    /// an index, none larger than STORED_PART, each with the bytes of its own local indices.
    #[test]
    fn stored_parts_cover_each_range_below_the_end_in_bounded_pieces() {
        let per_part = (STORED_PART / 2) as u64;
        let end = 3 * per_part + 5;
        let ranges = [
            OwnedRange { start: 0, local: 0, len: (2 * per_part + 3) as usize },
            OwnedRange {
                start: 2 * per_part + 3,
                local: (2 * per_part + 3) as usize,
                len: (per_part + 9) as usize,
            },
            OwnedRange { start: end, local: (3 * per_part + 12) as usize, len: 4 },
        ];
        let mut parts = Vec::new();
        let bytes = |local: std::ops::Range<usize>| local.flat_map(|i| (i as u16).to_le_bytes()).collect();
        let mut keep = |part| {
            parts.push(part);
            Ok(())
        };
        StoredRange::write_parts(&ranges, 2, end, bytes, &mut keep).unwrap();
        assert!(parts.iter().all(|p| p.bytes.len() <= STORED_PART && p.file_len == 2 * end));
        let mut covered: Vec<(u64, u64)> = parts.iter().map(|p| (p.offset, p.bytes.len() as u64)).collect();
        covered.sort_unstable();
        let mut next = 0;
        for (offset, len) in covered {
            assert_eq!(offset, next, "the parts follow each other");
            next += len;
        }
        assert_eq!(next, 2 * end, "every index below the end, none beyond");
        // Here local index = global index, so each part's bytes start with its own index.
        assert!(parts.iter().all(|p| p.bytes[..2] == ((p.offset / 2) as u16).to_le_bytes()));
        // Three parts of the first range; the second is cut at the end, in two; the third is
        // beyond it.
        assert_eq!(parts.len(), 5);
    }

    /// A mover prefers more, then the sooner win and the later loss; a draw's distance is no
    /// matter, and the best of several is the same whatever their order.
    #[test]
    fn exits_are_ranked_as_perfect_play_chooses() {
        let exit = |value, remoteness| Exit { value, remoteness };
        assert!(exit(2, 9).better_than(exit(1, 0)));
        assert!(exit(1, 3).better_than(exit(1, 5)));
        assert!(exit(-1, 5).better_than(exit(-1, 3)));
        assert!(!exit(0, 1).better_than(exit(0, 7)) && !exit(0, 7).better_than(exit(0, 1)));
        let all = [exit(-1, 8), exit(1, 6), exit(1, 2), exit(0, 0), exit(1, 4)];
        for turn in 0..all.len() {
            let mut exits = all;
            exits.rotate_left(turn);
            assert_eq!(exits.iter().fold(None, |best, e| Some(e.best_of(best))), Some(exit(1, 2)));
        }
    }
}
