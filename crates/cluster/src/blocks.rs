//! A layer's file written in compressed blocks by every worker ([`gamegraph::blocked`]: a chess
//! table's file), no worker holding more of the layer than its own share:
//!
//! 1. The order: each sampled block ([`Trial`]) is compressed by one worker (trial `k` by worker
//!    `k % peers`), which asks the other workers that own entries of the block for them (each
//!    answers with its entries in the block's order); every worker then learns every trial's
//!    length and chooses the same order.
//! 2. The entries: each worker owns a range of the file's blocks. It sends each of its entries
//!    to the owner of the block the file stores it in, as runs of consecutive layer indices,
//!    a piece of its ranges at a time (at most four pieces ahead of what has arrived),
//!    and places those it receives at their place in its range of the file.
//! 3. The blocks: each worker compresses its blocks into a part file of its own, and the leader
//!    writes the file from the parts ([`gamegraph::dense::LayeredBuild::finish_blocked`]).
//!
//! A worker holds its share of the layer's entries, its range of the file, and the pieces and
//! trials in flight: the memory of one share twice, whatever the layer's size.

use std::cell::RefCell;
use std::io::{self, Write};
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use gamegraph::blocked::{BlockedFile, Trial, NOT_STORED};
use gamegraph::dense::OwnedRange;
use rayon::prelude::*;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::operators::Probe;
use timely::dataflow::{InputHandleVec, ProbeHandle};
use timely::worker::Worker;

use crate::kernel::{everyone, exchange, Owners, Ownership};

/// Trials compressed at once over every worker: their blocks (8,192 entries of chess, held
/// with each entry's owner: 48 KiB) are what a round holds.
const TRIALS_AT_ONCE: usize = 1024;

/// Layer indices a worker sends at once.
const PIECE: usize = 1 << 20;

/// Pieces a worker sends ahead of those every worker has placed.
const IN_FLIGHT: u32 = 4;

/// Bytes of entries this process's workers sent to other workers to write files in blocks.
static SENT_ELSEWHERE: AtomicU64 = AtomicU64::new(0);

/// How many bytes of entries (two bytes each, with a header of 12 to 16 bytes a run or trial)
/// and of questions about trials this process's workers have sent to other workers since the
/// process started: the traffic of writing files in blocks.
pub fn bytes_sent_elsewhere() -> u64 {
    SENT_ELSEWHERE.load(Ordering::Relaxed)
}

/// The worker a message of `bytes` goes to, `to`, counted in [`bytes_sent_elsewhere`] if it is
/// not this one (`me`).
fn route(to: u32, me: usize, bytes: usize) -> u64 {
    if to as usize != me {
        SENT_ELSEWHERE.fetch_add(bytes as u64, Ordering::Relaxed);
    }
    u64::from(to)
}

/// A block's number in the file, the worker that compressed it, and its compressed length.
pub type BlockLen = (u64, usize, u64);

/// Entries of consecutive layer indices that one worker sends another: its destination, the
/// first index, and the entries.
type Run = (u32, u64, Vec<u16>);

/// A worker asked for what it holds of a trial's block: that worker, the trial's number, and
/// the worker that asks.
type Ask = (u32, u64, u32);

/// What one worker holds of a trial's block: the worker that asked, the trial's number, the
/// worker that holds them, and the entries of its indices in the block's order.
type Held = (u32, u64, u32, Vec<u16>);

/// Writes this worker's blocks of `file` into the file at `part`: `entries` are those of its
/// `ranges` of the layer (by local offset), the layer being owned as `ownership` says. Every
/// worker calls it for the same file. Returns the order chosen (the same on every worker) and
/// the compressed length of each of this worker's blocks, with the block's number.
pub fn write_blocks<B>(
    worker: &mut Worker,
    file: Arc<B>,
    ownership: Ownership,
    ranges: &[OwnedRange],
    entries: Vec<u16>,
    part: &Path,
) -> io::Result<(Arc<B::Order>, Vec<BlockLen>)>
where
    B: BlockedFile + 'static,
{
    let owners = Owners::new(ownership, worker.peers());
    let order = Arc::new(chosen_order(worker, &*file, &owners, &entries)?);
    let places = file_ranges(&*file, worker.peers());
    let placed = sent_to_their_blocks(worker, &file, &order, &places, ranges, entries);
    let lens = compress_into(&*file, &order, &places[worker.index()], &placed, worker.index(), part)?;
    Ok((order, lens))
}

/// The ranges of the file's entries that each of `peers` workers compresses, with their
/// offsets in its range of the file: whole blocks, a range of each of the file's segments
/// ([`BlockedFile::segment_blocks`]).
fn file_ranges<B: BlockedFile>(file: &B, peers: usize) -> Vec<Vec<OwnedRange>> {
    let (count, per_block) = (file.entries().div_ceil(file.block_entries()), file.block_entries());
    let blocks = Ownership::segments(count, file.segment_blocks(), peers);
    (0..peers)
        .map(|w| {
            let owned = blocks.owned(w, count).into_iter().map(|r| {
                let start = r.start * per_block;
                let end = ((r.start + r.len as u64) * per_block).min(file.entries());
                OwnedRange { start, local: r.local * per_block as usize, len: (end - start) as usize }
            });
            owned.collect()
        })
        .collect()
}

