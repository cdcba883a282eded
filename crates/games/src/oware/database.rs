//! Awari databases on disk, in the published layout: `scores.N` holds one signed byte per
//! position with `N` stones on the board (the value for the player to move, in stones), in the
//! order of [`Ranking`]; `manifest.json` lists the rules and, for each complete file, its position
//! count and SHA-256.
//!
//! Files are written to a temporary name and renamed when complete, then entered in the
//! manifest, so a build that is killed resumes at the first stone count the manifest does not
//! list, and a file is never read half-written.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gamegraph::dense::{ByteStore, DenseLayer, OwnedRange, Reached, ShareOf, StoredRange};
use gamegraph::storage::{self, sha256_hex, StorageError};
use memmap2::{Mmap, MmapOptions};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::layer::{solve_layer, Held, OwnedLayer, Progress};
use super::rules::{stones, Ending, Rules};
use super::{Pits, Ranking, MAX_STONES};

/// What can go wrong with a database.
#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    /// The user stopped the build before its next stone count (the ones finished are kept).
    #[error("interrupted: the stone counts finished are kept, and the next build resumes after them")]
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
    #[error("{path}: not a gamegraph Oware manifest: {message}")]
    BadManifest {
        /// The manifest file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The directory holds a database for other rules.
    #[error("{dir} holds a database for the {found} rules, not {wanted}: use another directory")]
    OtherRules {
        /// The directory.
        dir: PathBuf,
        /// Its rules.
        found: String,
        /// The rules asked for.
        wanted: Rules,
    },
    /// A score file holds a value no position of its stone count can have.
    #[error("{path}: byte {index} holds {value}, not a value of {stones} stones (-{stones} to {stones}): the file is damaged")]
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// Its stone count.
        stones: usize,
        /// The first offending byte, from 0.
        index: u64,
        /// Its value.
        value: i8,
    },
    /// A score file does not have the size its stone count gives.
    #[error("{path}: {actual} bytes, expected {expected} (one per position with {stones} stones)")]
    WrongSize {
        /// The file.
        path: PathBuf,
        /// Its stone count.
        stones: usize,
        /// Bytes expected.
        expected: u64,
        /// Bytes found.
        actual: u64,
    },
    /// A score file's contents changed since it was written.
    #[error("{path}: SHA-256 {actual} differs from the manifest's {expected}: the file is damaged")]
    Checksum {
        /// The file.
        path: PathBuf,
        /// The manifest's digest.
        expected: String,
        /// The file's digest.
        actual: String,
    },
    /// The database holds no complete stone count.
    #[error("{dir}: no complete score file (run `gamegraph build oware --db {dir}` first)")]
    Empty {
        /// The directory.
        dir: PathBuf,
    },
    /// More stones than the published index covers.
    #[error("{stones} stones: the databases go up to {MAX_STONES}")]
    TooManyStones {
        /// The stones asked for.
        stones: usize,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> DatabaseError + '_ {
    move |cause| DatabaseError::Io { path: path.to_path_buf(), cause }
}

/// The manifest's name in a database directory.
pub const MANIFEST: &str = "manifest.json";
const FORMAT: &str = "gamegraph-oware-scores-1";

/// `manifest.json`: what a database directory holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `gamegraph-oware-scores-1`.
    pub format: String,
    /// The rule variant.
    pub rules: String,
    /// The complete files, by increasing stone count from 0.
    pub layers: Vec<LayerEntry>,
}

/// One complete score file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerEntry {
    /// Stones on the board.
    pub stones: usize,
    /// The file name, `scores.N`.
    pub file: String,
    /// Positions, one byte each.
    pub positions: u64,
    /// SHA-256 of the file, in hexadecimal.
    pub sha256: String,
}

/// The file name of the layer with `stones` stones.
pub fn score_file(stones: usize) -> String {
    format!("scores.{stones}")
}

impl Manifest {
    fn read(dir: &Path) -> Result<Option<Manifest>, DatabaseError> {
        let path = dir.join(MANIFEST);
        let bad = |message: String| DatabaseError::BadManifest { path: path.clone(), message };
        let manifest: Manifest = match storage::read_manifest(dir, MANIFEST) {
            Ok(Some(manifest)) => manifest,
            Ok(None) => return Ok(None),
            Err(StorageError::BadManifest { message, .. }) => return Err(bad(message)),
            Err(e) => return Err(e.into()),
        };
        if manifest.format != FORMAT {
            return Err(bad(format!("format '{}', expected '{FORMAT}'", manifest.format)));
        }
        manifest.rules.parse::<Rules>().map_err(bad)?;
        for (n, layer) in manifest.layers.iter().enumerate() {
            if layer.stones != n || layer.file != score_file(n) {
                return Err(bad(format!(
                    "entry {n} is {} ({}), expected {}",
                    layer.stones,
                    layer.file,
                    score_file(n)
                )));
            }
        }
        Ok(Some(manifest))
    }

