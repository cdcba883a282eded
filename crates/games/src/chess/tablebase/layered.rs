//! A directory of tables as a [`LayeredBuild`]: the tables a build needs, in building order, are
//! its layers, so that a driver that solves each layer its own way (over the workers of a
//! cluster, each writing its range of the table's entries) builds the same files, byte for
//! byte, as [`super::build()`] on one machine, and resumes the same way.
//!
//! Each worker holds one `LayeredTables`, and only its share of the tables a table's captures
//! and promotions lead to ([`TableShares`]): its layer names those moves, and the workers that
//! own the positions they reach value them. A share read from a version 4 file is completed
//! first, the same way ([`LayeredBuild::completing`], [`CaptureCompletion`]). A worker writes its range of the table's entries
//! (two bytes each, little-endian, at their index) into a partial file; the leader (process 0's
//! first worker) then compresses the table into its file, one side to move's half at a time,
//! and lists it in the manifest, as the one-machine build does.

use gamegraph::dense::{LayeredBuild, OutcomeStore, OwnedRange, ShareOf, StoredRange};

use super::completing::CaptureCompletion;
use super::shares::TableShares;
use super::*;
use crate::chess::generate::TableLayer;

/// What a cluster's layer of chess tables is: one table, whose captures and promotions the
/// owners of the positions they reach value.
pub type ClusterLayer = TableLayer<Arc<TableShares>, fn() -> bool>;

/// One worker's view of a build of `targets` in a directory shared by every process.
pub struct LayeredTables {
    dir: PathBuf,
    /// The tables to build, in building order: the layers.
    order: Vec<Material>,
    manifest: Manifest,
    /// Where the manifest listed a table found damaged: built again, it takes its place back.
    slots: Vec<(Material, usize)>,
    /// Which ranges of a table this worker owns ([`LayeredBuild::hold_share`]).
    share: Option<ShareOf>,
    /// This worker's share of the tables the next table leads to.
    children: Arc<TableShares>,
    _lock: Option<storage::DirectoryLock>,
}

impl LayeredTables {
    /// Opens the build of `targets` (and the tables they lead to) in `dir` as one worker sees
    /// it. The `leader` opens it first: it takes the directory's lock, removes what an
    /// interrupted build left, and drops from the manifest the tables whose files are missing or
    /// damaged; the others open it after. Nothing is loaded before
    /// [`LayeredBuild::hold_share`] says what this worker owns.
    pub fn open(dir: &Path, targets: &[Material], leader: bool) -> Result<Self, TablebaseError> {
        let lock = if leader { Some(storage::DirectoryLock::take(dir)?) } else { None };
        let mut manifest =
            read_manifest(dir)?.unwrap_or_else(|| Manifest { format: FORMAT.into(), tables: Vec::new() });
        let order = Material::closure(targets);
        let mut slots = Vec::new();
        if leader {
            build::remove_partial_files(dir)?;
            storage::remove_stale_temporaries_in(dir);
            let before = manifest.tables.len();
            let mut at = 0;
            // As a one-machine build does, a table of this build whose file is missing or
            // damaged is built again; the others are left as they are.
            manifest.tables.retain(|t| {
                let kept = match t.material.parse::<Material>() {
                    Ok(m) if order.contains(&m) => {
                        t.open(dir, m).is_ok() || {
                            slots.push((m, at));
                            false
                        }
                    }
                    _ => true,
                };
                at += 1;
                kept
            });
            if manifest.tables.len() != before {
                write_manifest(dir, &manifest)?;
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            order,
            manifest,
            slots,
            share: None,
            children: Arc::default(),
            _lock: lock,
        })
    }

    /// The table [`LayeredBuild::next`] builds, if any is left.
    fn next_table(&self) -> Option<Material> {
        self.order.get(self.next()).copied()
    }

    /// Loads this worker's share of the tables the next table leads to, keeping what it holds
    /// of them and dropping the others.
    fn load_children(&mut self) -> Result<(), TablebaseError> {
        let Some(material) = self.next_table() else { return Ok(()) };
        let share = self.share.as_ref().expect("hold_share says what a worker owns before it loads");
        let children = Arc::make_mut(&mut self.children);
        children.load_for(material, &self.dir, &self.manifest, share)
    }

    /// Drops the tables that table `n` leads to and the next table does not, before table `n`
    /// is read back whole to be compressed: the two are never held together.
    fn keep_only_what_follows(&mut self, n: usize) {
        let following = self.order[n + 1..].iter().copied().find(|&m| self.manifest.entry(m).is_none());
        match following {
            Some(next) => drop(Arc::make_mut(&mut self.children).keep_for(next)),
            None => self.children = Arc::default(),
        }
    }

    /// Where the workers write the entries of `material` before the leader compresses them.
    fn partial_path_of(&self, material: Material) -> PathBuf {
        self.dir.join(format!("{PARTIAL}{material}.entries"))
    }

