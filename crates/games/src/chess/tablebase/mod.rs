//! A directory of chess tables: one file per table (see [`super::file`]) and `manifest.json`,
//! which lists each complete table with its size and SHA-256. Building writes each table under a
//! temporary name, renames it complete, then enters it in the manifest, so that a build killed at
//! any moment resumes at the first table the manifest does not list and never leaves a broken
//! file in use. Probing opens a table (checking its digest) the first time a position needs it.
//!
//! - [`loaded`]: tables loaded whole, for building and verifying;
//! - [`build`](mod@build): building a directory, resumed where a build stopped;
//! - [`layered`]: the same build as layers, for a cluster's workers;
//! - [`shares`]: a cluster worker's share of the tables a table leads to;
//! - [`stats`]: counts by value and side to move;
//! - [`verify`]: every entry against its children.

pub mod build;
pub mod completing;
pub mod layered;
pub mod loaded;
pub mod resolve;
pub mod shares;
pub mod stats;
pub mod verify;

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
use super::leaving::reached_halves;
use super::material::{Material, MaterialError, MAX_PIECES};
use super::{Dtm, Entry};

/// The manifest's name in a table directory.
pub const MANIFEST: &str = "manifest.json";
const FORMAT: &str = "gamegraph-chess-dtm-1";
/// The prefix of the files a cluster build writes its entries into before the table's file is
/// compressed from them (and of those builds of earlier versions wrote before renaming them).
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

impl Manifest {
    /// The entry of `material`, if the manifest lists it.
    pub fn entry(&self, material: Material) -> Option<&TableEntry> {
        let name = material.to_string();
        self.tables.iter().find(|t| t.material == name)
    }
}

impl TableEntry {
    /// Opens this entry's file in `dir` as the table of `material`, checked against the
    /// entry's size and digest.
    pub fn open(&self, dir: &Path, material: Material) -> Result<TableFile, FileError> {
        TableFile::open(&dir.join(&self.file), material, self.entries, Some(&self.sha256))
    }
}

/// A table directory that cannot be used or built.
#[derive(Debug, thiserror::Error)]
pub enum TablebaseError {
    /// The user stopped the build before its next table (the ones finished are kept).
    #[error("interrupted: the tables finished are kept, and the next build resumes after them")]
    Interrupted,
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
    #[error("{material}: {cause}")]
    Solve {
        /// The table.
        material: Material,
        /// Why.
        cause: gamegraph::dense::DenseError,
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
        static OPENED: storage::OpenedOnce<Tablebase> = storage::OpenedOnce::new();
        OPENED.get(dir, MANIFEST, || Tablebase::open(dir))
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
        let entry = self.manifest.entry(material).ok_or(ProbeError::NotBuilt { material })?;
        let file = entry.open(&self.dir, material).map_err(|e| ProbeError::Damaged(e.to_string()))?;
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
        let stored = entry
            .dtm()
            .ok_or_else(|| ProbeError::Damaged(format!("{material}: a legal position is stored as none")))?;
        if !table.file.holds_bounds() {
            return Ok(stored);
        }
        // The file may hold less than the value where the best capture gives it.
        Ok(self.best_capture(board)?.filter(|c| c.rank() > stored.rank()).unwrap_or(stored))
    }

    /// The value, for its side to move, of the best capture of `board` (which has no en passant
    /// capture), if it has one.
    fn best_capture(&self, board: &Board) -> Result<Option<Dtm>, ProbeError> {
        let theirs = board.colors(!board.side_to_move());
        let mut captures = Vec::new();
        board.generate_moves(|list| {
            captures.extend(list.into_iter().filter(|mv| theirs.has(mv.to)));
            false
        });
        let mut best: Option<Dtm> = None;
        for mv in captures {
            let mut child = board.clone();
            child.play_unchecked(mv);
            let value = self.probe(&child)?.negated();
            if best.is_none_or(|b| value.rank() > b.rank()) {
                best = Some(value);
            }
        }
        Ok(best)
    }

    /// Every value of the table of `material` (with [`Entry::NONE`] at each index that is no
    /// position), read whole: for checks and statistics.
    pub fn values(&self, material: Material) -> Result<Vec<Entry>, TablebaseError> {
        let table =
            self.table(material).map_err(|e| TablebaseError::Damaged { material, message: e.to_string() })?;
        resolve::all_values(material, &table.file, &self.dir, &self.manifest)
    }

    /// Loads into `loaded` the halves `sides` of the table of `material` with their values, as
    /// a build loads the tables it leads to.
    pub fn load(
        &self,
        loaded: &mut LoadedTables,
        material: Material,
        sides: [bool; 2],
    ) -> Result<(), TablebaseError> {
        resolve::load(loaded, material, sides, &self.dir, &self.manifest)
    }

    /// The best value over the moves of `board`, each child probed.
    fn probe_by_moves(&self, board: &Board) -> Result<Dtm, ProbeError> {
        // Reached only with an en passant capture, so there is a move.
        Ok(self.probe_moves(board)?.first().map_or(Dtm::Draw, |&(_, value)| value))
    }

    /// Every legal move of `board` with its value for the side making it, best first (the
    /// fastest mate, then draws, then the slowest loss; ties in generation order).
    pub fn probe_moves(&self, board: &Board) -> Result<Vec<(cozy_chess::Move, Dtm)>, ProbeError> {
        check_probe(board, self.max_pieces())?;
        let mut moves = Vec::new();
        board.generate_moves(|list| {
            moves.extend(list);
            false
        });
        let mut values = Vec::with_capacity(moves.len());
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            values.push((mv, self.probe(&child)?.negated()));
        }
        values.sort_by_key(|&(_, value)| std::cmp::Reverse(value.rank()));
        Ok(values)
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

pub use build::{build, BuildObserver, Silent};
pub use loaded::LoadedTables;
pub use stats::{table_stats, SideStats, TableStats};
pub use verify::{verify_table, verify_table_until, Mismatch};