    fn write(&self, dir: &Path) -> Result<(), DatabaseError> {
        Ok(storage::write_manifest(dir, MANIFEST, self)?)
    }
}

/// What a build did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildReport {
    /// Stone counts found complete and kept.
    pub resumed: usize,
    /// Stone counts solved now.
    pub built: Vec<usize>,
}

/// Builds (or completes) the database of `rules` in `dir` up to `stones` stones, reporting each
/// stone count to `progress`. Stone counts that the manifest lists with a file of the right size
/// are kept; leftovers of an interrupted run are removed.
pub fn build(
    dir: &Path,
    rules: Rules,
    stones: usize,
    progress: &dyn Progress,
) -> Result<BuildReport, DatabaseError> {
    let mut builder = Builder::open(dir, rules, stones, true)?;
    let resumed = builder.next().min(stones + 1);
    let mut built = Vec::new();
    for n in builder.next()..=stones {
        if progress.interrupted() {
            return Err(DatabaseError::Interrupted);
        }
        let lower: Vec<&[u8]> = builder.maps.iter().map(|m| &m.values[..]).collect();
        let values =
            solve_layer(rules, &builder.ranking, n, &lower, progress).ok_or(DatabaseError::Interrupted)?;
        drop(lower);
        storage::write_atomically(&dir.join(score_file(n)), |out| out.write_all(&values))?;
        drop(values);
        builder.finish(n)?;
        built.push(n);
    }
    Ok(BuildReport { resumed, built })
}

/// A build in progress, for builders that solve each stone count their own way (over a cluster,
/// each process writing its part of the file): the directory, the manifest, and the score files
/// complete so far, mapped (whole, or this worker's share of each).
pub struct Builder {
    dir: PathBuf,
    rules: Rules,
    ranking: Arc<Ranking>,
    manifest: Manifest,
    maps: Vec<Held>,
    /// Which share of each stone count this build holds, if only that (a worker of a cluster,
    /// whose layers ask the other workers for the values of their captures).
    share: Option<ShareOf>,
    /// The leader's hold on the directory, for the whole build.
    _lock: Option<storage::DirectoryLock>,
}

