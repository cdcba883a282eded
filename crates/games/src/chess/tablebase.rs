//! A directory of chess tables: one file per table (see [`super::file`]) and `manifest.json`,
//! which lists each complete table with its size and SHA-256. Building writes each table under a
//! temporary name, renames it complete, then enters it in the manifest, so that a build killed at
//! any moment resumes at the first table the manifest does not list and never leaves a broken
//! file in use. Probing opens a table (checking its digest) the first time a position needs it.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cozy_chess::{Board, Color};
use gamegraph::storage::{self, StorageError};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::en_passant::{has_en_passant_capture, without_en_passant};
use super::file::{self, FileError, TableFile};
use super::generate::{build_table, ChildTables};
use super::index::TableIndex;
use super::material::{Material, MaterialError, MAX_PIECES};
use super::{Dtm, Entry};

/// The manifest's name in a table directory.
pub const MANIFEST: &str = "manifest.json";
const FORMAT: &str = "gamegraph-chess-dtm-1";
/// The prefix of the files that builds of earlier versions wrote before renaming them (the
/// files being written are now [`gamegraph::storage::write_atomically`]'s).
const PARTIAL: &str = ".building-";

/// `manifest.json`: the complete tables of a directory, in building order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `gamegraph-chess-dtm-1`.
    pub format: String,
    /// The tables.
    pub tables: Vec<TableEntry>,
}

/// One complete table file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableEntry {
    /// Its material, `KQvKR`.
    pub material: String,
    /// Its file name in the directory.
    pub file: String,
    /// Entries (indices, positions or not).
    pub entries: u64,
    /// The file's size.
    pub bytes: u64,
    /// The file's SHA-256, in hexadecimal.
    pub sha256: String,
}

/// A table directory that cannot be used or built.
#[derive(Debug, thiserror::Error)]
pub enum TablebaseError {
    /// A file could not be written, or the manifest read.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A file could not be read or written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// The manifest is not what this program writes.
    #[error("{path}: not a gamegraph chess table manifest: {message}")]
    BadManifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The directory has no manifest.
    #[error("{dir}: no chess tables here (build them with 'gamegraph build chess --tables 3 --db {dir}')")]
    NoTables {
        /// The directory.
        dir: PathBuf,
    },
    /// A table file is damaged.
    #[error(transparent)]
    File(#[from] FileError),
    /// A table's values cannot be those of its positions.
    #[error("the {material} table is damaged: {message}")]
    Damaged {
        /// The table.
        material: Material,
        /// What is wrong.
        message: String,
    },
    /// A material name is wrong.
    #[error(transparent)]
    Material(#[from] MaterialError),
    /// The dense solve refused a table.
    #[error("{material}: {source}")]
    Solve {
        /// The table.
        material: Material,
        /// Why.
        source: gamegraph::dense::DenseError,
    },
}

/// A position the tables cannot answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// Tables hold no castling rights.
    #[error(
        "the position has castling rights; endgame tables hold none (write '-' in the FEN's castling field)"
    )]
    Castling,
    /// More pieces than any table.
    #[error("{pieces} pieces on the board; the tables hold at most {max}")]
    TooManyPieces {
        /// Pieces on the board, kings included.
        pieces: usize,
        /// The most that the directory's tables hold.
        max: usize,
    },
    /// The table of the position's material is not in the directory.
    #[error("the {material} table was not built (gamegraph build chess --tables {material} --db DIR)")]
    NotBuilt {
        /// The material.
        material: Material,
    },
    /// The table's file is damaged.
    #[error("{0}")]
    Damaged(String),
    /// The kings stand side by side.
    #[error("illegal position: the kings stand side by side")]
    KingsTouch,
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> TablebaseError + '_ {
    move |cause| TablebaseError::Io { path: path.to_path_buf(), cause }
}

/// The file name of a table.
pub fn file_name(material: Material) -> String {
    format!("{material}.dtm")
}

/// A table opened for probing: its file and its index.
pub struct OpenTable {
    /// The file.
    pub file: TableFile,
    /// How its positions are numbered.
    pub index: TableIndex,
}

/// A table directory opened for probing.
pub struct Tablebase {
    dir: PathBuf,
    manifest: Manifest,
    /// The most pieces a table holds.
    max_pieces: usize,
    open: Mutex<HashMap<Material, Arc<OpenTable>>>,
}

