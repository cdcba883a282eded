//! Where the captures and promotions of a table lead: for each move that leaves a table, the
//! table it reaches and that table's index of the position, computed from the placement alone.
//! The builder's forward pass values every capture and promotion of every position this way.

use cozy_chess::{Board, Color, Piece};

use super::index::{Placement, Slot, TableIndex};
use super::material::Material;
use super::moves::{Leaving, PROMOTIONS};
use super::{Dtm, Entry};

/// Where the builder reads the values of the tables that captures and promotions lead to.
pub trait ChildTables: Sync {
    /// The stored entry of `board`, whose material is a smaller or other table built before (a
    /// draw for the bare kings). By default, [`ChildTables::entry_at`] of its table's index.
    fn entry(&self, board: &Board) -> Entry {
        let material = Material::of(board).canonical();
        if material.pieces() == 2 {
            return Entry::of(Dtm::Draw);
        }
        let index = TableIndex::new(material);
        let p = index.placement_of(board).expect("the board holds the table's material");
        self.entry_at(material, index.index(&p))
    }
    /// The entry at `index` of the table of `material` (canonical, with more than two pieces),
    /// built before.
    fn entry_at(&self, material: Material, index: u64) -> Entry;
    /// Whether these are one cluster worker's shares of the tables, holding only the positions
    /// it owns: a table's layer then names its captures and promotions for their owners to
    /// value. No, by default.
    fn holds_share(&self) -> bool {
        false
    }
    /// The entry at `index` of the table of `material` if it is held here: always, but in a
    /// share.
    fn held(&self, material: Material, index: u64) -> Option<Entry> {
        Some(self.entry_at(material, index))
    }
}

/// The tables (canonical, of more than two pieces) that the captures and promotions of the table
/// of `index` reach, each with the sides to move there that they reach (`[White, Black]`): a
/// table that only one side's moves reach is needed only in the half of the other side to move
/// (as that table orients it), which halves what a build holds of most tables it leads to.
pub fn reached_halves(index: &TableIndex) -> Vec<(Material, [bool; 2])> {
    let slots = index.slots();
    let mut reached: Vec<(Material, [bool; 2])> = Vec::new();
    for (moved, slot) in slots.iter().enumerate() {
        let taken = (2..slots.len()).filter(|&j| slots[j].color != slot.color).map(Some);
        for captured in std::iter::once(None).chain(taken) {
            let promotions = std::iter::once(None)
                .chain(PROMOTIONS.map(Some))
                .take(if slot.piece == Piece::Pawn { 5 } else { 1 });
            for promoted in promotions.filter(|p| captured.is_some() || p.is_some()) {
                let left = (0..slots.len()).filter(|&j| Some(j) != captured).map(|j| {
                    (
                        slots[j].color,
                        if j == moved { promoted.unwrap_or(slots[j].piece) } else { slots[j].piece },
                    )
                });
                let material = Material::of_pieces(left);
                let canonical = material.canonical();
                if canonical.pieces() == 2 {
                    continue;
                }
                // The other side moves next, in that table's colours (as `ChildMap` maps it).
                let to_move = if canonical != material { slot.color } else { !slot.color };
                let side = usize::from(to_move == Color::Black);
                match reached.iter_mut().find(|r| r.0 == canonical) {
                    Some(r) => r.1[side] = true,
                    None => {
                        let mut sides = [false; 2];
                        sides[side] = true;
                        reached.push((canonical, sides));
                    }
                }
            }
        }
    }
    reached
}

impl<T: ChildTables + ?Sized> ChildTables for &T {
    fn entry(&self, board: &Board) -> Entry {
        (**self).entry(board)
    }

    fn entry_at(&self, material: Material, index: u64) -> Entry {
        (**self).entry_at(material, index)
    }

    fn holds_share(&self) -> bool {
        (**self).holds_share()
    }

    fn held(&self, material: Material, index: u64) -> Option<Entry> {
        (**self).held(material, index)
    }
}

impl<T: ChildTables + Send + ?Sized> ChildTables for std::sync::Arc<T> {
    fn entry(&self, board: &Board) -> Entry {
        (**self).entry(board)
    }

    fn entry_at(&self, material: Material, index: u64) -> Entry {
        (**self).entry_at(material, index)
    }

    fn holds_share(&self) -> bool {
        (**self).holds_share()
    }

    fn held(&self, material: Material, index: u64) -> Option<Entry> {
        (**self).held(material, index)
    }
}

/// The tables one table's captures and promotions lead to, and how its slots map into them.
pub struct LeavingTables {
    /// By [`LeavingTables::key`]; `None` for what no move does.
    maps: Vec<Option<ChildMap>>,
}

/// How one kind of capture or promotion maps a placement into the table it reaches.
struct ChildMap {
    /// The table reached (canonical), `None` for the bare kings.
    table: Option<(Material, TableIndex)>,
    /// Whether the colours swap to reach that table's orientation (its ranks mirrored).
    flip: bool,
    /// That table's slot of each slot of this table (the taken one: unused).
    slot_of: [u8; 5],
}

impl LeavingTables {
    /// How many keys there are: no capture or one of five slots taken, times no promotion or
    /// one of four pieces for one of five slots.
    const KEYS: usize = 6 * 21;