impl Builder {
    /// The build of `rules` in `dir` up to `stones`, resumed at the first stone count the
    /// manifest does not list with an intact file. Only the `leader` (one process of a build)
    /// creates the directory and removes what an interrupted run left.
    pub fn open(dir: &Path, rules: Rules, stones: usize, leader: bool) -> Result<Self, DatabaseError> {
        if stones > MAX_STONES {
            return Err(DatabaseError::TooManyStones { stones });
        }
        let lock = if leader { Some(storage::DirectoryLock::take(dir)?) } else { None };
        if leader {
            remove_partial_files(dir)?;
            storage::remove_stale_temporaries_in(dir);
        }
        let ranking = Arc::new(Ranking::new());
        let mut manifest = match Manifest::read(dir)? {
            Some(m) if m.rules != rules.name() => {
                return Err(DatabaseError::OtherRules {
                    dir: dir.to_path_buf(),
                    found: m.rules,
                    wanted: rules,
                })
            }
            Some(m) => m,
            None => Manifest { format: FORMAT.into(), rules: rules.name().into(), layers: Vec::new() },
        };
        let mut maps = Vec::new();
        // A kept file must be the one the manifest lists: a damaged one is built again, with all
        // that follow it.
        for layer in &manifest.layers {
            match map_layer(dir, layer.stones, &ranking) {
                Ok(map) if sha256_hex(&map) == layer.sha256 => {
                    maps.push(Held { start: 0, values: Arc::new(map) })
                }
                Ok(_) | Err(DatabaseError::WrongSize { .. } | DatabaseError::OutOfRange { .. }) => break,
                Err(DatabaseError::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => break,
                Err(e) => return Err(e),
            }
        }
        manifest.layers.truncate(maps.len());
        Ok(Self { dir: dir.to_path_buf(), rules, ranking, manifest, maps, share: None, _lock: lock })
    }

    /// The first stone count not built yet.
    pub fn next(&self) -> usize {
        self.maps.len()
    }

    /// The stone count [`Builder::next`] as a dense layer that owns what it reads (the smaller
    /// layers' maps), for solvers that keep it beyond a borrow.
    pub fn layer(&self) -> OwnedLayer {
        OwnedLayer::new(
            self.rules,
            Arc::clone(&self.ranking),
            self.next(),
            self.maps.clone(),
            self.share.is_some(),
        )
    }

    /// Where the values of stone count [`Builder::next`] are written before [`Builder::finish`]
    /// makes the file complete.
    pub fn partial_path(&self) -> PathBuf {
        self.dir.join(format!("{}.partial.build", score_file(self.next())))
    }

    /// Makes the file of stone count `n` ([`Builder::next`]) complete: the file at
    /// [`Builder::partial_path`] if there is one (synced, then renamed), else the complete file
    /// already in place; then lists it in the manifest and maps it.
    pub fn finish(&mut self, n: usize) -> Result<(), DatabaseError> {
        assert_eq!(n, self.next(), "stone counts are finished in order");
        let partial = self.partial_path();
        let path = self.dir.join(score_file(n));
        if partial.exists() {
            fs::File::open(&partial).and_then(|f| f.sync_all()).map_err(io_error(&partial))?;
            fs::rename(&partial, &path).map_err(io_error(&path))?;
        }
        let map = map_layer(&self.dir, n, &self.ranking)?;
        self.manifest.layers.push(LayerEntry {
            stones: n,
            file: score_file(n),
            positions: map.len() as u64,
            sha256: sha256_hex(&map),
        });
        self.manifest.write(&self.dir)?;
        let held = self.hold(n, map)?;
        self.maps.push(held);
        Ok(())
    }

    /// Maps the file of stone count `n` ([`Builder::next`]) that another process finished.
    pub fn reload(&mut self, n: usize) -> Result<(), DatabaseError> {
        assert_eq!(n, self.next(), "stone counts are reloaded in order");
        let held = self.hold(n, map_layer(&self.dir, n, &self.ranking)?)?;
        self.maps.push(held);
        Ok(())
    }

    /// Holds, from now on, only the share of each stone count that `share` gives (one worker's
    /// range): see [`gamegraph::dense::LayeredBuild::hold_share`].
    pub fn hold_share(&mut self, share: ShareOf) -> Result<(), DatabaseError> {
        self.share = Some(share);
        self.maps = (0..self.maps.len()).map(|n| self.map_share(n)).collect::<Result<_, _>>()?;
        Ok(())
    }

    /// What the build keeps of stone count `n`, whose file `whole` maps, checked: all of it, or
    /// its share only (the whole map dropped, and its pages with it).
    fn hold(&self, n: usize, whole: Mmap) -> Result<Held, DatabaseError> {
        if self.share.is_none() {
            return Ok(Held { start: 0, values: Arc::new(whole) });
        }
        drop(whole);
        self.map_share(n)
    }

    /// Maps this build's share of the complete file of stone count `n`.
    fn map_share(&self, n: usize) -> Result<Held, DatabaseError> {
        let share = self.share.as_ref().expect("a build that holds shares");
        let len = self.ranking.len(n);
        let (start, len) = match share(Reached { len, segment: len }).as_slice() {
            [] => (0, 0),
            [range] => (range.start, range.len),
            more => unreachable!("a stone count is one segment, so one range a worker: {more:?}"),
        };
        let path = self.dir.join(score_file(n));
        let file = storage::open_regular(&path)?;
        // SAFETY: as in `map_layer`: read-only, of a file that is never modified in place.
        let map = unsafe { MmapOptions::new().offset(start).len(len).map(&file) }.map_err(io_error(&path))?;
        Ok(Held { start, values: Arc::new(map) })
    }
}

impl gamegraph::dense::LayeredBuild for Builder {
    type Layer = OwnedLayer;
    type Store = ByteStore<u64>;
    type Error = DatabaseError;
    /// An Oware file holds every value: nothing is completed.
    type Completing = OwnedLayer;
    /// An Oware file is written by range, one byte a position.
    type Blocked = gamegraph::blocked::Unblocked;

    fn next(&self) -> usize {
        Builder::next(self)
    }

    fn layer(&self) -> OwnedLayer {
        Builder::layer(self)
    }

    fn partial_path(&self) -> PathBuf {
        Builder::partial_path(self)
    }