impl Tablebase {
    /// Opens the tables of `dir`, reading its manifest.
    pub fn open(dir: &Path) -> Result<Self, TablebaseError> {
        let manifest = read_manifest(dir)?
            .filter(|m| !m.tables.is_empty())
            .ok_or_else(|| TablebaseError::NoTables { dir: dir.to_path_buf() })?;
        let max_pieces = manifest
            .tables
            .iter()
            .filter_map(|t| t.material.parse::<Material>().ok())
            .map(|m| m.pieces())
            .max()
            .unwrap_or(2);
        Ok(Self { dir: dir.to_path_buf(), manifest, max_pieces, open: Mutex::new(HashMap::new()) })
    }

    /// The tables of `dir`, opened once per process and shared, so that the files a probe opened
    /// (and checked) stay open for the next caller (the next web request). A directory whose
    /// manifest changed since is opened again.
    pub fn shared(dir: &Path) -> Result<Arc<Tablebase>, TablebaseError> {
        type Opened = Vec<(PathBuf, Option<std::time::SystemTime>, Arc<Tablebase>)>;
        static OPENED: Mutex<Opened> = Mutex::new(Vec::new());
        let modified = fs::metadata(dir.join(MANIFEST)).and_then(|m| m.modified()).ok();
        let mut opened = OPENED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((.., tables)) = opened.iter().find(|(d, m, _)| d == dir && *m == modified) {
            return Ok(Arc::clone(tables));
        }
        let tables = Arc::new(Tablebase::open(dir)?);
        opened.retain(|(d, ..)| d != dir);
        opened.push((dir.to_path_buf(), modified, Arc::clone(&tables)));
        Ok(tables)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest's tables.
    pub fn entries(&self) -> &[TableEntry] {
        &self.manifest.tables
    }

    /// The most pieces a table of the directory holds.
    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    /// The materials of the directory's tables.
    pub fn materials(&self) -> Vec<Material> {
        self.manifest.tables.iter().filter_map(|t| t.material.parse::<Material>().ok()).collect()
    }

    /// The table of `material` (canonical), opened and checked the first time.
    pub fn table(&self, material: Material) -> Result<Arc<OpenTable>, ProbeError> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(table) = open.get(&material) {
            return Ok(Arc::clone(table));
        }
        let name = material.to_string();
        let entry = self
            .manifest
            .tables
            .iter()
            .find(|t| t.material == name)
            .ok_or(ProbeError::NotBuilt { material })?;
        let file = TableFile::open(&self.dir.join(&entry.file), material, entry.entries, Some(&entry.sha256))
            .map_err(|e| ProbeError::Damaged(e.to_string()))?;
        let table = Arc::new(OpenTable { file, index: TableIndex::new(material) });
        open.insert(material, Arc::clone(&table));
        Ok(table)
    }

    /// Opens and checks every table of the directory (each file's digest against the
    /// manifest's), so that a front end that serves the tables (a search, UCI, the web page)
    /// refuses a damaged directory at once instead of falling back to search where a probe
    /// fails. Reads every file once: about a second per gigabyte.
    pub fn check_all(&self) -> Result<(), ProbeError> {
        for material in self.materials() {
            self.table(material)?;
        }
        Ok(())
    }

    /// The value of `board` for its side to move.
    ///
    /// Tables hold no en passant rights: a board whose en passant capture is legal is valued
    /// from its moves (one ply, each child from the tables); one whose en passant square allows
    /// no capture (as after any double push) is the table's position.
    pub fn probe(&self, board: &Board) -> Result<Dtm, ProbeError> {
        check_probe(board, self.max_pieces())?;
        if board.en_passant().is_some() {
            if has_en_passant_capture(board) {
                return self.probe_by_moves(board);
            }
            return self.probe(&without_en_passant(board));
        }
        let material = Material::of(board).canonical();
        if material.pieces() == 2 {
            return Ok(Dtm::Draw);
        }
        let table = self.table(material)?;
        let placement = table.index.placement_of(board).expect("the board holds the table's material");
        let entry = table
            .file
            .entry(table.index.index(&placement))
            .map_err(|e| ProbeError::Damaged(e.to_string()))?;
        entry
            .dtm()
            .ok_or_else(|| ProbeError::Damaged(format!("{material}: a legal position is stored as none")))
    }