    /// The map of every capture and promotion of the table of `index`.
    pub fn new(index: &TableIndex) -> Self {
        let n = index.slots().len();
        let mut maps: Vec<Option<ChildMap>> = (0..Self::KEYS).map(|_| None).collect();
        for captured in std::iter::once(None).chain((2..n).map(Some)) {
            for moved in (0..n).filter(|&i| Some(i) != captured) {
                let pawn = index.slots()[moved].piece == Piece::Pawn;
                let promotions =
                    std::iter::once(None).chain(PROMOTIONS.map(Some)).take(if pawn { 5 } else { 1 });
                for promoted in promotions.filter(|p| captured.is_some() || p.is_some()) {
                    maps[Self::key(captured, promoted, moved)] =
                        Some(ChildMap::new(index, captured, moved, promoted));
                }
            }
        }
        Self { maps }
    }

    /// The place of a capture of slot `captured` with a promotion to `promoted` by slot `moved`
    /// (which matters only when it promotes).
    fn key(captured: Option<usize>, promoted: Option<Piece>, moved: usize) -> usize {
        let promotion = match promoted {
            None => 0,
            Some(piece) => 1 + moved * 4 + PROMOTIONS.iter().position(|&p| p == piece).expect("a promotion"),
        };
        captured.map_or(0, |c| c + 1) * 21 + promotion
    }

    /// The entry, in `children`, of the position a leaving move reaches.
    pub fn entry(&self, mv: Leaving, children: &impl ChildTables) -> Entry {
        match self.reach(mv) {
            Some((material, index)) => children.entry_at(material, index),
            None => Entry::of(Dtm::Draw),
        }
    }

    /// The table a leaving move reaches and that table's index of the position, `None` for the
    /// bare kings (a draw).
    pub fn reach(&self, mv: Leaving) -> Option<(Material, u64)> {
        let map =
            self.maps[Self::key(mv.captured, mv.promoted, mv.moved)].as_ref().expect("made for every move");
        let (material, child) = map.table.as_ref()?;
        let mut squares = [0u8; 5];
        for (j, &s) in mv.after.squares.iter().enumerate() {
            if Some(j) != mv.captured && usize::from(map.slot_of[j]) < squares.len() {
                squares[usize::from(map.slot_of[j])] = if map.flip { s ^ 56 } else { s };
            }
        }
        let to_move = if map.flip { !mv.after.to_move } else { mv.after.to_move };
        Some((*material, child.index(&Placement { squares, to_move })))
    }
}

impl ChildMap {
    /// The map of the moves of slot `moved` of `index`'s table that take slot `captured` and
    /// promote to `promoted`.
    fn new(index: &TableIndex, captured: Option<usize>, moved: usize, promoted: Option<Piece>) -> Self {
        let slots = index.slots();
        let left: Vec<Slot> = (0..slots.len())
            .filter(|&j| Some(j) != captured)
            .map(|j| Slot {
                piece: if j == moved { promoted.unwrap_or(slots[j].piece) } else { slots[j].piece },
                ..slots[j]
            })
            .collect();
        let material = Material::of_pieces(left.iter().map(|s| (s.color, s.piece)));
        let canonical = material.canonical();
        // As `TableIndex::placement_of` chooses: a material that is its own swap keeps its colours.
        let flip = canonical != material;
        let mut slot_of = [u8::MAX; 5];
        if canonical.pieces() == 2 {
            return Self { table: None, flip, slot_of };
        }
        let child = TableIndex::new(canonical);
        let mut used = [false; 5];
        let live = (0..slots.len()).filter(|&j| Some(j) != captured);
        for (j, slot) in live.zip(&left) {
            let wanted = Slot { color: if flip { !slot.color } else { slot.color }, piece: slot.piece };
            let k = (0..child.slots().len())
                .find(|&k| !used[k] && child.slots()[k] == wanted)
                .expect("the table reached holds the pieces left");
            used[k] = true;
            slot_of[j] = k as u8;
        }
        Self { table: Some((canonical, child)), flip, slot_of }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::material::parse_tables;

    /// Every table of up to five pieces reaches, by its captures and promotions, the tables
    /// its material's successors name, each in at least one half.
    #[test]
    fn the_halves_reached_are_those_of_the_successors() {
        for material in Material::closure(&parse_tables("5").unwrap()) {
            let reached = reached_halves(&TableIndex::new(material));
            let mut tables: Vec<String> = reached.iter().map(|r| r.0.to_string()).collect();
            let mut successors: Vec<String> = material.successors().iter().map(Material::to_string).collect();
            tables.sort();
            successors.sort();
            assert_eq!(tables, successors, "{material}");
            assert!(reached.iter().all(|r| r.1 != [false; 2]), "{material}");
        }
    }

    /// In KQvKR, White taking the rook leaves Black to move in KQvK; Black taking the queen
    /// leaves White to move with the rook's side as Black, so Black to move in KRvK's colours.
    /// In KPvKP, either side's capture reaches KPvK with the side left without a pawn to move:
    /// Black, in KPvK's colours, both times.
    #[test]
    fn a_capture_reaches_the_half_of_the_side_to_move_after_it() {
        let halves = |name: &str| {
            let mut reached = reached_halves(&TableIndex::new(name.parse().unwrap()));
            reached.sort_by_key(|r| r.0.to_string());
            reached.into_iter().map(|(m, sides)| (m.to_string(), sides)).collect::<Vec<_>>()
        };
        assert_eq!(
            halves("KQvKR"),
            [("KQvK".to_string(), [false, true]), ("KRvK".to_string(), [false, true])]
        );
        let kpvkp = halves("KPvKP");
        assert!(kpvkp.contains(&("KPvK".to_string(), [false, true])), "{kpvkp:?}");
        // Promotions: White's leaves Black to move in KQvKP, Black's leaves White to move in
        // KPvKQ, which is KQvKP in swapped colours, so Black again.
        assert!(kpvkp.contains(&("KQvKP".to_string(), [false, true])), "{kpvkp:?}");
    }
}
