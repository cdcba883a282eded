//! Every entry of a table checked against its children's values.

use super::*;

/// A stored value that its children contradict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// The position.
    pub fen: String,
    /// What the table holds.
    pub stored: Option<Dtm>,
    /// What its moves give.
    pub expected: Option<Dtm>,
}

/// Checks every entry of a table against its children: a position's value must be the best
/// over its moves (the table's own entries for moves that stay, `children` for the others), and
/// exactly the indices that are positions hold one. Returns the mismatches, at most `limit`.
pub fn verify_table(
    material: Material,
    entries: &[Entry],
    children: &impl ChildTables,
    limit: usize,
) -> Vec<Mismatch> {
    let index = TableIndex::new(material);
    let table = CheckedTable { material, index: &index, entries, children };
    let found: Vec<Mismatch> = (0..index.len())
        .into_par_iter()
        .filter_map(|i| {
            let stored = entries[i as usize].dtm();
            let board = index.placement(i).and_then(|p| index.board(&p));
            let expected = board.as_ref().and_then(|board| table.best_of_children(board));
            (stored != expected).then(|| Mismatch {
                fen: board.map_or(format!("index {i}"), |b| b.to_string()),
                stored,
                expected,
            })
        })
        .take_any(limit)
        .collect();
    found
}

/// A table being checked: its entries, and the tables its captures and promotions lead to.
struct CheckedTable<'a, C> {
    material: Material,
    index: &'a TableIndex,
    entries: &'a [Entry],
    children: &'a C,
}

impl<C: ChildTables> CheckedTable<'_, C> {
    /// The value of `board` from its children's entries (`None` if one is missing): the best
    /// for the side to move, or mate or stalemate without moves.
    fn best_of_children(&self, board: &Board) -> Option<Dtm> {
        let mut best: Option<Dtm> = None;
        let mut missing = false;
        board.generate_moves(|moves| {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                let Some(value) = self.stored_value(&child).map(Dtm::negated) else {
                    missing = true;
                    continue;
                };
                if best.is_none_or(|b| value.rank() > b.rank()) {
                    best = Some(value);
                }
            }
            false
        });
        if missing {
            return None;
        }
        Some(best.unwrap_or(if board.checkers().is_empty() { Dtm::Draw } else { Dtm::Loss(0) }))
    }

    /// The value of a child as the tables give it: its entry, or where it has an en passant
    /// capture (which no entry holds), the best over its own moves.
    fn stored_value(&self, board: &Board) -> Option<Dtm> {
        if Material::of(board).canonical() != self.material {
            return self.children.entry(board).dtm();
        }
        if has_en_passant_capture(board) {
            return self.best_of_children(board);
        }
        let p = self.index.placement_of(board).expect("same material");
        self.entries[self.index.index(&p) as usize].dtm()
    }
}