    /// One byte a position, at its index.
    fn stored(
        &self,
        layer: &OwnedLayer,
        ranges: &[OwnedRange],
        store: ByteStore<u64>,
        write: &mut dyn FnMut(StoredRange) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let values = store.into_values();
        StoredRange::write_parts(ranges, 1, layer.len(), |local| values[local].to_vec(), write)
    }

    fn finish(&mut self, n: usize) -> Result<(), DatabaseError> {
        Builder::finish(self, n)
    }

    fn finish_blocked(
        &mut self,
        _: usize,
        file: &gamegraph::blocked::Unblocked,
        _: &gamegraph::blocked::Unblocked,
        _: &[(usize, u64)],
        _: &[PathBuf],
    ) -> Result<(), DatabaseError> {
        match *file {}
    }

    fn reload(&mut self, n: usize) -> Result<(), DatabaseError> {
        Builder::reload(self, n)
    }

    fn hold_share(&mut self, share: ShareOf) -> Result<(), DatabaseError> {
        Builder::hold_share(self, share)
    }
}

fn remove_partial_files(dir: &Path) -> Result<(), DatabaseError> {
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        if entry.file_name().to_string_lossy().contains(".partial.") {
            fs::remove_file(entry.path()).map_err(io_error(&entry.path()))?;
        }
    }
    Ok(())
}

/// Maps `scores.N` of `dir`, checking its size.
fn map_layer(dir: &Path, n: usize, ranking: &Ranking) -> Result<Mmap, DatabaseError> {
    let path = dir.join(score_file(n));
    let file = storage::open_regular(&path)?;
    let actual = file.metadata().map_err(io_error(&path))?.len();
    let expected = ranking.len(n);
    if actual != expected {
        return Err(DatabaseError::WrongSize { path, stones: n, expected, actual });
    }
    // SAFETY: the map is read-only and the files are never modified in place: they are written
    // under a temporary name and renamed, so a concurrent build replaces the directory entry and
    // leaves the mapped inode intact.
    let map = unsafe { Mmap::map(&file) }.map_err(io_error(&path))?;
    // A value beyond the stones on the board can only be damage: refuse it here rather than
    // serve or sum it.
    let limit = n as i8;
    let bad = map.par_iter().position_first(|&b| !(-limit..=limit).contains(&(b as i8)));
    if let Some(index) = bad {
        return Err(DatabaseError::OutOfRange {
            path,
            stones: n,
            index: index as u64,
            value: map[index] as i8,
        });
    }
    Ok(map)
}

/// A database opened for reading: every complete stone count, mapped into memory.
pub struct Database {
    dir: PathBuf,
    rules: Rules,
    ranking: Ranking,
    manifest: Manifest,
    layers: Vec<Mmap>,
}

/// Counts of one stone count, for `gamegraph stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LayerStats {
    /// Stones on the board.
    pub stones: usize,
    /// Positions.
    pub positions: u64,
    /// Positions worth more than 0 to the player to move.
    pub wins: u64,
    /// Positions worth 0.
    pub draws: u64,
    /// Positions worth less than 0.
    pub losses: u64,
    /// The sum of all values.
    pub sum: i64,
}

/// A position whose stored value is not the best of its moves' values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inconsistency {
    /// The position.
    pub pits: Pits,
    /// Its stored value.
    pub stored: i8,
    /// The best move's value, from the stored children.
    pub computed: i8,
}

impl Database {
    /// Opens the database in `dir`, every file checked against the manifest's size and digest.
    pub fn open(dir: &Path) -> Result<Self, DatabaseError> {
        let manifest = Manifest::read(dir)?.ok_or_else(|| DatabaseError::Empty { dir: dir.to_path_buf() })?;
        if manifest.layers.is_empty() {
            return Err(DatabaseError::Empty { dir: dir.to_path_buf() });
        }
        let ranking = Ranking::new();
        let layers = manifest
            .layers
            .iter()
            .map(|l| map_layer(dir, l.stones, &ranking))
            .collect::<Result<Vec<_>, _>>()?;
        let rules = manifest.rules.parse().expect("checked when read");
        let database = Self { dir: dir.to_path_buf(), rules, ranking, manifest, layers };
        // A flipped byte that stays a possible value is found by its file's digest only.
        database.verify_checksums()?;
        Ok(database)
    }

    /// The database of `dir`, opened (and its digests checked) once per process and shared, so
    /// that the next caller (the next web request) does not read every file again. A directory
    /// whose manifest changed since is opened again.
    pub fn shared(dir: &Path) -> Result<Arc<Self>, DatabaseError> {
        static OPENED: storage::OpenedOnce<Database> = storage::OpenedOnce::new();
        OPENED.get(dir, MANIFEST, || Database::open(dir))
    }