    /// The best value over the moves of `board`, each child probed.
    fn probe_by_moves(&self, board: &Board) -> Result<Dtm, ProbeError> {
        let mut children = Vec::new();
        board.generate_moves(|moves| {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                children.push(child);
            }
            false
        });
        let mut best: Option<Dtm> = None;
        for child in &children {
            let value = self.probe(child)?.negated();
            if best.is_none_or(|b| value.rank() > b.rank()) {
                best = Some(value);
            }
        }
        // Reached only with an en passant capture, so there is a move.
        Ok(best.unwrap_or(Dtm::Draw))
    }

    /// The sum of the table files' sizes, by number of pieces (index 3 for 3 pieces).
    pub fn bytes_by_pieces(&self) -> [u64; MAX_PIECES + 1] {
        let mut out = [0; MAX_PIECES + 1];
        for t in &self.manifest.tables {
            if let Ok(m) = t.material.parse::<Material>() {
                out[m.pieces()] += t.bytes;
            }
        }
        out
    }
}

/// Refuses positions no table holds: castling rights, too many pieces.
pub fn check_probe(board: &Board, max: usize) -> Result<(), ProbeError> {
    for color in [Color::White, Color::Black] {
        let rights = board.castle_rights(color);
        if rights.short.is_some() || rights.long.is_some() {
            return Err(ProbeError::Castling);
        }
    }
    if super::kings_touch(board) {
        return Err(ProbeError::KingsTouch);
    }
    let pieces = board.occupied().len() as usize;
    if pieces > max {
        return Err(ProbeError::TooManyPieces { pieces, max });
    }
    Ok(())
}

/// Reads `dir`'s manifest, `None` if there is none.
pub fn read_manifest(dir: &Path) -> Result<Option<Manifest>, TablebaseError> {
    let path = dir.join(MANIFEST);
    let bad = |message: String| TablebaseError::BadManifest { path: path.clone(), message };
    let manifest: Manifest = match storage::read_manifest(dir, MANIFEST) {
        Ok(Some(manifest)) => manifest,
        Ok(None) => return Ok(None),
        Err(StorageError::BadManifest { message, .. }) => return Err(bad(message)),
        Err(StorageError::Io { cause, .. }) => return Err(io_error(&path)(cause)),
        Err(e) => return Err(e.into()),
    };
    if manifest.format != FORMAT {
        return Err(bad(format!("format '{}', expected '{FORMAT}'", manifest.format)));
    }
    for t in &manifest.tables {
        let material: Material = t.material.parse().map_err(|e: MaterialError| bad(e.to_string()))?;
        if t.file != file_name(material) || t.entries != TableIndex::new(material).len() {
            return Err(bad(format!("the entry of {} does not match its table", t.material)));
        }
    }
    Ok(Some(manifest))
}

/// Writes `dir`'s manifest atomically.
fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<(), TablebaseError> {
    Ok(storage::write_manifest(dir, MANIFEST, manifest)?)
}

/// Tables loaded whole, for building and verifying: every probe is an array read.
pub struct LoadedTables {
    /// A few tables (those one table leads to): a list searched in order beats hashing.
    tables: Vec<(Material, TableIndex, LoadedEntries)>,
}

/// A loaded table's entries: one byte each when every distance fits (most tables), which
/// halves what a 5-piece build holds of the tables it leads to; two bytes otherwise.
enum LoadedEntries {
    Narrow(Vec<u8>),
    Wide(Vec<Entry>),
}

/// [`Entry::NONE`] in a one-byte entry; every other entry keeps its value.
const NARROW_NONE: u8 = u8::MAX;

impl LoadedEntries {
    fn new(entries: Vec<Entry>) -> Self {
        if entries.par_iter().all(|e| *e == Entry::NONE || e.0 < u16::from(NARROW_NONE)) {
            let narrow = entries.par_iter().map(|e| if *e == Entry::NONE { NARROW_NONE } else { e.0 as u8 });
            LoadedEntries::Narrow(narrow.collect())
        } else {
            LoadedEntries::Wide(entries)
        }
    }

    #[inline]
    fn get(&self, i: usize) -> Entry {
        match self {
            LoadedEntries::Narrow(bytes) => match bytes[i] {
                NARROW_NONE => Entry::NONE,
                b => Entry(u16::from(b)),
            },
            LoadedEntries::Wide(entries) => entries[i],
        }
    }

