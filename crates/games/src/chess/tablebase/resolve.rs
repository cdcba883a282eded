//! Reading a table's values back from a version 4 file. A position whose best capture gives its
//! value may hold a worse value there (whatever compressed best): its value is the better of
//! its entry and its captures', read in the tables of fewer pieces that they lead to. Those
//! tables are read the same way, down to three pieces, so reading one table needs only the
//! tables its captures lead to, never the ones its promotions do.

use super::*;
use crate::chess::index::Placement;
use crate::chess::leaving::LeavingTables;
use crate::chess::moves::{Leaving, MoveVisitor};

/// Positions a task of [`raise`] takes.
const CHUNK: usize = 1 << 14;

/// Loads into `loaded` the halves `sides` (`[White, Black]` to move) of the table of `material`
/// from `dir`, whose `manifest` lists it and the tables its captures lead to, with their values.
pub fn load(
    loaded: &mut LoadedTables,
    material: Material,
    sides: [bool; 2],
    dir: &Path,
    manifest: &Manifest,
) -> Result<(), TablebaseError> {
    let file = open(material, dir, manifest)?;
    if !file.holds_bounds() {
        return Ok(loaded.load(material, &file, sides)?);
    }
    let captures = capture_tables(material, dir, manifest, loaded)?;
    loaded
        .load_values(material, &file, sides, |start, entries| raise(material, start, entries, &captures))?;
    Ok(())
}

/// Every value of the table of `material`, whose file is `file` (with [`Entry::NONE`] at each
/// index that is no position): for checks and statistics.
pub fn all_values(
    material: Material,
    file: &TableFile,
    dir: &Path,
    manifest: &Manifest,
) -> Result<Vec<Entry>, TablebaseError> {
    let mut entries = file.all()?;
    if file.holds_bounds() {
        raise(material, 0, &mut entries, &capture_tables(material, dir, manifest, &LoadedTables::new())?);
    }
    Ok(entries)
}

/// Raises each position's entry among `entries` (the table of `material` from index `start`) to
/// the value of its best capture where that is better, the captures valued in `captures`: the
/// values a version 4 file leaves out. Indices that are no position are left as they are.
pub fn raise(material: Material, start: u64, entries: &mut [Entry], captures: &impl ChildTables) {
    let index = TableIndex::new(material);
    let leaving = LeavingTables::new(&index);
    entries.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
        let first = start + (c * CHUNK) as u64;
        index.placements(first..first + chunk.len() as u64, |at, p| {
            let Some(p) = p else { return };
            let entry = &mut chunk[(at - first) as usize];
            if let Some(best) = best_capture(&index, &leaving, &p, captures) {
                *entry = raised(*entry, best);
            }
        });
    });
}

/// The entry of a position whose file gives it `stored` and whose best capture is worth `best`
/// to its side to move: the better of the two.
pub(super) fn raised(stored: Entry, best: Dtm) -> Entry {
    if stored.dtm().is_none_or(|stored| best.rank() > stored.rank()) {
        Entry::of(best)
    } else {
        stored
    }
}

/// The value, for its side to move, of the best capture of the position `p`, if it has one.
fn best_capture(
    index: &TableIndex,
    leaving: &LeavingTables,
    p: &Placement,
    captures: &impl ChildTables,
) -> Option<Dtm> {
    struct Best<'a, C> {
        leaving: &'a LeavingTables,
        captures: &'a C,
        best: Option<Dtm>,
    }
    impl<C: ChildTables> MoveVisitor for Best<'_, C> {
        const CAPTURES_ONLY: bool = true;

        fn inside(&mut self) {}

        fn leaving(&mut self, mv: Leaving) {
            if mv.captured.is_none() {
                return;
            }
            let value = self.leaving.entry(mv, self.captures).dtm().map_or(Dtm::Draw, Dtm::negated);
            if self.best.is_none_or(|b| value.rank() > b.rank()) {
                self.best = Some(value);
            }
        }
    }
    let mut best = Best { leaving, captures, best: None };
    index.visit_moves(p, &mut best);
    best.best
}

/// Loads into `loaded` the tables that the captures of the table of `material` lead to, with
/// their values, where it does not hold them: what [`raise`] reads for that table.
pub fn load_capture_tables(
    loaded: &mut LoadedTables,
    material: Material,
    dir: &Path,
    manifest: &Manifest,
) -> Result<(), TablebaseError> {
    for (m, sides) in capture_halves(material) {
        if !loaded.holds(m, sides) {
            load(loaded, m, sides, dir, manifest)?;
        }
    }
    Ok(())
}

/// The tables of fewer pieces that the table of `material` leads to (those its captures reach),
/// with the halves they reach.
pub(super) fn capture_halves(material: Material) -> impl Iterator<Item = (Material, [bool; 2])> {
    reached_halves(&TableIndex::new(material))
        .into_iter()
        .filter(move |(m, _)| m.pieces() < material.pieces())
}

/// The tables that the captures of the table of `material` lead to, with their values: shared
/// from `known` where it holds them (a build's tables, loaded before), else loaded.
fn capture_tables(
    material: Material,
    dir: &Path,
    manifest: &Manifest,
    known: &LoadedTables,
) -> Result<LoadedTables, TablebaseError> {
    let mut tables = LoadedTables::new();
    for (m, sides) in capture_halves(material) {
        if !tables.share_from(known, m, sides) {
            load(&mut tables, m, sides, dir, manifest)?;
        }
    }
    Ok(tables)
}

/// The file of the table of `material`, which a table of the directory needs.
pub(super) fn open(material: Material, dir: &Path, manifest: &Manifest) -> Result<TableFile, TablebaseError> {
    let entry = manifest.entry(material).ok_or_else(|| TablebaseError::Damaged {
        material,
        message: format!(
            "a table of the directory needs it and the manifest does not list it; build it again \
             (gamegraph build chess --tables {material} --db {})",
            dir.display()
        ),
    })?;
    Ok(entry.open(dir, material)?)
}
