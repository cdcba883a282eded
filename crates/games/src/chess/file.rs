//! One table on disk: a header, a block offset list and the entries in blocks of two-byte
//! entries, each block compressed alone with zstd, so that a probe reads and decompresses one
//! block of a memory-mapped file and never the whole file.
//!
//! Layout (little-endian): `GGCHDTM3`; the material name, 16 bytes padded with zeros; the number
//! of entries (u64); entries per block (u32); blocks (u32); the [`DigitOrder`] the entries are
//! stored in: for White to move then for Black, the table's digits after the side to move in
//! the file's order, one byte each, padded with `0xFF` to 4 bytes; `blocks + 1` block offsets
//! from the start of the file (u64, the last one the file's length); the blocks. A block holds the low
//! bytes of its entries, then their high bytes.
//!
//! What made each version smaller, measured on the 3- and 4-piece tables and on KRPvKR's 20
//! (docs/chess.md):
//! - Version 1 (`GGCHDTM1`, blocks of 4,096 entries in the table's order) stores every entry as
//!   it is.
//! - Version 2 (`GGCHDTM2`): an index that is no position ([`Entry::NONE`]) is never probed, and
//!   the index says which they are, so the file need not hold their entries: it stores there the
//!   entry before them in the block, which extends runs instead of breaking them with `0xFFFF`.
//!   0.76 of version 1's bytes. Readers of every entry ([`TableFile::all`]) get [`Entry::NONE`]
//!   back there from the index.
//! - Version 3 (`GGCHDTM3`): the entries in the digit order that compressed best on a sample
//!   of the table's blocks, one order for each side to move, in blocks of [`BLOCK_ENTRIES`], at
//!   zstd level [`LEVEL`]. 0.57 of version 1's bytes.
//! - Version 4 (`GGCHDTM4`, written now): as version 3, but a position whose best capture gives
//!   its value (the build marks it [`Entry::BY_CAPTURE`]) need not hold it, since a reader gets
//!   it back from the tables the captures lead to: the file stores there the entry before it
//!   if that is no better for the side to move (extending a run), else the next entry stored as
//!   it is if that is no better (starting the next run early), else the value. Readers take the
//!   better of the entry and the captures ([`super::tablebase::resolve`]).
//!
//! Versions 1 to 3 are still read.

use std::collections::HashMap;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use gamegraph::blocked::{Trial, NOT_STORED};
use gamegraph::storage::{sha256_hex, Sha256Writer};
use memmap2::Mmap;
use rayon::prelude::*;

use super::digit_order::DigitOrder;
use super::index::TableIndex;
use super::material::Material;
use super::Entry;

/// Entries per compressed block in the files written now: 16 KiB, decompressed in about 13
/// microseconds in KRPvKR (4,096 entries take 7 but make the files 7% larger; 16,384 take 25
/// for 3% less).
pub const BLOCK_ENTRIES: usize = 8192;
/// Entries per block in version 1 and 2 files.
const VERSION_2_BLOCK_ENTRIES: usize = 4096;
/// The largest block a reader accepts.
const MAX_BLOCK_ENTRIES: usize = 1 << 16;
/// zstd's level: 12 makes the largest tables 0.92 of the size and their compression 2.9 times
/// slower.
pub const LEVEL: i32 = 7;
/// Bytes before the offsets in version 1 and 2 files, and before the digit order in version 3.
const HEADER: usize = 8 + 16 + 8 + 4 + 4;
/// The bytes that hold the digit order in a version 3 header.
const ORDER_BYTES: usize = 8;
/// Decompressed blocks a table keeps for later probes: 2 MiB.
const CACHED_BLOCKS: usize = 128;
/// When choosing a file's digit order, one block in this many (the first that leaves 32 blocks)
/// is compressed in every candidate order: each 5-piece table's choice then costs about 0.4 of
/// its compression.
const SAMPLE_STEPS: [u64; 5] = [61, 31, 13, 7, 3];

/// A table file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Reading or writing failed.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
    /// The file is not a table, not this table, or damaged.
    #[error("{path}: {message}: the file is damaged or not a gamegraph chess table")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// A table file's version: what it holds at the indices that are no position, and in which
/// order and blocks it stores the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// [`Entry::NONE`] there (`GGCHDTM1`).
    Version1,
    /// The entry before them in their block, or a draw where the block starts with them
    /// (`GGCHDTM2`): whatever compresses best, since the index marks them.
    Version2,
    /// As version 2, in the digit order that compresses best (`GGCHDTM3`).
    Version3,
    /// As version 3, and where a position's best capture gives its value
    /// ([`Entry::BY_CAPTURE`]), the entry before it if that is no better for the side to move,
    /// else the next entry stored as it is if that is no better, else its value (`GGCHDTM4`):
    /// readers take the better of the entry and the captures.
    Version4,
}

