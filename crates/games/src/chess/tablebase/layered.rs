//! A directory of tables as a [`LayeredBuild`]: the tables a build needs, in building order, are
//! its layers, so that a driver that solves each layer its own way (over the workers of a
//! cluster, each writing its range of the table's entries) builds the same files, byte for
//! byte, as [`super::build()`] on one machine, and resumes the same way.
//!
//! Each worker holds one `LayeredTables`, and only its share of the tables a table's captures
//! and promotions lead to ([`TableShares`]): its layer names those moves, and the workers that
//! own the positions they reach value them. A share read from a version 4 file is completed
//! first, the same way ([`LayeredBuild::completing`], [`CaptureCompletion`]). Once a table is
//! solved, the workers write its file together ([`TableBlocks`]): they choose its digit order
//! on the one-machine build's sample, each compresses the blocks of its range of the file into a
//! part file, and the leader (process 0's first worker) writes the file from the parts and lists
//! it in the manifest, as the one-machine build does.

use gamegraph::blocked::{BlockedFile, PartsReader};
use gamegraph::dense::{LayeredBuild, OutcomeStore, OwnedRange, ShareFile, ShareOf};

use super::completing::CaptureCompletion;
use super::shares::TableShares;
use super::*;
use crate::chess::digit_order::DigitOrder;
use crate::chess::file::TableBlocks;
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
    /// is compressed: the two are never held together.
    fn keep_only_what_follows(&mut self, n: usize) {
        let following = self.order[n + 1..].iter().copied().find(|&m| self.manifest.entry(m).is_none());
        match following {
            Some(next) => drop(Arc::make_mut(&mut self.children).keep_for(next)),
            None => self.children = Arc::default(),
        }
    }

    /// The path the workers' compressed blocks of `material` are named after, before the
    /// leader writes them into the table's file.
    fn partial_path_of(&self, material: Material) -> PathBuf {
        self.dir.join(format!("{PARTIAL}{material}.blocks"))
    }
}

impl LayeredBuild for LayeredTables {
    type Layer = ClusterLayer;
    type Store = OutcomeStore<u64>;
    type Error = TablebaseError;
    type Completing = CaptureCompletion;
    type Blocked = TableBlocks;

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

    /// The table's file, written in blocks by every worker, and the entries of this worker's
    /// `ranges`; the positions with an en passant right, after the table's indices, are not
    /// stored. What the table read and the next does not is dropped first.
    fn share_file(
        &mut self,
        layer: Arc<ClusterLayer>,
        ranges: &[OwnedRange],
        store: OutcomeStore<u64>,
    ) -> ShareFile<ClusterLayer, OutcomeStore<u64>, TableBlocks> {
        let global = |local: usize| {
            let range = ranges.partition_point(|r| r.local <= local).saturating_sub(1);
            ranges.get(range).map_or(u64::MAX, |r| r.start + (local - r.local) as u64)
        };
        let material = self.next_table().expect("a table is left to build");
        let entries = layer.entries(store, global);
        drop(layer);
        self.keep_only_what_follows(self.next());
        ShareFile::Blocked(TableBlocks::new(material), entries)
    }

    /// Chess tables are written in blocks ([`LayeredBuild::finish_blocked`]), never by range.
    fn finish(&mut self, n: usize) -> Result<(), TablebaseError> {
        let path = self.partial_path_of(self.order[n]);
        Err(TablebaseError::Io { path, cause: std::io::Error::other("chess tables are written in blocks") })
    }

    /// Writes the table's file from the blocks its workers compressed, and lists it in the
    /// manifest, as the one-machine build does.
    fn finish_blocked(
        &mut self,
        n: usize,
        file: &TableBlocks,
        order: &DigitOrder,
        blocks: &[(usize, u64)],
        parts: &[PathBuf],
    ) -> Result<(), TablebaseError> {
        assert_eq!(n, self.next(), "tables are finished in building order");
        let material = self.order[n];
        let opened = parts
            .iter()
            .map(|part| {
                Ok(std::io::BufReader::with_capacity(1 << 20, fs::File::open(part).map_err(io_error(part))?))
            })
            .collect::<Result<Vec<_>, TablebaseError>>()?;
        let mut read = PartsReader::new(opened, blocks.to_vec());
        let lens: Vec<u64> = blocks.iter().map(|b| b.1).collect();
        let entry =
            build::write_table_with(&self.dir, material, |out| file.write(order, &lens, &mut read, out))?;
        match self.slots.iter().find(|s| s.0 == material) {
            Some(&(_, at)) => self.manifest.tables.insert(at.min(self.manifest.tables.len()), entry),
            None => self.manifest.tables.push(entry),
        }
        write_manifest(&self.dir, &self.manifest)?;
        for part in parts {
            fs::remove_file(part).map_err(io_error(part))?;
        }
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
