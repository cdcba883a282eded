//! Tables loaded whole, for building and verifying: every probe is an array read, one byte an
//! entry where the distances allow.

use super::*;

/// Tables loaded whole, for building and verifying: every probe is an array read. A copy
/// shares the entries: the workers of a cluster's process each hold one, and the entries once.
#[derive(Clone)]
pub struct LoadedTables {
    /// A few tables (those one table leads to): a list searched in order beats hashing.
    tables: Vec<Loaded>,
}

/// One loaded table: all of it, or the half of one side to move.
#[derive(Clone)]
struct Loaded {
    material: Material,
    index: TableIndex,
    /// Which sides to move are loaded (`[White, Black]`).
    sides: [bool; 2],
    /// The table index of the first entry loaded.
    start: u64,
    entries: Arc<LoadedEntries>,
}

/// A loaded table's entries: one byte each when every distance fits (most tables), which
/// halves what a 5-piece build holds of the tables it leads to; two bytes otherwise.
pub(super) enum LoadedEntries {
    Narrow(Vec<u8>),
    Wide(Vec<Entry>),
}

/// [`Entry::NONE`] in a one-byte entry; every other entry keeps its value.
const NARROW_NONE: u8 = u8::MAX;

impl LoadedEntries {
    /// The entries, in one byte each where they all fit.
    pub(super) fn new(entries: Vec<Entry>) -> Self {
        if entries.par_iter().all(|e| *e == Entry::NONE || e.0 < u16::from(NARROW_NONE)) {
            let narrow = entries.par_iter().map(|e| if *e == Entry::NONE { NARROW_NONE } else { e.0 as u8 });
            LoadedEntries::Narrow(narrow.collect())
        } else {
            LoadedEntries::Wide(entries)
        }
    }

    /// The entries of the table indices `range` of `file` (for lookups of positions, as
    /// [`TableFile::all_at_positions`]): straight into one byte an entry where every entry fits,
    /// so that reading never holds the entries in two bytes too.
    pub(super) fn read(file: &TableFile, range: std::ops::Range<u64>) -> Result<Self, FileError> {
        Ok(match file.narrow_at_positions(range.clone(), NARROW_NONE)? {
            Some(bytes) => LoadedEntries::Narrow(bytes),
            None => LoadedEntries::new(file.entries_at_positions(range)?),
        })
    }

    /// Entry `i`.
    #[inline]
    pub(super) fn get(&self, i: usize) -> Entry {
        match self {
            LoadedEntries::Narrow(bytes) => match bytes[i] {
                NARROW_NONE => Entry::NONE,
                b => Entry(u16::from(b)),
            },
            LoadedEntries::Wide(entries) => entries[i],
        }
    }

    /// How many entries.
    pub(super) fn len(&self) -> usize {
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

    /// Adds a table's entries, all of them (their values: [`Entry::BY_CAPTURE`] marks are
    /// dropped), in place of any loaded before.
    pub fn insert(&mut self, material: Material, mut entries: Vec<Entry>) {
        entries.par_iter_mut().for_each(|e| *e = e.unmarked());
        let entries = Arc::new(LoadedEntries::new(entries));
        self.put(Loaded { material, index: TableIndex::new(material), sides: [true; 2], start: 0, entries });
    }

    /// Loads the halves `sides` (`[White, Black]` to move) of a table from its file, for lookups
    /// of its positions (as [`TableFile::all_at_positions`]), in place of any loaded before:
    /// straight into one byte an entry where every entry fits, so that loading never holds the
    /// table in two bytes too.
    pub fn load(&mut self, material: Material, file: &TableFile, sides: [bool; 2]) -> Result<(), FileError> {
        let index = TableIndex::new(material);
        let (start, end) = halves_range(&index, sides);
        let entries = LoadedEntries::read(file, start..end)?;
        self.put(Loaded { material, index, sides, start, entries: Arc::new(entries) });
        Ok(())
    }

    /// Loads the halves `sides` of a table as [`LoadedTables::load`] does, each entry in two
    /// bytes first so that `values` (told the first index and the entries) can make them the
    /// positions' values: for the files that leave some out (version 4).
    pub fn load_values(
        &mut self,
        material: Material,
        file: &TableFile,
        sides: [bool; 2],
        values: impl FnOnce(u64, &mut [Entry]),
    ) -> Result<(), FileError> {
        let index = TableIndex::new(material);
        let (start, end) = halves_range(&index, sides);
        let mut entries = file.entries_at_positions(start..end)?;
        values(start, &mut entries);
        let entries = Arc::new(LoadedEntries::new(entries));
        self.put(Loaded { material, index, sides, start, entries });
        Ok(())
    }

    fn put(&mut self, loaded: Loaded) {
        self.tables.retain(|t| t.material != loaded.material);
        self.tables.push(loaded);
    }

    /// Drops the tables that the table of `material` does not lead to, and returns those it leads
    /// to that are not loaded, with the sides to move its moves reach there: load them with
    /// [`LoadedTables::load`] before building or verifying it.
    pub fn missing_for(&mut self, material: Material) -> Vec<(Material, [bool; 2])> {
        let needed = reached_halves(&TableIndex::new(material));
        self.tables.retain(|t| needed.iter().any(|&(m, sides)| m == t.material && covers(t, sides)));
        needed.into_iter().filter(|&(m, _)| self.get(m).is_none()).collect()
    }

    /// Shares the entries of the table of `material` from `other` where it holds the halves
    /// `sides` (the same values, not loaded again); whether it did.
    pub fn share_from(&mut self, other: &LoadedTables, material: Material, sides: [bool; 2]) -> bool {
        let held = other.get(material).filter(|t| covers(t, sides)).cloned();
        held.map(|t| self.put(t)).is_some()
    }

    /// Whether the halves `sides` of the table of `material` are loaded.
    pub fn holds(&self, material: Material, sides: [bool; 2]) -> bool {
        self.get(material).is_some_and(|t| covers(t, sides))
    }

    /// A loaded table.
    fn get(&self, material: Material) -> Option<&Loaded> {
        self.tables.iter().find(|t| t.material == material)
    }

    /// A copy of a table's entries, if it is loaded whole.
    pub fn entries(&self, material: Material) -> Option<Vec<Entry>> {
        let t = self.get(material).filter(|t| t.sides == [true; 2])?;
        Some((0..t.entries.len()).into_par_iter().map(|i| t.entries.get(i)).collect())
    }

    /// The entry at table index `index` of the loaded table `t`.
    #[inline]
    fn entry_of(t: &Loaded, index: u64) -> Entry {
        t.entries.get((index - t.start) as usize)
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
        let t = self.get(material).expect("the tables a table leads to are loaded first");
        let p = t.index.placement_of(board).expect("the board holds the table's material");
        Self::entry_of(t, t.index.index(&p))
    }

    fn entry_at(&self, material: Material, index: u64) -> Entry {
        let t = self.get(material).expect("the tables a table leads to are loaded first");
        Self::entry_of(t, index)
    }
}

/// Whether the loaded table `t` holds every half of `sides`.
fn covers(t: &Loaded, sides: [bool; 2]) -> bool {
    (0..2).all(|s| t.sides[s] || !sides[s])
}

/// The indices of the halves `sides` (`[White, Black]` to move) of a table: one half or both,
/// which are consecutive.
fn halves_range(index: &TableIndex, sides: [bool; 2]) -> (u64, u64) {
    let half = index.len() / 2;
    (if sides[0] { 0 } else { half }, if sides[1] { index.len() } else { half })
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