    fn len(&self) -> usize {
        match self {
            LoadedEntries::Narrow(bytes) => bytes.len(),
            LoadedEntries::Wide(entries) => entries.len(),
        }
    }
}

impl LoadedTables {
    /// No table yet.
    pub fn new() -> Self {
        Self { tables: Vec::new() }
    }

    /// Adds a table's entries, in place of any loaded before.
    pub fn insert(&mut self, material: Material, entries: Vec<Entry>) {
        self.tables.retain(|t| t.0 != material);
        self.tables.push((material, TableIndex::new(material), LoadedEntries::new(entries)));
    }

    /// A loaded table.
    fn get(&self, material: Material) -> Option<(&TableIndex, &LoadedEntries)> {
        self.tables.iter().find(|t| t.0 == material).map(|(_, index, entries)| (index, entries))
    }

    /// A copy of a loaded table's entries.
    pub fn entries(&self, material: Material) -> Option<Vec<Entry>> {
        let (_, entries) = self.get(material)?;
        Some((0..entries.len()).into_par_iter().map(|i| entries.get(i)).collect())
    }

    /// Whether a table is loaded.
    pub fn contains(&self, material: Material) -> bool {
        self.get(material).is_some()
    }

    /// Drops the tables `keep` does not accept.
    pub fn retain(&mut self, keep: impl Fn(Material) -> bool) {
        self.tables.retain(|t| keep(t.0));
    }
}

impl Default for LoadedTables {
    fn default() -> Self {
        Self::new()
    }
}

impl ChildTables for LoadedTables {
    fn entry(&self, board: &Board) -> Entry {
        let material = Material::of(board).canonical();
        if material.pieces() == 2 {
            return Entry::of(Dtm::Draw);
        }
        let (index, entries) = self.get(material).expect("the tables a table leads to are loaded first");
        let p = index.placement_of(board).expect("the board holds the table's material");
        entries.get(index.index(&p) as usize)
    }

    fn entry_at(&self, material: Material, index: u64) -> Entry {
        let (_, entries) = self.get(material).expect("the tables a table leads to are loaded first");
        entries.get(index as usize)
    }
}

/// What a build reports as it goes.
pub trait BuildObserver: Sync {
    /// A table is already complete in the directory.
    fn skipped(&self, material: Material);
    /// Building a table starts, with `units` of work to do.
    fn started(&self, material: Material, units: u64);
    /// `units` more units of the current table are done.
    fn advanced(&self, units: u64);
    /// A table is written.
    fn finished(&self, material: Material, seconds: f64, entry: &TableEntry);
}

/// An observer that reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl BuildObserver for Silent {
    fn skipped(&self, _: Material) {}
    fn started(&self, _: Material, _: u64) {}
    fn advanced(&self, _: u64) {}
    fn finished(&self, _: Material, _: f64, _: &TableEntry) {}
}

/// Builds the tables `targets` need, themselves included, into `dir`, skipping those its
/// manifest lists already. Returns the manifest.
pub fn build(
    dir: &Path,
    targets: &[Material],
    observer: &dyn BuildObserver,
) -> Result<Manifest, TablebaseError> {
    let _lock = storage::DirectoryLock::take(dir)?;
    remove_partial_files(dir)?;
    storage::remove_stale_temporaries_in(dir);
    let mut manifest =
        read_manifest(dir)?.unwrap_or_else(|| Manifest { format: FORMAT.into(), tables: Vec::new() });
    let mut loaded = LoadedTables::new();
    for material in Material::closure(targets) {
        let name = material.to_string();
        // A table built again takes its place in the manifest back, so that the manifest reads
        // as a fresh build's.
        let mut slot = None;
        if let Some(kept) = manifest.tables.iter().position(|t| t.material == name) {
            // A resumed build checks what it keeps: a damaged or missing file is built again.
            let t = &manifest.tables[kept];
            if TableFile::open(&dir.join(&t.file), material, t.entries, Some(&t.sha256)).is_ok() {
                observer.skipped(material);
                continue;
            }
            manifest.tables.remove(kept);
            slot = Some(kept);
        }
        let needed = material.successors();
        loaded.retain(|m| needed.contains(&m));
        for &m in &needed {
            if !loaded.contains(m) {
                let t = manifest.tables.iter().find(|t| t.material == m.to_string()).expect("built before");
                let file = TableFile::open(&dir.join(&t.file), m, t.entries, Some(&t.sha256))?;
                loaded.insert(m, file.all()?);
            }
        }
        let started = Instant::now();
        let len = TableIndex::new(material).len();
        observer.started(material, 2 * len);
        let entries = build_table(material, &loaded, &|units| observer.advanced(units))
            .map_err(|source| TablebaseError::Solve { material, source })?;
        let entry = write_table(dir, material, &entries)?;
        match slot {
            Some(at) => manifest.tables.insert(at, entry.clone()),
            None => manifest.tables.push(entry.clone()),
        }
        write_manifest(dir, &manifest)?;
        observer.finished(material, started.elapsed().as_secs_f64(), &entry);
        loaded.insert(material, entries);
    }
    Ok(manifest)
}

