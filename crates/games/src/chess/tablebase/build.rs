//! Building a directory of tables in dependency order, each written whole and then entered in
//! the manifest, so that a killed build resumes at the first table not listed.

use super::*;

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
    /// Whether the user asked the build to stop before its next table.
    fn interrupted(&self) -> bool {
        false
    }
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
        if observer.interrupted() {
            return Err(TablebaseError::Interrupted);
        }
        let name = material.to_string();
        // A table built again takes its place in the manifest back, so that the manifest reads
        // as a fresh build's.
        let mut slot = None;
        if let Some(kept) = manifest.tables.iter().position(|t| t.material == name) {
            // A resumed build checks what it keeps: a damaged or missing file is built again.
            if manifest.tables[kept].open(dir, material).is_ok() {
                observer.skipped(material);
                continue;
            }
            manifest.tables.remove(kept);
            slot = Some(kept);
        }
        load_children(&mut loaded, material, dir, &manifest)?;
        let started = Instant::now();
        observer.started(material, work_units(material));
        let entries =
            build_table(material, &loaded, &|units| observer.advanced(units), &|| observer.interrupted())
                .map_err(|cause| match cause {
                    gamegraph::dense::DenseError::Interrupted => TablebaseError::Interrupted,
                    cause => TablebaseError::Solve { material, cause },
                })?;
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

/// Loads into `loaded` what the table of `material` reads of the tables its captures and
/// promotions lead to and `loaded` lacks, from their files in `dir` (which `manifest` lists),
/// dropping the tables it does not lead to.
pub(super) fn load_children(
    loaded: &mut LoadedTables,
    material: Material,
    dir: &Path,
    manifest: &Manifest,
) -> Result<(), TablebaseError> {
    let mut missing = loaded.missing_for(material);
    // Fewer pieces first: a table of more pieces is then raised through the tables of fewer
    // that its captures lead to, which the build holds already.
    missing.sort_by_key(|(m, _)| m.pieces());
    for (m, sides) in missing {
        resolve::load(loaded, m, sides, dir, manifest)?;
    }
    Ok(())
}

/// The units of work a table's build reports to [`BuildObserver::advanced`].
pub fn work_units(material: Material) -> u64 {
    2 * TableIndex::new(material).len()
}

/// Writes one table file atomically and returns its manifest entry.
pub(super) fn write_table(
    dir: &Path,
    material: Material,
    entries: &[Entry],
) -> Result<TableEntry, TablebaseError> {
    write_table_with(dir, material, |mut out| file::write(&mut out, material, entries))
}

/// Writes one table file atomically with `write`, which writes it and returns its SHA-256 and
/// size, and returns its manifest entry.
pub(super) fn write_table_with(
    dir: &Path,
    material: Material,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<(String, u64)>,
) -> Result<TableEntry, TablebaseError> {
    let name = file_name(material);
    let mut written = None;
    storage::write_atomically(&dir.join(&name), |out| {
        written = Some(write(out)?);
        Ok(())
    })?;
    let (sha256, bytes) = written.expect("written when the write succeeded");
    Ok(TableEntry {
        material: material.to_string(),
        file: name,
        entries: TableIndex::new(material).len(),
        bytes,
        sha256,
    })
}

/// Removes the files a killed build left: a cluster build's entries, not yet compressed (and
/// the temporary files of earlier versions' builds).
pub(super) fn remove_partial_files(dir: &Path) -> Result<(), TablebaseError> {
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        if entry.file_name().to_string_lossy().starts_with(PARTIAL) {
            fs::remove_file(entry.path()).map_err(io_error(&entry.path()))?;
        }
    }
    Ok(())
}
