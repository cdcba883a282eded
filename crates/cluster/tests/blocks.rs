//! A file written in blocks by several workers, each holding only its ranges of a layer
//! ([`gamegraph_cluster::blocks`]), against the same file written from the whole layer on one
//! machine ([`gamegraph::blocked::write_whole`]): the same bytes, for any cut of the layer and of
//! the file into segments and workers, any block size and sample, and layer indices the file does
//! not store.

use std::io::{self, Read, Write};
use std::ops::Range;
use std::sync::Arc;

use gamegraph::blocked::{write_whole, BlockedFile, PartsReader, Trial, NOT_STORED};
use gamegraph::rng::SplitMix64;
use gamegraph::storage::Sha256Writer;
use gamegraph_cluster::blocks::write_blocks;
use gamegraph_cluster::kernel::{to_first, Ownership};
use gamegraph_cluster::Cluster;
use proptest::prelude::*;

/// A file of the first `stored` indices of a layer, in blocks of `per_block` entries, in one of
/// three random orders: the one whose sampled blocks (every `step`-th, in each order) hold the
/// fewest runs of equal entries, the first on a tie. A block is stored as its runs (value and
/// length, two bytes each); the header says the order, every trial's length, and each block's.
struct RunFile {
    stored: u64,
    per_block: u64,
    step: u64,
    /// Blocks a segment of the file, shared out alike over the workers.
    segment_blocks: u64,
    /// For each order, the layer index at each file position.
    index_at: Vec<Vec<u64>>,
    /// For each order, the file position of each layer index.
    position_of: Vec<Vec<u64>>,
}

impl RunFile {
    fn new(stored: u64, per_block: u64, step: u64, segment_blocks: u64, seed: u64) -> Self {
        let mut rng = SplitMix64(seed);
        let index_at: Vec<Vec<u64>> = (0..3)
            .map(|_| {
                let mut order: Vec<u64> = (0..stored).collect();
                for i in (1..order.len()).rev() {
                    order.swap(i, rng.below(i as u64 + 1) as usize);
                }
                order
            })
            .collect();
        let position_of = index_at
            .iter()
            .map(|order| {
                let mut position = vec![0; order.len()];
                order.iter().enumerate().for_each(|(f, &i)| position[i as usize] = f as u64);
                position
            })
            .collect();
        Self { stored, per_block, step, segment_blocks, index_at, position_of }
    }

    fn blocks(&self) -> u64 {
        self.stored.div_ceil(self.per_block)
    }

    fn block(&self, block: u64) -> Range<usize> {
        (block * self.per_block) as usize..((block + 1) * self.per_block).min(self.stored) as usize
    }
}

/// The runs of equal values of `entries`, two bytes of value and two of length each.
fn runs(entries: &[u16]) -> Vec<u8> {
    entries
        .chunk_by(|a, b| a == b)
        .flat_map(|run| [run[0].to_le_bytes(), (run.len() as u16).to_le_bytes()].concat())
        .collect()
}

impl BlockedFile for RunFile {
    type Order = (usize, u64);

    fn sample(&self) -> Vec<Trial> {
        (0..3)
            .flat_map(|order| {
                (0..self.blocks()).step_by(self.step as usize).map(move |block| Trial { order, block })
            })
            .collect()
    }

    fn trial_indices(&self, trial: Trial, indices: &mut Vec<u64>) {
        indices.extend(&self.index_at[trial.order as usize][self.block(trial.block)]);
    }

    fn trial_len(&self, _: Trial, entries: Vec<u16>) -> io::Result<u64> {
        Ok(runs(&entries).len() as u64)
    }

    fn choose(&self, lens: &[u64]) -> (usize, u64) {
        let mut sizes = [0; 3];
        for (trial, len) in self.sample().into_iter().zip(lens) {
            sizes[trial.order as usize] += len;
        }
        let best = (0..3).min_by_key(|&o| (sizes[o], o)).unwrap();
        (best, lens.iter().sum())
    }

    fn entries(&self) -> u64 {
        self.stored
    }