/// Writes one table file atomically and returns its manifest entry.
fn write_table(dir: &Path, material: Material, entries: &[Entry]) -> Result<TableEntry, TablebaseError> {
    let name = file_name(material);
    let mut written = None;
    storage::write_atomically(&dir.join(&name), |mut out| {
        written = Some(file::write(&mut out, material, entries)?);
        Ok(())
    })?;
    let (sha256, bytes) = written.expect("written when the write succeeded");
    Ok(TableEntry {
        material: material.to_string(),
        file: name,
        entries: entries.len() as u64,
        bytes,
        sha256,
    })
}

/// Removes the temporary files that a killed build of an earlier version left.
fn remove_partial_files(dir: &Path) -> Result<(), TablebaseError> {
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        if entry.file_name().to_string_lossy().starts_with(PARTIAL) {
            fs::remove_file(entry.path()).map_err(io_error(&entry.path()))?;
        }
    }
    Ok(())
}

/// One side to move of one table, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SideStats {
    /// Legal positions, over all placements on distinct squares (no symmetry folded).
    pub positions: u64,
    /// Positions stored (one per class of symmetric positions).
    pub stored: u64,
    /// Positions the side to move wins, over all placements.
    pub wins: u64,
    /// Drawn positions, over all placements.
    pub draws: u64,
    /// Positions the side to move loses, over all placements.
    pub losses: u64,
    /// The longest distance to mate, in plies, if any position is decided.
    pub longest: Option<u32>,
    /// A position at that distance.
    pub longest_fen: Option<String>,
    /// Its index, while counting.
    #[serde(skip)]
    longest_index: Option<u64>,
    /// The first index that holds a value though it is no position, while counting.
    #[serde(skip)]
    damaged_at: Option<u64>,
}

/// Statistics of one table: White to move, then Black.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableStats {
    /// The material.
    pub material: String,
    /// White to move (the side named first), then Black.
    pub sides: [SideStats; 2],
}

/// Counts a table's positions by value and side to move; an error when a value is stored where
/// the index has no position (a damaged file whose digest was made to match).
pub fn table_stats(material: Material, entries: &[Entry]) -> Result<TableStats, TablebaseError> {
    let index = TableIndex::new(material);
    let half = index.len() / 2;
    let sides = [0u64, 1].map(|side| {
        let range = side * half..(side + 1) * half;
        let mut s = range
            .into_par_iter()
            .fold(SideStats::default, |mut s, i| {
                let Some(dtm) = entries[i as usize].dtm() else { return s };
                let Some(p) = index.placement(i) else {
                    s.damaged_at = s.damaged_at.min(Some(i)).or(Some(i));
                    return s;
                };
                let weight = if material.has_pawns() {
                    2
                } else if index.stabilizer(&p) == 2 {
                    4
                } else {
                    8
                };
                s.positions += weight;
                s.stored += 1;
                match dtm {
                    Dtm::Win(_) => s.wins += weight,
                    Dtm::Loss(_) => s.losses += weight,
                    Dtm::Draw => s.draws += weight,
                }
                if let Some(n) = dtm.plies().filter(|&n| s.longest.is_none_or(|l| n > l)) {
                    s.longest = Some(n);
                    s.longest_index = Some(i);
                }
                s
            })
            .reduce(SideStats::default, |a, b| {
                let (longest, longest_index) = if b.longest > a.longest {
                    (b.longest, b.longest_index)
                } else {
                    (a.longest, a.longest_index)
                };
                let damaged_at = match (a.damaged_at, b.damaged_at) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                };
                SideStats {
                    damaged_at,
                    positions: a.positions + b.positions,
                    stored: a.stored + b.stored,
                    wins: a.wins + b.wins,
                    draws: a.draws + b.draws,
                    losses: a.losses + b.losses,
                    longest,
                    longest_fen: None,
                    longest_index,
                }
            });
        s.longest_fen =
            s.longest_index.and_then(|i| index.board(&index.placement(i)?)).map(|b| b.to_string());
        s
    });
    if let Some(at) = sides.iter().filter_map(|s| s.damaged_at).min() {
        return Err(TablebaseError::Damaged {
            material,
            message: format!("entry {at} holds a value, but the index has no position there"),
        });
    }
    Ok(TableStats { material: material.to_string(), sides })
}

