//! A cluster worker's share of the tables a table's captures and promotions lead to: the
//! ranges of each that the worker owns, with their values, so that no worker holds or reads
//! what another owns. The worker's layer names its captures and promotions into positions it
//! does not hold instead of valuing them, and their owners value them from their shares
//! ([`gamegraph::dense::DenseLayer::exit_through`]).
//!
//! A version 4 file leaves out the values that captures give: a share read from one is
//! incomplete until the workers complete it together ([`super::completing`]), asking the
//! owners of the positions its captures reach in the tables of fewer pieces. So a worker also
//! holds its share of those tables, down to three pieces, and completes the tables of fewer
//! pieces first.

use gamegraph::dense::{Reached, ShareOf};

use super::loaded::LoadedEntries;
use super::*;

/// One worker's share of the tables one table leads to: every range it owns of the halves that
/// table's moves reach, and of the halves those tables' captures reach, down to three pieces.
#[derive(Clone, Default)]
pub struct TableShares {
    /// In order of material, then of index: a position's part is found in a few steps, which
    /// every move that leaves a table takes.
    parts: Vec<Part>,
    /// The halves held (as material, side to move, and whether complete), whether or not this
    /// worker owns any of their entries: every worker completes the same tables in the same
    /// order.
    halves: Vec<(Material, usize, bool)>,
}

/// Consecutive entries of one table, within one side to move's half.
#[derive(Clone)]
pub(super) struct Part {
    pub(super) material: Material,
    /// The side to move of its half (0 White, 1 Black).
    pub(super) side: usize,
    /// The table index of its first entry.
    pub(super) start: u64,
    pub(super) entries: Arc<LoadedEntries>,
}

impl Part {
    /// Whether it holds the entry at `index` of the table of `material`.
    pub(super) fn holds(&self, material: Material, index: u64) -> bool {
        self.material == material && index.wrapping_sub(self.start) < self.entries.len() as u64
    }
}

impl TableShares {
    /// How the cluster sees the table of `material` when it cuts it among its workers: its
    /// indices, in two segments (the halves of each side to move), as a table's layer has them.
    pub fn reached(material: Material) -> Reached {
        let len = TableIndex::new(material).len();
        Reached { len, segment: len / 2 }
    }

    /// Loads the share `share` gives of what the table of `material` reads of the tables its
    /// captures and promotions lead to, and of what those read to be completed (in `dir`, which
    /// `manifest` lists), keeping what it holds of them already and dropping the rest.
    pub fn load_for(
        &mut self,
        material: Material,
        dir: &Path,
        manifest: &Manifest,
        share: &ShareOf,
    ) -> Result<(), TablebaseError> {
        for (m, sides) in self.keep_for(material) {
            for (side, _) in sides.iter().enumerate().filter(|s| *s.1) {
                if !self.halves.iter().any(|h| h.0 == m && h.1 == side) {
                    self.load_half(m, side, (dir, manifest), share)?;
                }
            }
        }
        self.sort();
        Ok(())
    }

    /// Drops what the table of `material` does not read, and returns the halves it reads.
    pub fn keep_for(&mut self, material: Material) -> Vec<(Material, [bool; 2])> {
        let needed = needed_halves(material);
        let kept = |m: Material, side: usize| needed.iter().any(|&(n, sides)| n == m && sides[side]);
        self.parts.retain(|p| kept(p.material, p.side));
        self.halves.retain(|h| kept(h.0, h.1));
        needed
    }

    /// The table of fewest pieces (then first in order of material) of those with a half not
    /// complete, and this worker's parts of those halves (maybe none), taken out: the next
    /// table to complete ([`super::completing`]), the same on every worker. Its halves count as
    /// complete from now on.
    pub(super) fn take_incomplete(&mut self) -> Option<(Material, Vec<Part>)> {
        let incomplete = self.halves.iter().filter(|h| !h.2).map(|h| h.0);
        let material = incomplete.min_by_key(|m| (m.pieces(), *m))?;
        let mut sides = [false; 2];
        for half in self.halves.iter_mut().filter(|h| h.0 == material && !h.2) {
            sides[half.1] = true;
            half.2 = true;
        }
        let (taken, kept) = std::mem::take(&mut self.parts)
            .into_iter()
            .partition(|p| p.material == material && sides[p.side]);
        self.parts = kept;
        Some((material, taken))
    }

