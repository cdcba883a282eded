//! A cluster worker's share of the tables a table's captures and promotions lead to: the
//! ranges of each that the worker owns, with their values, so that no worker holds or reads
//! what another owns. The worker's layer names its captures and promotions into positions it
//! does not hold instead of valuing them, and their owners value them from their shares
//! ([`gamegraph::dense::DenseLayer::exit_through`]).
//!
//! A reached table small beside the table being built (at most 1/[`WHOLE_BELOW`] of it: a table
//! of four pieces beside one of five) is held whole by every worker instead: its moves are then
//! valued where they are found, which costs less than asking for them.
//!
//! A version 4 file leaves out the values that captures give: a share is raised through the
//! tables of fewer pieces its captures lead to, loaded whole while it is read and dropped after.

use gamegraph::dense::{Reached, ShareOf};

use super::loaded::LoadedEntries;
use super::*;

/// A reached table whose halves reached hold at most this fraction of the entries of the table
/// being built is held whole by every worker.
pub const WHOLE_BELOW: u64 = 64;

/// One worker's share of the tables one table leads to: every range it owns of the halves that
/// table's moves reach, or the whole halves of the small ones.
#[derive(Clone, Default)]
pub struct TableShares {
    parts: Vec<Part>,
}

/// Consecutive entries of one table, within one side to move's half.
#[derive(Clone)]
struct Part {
    material: Material,
    /// The side to move of its half (0 White, 1 Black).
    side: usize,
    /// Whether it is the whole half, held by every worker.
    whole: bool,
    /// The table index of its first entry.
    start: u64,
    entries: Arc<LoadedEntries>,
}

impl TableShares {
    /// How the cluster sees the table of `material` when it cuts it among its workers: its
    /// indices, in two segments (the halves of each side to move), as a table's layer has them.
    pub fn reached(material: Material) -> Reached {
        let len = TableIndex::new(material).len();
        Reached { len, segment: len / 2 }
    }

    /// Loads the share `share` gives of what the table of `material` reads of the tables its
    /// captures and promotions lead to (in `dir`, which `manifest` lists), keeping what it
    /// holds of them already and dropping the rest.
    pub fn load_for(
        &mut self,
        material: Material,
        dir: &Path,
        manifest: &Manifest,
        share: &ShareOf,
    ) -> Result<(), TablebaseError> {
        let needed = self.keep_for(material);
        // The whole tables of fewer pieces that raise version 4 values, while they are needed.
        let mut smaller = LoadedTables::new();
        for (m, sides, whole) in needed {
            for (side, _) in sides.iter().enumerate().filter(|s| *s.1) {
                if !self.holds(m, side) {
                    self.load_half(m, side, whole, (dir, manifest), share, &mut smaller)?;
                }
            }
        }
        Ok(())
    }

    /// Drops what the table of `material` does not read (or reads otherwise: whole where this
    /// holds a share, or the reverse), and returns the halves it reads, and whether whole.
    pub fn keep_for(&mut self, material: Material) -> Vec<(Material, [bool; 2], bool)> {
        let len = TableIndex::new(material).len();
        let needed: Vec<_> = reached_halves(&TableIndex::new(material))
            .into_iter()
            .map(|(m, sides)| {
                let reached = TableIndex::new(m).len() / 2 * sides.iter().filter(|&&s| s).count() as u64;
                (m, sides, reached <= len / WHOLE_BELOW)
            })
            .collect();
        self.parts.retain(|p| {
            needed.iter().any(|&(m, sides, whole)| m == p.material && sides[p.side] && whole == p.whole)
        });
        needed
    }

    /// Whether the half `side` of the table of `material` is held.
    fn holds(&self, material: Material, side: usize) -> bool {
        self.parts.iter().any(|p| p.material == material && p.side == side)
    }

    /// The part holding the entry at `index` of the table of `material`, if one does.
    fn part(&self, material: Material, index: u64) -> Option<&Part> {
        self.parts
            .iter()
            .find(|p| p.material == material && index.wrapping_sub(p.start) < p.entries.len() as u64)
    }

    /// Loads this worker's ranges of the half `side` of the table of `material` (in `dir`, which
    /// `manifest` lists), or the `whole` half, raised where its file leaves values out through
    /// the capture tables `smaller` holds or loads.
    fn load_half(
        &mut self,
        material: Material,
        side: usize,
        whole: bool,
        (dir, manifest): (&Path, &Manifest),
        share: &ShareOf,
        smaller: &mut LoadedTables,
    ) -> Result<(), TablebaseError> {
        let file = resolve::open(material, dir, manifest)?;
        let reached = Self::reached(material);
        let half = side as u64 * reached.segment..(side as u64 + 1) * reached.segment;
        let ranges: Vec<std::ops::Range<u64>> = if whole {
            vec![half]
        } else {
            let owned = share(reached).into_iter().filter(|r| r.len > 0 && half.contains(&r.start));
            owned.map(|r| r.start..r.start + r.len as u64).collect()
        };
        if file.holds_bounds() {
            resolve::load_capture_tables(smaller, material, dir, manifest)?;
        }
        for range in ranges {
            let entries = if file.holds_bounds() {
                let mut entries = file.entries_at_positions(range.clone())?;
                resolve::raise(material, range.start, &mut entries, smaller);
                LoadedEntries::new(entries)
            } else {
                LoadedEntries::read(&file, range.clone())?
            };
            self.parts.push(Part { material, side, whole, start: range.start, entries: Arc::new(entries) });
        }
        Ok(())
    }
}

impl ChildTables for TableShares {
    fn entry_at(&self, material: Material, index: u64) -> Entry {
        self.held(material, index).expect("a worker is asked only for the positions it holds")
    }

    fn held(&self, material: Material, index: u64) -> Option<Entry> {
        self.part(material, index).map(|p| p.entries.get((index - p.start) as usize))
    }

    fn holds_share(&self) -> bool {
        true
    }
}