impl Format {
    /// Turns the entries of one block (marked by their build) into what `self` stores.
    fn stored(self, block: &mut [Entry]) {
        if self == Format::Version1 {
            block.iter_mut().for_each(|e| *e = e.unmarked());
            return;
        }
        // After each entry, the next one that is stored as it is.
        let mut next = vec![None; block.len()];
        let mut exact = None;
        for (i, &e) in block.iter().enumerate().rev() {
            next[i] = exact;
            if e != Entry::NONE && !(e.is_by_capture() && self == Format::Version4) {
                exact = Some(e);
            }
        }
        let mut last = block.iter().copied().find(|&e| e != Entry::NONE).unwrap_or(Entry(0)).unmarked();
        for (e, next) in block.iter_mut().zip(next) {
            if *e == Entry::NONE {
                *e = last;
            } else if e.is_by_capture() && self == Format::Version4 {
                // The run before it goes on, else the run after it starts early, where either
                // is no better than the value for the side to move (measured: 0.2 to 0.5% less
                // than the value itself where the run before cannot go on; the worst value of
                // all there, 0.1 to 0.7% more).
                let value = e.unmarked();
                let fits = |c: Entry| rank(c) <= rank(value);
                *e = [Some(last), next].into_iter().flatten().find(|&c| fits(c)).unwrap_or(value);
            } else {
                *e = e.unmarked();
            }
            last = *e;
        }
    }

    /// Whether the entries of positions whose best capture gives their value may be lower.
    fn holds_bounds(self) -> bool {
        self == Format::Version4
    }

    fn magic(self) -> &'static [u8; 8] {
        match self {
            Format::Version1 => b"GGCHDTM1",
            Format::Version2 => b"GGCHDTM2",
            Format::Version3 => b"GGCHDTM3",
            Format::Version4 => b"GGCHDTM4",
        }
    }

    fn of_magic(magic: &[u8]) -> Option<Self> {
        [Format::Version1, Format::Version2, Format::Version3, Format::Version4]
            .into_iter()
            .find(|f| f.magic() == magic)
    }

    /// Whether the entries are in a digit order of their own, in blocks of [`BLOCK_ENTRIES`].
    fn ordered(self) -> bool {
        matches!(self, Format::Version3 | Format::Version4)
    }

    fn per_block(self) -> usize {
        if self.ordered() {
            BLOCK_ENTRIES
        } else {
            VERSION_2_BLOCK_ENTRIES
        }
    }

    /// Bytes before the block offsets.
    fn header_len(self) -> usize {
        if self.ordered() {
            HEADER + ORDER_BYTES
        } else {
            HEADER
        }
    }
}

/// Where an entry's value stands for the side to move: a higher rank is better.
fn rank(entry: Entry) -> i64 {
    entry.dtm().map_or(i64::MIN, super::Dtm::rank)
}

/// Makes a zstd compression context at [`LEVEL`].
fn compressor() -> io::Result<zstd::bulk::Compressor<'static>> {
    zstd::bulk::Compressor::new(LEVEL)
}

/// Consecutive entries of a table: all of them, or one side to move's half.
#[derive(Clone, Copy)]
struct View<'a> {
    entries: &'a [Entry],
    /// The table index of the first.
    first: u64,
}

impl View<'_> {
    /// The blocks of `per_block` entries whose indices all lie in the view.
    fn blocks(&self, per_block: u64) -> std::ops::Range<u64> {
        self.first / per_block..(self.first + self.entries.len() as u64).div_ceil(per_block)
    }
}

/// Block `b` of the entries `view` holds, stored by `format` in `order`, compressed.
fn compress_block(
    compressor: &mut io::Result<zstd::bulk::Compressor<'static>>,
    view: View,
    order: &DigitOrder,
    format: Format,
    b: u64,
) -> io::Result<Vec<u8>> {
    let per_block = format.per_block() as u64;
    let end = view.first + view.entries.len() as u64;
    let range = b * per_block..((b + 1) * per_block).min(end);
    let mut block = Vec::with_capacity(range.clone().count());
    order.table_indices(range, |i| block.push(view.entries[(i - view.first) as usize]));
    compress_entries(compressor, block, format)
}

/// A block's entries (as the build marks them, in the file's order), stored by `format` and
/// compressed.
fn compress_entries(
    compressor: &mut io::Result<zstd::bulk::Compressor<'static>>,
    mut block: Vec<Entry>,
    format: Format,
) -> io::Result<Vec<u8>> {
    format.stored(&mut block);
    // Low bytes first, then high bytes (mostly zero): they compress apart far better.
    let raw: Vec<u8> =
        block.iter().map(|e| e.0 as u8).chain(block.iter().map(|e| (e.0 >> 8) as u8)).collect();
    let mut compressed =
        compressor.as_mut().map_err(|e| io::Error::new(e.kind(), e.to_string()))?.compress(&raw)?;
    // zstd gives it the capacity of the worst case, about 17 times what a block of a large
    // table takes: a table's blocks would hold as much again as its entries.
    compressed.shrink_to_fit();
    Ok(compressed)
}

/// The blocks of the entries `view` holds, stored by `format` in `order`, compressed in parallel.
fn compress_blocks(view: View, order: &DigitOrder, format: Format) -> io::Result<Vec<Vec<u8>>> {
    view.blocks(format.per_block() as u64)
        .into_par_iter()
        // A compression context costs about as much to make as a block to compress: one per
        // piece of work rayon splits off.
        .map_init(compressor, |c, b| compress_block(c, view, order, format, b))
        .collect()
}

