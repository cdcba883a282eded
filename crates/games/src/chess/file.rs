//! One table on disk: a header, a block offset list and the entries in blocks of
//! [`BLOCK_ENTRIES`] two-byte entries, each compressed alone with zstd, so that a probe reads and
//! decompresses one block of a memory-mapped file and never the whole file.
//!
//! Layout (little-endian): `GGCHDTM2`; the material name, 16 bytes padded with zeros; the number
//! of entries (u64); entries per block (u32); blocks (u32); `blocks + 1` block offsets from the
//! start of the file (u64, the last one the file's length); the blocks. A block holds the low
//! bytes of its entries, then their high bytes.
//!
//! An index that is no position ([`Entry::NONE`]) is never probed, and the index says which they
//! are, so the file need not hold their entries: version 2 stores there the entry before them in
//! the block, which extends runs instead of breaking them with `0xFFFF`. The 3- and 4-piece
//! tables take 0.76 of the bytes of version 1 (`GGCHDTM1`, every entry stored as it is), which is
//! still read. Readers of every entry ([`TableFile::all`]) get [`Entry::NONE`] back there from
//! the index.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use gamegraph::storage::{sha256_hex, Sha256Writer};
use memmap2::Mmap;
use rayon::prelude::*;

use super::index::TableIndex;
use super::material::Material;
use super::Entry;

/// The first bytes of every table file written now.
const MAGIC: &[u8; 8] = b"GGCHDTM2";
/// The first bytes of a table file of version 1, still read.
const MAGIC_VERSION_1: &[u8; 8] = b"GGCHDTM1";
/// Entries per compressed block: 8 KiB, decompressed in about 10 microseconds (1,024 entries
/// probe in 5 us but make the 3- and 4-piece files 25% larger).
pub const BLOCK_ENTRIES: usize = 4096;
/// The largest block a reader accepts (the writer uses [`BLOCK_ENTRIES`]).
const MAX_BLOCK_ENTRIES: usize = 1 << 16;
/// zstd's level: 7 compresses as tightly as 9 here (a KRPvKR table: 218.4 MB against 218.8) in half the time.
const LEVEL: i32 = 7;
/// Bytes before the offsets.
const HEADER: usize = 8 + 16 + 8 + 4 + 4;
/// Decompressed blocks a table keeps for later probes.
const CACHED_BLOCKS: usize = 256;

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

/// What a table file holds at the indices that are no position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// [`Entry::NONE`] (`GGCHDTM1`).
    Version1,
    /// The entry before them in their block, or a draw where the block starts with them
    /// (`GGCHDTM2`): whatever compresses best, since the index marks them.
    Version2,
}

impl Format {
    /// The entries of one block as `self` stores them.
    fn stored(self, block: &[Entry]) -> Vec<Entry> {
        match self {
            Format::Version1 => block.to_vec(),
            Format::Version2 => {
                let mut last = block.iter().copied().find(|&e| e != Entry::NONE).unwrap_or(Entry(0));
                block
                    .iter()
                    .map(|&e| {
                        if e != Entry::NONE {
                            last = e;
                        }
                        last
                    })
                    .collect()
            }
        }
    }

    fn magic(self) -> &'static [u8; 8] {
        match self {
            Format::Version1 => MAGIC_VERSION_1,
            Format::Version2 => MAGIC,
        }
    }
}

/// Writes `entries` of `material` as a table file to `out`, and returns its SHA-256 (hex) and
/// its size in bytes.
pub fn write(out: &mut impl Write, material: Material, entries: &[Entry]) -> io::Result<(String, u64)> {
    write_format(out, material, entries, Format::Version2)
}

/// [`write()`] in `format`: version 1 for tools and tests that need files as older builds wrote
/// them.
pub fn write_format(
    out: &mut impl Write,
    material: Material,
    entries: &[Entry],
    format: Format,
) -> io::Result<(String, u64)> {
    let blocks: Vec<Vec<u8>> = entries
        .par_chunks(BLOCK_ENTRIES)
        // A compression context costs about as much to make as a block to compress: one per
        // piece of work rayon splits off.
        .map_init(
            || zstd::bulk::Compressor::new(LEVEL),
            |compressor, chunk| {
                // Low bytes first, then high bytes (mostly zero): they compress apart far better.
                let stored = format.stored(chunk);
                let raw: Vec<u8> =
                    stored.iter().map(|e| e.0 as u8).chain(stored.iter().map(|e| (e.0 >> 8) as u8)).collect();
                compressor.as_mut().map_err(|e| io::Error::new(e.kind(), e.to_string()))?.compress(&raw)
            },
        )
        .collect::<io::Result<_>>()?;
    let mut header = Vec::with_capacity(HEADER + 8 * (blocks.len() + 1));
    header.extend_from_slice(format.magic());
    let mut name = [0u8; 16];
    let text = material.to_string();
    name[..text.len()].copy_from_slice(text.as_bytes());
    header.extend_from_slice(&name);
    header.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    header.extend_from_slice(&(BLOCK_ENTRIES as u32).to_le_bytes());
    header.extend_from_slice(&(blocks.len() as u32).to_le_bytes());
    let mut offset = (HEADER + 8 * (blocks.len() + 1)) as u64;
    for block in &blocks {
        header.extend_from_slice(&offset.to_le_bytes());
        offset += block.len() as u64;
    }
    header.extend_from_slice(&offset.to_le_bytes());
    let mut out = Sha256Writer::new(out);
    out.write_all(&header)?;
    for block in &blocks {
        out.write_all(block)?;
    }
    let (sha256, bytes) = out.finish();
    debug_assert_eq!(bytes, offset);
    Ok((sha256, bytes))
}

