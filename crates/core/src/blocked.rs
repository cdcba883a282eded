//! A layer's file written as compressed blocks, its entries in an order of its own that is chosen
//! on a sample of its blocks (a chess table's file: the order whose sampled blocks compress
//! smallest). What a cluster needs to write such a file with no worker holding the whole layer:
//! each worker holds the entries of its ranges of the layer, the order is chosen from the sampled
//! blocks' compressed lengths wherever those blocks were compressed, then each entry goes to the
//! worker that compresses its block, and each worker compresses the blocks of its range of the
//! file. The file is the one a single machine writes from the whole layer, byte for byte.

use std::io;
use std::ops::Range;

/// Where the file stores a layer index it does not store ([`BlockedFile::file_indices`]).
pub const NOT_STORED: u64 = u64::MAX;

/// A sampled block: a block of the file as it would be in one of the candidate orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Trial {
    /// The candidate order, numbered by the file.
    pub order: u32,
    /// The block, in that order.
    pub block: u64,
}

/// A file of compressed blocks of two-byte entries, in an order chosen on a sample of its blocks
/// ([`Trial`]s); see the module's documentation.
pub trait BlockedFile: Send + Sync {
    /// The order the file stores the layer's entries in, once chosen.
    type Order: Send + Sync + 'static;

    /// The blocks compressed to choose the order, the same on every call.
    fn sample(&self) -> Vec<Trial>;

    /// Appends to `indices` the layer index of each entry of `trial`'s block, in the block's
    /// order.
    fn trial_indices(&self, trial: Trial, indices: &mut Vec<u64>);

    /// The bytes that `entries` (those of `trial`'s block, in its order) compress to.
    fn trial_len(&self, trial: Trial, entries: Vec<u16>) -> io::Result<u64>;

    /// The order chosen from the compressed lengths of the sample's blocks, in sample order.
    fn choose(&self, lens: &[u64]) -> Self::Order;

    /// How many entries the file stores.
    fn entries(&self) -> u64;

    /// How many entries a block holds (the last block may hold fewer).
    fn block_entries(&self) -> u64;

    /// The blocks of each segment of the file, which the workers share out alike, each taking
    /// a range of every segment: where a worker holds a range of every segment of the layer too
    /// (a half of a chess table), most of its entries then go to its own blocks. By default,
    /// the whole file is one segment.
    fn segment_blocks(&self) -> u64 {
        self.entries().div_ceil(self.block_entries())
    }

    /// Appends to `at` where the file stores each of the layer's indices in `range` (its rank
    /// among the file's entries), in order: [`NOT_STORED`] for an index the file does not store.
    fn file_indices(&self, order: &Self::Order, range: Range<u64>, at: &mut Vec<u64>);

    /// The bytes of block `block` in the file, from its entries in the file's order.
    fn compress(&self, order: &Self::Order, block: u64, entries: Vec<u16>) -> io::Result<Vec<u8>>;

    /// Writes the whole file to `out`: the blocks' compressed lengths are `lens`, and `blocks`
    /// reads their bytes one after the other. Returns the file's SHA-256 (hex) and length.
    fn write(
        &self,
        order: &Self::Order,
        lens: &[u64],
        blocks: &mut dyn io::Read,
        out: &mut dyn io::Write,
    ) -> io::Result<(String, u64)>;
}

/// The bytes of a file's blocks, in the file's order, read from the parts that their writers
/// wrote (each part the blocks of one writer, in the file's order): what
/// [`BlockedFile::write`] reads.
pub struct PartsReader<R> {
    parts: Vec<R>,
    /// Each block's part and length, in the file's order.
    blocks: std::vec::IntoIter<(usize, u64)>,
    /// The part of the block being read, and its bytes left.
    current: (usize, u64),
}

impl<R: io::Read> PartsReader<R> {
    /// Reads `blocks` (each block's part and compressed length, in the file's order) from
    /// `parts`.
    pub fn new(parts: Vec<R>, blocks: Vec<(usize, u64)>) -> Self {
        Self { parts, blocks: blocks.into_iter(), current: (0, 0) }
    }
}

impl<R: io::Read> io::Read for PartsReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.current.1 == 0 {
            match self.blocks.next() {
                Some(block) => self.current = block,
                None => return Ok(0),
            }
        }
        let (part, left) = self.current;
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let reader = self.parts.get_mut(part).ok_or_else(|| io::Error::other(format!("no part {part}")))?;
        let got = reader.read(&mut buf[..want])?;
        if got == 0 && want > 0 {
            let message = format!("part {part} ends {left} bytes before its blocks do");
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, message));
        }
        self.current.1 -= got as u64;
        Ok(got)
    }
}

/// The file of a build whose layers are never written in blocks (Oware's, written by range):
/// there is no such file.
#[derive(Debug, Clone, Copy)]
pub enum Unblocked {}

impl BlockedFile for Unblocked {
    type Order = Unblocked;

    fn sample(&self) -> Vec<Trial> {
        match *self {}
    }

    fn trial_indices(&self, _: Trial, _: &mut Vec<u64>) {
        match *self {}
    }

    fn trial_len(&self, _: Trial, _: Vec<u16>) -> io::Result<u64> {
        match *self {}
    }

    fn choose(&self, _: &[u64]) -> Unblocked {
        match *self {}
    }

    fn entries(&self) -> u64 {
        match *self {}
    }

    fn block_entries(&self) -> u64 {
        match *self {}
    }

    fn file_indices(&self, _: &Unblocked, _: Range<u64>, _: &mut Vec<u64>) {
        match *self {}
    }

    fn compress(&self, _: &Unblocked, _: u64, _: Vec<u16>) -> io::Result<Vec<u8>> {
        match *self {}
    }

    fn write(
        &self,
        _: &Unblocked,
        _: &[u64],
        _: &mut dyn io::Read,
        _: &mut dyn io::Write,
    ) -> io::Result<(String, u64)> {
        match *self {}
    }
}

/// Writes `file` to `out` from the whole layer's `entries` (by layer index), as a cluster's
/// workers write it together, each from its part: the reference a [`BlockedFile`] is checked
/// against (its one-machine writer must write the same bytes). Returns the file's SHA-256
/// (hex) and length.
pub fn write_whole<B: BlockedFile>(
    file: &B,
    entries: &[u16],
    out: &mut dyn io::Write,
) -> io::Result<(String, u64)> {
    let lens = file
        .sample()
        .into_iter()
        .map(|trial| {
            let mut indices = Vec::new();
            file.trial_indices(trial, &mut indices);
            file.trial_len(trial, indices.into_iter().map(|i| entries[i as usize]).collect())
        })
        .collect::<io::Result<Vec<_>>>()?;
    let order = file.choose(&lens);
    let mut placed = vec![0; file.entries() as usize];
    let mut at = Vec::new();
    file.file_indices(&order, 0..entries.len() as u64, &mut at);
    for (&at, &value) in at.iter().zip(entries) {
        if at != NOT_STORED {
            placed[at as usize] = value;
        }
    }
    let (mut lens, mut bytes) = (Vec::new(), Vec::new());
    for (block, values) in placed.chunks(file.block_entries() as usize).enumerate() {
        let compressed = file.compress(&order, block as u64, values.to_vec())?;
        lens.push(compressed.len() as u64);
        bytes.extend(compressed);
    }
    file.write(&order, &lens, &mut bytes.as_slice(), out)
}