/// The candidate digit orders of a table, and for each the bytes that a sample of the table's
/// blocks compress to in it, for each side to move.
struct CandidateSizes {
    candidates: Vec<Vec<u8>>,
    sizes: Vec<[u64; 2]>,
}

impl CandidateSizes {
    /// The candidate whose sampled blocks of the side to move `side` took the fewest bytes, the
    /// first on a tie, so that a build is deterministic.
    fn smallest(&self, side: usize) -> &[u8] {
        let at = (0..self.candidates.len()).min_by_key(|&i| (self.sizes[i][side], i));
        self.candidates[at.expect("one candidate at least")].as_slice()
    }
}

/// The blocks of a table of `len` indices that every candidate digit order compresses to choose
/// the file's order: at least 32 where the table has them. The step is prime to every digit's
/// number of values: a step of 64 blocks put every sampled block at the same squares of the
/// slowest pieces, and chose for KQRvKR an order that was not its best.
fn sampled_blocks(len: u64) -> Vec<u64> {
    let blocks = len.div_ceil(BLOCK_ENTRIES as u64);
    let step = SAMPLE_STEPS.into_iter().find(|&step| blocks / step >= 32).unwrap_or(1);
    (0..blocks).step_by(step as usize).collect()
}

/// The side to move whose half a block of a table of `len` indices starts in: its compressed
/// length counts for that side's choice of order.
fn side_of_block(block: u64, len: u64) -> usize {
    usize::from(block * BLOCK_ENTRIES as u64 >= len / 2)
}

/// [`CandidateSizes`] of the table of `material` (of `len` indices), from the sampled blocks
/// that `view` holds.
fn candidate_sizes(material: Material, len: u64, view: View, format: Format) -> io::Result<CandidateSizes> {
    let digits = TableIndex::new(material).digits();
    let candidates = DigitOrder::candidates(&digits);
    let held = view.blocks(BLOCK_ENTRIES as u64);
    let sampled: Vec<u64> = sampled_blocks(len).into_iter().filter(|b| held.contains(b)).collect();
    let sizes = candidates
        .par_iter()
        .map(|candidate| {
            let order = DigitOrder::new(&digits, [candidate, candidate]).expect("a candidate is an order");
            sampled
                .par_iter()
                .map_init(compressor, |c, &b| {
                    let mut size = [0, 0];
                    size[side_of_block(b, len)] = compress_block(c, view, &order, format, b)?.len() as u64;
                    Ok(size)
                })
                .try_reduce(|| [0, 0], |a, b| Ok([a[0] + b[0], a[1] + b[1]]))
        })
        .collect::<io::Result<_>>()?;
    Ok(CandidateSizes { candidates, sizes })
}

impl CandidateSizes {
    /// The order of the table of `digits` that stores each side to move's half in its
    /// smallest candidate.
    fn best(&self, digits: &[u64]) -> DigitOrder {
        DigitOrder::new(digits, [self.smallest(0), self.smallest(1)]).expect("candidates are orders")
    }
}

/// The digit order in which `entries` compress smallest: every candidate compresses the same
/// sample of blocks, and the smallest total for each side to move wins.
fn best_order(material: Material, entries: &[Entry], format: Format) -> io::Result<DigitOrder> {
    let view = View { entries, first: 0 };
    let sizes = candidate_sizes(material, entries.len() as u64, view, format)?;
    Ok(sizes.best(&TableIndex::new(material).digits()))
}

/// Writes `entries` of `material` (as a build marks them) as a table file to `out`, and returns
/// its SHA-256 (hex) and its size in bytes.
pub fn write(out: &mut impl Write, material: Material, entries: &[Entry]) -> io::Result<(String, u64)> {
    write_format(out, material, entries, Format::Version4)
}

/// [`write()`] in `format`: version 1 for tools and tests that need files as older builds wrote
/// them.
pub fn write_format(
    out: &mut impl Write,
    material: Material,
    entries: &[Entry],
    format: Format,
) -> io::Result<(String, u64)> {
    let order = if format.ordered() {
        best_order(material, entries, format)?
    } else {
        DigitOrder::identity(&TableIndex::new(material).digits())
    };
    let blocks = compress_blocks(View { entries, first: 0 }, &order, format)?;
    let lens: Vec<u64> = blocks.iter().map(|b| b.len() as u64).collect();
    write_blocks(out, material, format, entries.len() as u64, &order, &lens, &mut |out| {
        blocks.iter().try_for_each(|block| out.write_all(block))
    })
}

