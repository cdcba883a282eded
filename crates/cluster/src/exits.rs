//! The forward pass of a layer whose workers hold only their shares of the layers solved before
//! ([`DenseLayer::asks`]): no worker reads a position another worker owns. Each worker walks its
//! ranges a piece at a time, names each move that leaves the layer into a position it does not
//! hold ([`DenseLayer::forward_leaving`]) and sends it, as a question, to the owner of the position
//! it reaches (or values it at once if that is itself); that worker values it in its own share
//! ([`DenseLayer::exit_through`]) and sends the exit back to the owner of the position the move
//! leaves, which keeps the best exit of each of its positions, and the best of its marked moves
//! ([`gamegraph::dense::Leaving::MARKED`]: chess captures). Once every answer of the piece is in,
//! the layer is told both of each position ([`DenseLayer::exits_found`]), the piece's facts are
//! those the one-machine forward pass finds, and its counters and seeds are set as there
//! ([`gamegraph::dense::seed_facts`]).
//!
//! Each piece has its own timely timestamp, and a worker walks up to three pieces ahead
//! while the answers of the first come, so that no worker waits on each piece's round trip; the
//! questions and answers in flight, and the facts a worker holds, stay bounded by those pieces,
//! whatever the layer's size.
//!
//! The same walk completes a worker's share of a layer held in part ([`complete_asking`]): a
//! chess table read from a version 4 file, whose captures give back the values it left out.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use gamegraph::dense::{
    exits_through, forward_leaving, seed_facts, tell_exits_found, CounterCells, DenseError, DenseLayer, Exit,
    Forward, LayerSeeds, Leaving, OwnedRange,
};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::operators::Probe;
use timely::dataflow::{InputHandleVec, ProbeHandle};
use timely::worker::Worker;

use crate::kernel::{Node, Ownership};

/// Indices of a worker's range walked forward at once, at most: their questions and answers
/// are what is in flight, and their facts what waits for answers.
const PIECE: usize = 1 << 17;

/// Indices of a piece, at least.
const MIN_PIECE: usize = 16;

/// The indices of a piece of `layer` over `peers` workers: [`PIECE`], or less for a layer small
/// enough that a worker's share would be fewer than eight pieces, so that its pieces overlap
/// ([`IN_FLIGHT`]) too.
fn piece_len<L: DenseLayer>(layer: &L, peers: usize) -> usize {
    let share = usize::try_from(layer.len() / (8 * peers as u64)).unwrap_or(usize::MAX);
    share.clamp(MIN_PIECE, PIECE)
}

/// A move that leaves the layer, sent to the owner of the position it reaches: that position's
/// layer (as [`DenseLayer::reached`] numbers it), its index there, the move's tag, and the
/// position the move leaves.
type Question = (u32, u64, u32, Node);

/// A move's exit, sent back to the owner of the position it leaves: that position, the exit's
/// value, and its remoteness with [`Leaving::MARKED`] set if the move's tag has it (no
/// remoteness comes near that bit).
type Answer = (Node, i32, u32);

/// Pieces a worker has asked about and not yet completed: it walks the next ones while their
/// answers come, so that neither it nor the workers it asks wait for the slowest piece.
const IN_FLIGHT: usize = 3;

/// The facts of a piece being asked about, from its first index and first local index, and the
/// best exit of each one's marked moves.
struct Piece {
    start: u64,
    first: usize,
    facts: Vec<Forward>,
    marked: Vec<Option<Exit>>,
}

impl Piece {
    /// Whether the position at local index `local` is one of its.
    fn holds(&self, local: usize) -> bool {
        local.wrapping_sub(self.first) < self.facts.len()
    }

    /// Adds `exit`, of a move that leaves the position at offset `at` (marked or not), to its
    /// best exits.
    fn keep(&mut self, at: usize, exit: Exit, marked: bool) {
        match &mut self.facts[at] {
            Forward::Moves { exit: best, .. } => *best = Some(exit.best_of(*best)),
            _ => unreachable!("only a position with moves has a move that leaves"),
        }
        if marked {
            self.marked[at] = Some(exit.best_of(self.marked[at]));
        }
    }
}

