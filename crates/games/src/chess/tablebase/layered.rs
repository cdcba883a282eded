//! A directory of tables as a [`LayeredBuild`]: the tables a build needs, in building order, are
//! its layers, so that a driver that solves each layer its own way (over the workers of a
//! cluster, each writing its range of the table's entries) builds the same files, byte for
//! byte, as [`super::build()`] on one machine, and resumes the same way.
//!
//! Each worker holds one `LayeredTables`. The tables a table's captures and promotions lead to
//! are loaded once a process ([`ProcessTables`]) and shared by its workers. A worker writes
//! its range of the table's entries (two bytes each, little-endian, at their index) into a
//! partial file; the leader (process 0's first worker) then compresses the whole table into
//! its file and lists it in the manifest, as the one-machine build does.

use gamegraph::dense::{LayeredBuild, OutcomeStore, OwnedRange, StoredRange};

use super::*;
use crate::chess::generate::TableLayer;

/// What a cluster's layer of chess tables is: one table, valued through the tables it leads to.
pub type ClusterLayer = TableLayer<Arc<LoadedTables>, fn() -> bool>;

/// The tables the workers of one process have loaded, shared so that each is held once.
#[derive(Clone, Default)]
pub struct ProcessTables(Arc<Mutex<LoadedTables>>);

/// One worker's view of a build of `targets` in a directory shared by every process.
pub struct LayeredTables {
    dir: PathBuf,
    /// The tables to build, in building order: the layers.
    order: Vec<Material>,
    manifest: Manifest,
    /// Where the manifest listed a table found damaged: built again, it takes its place back.
    slots: Vec<(Material, usize)>,
    process: ProcessTables,
    /// The tables the next table leads to.
    children: Arc<LoadedTables>,
    _lock: Option<storage::DirectoryLock>,
}

impl LayeredTables {
    /// Opens the build of `targets` (and the tables they lead to) in `dir` as one worker sees
    /// it; `process` is shared by the workers of this process. The `leader` opens it first: it
    /// takes the directory's lock, removes what an interrupted build left, and drops from the
    /// manifest the tables whose files are missing or damaged; the others open it after.
    pub fn open(
        dir: &Path,
        targets: &[Material],
        leader: bool,
        process: ProcessTables,
    ) -> Result<Self, TablebaseError> {
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
        let mut build = Self {
            dir: dir.to_path_buf(),
            order,
            manifest,
            slots,
            process,
            children: Arc::new(LoadedTables::new()),
            _lock: lock,
        };
        build.load_children()?;
        Ok(build)
    }

    /// The table [`LayeredBuild::next`] builds, if any is left.
    fn next_table(&self) -> Option<Material> {
        self.order.get(self.next()).copied()
    }

    /// Loads the tables the next table leads to (once a process), dropping the others.
    fn load_children(&mut self) -> Result<(), TablebaseError> {
        let Some(material) = self.next_table() else { return Ok(()) };
        let mut loaded = self.process.0.lock().expect("not poisoned");
        build::load_children(&mut loaded, material, &self.dir, &self.manifest)?;
        self.children = Arc::new(loaded.clone());
        Ok(())
    }

    /// Drops the tables that table `n` leads to and the next table does not, before table `n`
    /// is read back whole to be compressed: the two are never held together.
    fn keep_only_what_follows(&mut self, n: usize) {
        self.children = Arc::new(LoadedTables::new());
        let following = self.order[n + 1..].iter().copied().find(|&m| self.manifest.entry(m).is_none());
        let mut loaded = self.process.0.lock().expect("not poisoned");
        match following {
            Some(next) => drop(loaded.missing_for(next)),
            None => *loaded = LoadedTables::new(),
        }
    }

    /// Where the workers write the entries of `material` before the leader compresses them.
    fn partial_path_of(&self, material: Material) -> PathBuf {
        self.dir.join(format!("{PARTIAL}{material}.entries"))
    }

    /// The entries of the partial file of `material`, complete. Read a piece at a time, so
    /// that the file's bytes are never held beside the entries.
    fn read_partial(&self, material: Material) -> Result<Vec<Entry>, TablebaseError> {
        use std::io::Read;
        let path = self.partial_path_of(material);
        let mut file = fs::File::open(&path).map_err(io_error(&path))?;
        let written = file.metadata().map_err(io_error(&path))?.len();
        let expected = 2 * TableIndex::new(material).len();
        if written != expected {
            return Err(TablebaseError::Damaged {
                material,
                message: format!("{}: {written} bytes written, {expected} expected", path.display()),
            });
        }
        let mut entries = Vec::with_capacity((expected / 2) as usize);
        let mut piece = vec![0u8; 1 << 20];
        let mut left = expected as usize;
        while left > 0 {
            let bytes = &mut piece[..left.min(1 << 20)];
            file.read_exact(bytes).map_err(io_error(&path))?;
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
    ) -> Vec<StoredRange> {
        let global = |local: usize| {
            let range = ranges.partition_point(|r| r.local <= local).saturating_sub(1);
            ranges.get(range).map_or(u64::MAX, |r| r.start + (local - r.local) as u64)
        };
        let entries = layer.entries(store, global);
        let table = layer.index().len();
        let part = |r: &OwnedRange| {
            let len = table.saturating_sub(r.start).min(r.len as u64) as usize;
            let bytes = entries[r.local..r.local + len].iter().flat_map(|e| e.to_le_bytes()).collect();
            StoredRange { file_len: 2 * table, offset: 2 * r.start, bytes }
        };
        ranges.iter().filter(|r| r.start < table).map(part).collect()
    }

    /// Compresses the table from its partial file, as the one-machine build writes it, and
    /// lists it in the manifest.
    fn finish(&mut self, n: usize) -> Result<(), TablebaseError> {
        assert_eq!(n, self.next(), "tables are finished in building order");
        let material = self.order[n];
        self.keep_only_what_follows(n);
        let entries = self.read_partial(material)?;
        let entry = build::write_table(&self.dir, material, &entries)?;
        match self.slots.iter().find(|s| s.0 == material) {
            Some(&(_, at)) => self.manifest.tables.insert(at.min(self.manifest.tables.len()), entry),
            None => self.manifest.tables.push(entry),
        }
        write_manifest(&self.dir, &self.manifest)?;
        let partial = self.partial_path_of(material);
        fs::remove_file(&partial).map_err(io_error(&partial))?;
        self.process.0.lock().expect("not poisoned").insert(material, entries);
        self.load_children()
    }

    /// Reads the manifest that the leader wrote, then loads what the next table needs.
    fn reload(&mut self, n: usize) -> Result<(), TablebaseError> {
        assert_eq!(n, self.next(), "tables are reloaded in building order");
        self.manifest =
            read_manifest(&self.dir)?.ok_or_else(|| TablebaseError::NoTables { dir: self.dir.clone() })?;
        self.load_children()
    }
}