    /// Holds `parts` (complete) from now on.
    pub(super) fn put(&mut self, parts: Vec<Part>) {
        self.parts.extend(parts);
        self.sort();
    }

    /// Puts the parts in order of material, then of index.
    fn sort(&mut self) {
        self.parts.sort_unstable_by_key(|p| (p.material, p.start));
    }

    /// The part holding the entry at `index` of the table of `material`, if one does.
    fn part(&self, material: Material, index: u64) -> Option<&Part> {
        let first = self.parts.partition_point(|p| p.material < material);
        self.parts[first..].iter().take_while(|p| p.material == material).find(|p| p.holds(material, index))
    }

    /// Loads this worker's ranges of the half `side` of the table of `material` (in `dir`, which
    /// `manifest` lists), if it owns any: not complete if its file leaves values out.
    fn load_half(
        &mut self,
        material: Material,
        side: usize,
        (dir, manifest): (&Path, &Manifest),
        share: &ShareOf,
    ) -> Result<(), TablebaseError> {
        let file = resolve::open(material, dir, manifest)?;
        let reached = Self::reached(material);
        let half = side as u64 * reached.segment..(side as u64 + 1) * reached.segment;
        let owned = share(reached).into_iter().filter(|r| r.len > 0 && half.contains(&r.start));
        for range in owned.map(|r| r.start..r.start + r.len as u64) {
            let entries = Arc::new(LoadedEntries::read(&file, range.clone())?);
            self.parts.push(Part { material, side, start: range.start, entries });
        }
        self.halves.push((material, side, !file.holds_bounds()));
        Ok(())
    }
}

/// The halves the table of `material` reads ([`reached_halves`]), and those the tables of
/// fewer pieces that the captures of each of them lead to, down to three pieces: what
/// completing a share read from a version 4 file asks for.
fn needed_halves(material: Material) -> Vec<(Material, [bool; 2])> {
    let mut needed = reached_halves(&TableIndex::new(material));
    let mut next = 0;
    while let Some(&(table, _)) = needed.get(next) {
        for (m, sides) in resolve::capture_halves(table) {
            match needed.iter_mut().find(|n| n.0 == m) {
                Some(held) => held.1 = [held.1[0] || sides[0], held.1[1] || sides[1]],
                None => needed.push((m, sides)),
            }
        }
        next += 1;
    }
    needed
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every worker completes the same tables in the same order, fewest pieces first, whether
    /// or not it owns entries of them: a worker that owns none of a table still takes its turn.
    #[test]
    fn tables_are_completed_in_one_order_whatever_a_worker_owns() {
        let m = |name: &str| name.parse::<Material>().unwrap();
        let part =
            |material, side| Part { material, side, start: 0, entries: Arc::new(LoadedEntries::new(vec![])) };
        let halves = vec![
            (m("KQRvKR"), 1, false),
            (m("KRvKR"), 0, false),
            (m("KQvK"), 0, true),
            (m("KRvK"), 0, false),
        ];
        let with_parts =
            TableShares { parts: vec![part(m("KRvKR"), 0), part(m("KQRvKR"), 1)], halves: halves.clone() };
        let without = TableShares { parts: Vec::new(), halves };
        for mut shares in [with_parts, without] {
            let owns_parts = !shares.parts.is_empty();
            let order: Vec<(Material, usize)> =
                std::iter::from_fn(|| shares.take_incomplete()).map(|(m, parts)| (m, parts.len())).collect();
            let parts = |n| if owns_parts { n } else { 0 };
            assert_eq!(order, [(m("KRvK"), 0), (m("KRvKR"), parts(1)), (m("KQRvKR"), parts(1))]);
            assert!(shares.halves.iter().all(|h| h.2), "every half complete after");
        }
    }
}