/// Bytes of questions and answers this process's workers sent to other workers.
static SENT_ELSEWHERE: AtomicU64 = AtomicU64::new(0);

/// How many bytes of questions (24 bytes each) and answers (16) this process's workers have sent
/// to other workers since the process started: the traffic of exits as messages.
pub fn bytes_sent_elsewhere() -> u64 {
    SENT_ELSEWHERE.load(Ordering::Relaxed)
}

/// The forward pass of this worker's `ranges` of `layer` (owned as `ownership` says) into
/// `store`, asking the owners of the positions its moves leave to for their exits: the seeds
/// [`gamegraph::dense::forward_pass`] would find on each range. Every worker calls it for the
/// same layer. `progress` is told of one unit an index.
pub fn forward_asking<L, S>(
    worker: &mut Worker,
    layer: &Arc<L>,
    ownership: Ownership,
    ranges: &[OwnedRange],
    store: &mut S,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<LayerSeeds<Node>, DenseError>
where
    L: DenseLayer + Send + Sync + 'static,
    S: CounterCells,
{
    let mut seeds = LayerSeeds::default();
    ask_exits(worker, layer, ownership, ranges, |start, local, facts| {
        let cells = &mut store.cells_mut()[local..local + facts.len()];
        seeds.append(seed_facts::<S, Node>(start, facts, cells)?);
        progress(facts.len() as u64);
        Ok(())
    })?;
    Ok(seeds)
}

/// Completes this worker's share of `layer` (a layer held in part,
/// [`gamegraph::dense::LayeredBuild::completing`]): walks it forward as [`forward_asking`]
/// does, asking the owners of the positions its named moves reach, so that the layer is told
/// each of its positions' best move ([`DenseLayer::exits_found`]). Every worker calls it for the
/// same layer.
pub fn complete_asking<L>(worker: &mut Worker, layer: &Arc<L>) -> Result<(), DenseError>
where
    L: DenseLayer + Send + Sync + 'static,
{
    let ownership = Ownership::segments(layer.len(), layer.segment(), worker.peers());
    let ranges = ownership.owned(worker.index(), layer.len());
    ask_exits(worker, layer, ownership, &ranges, |_, _, _| Ok(()))
}

/// Walks this worker's `ranges` of `layer` forward a piece at a time, asking the owners of the
/// positions its named moves reach for their exits, tells the layer each position's best exit
/// and best marked exit, and gives `found` each piece's facts, completed (with the piece's
/// first index and first local offset). Every worker calls it for the same layer.
fn ask_exits<L>(
    worker: &mut Worker,
    layer: &Arc<L>,
    ownership: Ownership,
    ranges: &[OwnedRange],
    mut found: impl FnMut(u64, usize, &[Forward]) -> Result<(), DenseError>,
) -> Result<(), DenseError>
where
    L: DenseLayer + Send + Sync + 'static,
{
    let (me, peers) = (worker.index(), worker.peers());
    let sent = Rc::new(Cell::new(0u64));
    let (asked, answered) = (Rc::clone(&sent), Rc::clone(&sent));
    let reached: Vec<Ownership> =
        layer.reached().iter().map(|r| Ownership::segments(r.len, r.segment, peers)).collect();
    let owners = reached.clone();
    // The pieces in flight, with their timestamps.
    let pieces: Rc<RefCell<VecDeque<(u32, Piece)>>> = Rc::default();
    let mut questions = InputHandleVec::<u32, Question>::new();
    let probe = ProbeHandle::new();
    let answering = Arc::clone(layer);
    let applied = Rc::clone(&pieces);
    worker.dataflow::<u32, _, _>(|scope| {
        scope
            .input_from(&mut questions)
            .unary::<CapacityContainerBuilder<Vec<Answer>>, _, _, _>(
                Exchange::new(move |q: &Question| route(reached[q.0 as usize].owner(q.1), me, 24, &asked)),
                "Answer",
                move |_, _| {
                    move |input, output| {
                        input.for_each(|cap, asked| {
                            let moves: Vec<Leaving> = asked
                                .iter()
                                .map(|&(layer, index, tag, _)| Leaving { layer, index, tag })
                                .collect();
                            let exits = exits_through(&*answering, &moves);
                            let mut session = output.session(&cap);
                            for (&(_, _, tag, from), exit) in asked.iter().zip(exits) {
                                debug_assert!(exit.remoteness < Leaving::MARKED, "{exit:?}");
                                session.give((from, exit.value, exit.remoteness | tag & Leaving::MARKED));
                            }
                        });
                    }
                },
            )
            .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                Exchange::new(move |a: &Answer| route(ownership.owner(a.0), me, 16, &answered)),
                "Apply",
                move |_, _| {
                    move |input, _| {
                        input.for_each(|_, answers| {
                            let mut pieces = applied.borrow_mut();
                            for &(from, value, remoteness) in answers.iter() {
                                let local = ownership.local(from);
                                let piece = pieces.iter_mut().map(|p| &mut p.1).find(|p| p.holds(local));
                                let piece = piece.expect("answers come for the pieces in flight");
                                let at = local - piece.first;
                                let exit = Exit { value, remoteness: remoteness & !Leaving::MARKED };
                                piece.keep(at, exit, remoteness & Leaving::MARKED != 0);
                            }
                        });
                    }
                },
            )
            .probe_with(&probe);
    });
    // Waits for the oldest piece's answers, then completes it.
    let mut complete_oldest = |worker: &mut Worker| -> Result<(), DenseError> {
        let time = pieces.borrow().front().expect("a piece in flight").0;
        worker.step_or_park_while(None, || probe.less_than(&(time + 1)));
        let (_, Piece { start, first, facts, marked }) = pieces.borrow_mut().pop_front().expect("in flight");
        tell_exits_found(&**layer, start, &facts, &marked);
        found(start, first, &facts)
    };
    let piece = piece_len(&**layer, peers);
    for range in ranges {
        for at in (0..range.len).step_by(piece) {
            if layer.interrupted() {
                return Err(DenseError::Interrupted);
            }
            let len = piece.min(range.len - at);
            let (start, local) = (range.start + at as u64, range.local + at);
            let (facts, marked, leaving) = forward_leaving(&**layer, start, len);
            let mut asked = Piece { start, first: local, facts, marked };
            // The moves into positions this worker owns are valued here, without messages.
            let (own, others): (Vec<_>, Vec<_>) =
                leaving.into_iter().partition(|(_, mv)| owners[mv.layer as usize].owner(mv.index) == me);
            let moves: Vec<Leaving> = own.iter().map(|&(_, mv)| mv).collect();
            for ((offset, mv), exit) in own.into_iter().zip(exits_through(&**layer, &moves)) {
                asked.keep(offset, exit, mv.tag & Leaving::MARKED != 0);
            }
            let time = *questions.time();
            pieces.borrow_mut().push_back((time, asked));
            for (offset, mv) in others {
                questions.send((mv.layer, mv.index, mv.tag, start + offset as u64));
            }
            questions.advance_to(time + 1);
            if pieces.borrow().len() > IN_FLIGHT {
                complete_oldest(worker)?;
            } else {
                // Answers the questions that came meanwhile, so that no worker waits on this
                // one's next piece for them.
                worker.step();
            }
        }
    }
    while !pieces.borrow().is_empty() {
        complete_oldest(worker)?;
    }
    // The other workers may have pieces left, whose questions this worker answers.
    drop(questions);
    worker.step_or_park_while(None, || !probe.done());
    SENT_ELSEWHERE.fetch_add(sent.get(), Ordering::Relaxed);
    Ok(())
}

/// The worker a message of `bytes` goes to, `owner`, counted in `sent` if it is not this one (`me`).
fn route(owner: usize, me: usize, bytes: u64, sent: &Cell<u64>) -> u64 {
    if owner != me {
        sent.set(sent.get() + bytes);
    }
    owner as u64
}