/// Writes the file of the table of `material`, of `len` entries, from its compressed blocks
/// stored by `format` in `order`, of lengths `lens`, whose bytes `body` writes one after the
/// other; returns its SHA-256 (hex) and its size in bytes.
fn write_blocks(
    out: &mut dyn Write,
    material: Material,
    format: Format,
    len: u64,
    order: &DigitOrder,
    lens: &[u64],
    body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<(String, u64)> {
    let per_block = format.per_block();
    let header_len = format.header_len();
    let mut header = Vec::with_capacity(header_len + 8 * (lens.len() + 1));
    header.extend_from_slice(format.magic());
    let mut name = [0u8; 16];
    let text = material.to_string();
    name[..text.len()].copy_from_slice(text.as_bytes());
    header.extend_from_slice(&name);
    header.extend_from_slice(&len.to_le_bytes());
    header.extend_from_slice(&(per_block as u32).to_le_bytes());
    header.extend_from_slice(&(lens.len() as u32).to_le_bytes());
    if format.ordered() {
        for side in 0..2 {
            let mut digits = [0xFF; ORDER_BYTES / 2];
            digits[..order.order(side).len()].copy_from_slice(order.order(side));
            header.extend_from_slice(&digits);
        }
    }
    let mut offset = (header_len + 8 * (lens.len() + 1)) as u64;
    for len in lens {
        header.extend_from_slice(&offset.to_le_bytes());
        offset += len;
    }
    header.extend_from_slice(&offset.to_le_bytes());
    let mut out = Sha256Writer::new(out);
    out.write_all(&header)?;
    body(&mut out)?;
    let (sha256, bytes) = out.finish();
    if bytes != offset {
        let message = format!("{material}: {bytes} bytes of blocks written, {offset} expected");
        return Err(io::Error::new(io::ErrorKind::InvalidData, message));
    }
    Ok((sha256, bytes))
}

/// A table's file written in blocks by several writers, each holding only its part of the
/// table's entries (a cluster's workers, [`gamegraph::blocked`]): the file [`write()`] writes
/// from the whole table, byte for byte. Its trials are the blocks [`write()`] samples, in each
/// candidate digit order (candidate after candidate), and the order is chosen from their
/// lengths as [`write()`] chooses it.
pub struct TableBlocks {
    material: Material,
    len: u64,
    digits: Vec<u64>,
    /// The candidate orders for one side to move, and each as the order of both.
    candidates: Vec<Vec<u8>>,
    trial_orders: Vec<DigitOrder>,
    sampled: Vec<u64>,
}

impl TableBlocks {
    /// The file of the table of `material`, in the format written now.
    pub fn new(material: Material) -> Self {
        let index = TableIndex::new(material);
        let digits = index.digits();
        let candidates = DigitOrder::candidates(&digits);
        let trial_orders = candidates
            .iter()
            .map(|c| DigitOrder::new(&digits, [c, c]).expect("a candidate is an order"))
            .collect();
        Self {
            material,
            len: index.len(),
            digits,
            candidates,
            trial_orders,
            sampled: sampled_blocks(index.len()),
        }
    }

    /// The table indices of block `block` in `order`.
    fn block_range(&self, block: u64) -> Range<u64> {
        let per_block = BLOCK_ENTRIES as u64;
        block * per_block..((block + 1) * per_block).min(self.len)
    }
}

thread_local! {
    /// Each thread's compression context for [`TableBlocks`]: one costs about as much to make
    /// as a block to compress.
    static COMPRESSOR: std::cell::RefCell<Option<io::Result<zstd::bulk::Compressor<'static>>>> =
        const { std::cell::RefCell::new(None) };
}

/// [`compress_entries`] in [`Format::Version4`], with this thread's compression context.
fn compress_here(entries: Vec<u16>) -> io::Result<Vec<u8>> {
    let block = entries.into_iter().map(Entry).collect();
    COMPRESSOR
        .with_borrow_mut(|c| compress_entries(c.get_or_insert_with(compressor), block, Format::Version4))
}

impl gamegraph::blocked::BlockedFile for TableBlocks {
    type Order = DigitOrder;

    fn sample(&self) -> Vec<Trial> {
        (0..self.candidates.len() as u32)
            .flat_map(|order| self.sampled.iter().map(move |&block| Trial { order, block }))
            .collect()
    }

    fn trial_indices(&self, trial: Trial, indices: &mut Vec<u64>) {
        self.trial_orders[trial.order as usize]
            .table_indices(self.block_range(trial.block), |i| indices.push(i));
    }

    fn trial_len(&self, _: Trial, entries: Vec<u16>) -> io::Result<u64> {
        Ok(compress_here(entries)?.len() as u64)
    }

    fn choose(&self, lens: &[u64]) -> DigitOrder {
        let mut sizes = vec![[0, 0]; self.candidates.len()];
        for (trial, len) in self.sample().into_iter().zip(lens) {
            sizes[trial.order as usize][side_of_block(trial.block, self.len)] += len;
        }
        CandidateSizes { candidates: self.candidates.clone(), sizes }.best(&self.digits)
    }

    fn entries(&self) -> u64 {
        self.len
    }

    fn block_entries(&self) -> u64 {
        BLOCK_ENTRIES as u64
    }

    /// A side to move's half, where halves hold whole blocks (not in tables of three pieces).
    fn segment_blocks(&self) -> u64 {
        let (half, per_block) = (self.len / 2, BLOCK_ENTRIES as u64);
        if half.is_multiple_of(per_block) {
            half / per_block
        } else {
            self.len.div_ceil(per_block)
        }
    }

    /// The indices after the table's (positions with an en passant right) are not stored.
    fn file_indices(&self, order: &DigitOrder, range: Range<u64>, at: &mut Vec<u64>) {
        order.file_indices(range.start.min(self.len)..range.end.min(self.len), |f| at.push(f));
        at.extend((range.start.max(self.len)..range.end).map(|_| NOT_STORED));
    }

    fn compress(&self, _: &DigitOrder, _: u64, entries: Vec<u16>) -> io::Result<Vec<u8>> {
        compress_here(entries)
    }

    fn write(
        &self,
        order: &DigitOrder,
        lens: &[u64],
        blocks: &mut dyn io::Read,
        out: &mut dyn Write,
    ) -> io::Result<(String, u64)> {
        let format = Format::Version4;
        let expected = self.len.div_ceil(BLOCK_ENTRIES as u64);
        if lens.len() as u64 != expected {
            let message = format!("{}: {} blocks given, {expected} expected", self.material, lens.len());
            return Err(io::Error::new(io::ErrorKind::InvalidData, message));
        }
        write_blocks(out, self.material, format, self.len, order, lens, &mut |out| {
            io::copy(blocks, out).map(drop)
        })
    }
}

/// A table file opened for probing: memory-mapped, its header checked, its blocks decompressed
/// on demand and the latest ones cached. Its readers give the entries as the file holds them: in
/// version 4 ([`TableFile::holds_bounds`]), where a position's best capture gives its value, an
/// entry may be worse for the side to move than the value ([`super::tablebase::resolve`] makes
/// them the values).
pub struct TableFile {
    path: PathBuf,
    map: Mmap,
    material: Material,
    entries: u64,
    /// Entries per block, as the file says.
    per_block: usize,
    offsets: Vec<u64>,
    /// How the blocks store entries, as the file's first bytes say.
    format: Format,
    /// The order of the entries in the file.
    order: DigitOrder,
    cache: Mutex<HashMap<u32, Arc<[Entry]>>>,
}

impl std::fmt::Debug for TableFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableFile").field("path", &self.path).field("material", &self.material).finish()
    }
}