/// The order of `file`, chosen on its trials: each worker compresses its trials (trial `k` if
/// `k % peers` is its number), asking the owners of their other entries for them, and every
/// worker chooses from all their lengths.
fn chosen_order<B: BlockedFile>(
    worker: &mut Worker,
    file: &B,
    owners: &Owners,
    entries: &[u16],
) -> io::Result<B::Order> {
    let (me, peers) = (worker.index(), worker.peers());
    let sample = file.sample();
    let mut mine = Vec::new();
    let rounds = sample.len().div_ceil(TRIALS_AT_ONCE).max(1);
    for round in 0..rounds {
        let first = round * TRIALS_AT_ONCE;
        let ks: Vec<u64> = (first..(first + TRIALS_AT_ONCE).min(sample.len()))
            .filter(|k| k % peers == me)
            .map(|k| k as u64)
            .collect();
        // Each trial's block with this worker's entries in place, and the owner of each entry.
        let blocks: Vec<(Vec<u16>, Vec<u32>)> = ks
            .par_iter()
            .map_init(
                || (owners.clone(), Vec::new()),
                |(owners, indices), &k| {
                    indices.clear();
                    file.trial_indices(sample[k as usize], indices);
                    let mut block = vec![0; indices.len()];
                    let mut from = Vec::with_capacity(indices.len());
                    for (value, &i) in block.iter_mut().zip(indices.iter()) {
                        let (owner, local) = owners.find(i);
                        if owner == me {
                            *value = entries[local];
                        }
                        from.push(owner as u32);
                    }
                    (block, from)
                },
            )
            .collect();
        let mut asks: Vec<Ask> = Vec::new();
        for (&k, (_, from)) in ks.iter().zip(&blocks) {
            let mut involved = vec![false; peers];
            from.iter().for_each(|&w| involved[w as usize] = true);
            involved[me] = false;
            asks.extend((0..peers).filter(|&w| involved[w]).map(|w| (w as u32, k, me as u32)));
        }
        let asked = exchange(worker, asks, move |a: &Ask| route(a.0, me, 16));
        let answers: Vec<Held> = asked
            .par_iter()
            .map_init(
                || (owners.clone(), Vec::new()),
                |(owners, indices), &(_, k, asker)| {
                    indices.clear();
                    file.trial_indices(sample[k as usize], indices);
                    let values = indices
                        .iter()
                        .filter_map(|&i| {
                            let (owner, local) = owners.find(i);
                            (owner == me).then(|| entries[local])
                        })
                        .collect();
                    (asker, k, me as u32, values)
                },
            )
            .collect();
        let answers = exchange(worker, answers, move |h: &Held| route(h.0, me, 16 + 2 * h.3.len()));
        mine.extend(trial_lens(file, &sample, &ks, blocks, answers, me)?);
    }
    let mut lens = everyone(worker, mine);
    lens.sort_unstable();
    debug_assert!(lens.iter().enumerate().all(|(k, l)| l.0 == k as u64), "every trial once");
    Ok(file.choose(&lens.into_iter().map(|l| l.1).collect::<Vec<_>>()))
}

/// The compressed length of each of this worker's trials `ks`, with its number: `blocks` holds
/// each trial's block with this worker's entries in place and the owner of each entry, and
/// `answers` the other owners' entries.
fn trial_lens<B: BlockedFile>(
    file: &B,
    sample: &[Trial],
    ks: &[u64],
    blocks: Vec<(Vec<u16>, Vec<u32>)>,
    mut answers: Vec<Held>,
    me: usize,
) -> io::Result<Vec<(u64, u64)>> {
    answers.sort_unstable_by_key(|h| (h.1, h.2));
    ks.par_iter()
        .zip(blocks)
        .map(|(&k, (mut block, from))| {
            let start = answers.partition_point(|h| h.1 < k);
            let end = answers.partition_point(|h| h.1 <= k);
            let mut streams: Vec<std::slice::Iter<u16>> = Vec::new();
            for (_, _, owner, values) in &answers[start..end] {
                streams.resize_with(streams.len().max(*owner as usize + 1), || [].iter());
                streams[*owner as usize] = values.iter();
            }
            for (value, &owner) in block.iter_mut().zip(&from) {
                if owner as usize != me {
                    *value = *streams[owner as usize].next().expect("each owner sends all it holds");
                }
            }
            Ok((k, file.trial_len(sample[k as usize], block)?))
        })
        .collect()
}