/// A table file opened for probing: memory-mapped, its header checked, its blocks decompressed
/// on demand and the latest ones cached.
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
        let format = match map.get(..8) {
            Some(magic) if magic == MAGIC => Format::Version2,
            Some(magic) if magic == MAGIC_VERSION_1 => Format::Version1,
            _ => return Err(damaged("no table header".into())),
        };
        if map.len() < HEADER {
            return Err(damaged("no table header".into()));
        }
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
        let table_end = HEADER + 8 * (blocks + 1);
        if map.len() < table_end {
            return Err(damaged("the block list is cut short".into()));
        }
        let offsets: Vec<u64> = (0..=blocks).map(|b| u64_at(HEADER + 8 * b)).collect();
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

    /// The entry at `index`, a position of the table (what a file holds at an index that is no
    /// position depends on its [`Format`]).
    pub fn entry(&self, index: u64) -> Result<Entry, FileError> {
        let block = (index / self.per_block as u64) as u32;
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
        Ok(entries[(index % self.per_block as u64) as usize])
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

    /// The entries, with [`Entry::NONE`] put back from the index where `mark` is set.
    fn decompress_all(&self, mark: bool) -> Result<Vec<Entry>, FileError> {
        let index = mark.then(|| TableIndex::new(self.material));
        // Each block straight into its place: a large table is never held twice.
        let mut entries = vec![Entry::NONE; self.entries as usize];
        entries.par_chunks_mut(self.per_block).enumerate().try_for_each(|(b, out)| {
            out.copy_from_slice(&self.block(b)?);
            if let Some(index) = &index {
                let start = (b * self.per_block) as u64;
                index.placements(start..start + out.len() as u64, |i, placement| {
                    if placement.is_none() {
                        out[(i - start) as usize] = Entry::NONE;
                    }
                });
            }
            Ok(())
        })?;
        Ok(entries)
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

    /// Both versions read back the entries of a table, [`Entry::NONE`] at every index that is
    /// no position; version 2 is the smaller, and holds values there for lookups that only ask
    /// positions.
    #[test]
    fn both_versions_read_back_what_was_written() {
        let material: Material = "KRvK".parse().unwrap();
        let index = TableIndex::new(material);
        let entries: Vec<Entry> = (0..index.len())
            .map(|i| match index.placement(i) {
                None => Entry::NONE,
                Some(_) if i % 5 == 0 => Entry(0),
                Some(_) => Entry((i / 97 % 40) as u16 + 1),
            })
            .collect();
        assert!(entries.contains(&Entry::NONE));
        let dir = tempfile::tempdir().unwrap();
        let mut sizes = Vec::new();
        for format in [Format::Version1, Format::Version2] {
            let path = dir.path().join(format!("{format:?}.dtm"));
            let mut bytes = Vec::new();
            let (sha256, size) = write_format(&mut bytes, material, &entries, format).unwrap();
            std::fs::write(&path, &bytes).unwrap();
            let file = TableFile::open(&path, material, entries.len() as u64, Some(&sha256)).unwrap();
            assert_eq!(file.all().unwrap(), entries, "{format:?}");
            let raw = file.all_at_positions().unwrap();
            let positions = (0..index.len()).filter(|&i| entries[i as usize] != Entry::NONE);
            assert!(positions.clone().all(|i| raw[i as usize] == entries[i as usize]), "{format:?}");
            assert!(positions.take(100).all(|i| file.entry(i).unwrap() == entries[i as usize]));
            let holes_kept = raw.iter().filter(|&&e| e == Entry::NONE).count();
            assert_eq!(holes_kept == 0, format == Format::Version2, "{format:?}");
            sizes.push(size);
        }
        assert!(sizes[1] < sizes[0], "version 2 is smaller: {sizes:?}");
    }
}
