//! The un-move generator: the positions of a table from which one legal move, neither a capture
//! nor a promotion, leads to a given one. Captures and promotions leave the table, so they have
//! no un-move here; castling and en passant do not occur in tables.

use cozy_chess::{BitBoard, Color, Piece, Square};

use super::index::{attack_line, attacks, sq, Placement, TableIndex, NEVER};

impl TableIndex {
    /// Calls `f` with the placement of every position that reaches `p` by one move staying in
    /// the table, once per such move.
    pub fn unmove_placements(&self, p: &Placement, mut f: impl FnMut(Placement)) {
        let mover = !p.to_move;
        self.unmove_squares(p, |slot, from| f(p.with_move(slot, from, mover)));
    }

    /// Calls `f` with the slot and the square it came from, for every un-move of
    /// [`TableIndex::unmove_placements`].
    fn unmove_squares(&self, p: &Placement, mut f: impl FnMut(usize, u8)) {
        let mover = !p.to_move;
        let occupied = self.occupied(p);
        // Before the move, the side now to move was not to move: its king was not in check.
        let king = sq(p.squares[if p.to_move == Color::White { 0 } else { 1 }]);
        let lines = self.check_lines(p, king);
        for (i, slot) in self.slots().iter().enumerate() {
            if slot.color != mover {
                continue;
            }
            let at = p.squares[i];
            let mut origins = if slot.piece == Piece::Pawn {
                pawn_origins(at, mover, occupied.0)
            } else {
                (attacks(slot.piece, mover, sq(at), occupied) & !occupied).0
            };
            while origins != 0 {
                let from = origins.trailing_zeros() as u8;
                origins &= origins - 1;
                let before = occupied.0 & !(1 << at) | 1 << from;
                let others_check = lines.iter().enumerate().any(|(j, &line)| j != i && line & before == 0);
                if others_check || attacks(slot.piece, mover, sq(from), BitBoard(before)).has(king) {
                    continue;
                }
                f(i, from);
            }
        }
    }

    /// How each slot of the side that just moved in `p` could check the other king, on `king`,
    /// once the board's occupancy changes: the squares that must all be empty for it to check
    /// (none for a piece that checks whatever stands elsewhere; every square, which are never
    /// all empty, for one that never checks).
    fn check_lines(&self, p: &Placement, king: Square) -> [u64; 5] {
        let mut lines = [NEVER; 5];
        for (line, (&slot, &s)) in lines.iter_mut().zip(self.slots().iter().zip(&p.squares)) {
            if slot.color != p.to_move {
                *line = attack_line(slot, s, king);
            }
        }
        lines
    }

    /// Calls `f` with the index of every position that reaches `p` by one move staying in the
    /// table, as many times as that index's position has moves to `p`'s index: the move counts
    /// the retrograde kernel decrements. `p` must be the placement stored at `index`.
    pub fn unmoves(&self, index: u64, p: &Placement, mut f: impl FnMut(u64)) {
        // A predecessor `q` has as many moves into `p`'s index as there are un-moves from `p`
        // to boards of `q`'s index, times |symmetries of q| / |symmetries of p|. With `p`
        // symmetric (about a1-h8, being stored) and `q` not, `q` and its mirror are one position
        // with one move into `p`: one of the pair counts. With `q` symmetric and `p` not, `q`
        // has two moves (mirror images) into `p`'s index but appears once here.
        let target = self.stabilizer(p);
        let mover = !p.to_move;
        self.unmove_squares(p, |slot, from| {
            if let Some(index) = self.index_after_move(index, p, slot, from) {
                // No symmetry either side: one move, one index.
                return f(index);
            }
            let q = p.with_move(slot, from, mover);
            let copies = match (target, self.stabilizer(&q)) {
                (2, 1) => usize::from(self.first_of_mirror_pair(&q)),
                (1, 2) => 2,
                _ => 1,
            };
            let index = self.index(&q);
            for _ in 0..copies {
                f(index);
            }
        });
    }
}

/// The squares a pawn of `color` now on `at` came from by a push: one square back if it is empty
/// and not the first rank, two from the fourth rank if both squares behind are empty.
fn pawn_origins(at: u8, color: Color, occupied: u64) -> u64 {
    let empty = |s: u8| occupied & (1 << s) == 0;
    let rank = at >> 3;
    let mut origins = 0u64;
    match color {
        Color::White => {
            if rank >= 2 && empty(at - 8) {
                origins |= 1 << (at - 8);
                if rank == 3 && empty(at - 16) {
                    origins |= 1 << (at - 16);
                }
            }
        }
        Color::Black => {
            if rank <= 5 && empty(at + 8) {
                origins |= 1 << (at + 8);
                if rank == 4 && empty(at + 16) {
                    origins |= 1 << (at + 16);
                }
            }
        }
    }
    origins
}