impl TableFile {
    /// Opens the table of `material` at `path`, which must hold `entries` entries and, when
    /// `sha256` is given, have that digest.
    pub fn open(
        path: &Path,
        material: Material,
        entries: u64,
        sha256: Option<&str>,
    ) -> Result<Self, FileError> {
        let io = |cause| FileError::Io { path: path.to_path_buf(), cause };
        let damaged = |message: String| FileError::Damaged { path: path.to_path_buf(), message };
        let file = gamegraph::storage::open_regular(path).map_err(|e| match e {
            gamegraph::storage::StorageError::Io { cause, .. } => io(cause),
            gamegraph::storage::StorageError::NotAFile { what, .. } => {
                damaged(format!("{what}, where a file was expected"))
            }
            other => damaged(other.to_string()),
        })?;
        // SAFETY: the map is only read. Table files are written once, under a temporary name,
        // and renamed into place complete; the digest below catches a file changed since.
        // Reads are bounds-checked against the length the map had when it was made.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        if let Some(expected) = sha256 {
            let actual = sha256_hex(&map[..]);
            if actual != expected {
                return Err(damaged(format!("SHA-256 {actual} differs from the manifest's {expected}")));
            }
        }
        let format = match map.get(..8).and_then(Format::of_magic) {
            Some(format) if map.len() >= format.header_len() => format,
            _ => return Err(damaged("no table header".into())),
        };
        let name = String::from_utf8_lossy(&map[8..24]).trim_end_matches('\0').to_string();
        if name != material.to_string() {
            return Err(damaged(format!("it holds {name}, not {material}")));
        }
        let u64_at = |at: usize| u64::from_le_bytes(map[at..at + 8].try_into().expect("8 bytes"));
        let u32_at = |at: usize| u32::from_le_bytes(map[at..at + 4].try_into().expect("4 bytes"));
        let found = u64_at(24);
        if found != entries {
            return Err(damaged(format!("{found} entries, expected {entries}")));
        }
        let per_block = u32_at(32) as usize;
        let blocks = u32_at(36) as usize;
        if per_block == 0
            || per_block > MAX_BLOCK_ENTRIES
            || blocks != entries.div_ceil(per_block as u64) as usize
        {
            return Err(damaged(format!("{blocks} blocks of {per_block} entries do not hold {entries}")));
        }
        let digits = TableIndex::new(material).digits();
        let order = match format {
            f if f.ordered() => {
                let stored = &map[HEADER..HEADER + ORDER_BYTES];
                let (white, black) = stored.split_at(ORDER_BYTES / 2);
                let (white, white_padding) = white.split_at(digits.len() - 1);
                let (black, black_padding) = black.split_at(digits.len() - 1);
                let padded = white_padding.iter().chain(black_padding).all(|&b| b == 0xFF);
                DigitOrder::new(&digits, [white, black]).filter(|_| padded).ok_or_else(|| {
                    damaged(format!("digit order {stored:?} is no order of this table's digits"))
                })?
            }
            _ => DigitOrder::identity(&digits),
        };
        let table_end = format.header_len() + 8 * (blocks + 1);
        if map.len() < table_end {
            return Err(damaged("the block list is cut short".into()));
        }
        let offsets: Vec<u64> = (0..=blocks).map(|b| u64_at(format.header_len() + 8 * b)).collect();
        let ordered = offsets.windows(2).all(|w| w[0] <= w[1]);
        if offsets[0] != table_end as u64 || !ordered || offsets[blocks] != map.len() as u64 {
            return Err(damaged("the block offsets do not match the file".into()));
        }
        Ok(Self {
            path: path.to_path_buf(),
            map,
            material,
            entries,
            per_block,
            offsets,
            format,
            order,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The table's material.
    pub fn material(&self) -> Material {
        self.material
    }

    /// How many entries the table holds.
    pub fn len(&self) -> u64 {
        self.entries
    }

    /// Whether the table holds no entry.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Whether the entries of the positions whose best capture gives their value may be worse
    /// than that value for the side to move (version 4): a reader takes the better of the entry
    /// and the captures (see [`super::tablebase::resolve`]).
    pub fn holds_bounds(&self) -> bool {
        self.format.holds_bounds()
    }

    /// The entry at `index`, a position of the table (what a file holds at an index that is no
    /// position depends on its [`Format`]).
    pub fn entry(&self, index: u64) -> Result<Entry, FileError> {
        let at = self.order.file_index(index);
        let block = (at / self.per_block as u64) as u32;
        let cached = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(&block).cloned();
        let entries = match cached {
            Some(entries) => entries,
            None => {
                let entries: Arc<[Entry]> = self.block(block as usize)?.into();
                let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
                if cache.len() >= CACHED_BLOCKS {
                    cache.clear();
                }
                cache.insert(block, Arc::clone(&entries));
                entries
            }
        };
        Ok(entries[(at % self.per_block as u64) as usize])
    }

    /// Every entry, decompressed in parallel, with [`Entry::NONE`] at each index that is no
    /// position whatever the file's format (for checks and statistics).
    pub fn all(&self) -> Result<Vec<Entry>, FileError> {
        self.decompress_all(self.format != Format::Version1)
    }

    /// Every entry, decompressed in parallel, for lookups of positions only (a build's tables of
    /// captures and promotions): what the indices that are no position hold is left as the file
    /// has it, which saves decoding every index.
    pub fn all_at_positions(&self) -> Result<Vec<Entry>, FileError> {
        self.decompress_all(false)
    }

    /// The entries of the table's indices `range`, for lookups of positions only (as [`TableFile::all_at_positions`]).
    pub fn entries_at_positions(&self, range: Range<u64>) -> Result<Vec<Entry>, FileError> {
        let cells: Vec<AtomicU16> =
            range.clone().into_par_iter().map(|_| AtomicU16::new(Entry::NONE.0)).collect();
        self.for_each_entry(range.clone(), |at, entry| {
            cells[(at - range.start) as usize].store(entry.0, Ordering::Relaxed)
        })?;
        // Same size and alignment: the collect reuses the cells' memory.
        Ok(cells.into_iter().map(|c| Entry(c.into_inner())).collect())
    }

    /// The entries of the table's indices `range` in one byte each, for lookups of positions
    /// only (as [`TableFile::all_at_positions`]), with `none` for [`Entry::NONE`]; `None` if an
    /// entry does not fit in a byte below `none`. A build loads most tables this way: straight
    /// into one byte an entry, never the two-byte entries beside, and often half of a table
    /// (one side to move: the file keeps each side's entries apart).
    pub fn narrow_at_positions(&self, range: Range<u64>, none: u8) -> Result<Option<Vec<u8>>, FileError> {
        let cells: Vec<AtomicU8> = range.clone().into_par_iter().map(|_| AtomicU8::new(none)).collect();
        let wide = AtomicBool::new(false);
        self.for_each_entry(range.clone(), |at, entry| match entry {
            Entry::NONE => {}
            Entry(e) if e < u16::from(none) => {
                cells[(at - range.start) as usize].store(e as u8, Ordering::Relaxed)
            }
            _ => wide.store(true, Ordering::Relaxed),
        })?;
        // Same size and alignment: the collect reuses the cells' memory.
        Ok((!wide.into_inner()).then(|| cells.into_iter().map(AtomicU8::into_inner).collect()))
    }

    /// The entries in the table's order, with [`Entry::NONE`] put back from the index where
    /// `mark` is set.
    fn decompress_all(&self, mark: bool) -> Result<Vec<Entry>, FileError> {
        let mut entries = self.entries_at_positions(0..self.entries)?;
        if mark {
            let index = TableIndex::new(self.material);
            entries.par_chunks_mut(self.per_block).enumerate().for_each(|(c, out)| {
                let start = (c * self.per_block) as u64;
                index.placements(start..start + out.len() as u64, |i, placement| {
                    if placement.is_none() {
                        out[(i - start) as usize] = Entry::NONE;
                    }
                });
            });
        }
        Ok(entries)
    }

    /// Calls `put` with the table's index and the entry of every entry of the table's indices
    /// `range`. The file's order keeps each side's entries apart, in the same range, so a range
    /// of whole sides to move reads only its own blocks; any other range reads those of the
    /// halves it lies in (a cluster worker's share of a table). The blocks are decompressed in parallel, each entry put straight into
    /// its place: a table is never held twice, in the file's order and in its own.
    fn for_each_entry(&self, range: Range<u64>, put: impl Fn(u64, Entry) + Sync) -> Result<(), FileError> {
        let per_block = self.per_block as u64;
        // A digit order of its own scatters a half's indices over the whole half of the file.
        let file_range = if self.order.is_identity() {
            range.clone()
        } else {
            let half = self.entries / 2;
            range.start / half * half..range.end.div_ceil(half) * half
        };
        let blocks = (file_range.start / per_block) as usize..file_range.end.div_ceil(per_block) as usize;
        blocks.into_par_iter().try_for_each(|b| {
            let block = self.block(b)?;
            let start = b as u64 * per_block;
            let mut next = block.iter();
            self.order.table_indices(start..start + block.len() as u64, |at| {
                let entry = *next.next().expect("one entry an index");
                if range.contains(&at) {
                    put(at, entry);
                }
            });
            Ok(())
        })
    }

    /// Block `b`, decompressed and checked for size.
    fn block(&self, b: usize) -> Result<Vec<Entry>, FileError> {
        let damaged = |message: String| FileError::Damaged { path: self.path.clone(), message };
        let (start, end) = (self.offsets[b] as usize, self.offsets[b + 1] as usize);
        let per_block = self.per_block as u64;
        let expected = (self.entries - b as u64 * per_block).min(per_block) as usize;
        thread_local! {
            // A decompression context costs more to make than a block to decompress: one a thread.
            static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
                const { std::cell::RefCell::new(None) };
        }
        let raw = DECOMPRESSOR
            .with(|d| {
                let mut d = d.borrow_mut();
                if d.is_none() {
                    *d = Some(zstd::bulk::Decompressor::new()?);
                }
                d.as_mut().expect("just made").decompress(&self.map[start..end], 2 * self.per_block)
            })
            .map_err(|e| damaged(format!("block {b} does not decompress: {e}")))?;
        if raw.len() != 2 * expected {
            return Err(damaged(format!("block {b} holds {} bytes, expected {}", raw.len(), 2 * expected)));
        }
        let (low, high) = raw.split_at(expected);
        Ok(low.iter().zip(high).map(|(&l, &h)| Entry(u16::from_le_bytes([l, h]))).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every version reads back the entries of a table, [`Entry::NONE`] at every index that is
    /// no position. Version 2 is the smaller, and holds values there for lookups that only ask
    /// positions; version 3, whose values here depend on the rook's square alone, stores the
    /// rook's square as its slowest digit and is the smallest.
    #[test]
    fn every_version_reads_back_what_was_written() {
        let material: Material = "KRvK".parse().unwrap();
        let index = TableIndex::new(material);
        let entries: Vec<Entry> = (0..index.len())
            .map(|i| match index.placement(i) {
                None => Entry::NONE,
                Some(p) if p.squares[2] % 5 == 0 => Entry(0),
                Some(p) => Entry(u16::from(p.squares[2]) + 1),
            })
            .collect();
        assert!(entries.contains(&Entry::NONE));
        let dir = tempfile::tempdir().unwrap();
        let mut sizes = Vec::new();
        for format in [Format::Version1, Format::Version2, Format::Version3] {
            let path = dir.path().join(format!("{format:?}.dtm"));
            let mut bytes = Vec::new();
            let (sha256, size) = write_format(&mut bytes, material, &entries, format).unwrap();
            std::fs::write(&path, &bytes).unwrap();
            let file = TableFile::open(&path, material, entries.len() as u64, Some(&sha256)).unwrap();
            assert_eq!(file.order.is_identity(), format != Format::Version3, "{format:?}");
            assert_eq!(file.all().unwrap(), entries, "{format:?}");
            let raw = file.all_at_positions().unwrap();
            let positions = (0..index.len()).filter(|&i| entries[i as usize] != Entry::NONE);
            assert!(positions.clone().all(|i| raw[i as usize] == entries[i as usize]), "{format:?}");
            assert!(positions.step_by(97).all(|i| file.entry(i).unwrap() == entries[i as usize]));
            let holes_kept = raw.iter().filter(|&&e| e == Entry::NONE).count();
            assert_eq!(holes_kept == 0, format != Format::Version1, "{format:?}");
            sizes.push(size);
        }
        assert!(sizes[2] < sizes[1] && sizes[1] < sizes[0], "each version smaller: {sizes:?}");
    }

    /// Written in blocks from parts of the table ([`TableBlocks`], as a cluster's workers write
    /// it), a table's file is the one written whole, byte for byte: KRvKR, whose sides choose
    /// different digit orders, and KRvK, whose halves do not hold whole blocks. A range of
    /// indices inside a half reads back its own entries, as whole halves do.
    #[test]
    fn a_file_written_in_blocks_is_the_file_written_whole() {
        for name in ["KRvKR", "KRvK"] {
            let material: Material = name.parse().unwrap();
            let index = TableIndex::new(material);
            let mut rng = gamegraph::rng::SplitMix64(6);
            let entries: Vec<Entry> = (0..index.len())
                .map(|i| match index.placement(i) {
                    None => Entry::NONE,
                    // Values that follow one piece's square on one side and another's on the
                    // other, so that each side's best order is its own.
                    Some(p) if i < index.len() / 2 => Entry(u16::from(p.squares[2] / 8)),
                    Some(p) if rng.below(4) == 0 => Entry(u16::from(p.squares[3] % 8)).by_capture(),
                    Some(p) => Entry(u16::from(p.squares[3] % 8)),
                })
                .collect();
            let mut whole = Vec::new();
            let written = write(&mut whole, material, &entries).unwrap();
            let half = entries.len() / 2;
            let mut in_blocks = Vec::new();
            let raw: Vec<u16> = entries.iter().map(|e| e.0).collect();
            let blocks = gamegraph::blocked::write_whole(&TableBlocks::new(material), &raw, &mut in_blocks);
            assert_eq!(blocks.unwrap(), written, "{name}");
            assert!(whole == in_blocks, "{name}: the same bytes");
            // Blocks missing, or bytes missing from the parts, make no file.
            let file = TableBlocks::new(material);
            let order = DigitOrder::identity(&TableIndex::new(material).digits());
            let blocks = index.len().div_ceil(BLOCK_ENTRIES as u64) as usize;
            let missing = gamegraph::blocked::BlockedFile::write(
                &file,
                &order,
                &vec![1; blocks - 1],
                &mut &[0u8; 99][..],
                &mut Vec::new(),
            );
            assert!(missing.unwrap_err().to_string().contains("blocks given"), "{name}");
            let short = gamegraph::blocked::BlockedFile::write(
                &file,
                &order,
                &vec![1; blocks],
                &mut &[0u8; 1][..],
                &mut Vec::new(),
            );
            assert!(short.unwrap_err().to_string().contains("expected"), "{name}");
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t.dtm");
            std::fs::write(&path, &whole).unwrap();
            let file = TableFile::open(&path, material, entries.len() as u64, Some(&written.0)).unwrap();
            if name == "KRvKR" {
                assert_ne!(file.order.order(0), file.order.order(1), "each side its own order");
            }
            let all = file.all_at_positions().unwrap();
            let inside = half as u64 + 1000..half as u64 + 5000;
            let part = file.entries_at_positions(inside.clone()).unwrap();
            assert_eq!(part, all[inside.start as usize..inside.end as usize], "{name}");
        }
    }

    /// Version 4 stores every entry of a position as it is, but where the build marked its
    /// value as its best capture's: there it stores a value no better for the side to move, the
    /// entry before it where it can, which makes the file smaller. Versions 1 to 3 store the
    /// marked values as they are.
    #[test]
    fn version_4_stores_no_better_than_the_value_where_a_capture_gives_it() {
        let material: Material = "KRvK".parse().unwrap();
        let index = TableIndex::new(material);
        let mut rng = gamegraph::rng::SplitMix64(4);
        let entries: Vec<Entry> = (0..index.len())
            .map(|i| {
                if index.placement(i).is_none() {
                    return Entry::NONE;
                }
                let value = Entry(rng.below(9) as u16);
                if rng.below(3) == 0 {
                    value.by_capture()
                } else {
                    value
                }
            })
            .collect();
        let values: Vec<Entry> = entries.iter().map(|e| e.unmarked()).collect();
        let dir = tempfile::tempdir().unwrap();
        let mut sizes = Vec::new();
        for format in [Format::Version3, Format::Version4] {
            let path = dir.path().join(format!("{format:?}.dtm"));
            let mut bytes = Vec::new();
            let (sha256, size) = write_format(&mut bytes, material, &entries, format).unwrap();
            std::fs::write(&path, &bytes).unwrap();
            let file = TableFile::open(&path, material, entries.len() as u64, Some(&sha256)).unwrap();
            assert_eq!(file.holds_bounds(), format == Format::Version4);
            let read = file.all().unwrap();
            let mut lower = 0;
            for (i, (&e, &v)) in entries.iter().zip(&values).enumerate() {
                if e.is_by_capture() && file.holds_bounds() {
                    assert!(rank(read[i]) <= rank(v), "{format:?} index {i}: {:?} above {v:?}", read[i]);
                    lower += usize::from(read[i] != v);
                } else {
                    assert_eq!(read[i], v, "{format:?} index {i}");
                }
            }
            assert_eq!(lower > 0, format == Format::Version4, "{format:?}: {lower} entries stored lower");
            sizes.push(size);
        }
        assert!(sizes[1] < sizes[0], "version 4 smaller: {sizes:?}");
    }

    /// A version 3 header whose digit order is no order of the table's digits is refused by
    /// name, as a damaged file.
    #[test]
    fn a_damaged_digit_order_is_refused() {
        let material: Material = "KQvK".parse().unwrap();
        let entries = vec![Entry(0); TableIndex::new(material).len() as usize];
        let mut bytes = Vec::new();
        write_format(&mut bytes, material, &entries, Format::Version3).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("KQvK.dtm");
        // The side to move's digit, a digit out of range, a padding byte, a repeated digit.
        for (at, value) in [(HEADER, 0), (HEADER + 1, 7), (HEADER + 3, 2), (HEADER + 5, 1)] {
            let mut damaged = bytes.clone();
            damaged[at] = value;
            std::fs::write(&path, &damaged).unwrap();
            let err = TableFile::open(&path, material, entries.len() as u64, None).unwrap_err().to_string();
            assert!(err.contains("digit order") && err.contains("KQvK.dtm"), "{err}");
        }
    }
}