/// Sends each of this worker's `entries` (of its `ranges`) to the worker whose blocks hold it
/// (`places` gives each worker's ranges of the file), and returns this worker's range of the
/// file once every worker's have arrived.
fn sent_to_their_blocks<B>(
    worker: &mut Worker,
    file: &Arc<B>,
    order: &Arc<B::Order>,
    places: &[Vec<OwnedRange>],
    ranges: &[OwnedRange],
    entries: Vec<u16>,
) -> Vec<u16>
where
    B: BlockedFile + 'static,
{
    let me = worker.index();
    // The ranges' offsets may leave holes (a worker's range of a segment may be short).
    let len = places[me].last().map_or(0, |r| r.local + r.len);
    let ranges_of_all = places
        .iter()
        .enumerate()
        .flat_map(|(w, owned)| owned.iter().map(move |r| (r.start, r.start + r.len as u64, w, r.local)));
    let mut owners = Owners::of_ranges(ranges_of_all.collect());
    let placed = Rc::new(RefCell::new(vec![0u16; len]));
    let mut runs = InputHandleVec::<u32, Run>::new();
    let probe = ProbeHandle::new();
    let (placing, ordered, into) = (Arc::clone(file), Arc::clone(order), Rc::clone(&placed));
    let mut placing_owners = owners.clone();
    worker.dataflow::<u32, _, _>(|scope| {
        scope
            .input_from(&mut runs)
            .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                Exchange::new(move |run: &Run| route(run.0, me, 12 + 2 * run.2.len())),
                "Place",
                move |_, _| {
                    let mut stored = Vec::new();
                    move |input, _| {
                        input.for_each(|_, received| {
                            let mut placed = into.borrow_mut();
                            for (_, start, values) in received.drain(..) {
                                stored.clear();
                                placing.file_indices(
                                    &ordered,
                                    start..start + values.len() as u64,
                                    &mut stored,
                                );
                                for (&at, value) in stored.iter().zip(values) {
                                    placed[placing_owners.find(at).1] = value;
                                }
                            }
                        });
                    }
                },
            )
            .probe_with(&probe);
    });
    let mut stored = Vec::with_capacity(PIECE);
    for range in ranges {
        for at in (0..range.len).step_by(PIECE) {
            let start = range.start + at as u64;
            let values = &entries[range.local + at..range.local + (at + PIECE).min(range.len)];
            stored.clear();
            file.file_indices(order, start..start + values.len() as u64, &mut stored);
            let mut run: Option<Run> = None;
            let mut own = placed.borrow_mut();
            for (i, (&at, &value)) in stored.iter().zip(values).enumerate() {
                let to = match (at != NOT_STORED).then(|| owners.find(at)) {
                    // An entry of this worker's own blocks is placed at once, without a message.
                    Some((to, local)) if to == me => {
                        own[local] = value;
                        None
                    }
                    found => found.map(|(to, _)| to as u32),
                };
                if run.as_ref().map(|r| r.0) != to {
                    if let Some(done) = run.take() {
                        runs.send(done);
                    }
                    run = to.map(|to| (to, start + i as u64, Vec::new()));
                }
                if let Some(run) = &mut run {
                    run.2.push(value);
                }
            }
            drop(own);
            if let Some(done) = run {
                runs.send(done);
            }
            let time = *runs.time();
            runs.advance_to(time + 1);
            worker.step_or_park_while(None, || time >= IN_FLIGHT && probe.less_than(&(time - IN_FLIGHT)));
        }
    }
    drop(runs);
    drop(entries);
    worker.step_or_park_while(None, || !probe.done());
    Rc::try_unwrap(placed).expect("the dataflow is done").into_inner()
}

/// Blocks compressed at once, before they are written.
const BLOCKS_AT_ONCE: usize = 1024;

/// Compresses the blocks of `placed` (this worker's range of the file, the file's entries in
/// `owned` at their offsets there) into the file at `part`, and returns each block's number,
/// the worker (`me`) and its compressed length.
fn compress_into<B: BlockedFile>(
    file: &B,
    order: &B::Order,
    owned: &[OwnedRange],
    placed: &[u16],
    me: usize,
    part: &Path,
) -> io::Result<Vec<BlockLen>> {
    let per_block = file.block_entries() as usize;
    let mut out = io::BufWriter::with_capacity(1 << 20, std::fs::File::create(part)?);
    let mut lens = Vec::new();
    for range in owned {
        let first_block = range.start / per_block as u64;
        let values = &placed[range.local..range.local + range.len];
        for (c, chunk) in values.chunks(per_block * BLOCKS_AT_ONCE).enumerate() {
            let first = first_block + (c * BLOCKS_AT_ONCE) as u64;
            let compressed: Vec<Vec<u8>> = chunk
                .par_chunks(per_block)
                .enumerate()
                .map(|(b, values)| file.compress(order, first + b as u64, values.to_vec()))
                .collect::<io::Result<_>>()?;
            for (b, block) in compressed.into_iter().enumerate() {
                lens.push((first + b as u64, me, block.len() as u64));
                out.write_all(&block)?;
            }
        }
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(lens)
}
