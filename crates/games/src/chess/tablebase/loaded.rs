//! Tables loaded whole, for building and verifying: every probe is an array read, one byte an
//! entry where the distances allow.

use super::*;

/// Tables loaded whole, for building and verifying: every probe is an array read. A copy
/// shares the entries: the workers of a cluster's process each hold one, and the entries once.
#[derive(Clone)]
pub struct LoadedTables {
    /// A few tables (those one table leads to): a list searched in order beats hashing.
    tables: Vec<(Material, TableIndex, Arc<LoadedEntries>)>,
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
        self.tables.push((material, TableIndex::new(material), Arc::new(LoadedEntries::new(entries))));
    }

    /// A loaded table.
    fn get(&self, material: Material) -> Option<(&TableIndex, &LoadedEntries)> {
        self.tables.iter().find(|t| t.0 == material).map(|(_, index, entries)| (index, &**entries))
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