/// A stored value that its children contradict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// The position.
    pub fen: String,
    /// What the table holds.
    pub stored: Option<Dtm>,
    /// What its moves give.
    pub expected: Option<Dtm>,
}

/// Checks every entry of a table against its children: a position's value must be the best
/// over its moves (the table's own entries for moves that stay, `children` for the others), and
/// exactly the indices that are positions hold one. Returns the mismatches, at most `limit`.
pub fn verify_table(
    material: Material,
    entries: &[Entry],
    children: &impl ChildTables,
    limit: usize,
) -> Vec<Mismatch> {
    let index = TableIndex::new(material);
    let table = CheckedTable { material, index: &index, entries, children };
    let found: Vec<Mismatch> = (0..index.len())
        .into_par_iter()
        .filter_map(|i| {
            let stored = entries[i as usize].dtm();
            let board = index.placement(i).and_then(|p| index.board(&p));
            let expected = board.as_ref().and_then(|board| table.best_of_children(board));
            (stored != expected).then(|| Mismatch {
                fen: board.map_or(format!("index {i}"), |b| b.to_string()),
                stored,
                expected,
            })
        })
        .take_any(limit)
        .collect();
    found
}

/// A table being checked: its entries, and the tables its captures and promotions lead to.
struct CheckedTable<'a, C> {
    material: Material,
    index: &'a TableIndex,
    entries: &'a [Entry],
    children: &'a C,
}

impl<C: ChildTables> CheckedTable<'_, C> {
    /// The value of `board` from its children's entries (`None` if one is missing): the best
    /// for the side to move, or mate or stalemate without moves.
    fn best_of_children(&self, board: &Board) -> Option<Dtm> {
        let mut best: Option<Dtm> = None;
        let mut missing = false;
        board.generate_moves(|moves| {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                let Some(value) = self.stored_value(&child).map(Dtm::negated) else {
                    missing = true;
                    continue;
                };
                if best.is_none_or(|b| value.rank() > b.rank()) {
                    best = Some(value);
                }
            }
            false
        });
        if missing {
            return None;
        }
        Some(best.unwrap_or(if board.checkers().is_empty() { Dtm::Draw } else { Dtm::Loss(0) }))
    }

    /// The value of a child as the tables give it: its entry, or where it has an en passant
    /// capture (which no entry holds), the best over its own moves.
    fn stored_value(&self, board: &Board) -> Option<Dtm> {
        if Material::of(board).canonical() != self.material {
            return self.children.entry(board).dtm();
        }
        if has_en_passant_capture(board) {
            return self.best_of_children(board);
        }
        let p = self.index.placement_of(board).expect("same material");
        self.entries[self.index.index(&p) as usize].dtm()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loaded_entries_keep_every_value_in_one_byte_or_two() {
        let cases = [
            (vec![Entry::NONE, Entry(0), Entry(1), Entry(254)], true),
            (vec![Entry::NONE, Entry(0), Entry(255), Entry(3)], false),
        ];
        for (entries, narrow) in cases {
            let loaded = LoadedEntries::new(entries.clone());
            assert_eq!(matches!(loaded, LoadedEntries::Narrow(_)), narrow);
            assert_eq!((0..loaded.len()).map(|i| loaded.get(i)).collect::<Vec<_>>(), entries);
        }
    }
}