    fn block_entries(&self) -> u64 {
        self.per_block
    }

    fn segment_blocks(&self) -> u64 {
        self.segment_blocks
    }

    fn file_indices(&self, order: &(usize, u64), range: Range<u64>, at: &mut Vec<u64>) {
        at.extend(range.map(|i| self.position_of[order.0].get(i as usize).copied().unwrap_or(NOT_STORED)));
    }

    fn compress(&self, _: &(usize, u64), _: u64, entries: Vec<u16>) -> io::Result<Vec<u8>> {
        Ok(runs(&entries))
    }

    fn write(
        &self,
        order: &(usize, u64),
        lens: &[u64],
        blocks: &mut dyn Read,
        out: &mut dyn Write,
    ) -> io::Result<(String, u64)> {
        let mut out = Sha256Writer::new(out);
        out.write_all(&[order.0 as u8])?;
        out.write_all(&order.1.to_le_bytes())?;
        lens.iter().try_for_each(|len| out.write_all(&len.to_le_bytes()))?;
        io::copy(blocks, &mut out)?;
        Ok(out.finish())
    }
}

/// The file of `case`'s layer written by `workers` workers, each from its ranges.
fn written_by_workers(file: Arc<RunFile>, entries: Arc<Vec<u16>>, segment: u64, workers: usize) -> Vec<u8> {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let part = move |w: usize| dir.path().join(format!("part{w}"));
    let written = Cluster::local(workers)
        .run(move |worker| {
            let len = entries.len() as u64;
            let ownership = Ownership::segments(len, segment, worker.peers());
            let ranges = ownership.owned(worker.index(), len);
            let mut mine = vec![0; ranges.last().map_or(0, |r| r.local + r.len)];
            for r in &ranges {
                mine[r.local..r.local + r.len]
                    .copy_from_slice(&entries[r.start as usize..r.start as usize + r.len]);
            }
            let at = part(worker.index());
            let (order, lens) =
                write_blocks(worker, Arc::clone(&file), ownership, &ranges, mine, &at).unwrap();
            let mut lens = to_first(worker, lens);
            (worker.index() == 0).then(|| {
                lens.sort_unstable();
                prop_assert_eq_lens(&lens, file.blocks());
                let parts = (0..worker.peers()).map(|w| std::fs::File::open(part(w)).unwrap()).collect();
                let mut blocks = PartsReader::new(parts, lens.iter().map(|l| (l.1, l.2)).collect());
                let lens: Vec<u64> = lens.into_iter().map(|l| l.2).collect();
                let mut out = Vec::new();
                file.write(&order, &lens, &mut blocks, &mut out).unwrap();
                out
            })
        })
        .unwrap();
    written.into_iter().flatten().next().expect("worker 0 writes the file")
}

/// Every block's length once, in order.
fn prop_assert_eq_lens(lens: &[(u64, usize, u64)], blocks: u64) {
    assert_eq!(lens.iter().map(|l| l.0).collect::<Vec<_>>(), (0..blocks).collect::<Vec<_>>());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn workers_write_the_file_written_from_the_whole_layer(
        stored in 1u64..600, unstored in 0u64..40, per_block in 1u64..70, step in 1u64..5,
        values in 1u64..4, seed in any::<u64>(), segment in 1u64..700, workers in 1usize..5,
        segment_blocks in 1u64..12,
    ) {
        let file = Arc::new(RunFile::new(stored, per_block, step, segment_blocks, seed));
        let mut rng = SplitMix64(seed ^ 0xb10c);
        // Long runs in the layer's order, so that orders differ in size.
        let mut value = 0;
        let entries: Vec<u16> = (0..stored + unstored)
            .map(|_| {
                if rng.below(5) == 0 {
                    value = rng.below(values) as u16;
                }
                value
            })
            .collect();
        let mut whole = Vec::new();
        write_whole(&*file, &entries, &mut whole).unwrap();
        let written = written_by_workers(Arc::clone(&file), Arc::new(entries), segment, workers);
        prop_assert!(written == whole, "{} workers, segments of {}", workers, segment);
    }
}