    /// Checks that the partial file of `material` is complete: as long as the table's entries.
    fn check_partial(&self, material: Material) -> Result<(), TablebaseError> {
        let path = self.partial_path_of(material);
        let written = fs::metadata(&path).map_err(io_error(&path))?.len();
        let expected = 2 * TableIndex::new(material).len();
        if written != expected {
            return Err(TablebaseError::Damaged {
                material,
                message: format!("{}: {written} bytes written, {expected} expected", path.display()),
            });
        }
        Ok(())
    }

    /// The entries of one side to move's half (0 White, 1 Black) of the partial file of
    /// `material`, checked complete. Read a piece at a time, so that the file's bytes are never
    /// held beside the entries.
    fn read_partial_half(&self, material: Material, side: usize) -> std::io::Result<Vec<Entry>> {
        let path = self.partial_path_of(material);
        Self::read_half(&path, material, side)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    }

    /// [`LayeredTables::read_partial_half`] of the file at `path`.
    fn read_half(path: &Path, material: Material, side: usize) -> std::io::Result<Vec<Entry>> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = fs::File::open(path)?;
        let half = TableIndex::new(material).len() / 2;
        file.seek(SeekFrom::Start(2 * half * side as u64))?;
        let mut entries = Vec::with_capacity(half as usize);
        let mut piece = vec![0u8; 1 << 20];
        let mut left = 2 * half as usize;
        while left > 0 {
            let bytes = &mut piece[..left.min(1 << 20)];
            file.read_exact(bytes)?;
            entries.extend(bytes.chunks_exact(2).map(|b| Entry(u16::from_le_bytes([b[0], b[1]]))));
            left -= bytes.len();
        }
        Ok(entries)
    }
}

impl LayeredBuild for LayeredTables {
    type Layer = ClusterLayer;
    type Store = OutcomeStore<u64>;
    type Error = TablebaseError;
    type Completing = CaptureCompletion;

    /// The first table of the building order that the manifest does not list.
    fn next(&self) -> usize {
        self.order.iter().position(|&m| self.manifest.entry(m).is_none()).unwrap_or(self.order.len())
    }

    fn layer(&self) -> ClusterLayer {
        let material = self.next_table().expect("a table is left to build");
        TableLayer::new(TableIndex::new(material), Arc::clone(&self.children), || false)
    }

    fn partial_path(&self) -> PathBuf {
        self.partial_path_of(self.next_table().expect("a table is left to build"))
    }

    /// The entries of the table's indices in `ranges`, two bytes each (little-endian) at twice
    /// their index; the positions with an en passant right, after the table's indices, are not
    /// stored.
    fn stored(
        &self,
        layer: &ClusterLayer,
        ranges: &[OwnedRange],
        store: OutcomeStore<u64>,
        write: &mut dyn FnMut(StoredRange) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let global = |local: usize| {
            let range = ranges.partition_point(|r| r.local <= local).saturating_sub(1);
            ranges.get(range).map_or(u64::MAX, |r| r.start + (local - r.local) as u64)
        };
        let entries = layer.entries(store, global);
        let bytes =
            |local: std::ops::Range<usize>| entries[local].iter().flat_map(|e| e.to_le_bytes()).collect();
        StoredRange::write_parts(ranges, 2, layer.index().len(), bytes, write)
    }

    /// Compresses the table from its partial file, one side to move's half at a time, as the
    /// one-machine build writes it, and lists it in the manifest.
    fn finish(&mut self, n: usize) -> Result<(), TablebaseError> {
        assert_eq!(n, self.next(), "tables are finished in building order");
        let material = self.order[n];
        self.keep_only_what_follows(n);
        self.check_partial(material)?;
        let entry = build::write_table_with(&self.dir, material, |mut out| {
            file::write_by_halves(&mut out, material, |side| self.read_partial_half(material, side))
        })?;
        match self.slots.iter().find(|s| s.0 == material) {
            Some(&(_, at)) => self.manifest.tables.insert(at.min(self.manifest.tables.len()), entry),
            None => self.manifest.tables.push(entry),
        }
        write_manifest(&self.dir, &self.manifest)?;
        let partial = self.partial_path_of(material);
        fs::remove_file(&partial).map_err(io_error(&partial))?;
        self.load_children()
    }

    /// Reads the manifest that the leader wrote, then loads what the next table needs.
    fn reload(&mut self, n: usize) -> Result<(), TablebaseError> {
        assert_eq!(n, self.next(), "tables are reloaded in building order");
        self.manifest =
            read_manifest(&self.dir)?.ok_or_else(|| TablebaseError::NoTables { dir: self.dir.clone() })?;
        self.load_children()
    }

    /// Holds only this worker's share of the tables each table leads to, from now on: loads
    /// that of the next table's.
    fn hold_share(&mut self, share: ShareOf) -> Result<(), TablebaseError> {
        self.share = Some(share);
        self.load_children()
    }

    /// The table of fewest pieces of those this worker holds a share of that a version 4 file
    /// left incomplete.
    fn completing(&mut self) -> Option<CaptureCompletion> {
        let (material, parts) = Arc::make_mut(&mut self.children).take_incomplete()?;
        Some(CaptureCompletion::new(material, parts, Arc::clone(&self.children)))
    }

    fn completed(&mut self, layer: &CaptureCompletion) {
        Arc::make_mut(&mut self.children).put(layer.completed());
    }
}
