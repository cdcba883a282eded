//! Every entry of a table checked against its children's values.

use cozy_chess::{Move, Piece};
use gamegraph::prefetch::prefetch;

use super::super::index::Placement;
use super::*;

/// A stored value that its children contradict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    verify_table_until(material, entries, children, limit, &|| false).expect("never stopped")
}

/// [`verify_table`], stopped as soon as `stop` says so (it is asked at every few thousand
/// entries): `None` then, for a check that a Ctrl-C ends within a second, not at its table's end.
pub fn verify_table_until(
    material: Material,
    entries: &[Entry],
    children: &impl ChildTables,
    limit: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<Mismatch>> {
    let index = TableIndex::new(material);
    let table = CheckedTable { material, index: &index, entries, children };
    let chunks = index.len().div_ceil(CHUNK);
    let found = (0..chunks)
        .into_par_iter()
        .flat_map_iter(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(index.len());
            let mut found = Vec::new();
            if stop() {
                return found;
            }
            index.placements(range, |i, placement| {
                let stored = entries[i as usize].dtm();
                let board = placement.and_then(|p| index.board(&p));
                let expected = board.as_ref().and_then(|board| {
                    let p = placement.expect("a board comes from a placement");
                    table.best_of_children(board, &p, Some(i))
                });
                if stored != expected && found.len() < limit {
                    let fen = board.map_or(format!("index {i}"), |b| b.to_string());
                    found.push(Mismatch { fen, stored, expected });
                }
            });
            found
        })
        .take_any(limit)
        .collect();
    (!stop()).then_some(found)
}

/// Indices a task of [`verify_table`] takes: their placements follow each other.
const CHUNK: u64 = 1 << 14;

/// The most moves a position of this table checks before it reads their values: more than any
/// position of five pieces has (three queens and a king have at most 89).
const BATCHED_MOVES: usize = 128;

/// A table being checked: its entries, and the tables its captures and promotions lead to.
struct CheckedTable<'a, C> {
    material: Material,
    index: &'a TableIndex,
    entries: &'a [Entry],
    children: &'a C,
}

impl<C: ChildTables> CheckedTable<'_, C> {
    /// The value of `board` (at placement `p`, which is stored at `index` if that is given) from
    /// its children's entries (`None` if one is missing): the best for the side to move, or mate
    /// or stalemate without moves. The moves that stay in this table are read last, so that their
    /// entries' cache misses overlap.
    fn best_of_children(&self, board: &Board, p: &Placement, index: Option<u64>) -> Option<Dtm> {
        let mut best: Option<Dtm> = None;
        let mut missing = false;
        let mut take = |value: Option<Dtm>| match value.map(Dtm::negated) {
            None => missing = true,
            Some(value) => {
                if best.is_none_or(|b| value.rank() > b.rank()) {
                    best = Some(value);
                }
            }
        };
        let mut inside = [0u64; BATCHED_MOVES];
        let mut batched = 0;
        board.generate_moves(|moves| {
            for mv in moves {
                match self.inside_index(board, p, index, mv) {
                    Some(child) if batched < BATCHED_MOVES => {
                        prefetch(&self.entries[child as usize]);
                        inside[batched] = child;
                        batched += 1;
                    }
                    Some(child) => take(self.entries[child as usize].dtm()),
                    None => {
                        let mut child = board.clone();
                        child.play_unchecked(mv);
                        take(self.stored_value(&child));
                    }
                }
            }
            false
        });
        inside[..batched].iter().for_each(|&child| take(self.entries[child as usize].dtm()));
        if missing {
            return None;
        }
        Some(best.unwrap_or(if board.checkers().is_empty() { Dtm::Draw } else { Dtm::Loss(0) }))
    }

    /// The index of the position `mv` leads to from `board` (at placement `p`, stored at `index`
    /// if given) where that position is in this table and its entry is its value: `None` for a
    /// capture, a promotion, and a pawn's double step (after which an en passant capture may
    /// stand, whose value no entry holds).
    fn inside_index(&self, board: &Board, p: &Placement, index: Option<u64>, mv: Move) -> Option<u64> {
        let pawn = board.pieces(Piece::Pawn).has(mv.from);
        let step = (mv.to as i32 - mv.from as i32).abs();
        if board.occupied().has(mv.to) || mv.promotion.is_some() || (pawn && step != 8) {
            return None;
        }
        let (from, to) = (mv.from as u8, mv.to as u8);
        let slot = p.squares[..self.index.slots().len()].iter().position(|&s| s == from)?;
        let after = index.and_then(|i| self.index.index_after_move(i, p, slot, to));
        Some(after.unwrap_or_else(|| self.index.index(&p.with_move(slot, to, !p.to_move))))
    }

    /// The value of a child as the tables give it: its entry, or where it has an en passant
    /// capture (which no entry holds), the best over its own moves.
    fn stored_value(&self, board: &Board) -> Option<Dtm> {
        if Material::of(board).canonical() != self.material {
            return self.children.entry(board).dtm();
        }
        let p = self.index.placement_of(board).expect("same material");
        if has_en_passant_capture(board) {
            return self.best_of_children(board, &p, None);
        }
        self.entries[self.index.index(&p) as usize].dtm()
    }
}