    /// The rule variant.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The largest stone count covered (all smaller ones are too).
    pub fn stones(&self) -> usize {
        self.layers.len() - 1
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The stored value of an indexed board, `None` when it has more stones than the database.
    pub fn stored(&self, pits: &Pits) -> Option<i8> {
        let layer = self.layers.get(stones(pits))?;
        Some(layer[self.ranking.rank(pits) as usize] as i8)
    }

    /// The value of any board (indexed or not) for the player to move, `None` when it has more
    /// stones than the database.
    pub fn value(&self, pits: &Pits) -> Option<i8> {
        if Ranking::is_indexed(pits) {
            return self.stored(pits);
        }
        self.best_move_value(pits)
    }

    /// The value of each legal move of `pits`: stones captured minus the value of the position
    /// reached, in pit order; `None` when it has more stones than the database.
    pub fn move_values(&self, pits: &Pits) -> Option<Vec<(u8, i8)>> {
        if stones(pits) > self.stones() {
            return None;
        }
        let moves = self.rules.sowings(pits);
        let values =
            moves.as_slice().iter().map(|m| (m.pit, m.captured as i8 - self.stored(&m.child).unwrap()));
        Some(values.collect())
    }

    /// The best move's value from the stored children, or the stones taken when the game is over.
    fn best_move_value(&self, pits: &Pits) -> Option<i8> {
        let n = stones(pits) as i8;
        match self.rules.ending(pits) {
            Some(Ending::OpponentTakes) => Some(-n),
            Some(Ending::MoverTakes) => Some(n),
            None => self.move_values(pits).map(|v| v.into_iter().map(|(_, v)| v).max().expect("moves exist")),
        }
    }

    /// Compares every file's SHA-256 with the manifest's.
    pub fn verify_checksums(&self) -> Result<(), DatabaseError> {
        self.manifest.layers.par_iter().zip(&self.layers).try_for_each(|(entry, map)| {
            let actual = sha256_hex(map);
            if actual != entry.sha256 {
                let path = self.dir.join(&entry.file);
                return Err(DatabaseError::Checksum { path, expected: entry.sha256.clone(), actual });
            }
            Ok(())
        })
    }

    /// Checks that the stored value of positions with `n` stones equals their best move's value
    /// computed from the stored children: every position, or about `sample` of them spread over
    /// the index. Returns how many were checked, how many disagree, and the first few of those.
    pub fn verify_values(&self, n: usize, sample: Option<u64>) -> (u64, u64, Vec<Inconsistency>) {
        const EXAMPLES: usize = 10;
        let len = self.ranking.len(n) as usize;
        let step = sample.map_or(1, |s| (len / s.max(1) as usize).max(1));
        let (wrong, examples) = (0..len)
            .into_par_iter()
            .step_by(step)
            .filter_map(|r| {
                let pits = self.ranking.unrank(n, r as u64);
                let stored = self.stored(&pits).expect("inside the database");
                let computed = self.best_move_value(&pits).expect("inside the database");
                (stored != computed).then_some(Inconsistency { pits, stored, computed })
            })
            .fold(
                || (0u64, Vec::new()),
                |(count, mut examples), bad| {
                    if examples.len() < EXAMPLES {
                        examples.push(bad);
                    }
                    (count + 1, examples)
                },
            )
            .reduce(
                || (0, Vec::new()),
                |(a, mut x), (b, y)| {
                    x.extend(y);
                    x.truncate(EXAMPLES);
                    (a + b, x)
                },
            );
        (len.div_ceil(step) as u64, wrong, examples)
    }

    /// Counts of every stone count.
    pub fn stats(&self) -> Vec<LayerStats> {
        self.layers
            .iter()
            .enumerate()
            .map(|(n, map)| {
                let (wins, draws, losses, sum) = map
                    .par_chunks(1 << 20)
                    .map(|chunk| {
                        chunk.iter().fold((0u64, 0u64, 0u64, 0i64), |(w, d, l, s), &b| {
                            let v = b as i8;
                            (
                                w + u64::from(v > 0),
                                d + u64::from(v == 0),
                                l + u64::from(v < 0),
                                s + i64::from(v),
                            )
                        })
                    })
                    .reduce(|| (0, 0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3));
                LayerStats { stones: n, positions: map.len() as u64, wins, draws, losses, sum }
            })
            .collect()
    }
}
