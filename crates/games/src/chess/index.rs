//! The dense index of a table: every placement of its pieces with either side to move, numbered
//! `0..len`, with the board's symmetries folded in. Pawnless tables use the 8 symmetries of the
//! square (the White king in the triangle a1-d1-d4 and, on its diagonal, the Black king on or
//! below a1-h8: the usual 462 king pairs); tables with pawns use the left-right mirror (White
//! king on files a-d: 1,806 pairs). Identical pieces are stored in increasing square order.
//!
//! A position has one index, its *canonical* one: the smallest over the symmetries that put its
//! kings in a stored pair. Indices that are not canonical, or whose placement is illegal (pieces on
//! one square, the side not to move in check), are not positions: [`TableIndex::placement`]
//! returns `None` there, and they are never counted.

use std::sync::OnceLock;

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard, Board,
    BoardBuilder, Color, Piece, Square,
};

use super::material::{Material, PIECES};

/// One piece of a table: its colour in the table's orientation and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// White is the stronger side, the first named.
    pub color: Color,
    /// The piece.
    pub piece: Piece,
}

/// A position of a table in its orientation: the square of each slot, and the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement {
    /// Squares `0..64` (a1 = 0, b1 = 1, ..., h8 = 63), one per slot of the table.
    pub squares: [u8; 5],
    /// The side to move.
    pub to_move: Color,
}

/// How positions of one table are numbered.
#[derive(Debug, Clone)]
pub struct TableIndex {
    material: Material,
    slots: Vec<Slot>,
    pawns: bool,
    /// Indices per side to move.
    half: u64,
}

/// The 8 symmetries of the square as maps of squares; the first two are the identity and the
/// left-right mirror, all that tables with pawns use.
fn symmetry(t: usize, square: u8) -> u8 {
    let (mut file, mut rank) = (square & 7, square >> 3);
    if t & 4 != 0 {
        std::mem::swap(&mut file, &mut rank);
    }
    if t & 1 != 0 {
        file = 7 - file;
    }
    if t & 2 != 0 {
        rank = 7 - rank;
    }
    rank * 8 + file
}

/// The stored king pairs and, for each (White, Black) king square pair, its number.
struct KingPairs {
    pairs: Vec<(u8, u8)>,
    number: Vec<u16>,
}

const NO_PAIR: u16 = u16::MAX;

impl KingPairs {
    fn new(pawns: bool) -> Self {
        let mut pairs = Vec::new();
        let mut number = vec![NO_PAIR; 64 * 64];
        for wk in 0..64u8 {
            let (wf, wr) = (wk & 7, wk >> 3);
            let stored = if pawns { wf < 4 } else { wf < 4 && wr <= wf };
            if !stored {
                continue;
            }
            for bk in 0..64u8 {
                let (bf, br) = (bk & 7, bk >> 3);
                if wf.abs_diff(bf) <= 1 && wr.abs_diff(br) <= 1 {
                    continue;
                }
                if !pawns && wr == wf && br > bf {
                    continue;
                }
                number[usize::from(wk) * 64 + usize::from(bk)] = pairs.len() as u16;
                pairs.push((wk, bk));
            }
        }
        Self { pairs, number }
    }

    fn get(pawns: bool) -> &'static KingPairs {
        static PAWNLESS: OnceLock<KingPairs> = OnceLock::new();
        static PAWNS: OnceLock<KingPairs> = OnceLock::new();
        if pawns {
            PAWNS.get_or_init(|| KingPairs::new(true))
        } else {
            PAWNLESS.get_or_init(|| KingPairs::new(false))
        }
    }
}

/// Squares a pawn can stand on: ranks 2 to 7.
const PAWN_SQUARES: u64 = 48;

impl TableIndex {
    /// The index of a canonical material.
    pub fn new(material: Material) -> Self {
        debug_assert!(material.is_canonical());
        let mut slots = vec![
            Slot { color: Color::White, piece: Piece::King },
            Slot { color: Color::Black, piece: Piece::King },
        ];
        for (side, color) in [Color::White, Color::Black].into_iter().enumerate() {
            for (i, &piece) in PIECES.iter().enumerate() {
                for _ in 0..material.count(side, i) {
                    slots.push(Slot { color, piece });
                }
            }
        }
        let pawns = material.has_pawns();
        let half = slots[2..]
            .iter()
            .map(|s| if s.piece == Piece::Pawn { PAWN_SQUARES } else { 64 })
            .product::<u64>()
            * KingPairs::get(pawns).pairs.len() as u64;
        Self { material, slots, pawns, half }
    }

    /// The table's material.
    pub fn material(&self) -> Material {
        self.material
    }

    /// The pieces, kings first (White's, then Black's), then White's and Black's others.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// How many indices the table has (both sides to move, positions or not).
    pub fn len(&self) -> u64 {
        2 * self.half
    }

    /// Whether the table has no index (never: every table has positions).
    pub fn is_empty(&self) -> bool {
        self.half == 0
    }

    /// How many symmetries fold into one index.
    fn symmetries(&self) -> usize {
        if self.pawns {
            2
        } else {
            8
        }
    }

    /// The canonical index of a legal placement in this table's orientation.
    pub fn index(&self, p: &Placement) -> u64 {
        let kings = KingPairs::get(self.pawns);
        let mut best = u64::MAX;
        for t in 0..self.symmetries() {
            let (wk, bk) = (symmetry(t, p.squares[0]), symmetry(t, p.squares[1]));
            let pair = kings.number[usize::from(wk) * 64 + usize::from(bk)];
            if pair == NO_PAIR {
                continue;
            }
            let mut squares = [0u8; 5];
            for (i, s) in squares.iter_mut().enumerate().take(self.slots.len()).skip(2) {
                *s = symmetry(t, p.squares[i]);
            }
            best = best.min(self.number(pair, &mut squares, p.to_move));
        }
        debug_assert!(best != u64::MAX, "a legal placement has its kings apart");
        best
    }

    /// The index of kings pair `pair` and the other pieces on `squares[2..]` (sorted here within
    /// groups of identical pieces).
    fn number(&self, pair: u16, squares: &mut [u8; 5], to_move: Color) -> u64 {
        let n = self.slots.len();
        let mut i = 2;
        while i < n {
            let mut j = i + 1;
            while j < n && self.slots[j] == self.slots[i] {
                j += 1;
            }
            squares[i..j].sort_unstable();
            i = j;
        }
        let mut index = u64::from(pair);
        for (slot, &square) in self.slots[2..].iter().zip(&squares[2..n]) {
            index = if slot.piece == Piece::Pawn {
                index * PAWN_SQUARES + u64::from(square) - 8
            } else {
                index * 64 + u64::from(square)
            };
        }
        index + if to_move == Color::Black { self.half } else { 0 }
    }

    /// The placement at `index` if it is a legal position stored there (canonical, pieces on
    /// distinct squares, identical pieces in order, the side not to move not in check).
    pub fn placement(&self, index: u64) -> Option<Placement> {
        let to_move = if index >= self.half { Color::Black } else { Color::White };
        let mut rest = index % self.half;
        let n = self.slots.len();
        let mut squares = [0u8; 5];
        for i in (2..n).rev() {
            squares[i] = if self.slots[i].piece == Piece::Pawn {
                let s = rest % PAWN_SQUARES;
                rest /= PAWN_SQUARES;
                s as u8 + 8
            } else {
                let s = rest % 64;
                rest /= 64;
                s as u8
            };
        }
        let (wk, bk) = KingPairs::get(self.pawns).pairs[rest as usize];
        squares[0] = wk;
        squares[1] = bk;
        let mut occupied = 0u64;
        for (i, &s) in squares[..n].iter().enumerate() {
            if occupied & (1 << s) != 0 {
                return None;
            }
            occupied |= 1 << s;
            if i > 2 && self.slots[i] == self.slots[i - 1] && squares[i - 1] > s {
                return None;
            }
        }
        let p = Placement { squares, to_move };
        // Only kings both on the a1-h8 diagonal leave a second symmetry that keeps them stored.
        let on_diagonal = |s: u8| s & 7 == s >> 3;
        if !self.pawns && on_diagonal(wk) && on_diagonal(bk) && self.index(&p) != index {
            return None;
        }
        (!self.in_check(&p, !to_move)).then_some(p)
    }

    /// Whether `color`'s king is attacked in `p`.
    pub fn in_check(&self, p: &Placement, color: Color) -> bool {
        let king = p.squares[if color == Color::White { 0 } else { 1 }];
        self.attacked(p, king, !color)
    }

    /// Whether `by`'s pieces attack `square` in `p`.
    pub fn attacked(&self, p: &Placement, square: u8, by: Color) -> bool {
        let occupied = self.occupied(p);
        let target = Square::index(usize::from(square));
        self.slots.iter().zip(&p.squares).any(|(slot, &s)| {
            slot.color == by && s != square && attacks(slot.piece, slot.color, sq(s), occupied).has(target)
        })
    }

    /// The squares that pieces occupy in `p`.
    pub fn occupied(&self, p: &Placement) -> BitBoard {
        BitBoard(p.squares[..self.slots.len()].iter().fold(0, |b, &s| b | 1 << s))
    }

    /// How many of the table's symmetries map `p` onto itself (1 or 2): a position with a
    /// symmetry stands for fewer boards than others, which un-moves and counts must account for.
    /// A stored position's only possible symmetry is the a1-h8 mirror, but other placements
    /// (images of stored ones) may be symmetric about another axis.
    pub fn stabilizer(&self, p: &Placement) -> usize {
        let n = self.slots.len();
        (0..self.symmetries())
            .filter(|&t| {
                // The kings must stay put: a cheap test before the whole board.
                if symmetry(t, p.squares[0]) != p.squares[0] || symmetry(t, p.squares[1]) != p.squares[1] {
                    return false;
                }
                let mut image = *p;
                for s in image.squares[..n].iter_mut() {
                    *s = symmetry(t, *s);
                }
                self.same_board(p, &image)
            })
            .count()
    }

    /// Whether two placements put the same pieces on the same squares (identical pieces in any
    /// order), with the same side to move.
    pub fn same_board(&self, a: &Placement, b: &Placement) -> bool {
        a.to_move == b.to_move && self.cells(a) == self.cells(b)
    }

    /// Of a placement and its a1-h8 mirror image (a different board), whether this one comes
    /// first: one chosen of the two.
    pub fn first_of_mirror_pair(&self, p: &Placement) -> bool {
        let mut mirrored = *p;
        for s in mirrored.squares[..self.slots.len()].iter_mut() {
            *s = symmetry(4, *s);
        }
        self.cells(p) < self.cells(&mirrored)
    }

    /// The board as sorted (square, piece group) pairs: equal for equal boards.
    fn cells(&self, p: &Placement) -> Vec<(u8, usize)> {
        let mut cells: Vec<(u8, usize)> =
            (0..self.slots.len()).map(|i| (p.squares[i], self.group(i))).collect();
        cells.sort_unstable();
        cells
    }

    /// The first slot identical to slot `i`.
    fn group(&self, i: usize) -> usize {
        (0..=i).find(|&j| self.slots[j] == self.slots[i]).unwrap_or(i)
    }

    /// The placement of `board` in this table's orientation, if the board holds this table's
    /// material (either way round).
    pub fn placement_of(&self, board: &Board) -> Option<Placement> {
        let material = Material::of(board);
        let flip = if material == self.material {
            false
        } else if material.swapped() == self.material {
            true
        } else {
            return None;
        };
        // Colour-swapped: mirror the ranks and swap the colours.
        let color = |c: Color| if flip { !c } else { c };
        let mut squares = [0u8; 5];
        let mut used = [false; 5];
        for s in board.occupied() {
            let piece = board.piece_on(s).expect("an occupied square holds a piece");
            let owner = color(board.color_on(s).expect("an occupied square has a colour"));
            let i =
                (0..self.slots.len()).find(|&i| !used[i] && self.slots[i] == Slot { color: owner, piece })?;
            used[i] = true;
            squares[i] = if flip { s as u8 ^ 56 } else { s as u8 };
        }
        Some(Placement { squares, to_move: color(board.side_to_move()) })
    }

    /// The board of a placement, in the table's orientation.
    pub fn board(&self, p: &Placement) -> Option<Board> {
        let mut builder = BoardBuilder::empty();
        for (slot, &s) in self.slots.iter().zip(&p.squares) {
            *builder.square_mut(sq(s)) = Some((slot.piece, slot.color));
        }
        builder.side_to_move = p.to_move;
        builder.build().ok()
    }
}

/// The square numbered `s` (a1 = 0).
pub fn sq(s: u8) -> Square {
    Square::index(usize::from(s))
}

/// The squares a piece on `from` attacks with the board's pieces on `occupied`.
pub fn attacks(piece: Piece, color: Color, from: Square, occupied: BitBoard) -> BitBoard {
    match piece {
        Piece::King => get_king_moves(from),
        Piece::Knight => get_knight_moves(from),
        Piece::Bishop => get_bishop_moves(from, occupied),
        Piece::Rook => get_rook_moves(from, occupied),
        Piece::Queen => get_bishop_moves(from, occupied) | get_rook_moves(from, occupied),
        Piece::Pawn => get_pawn_attacks(from, color),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_462_pawnless_king_pairs_and_1806_with_pawns() {
        assert_eq!(KingPairs::get(false).pairs.len(), 462);
        assert_eq!(KingPairs::get(true).pairs.len(), 1806);
    }

    #[test]
    fn symmetries_are_a_group_of_eight() {
        for t in 0..8 {
            let image: std::collections::BTreeSet<u8> = (0..64).map(|s| symmetry(t, s)).collect();
            assert_eq!(image.len(), 64);
        }
        let boards: std::collections::BTreeSet<Vec<u8>> =
            (0..8).map(|t| (0..64).map(|s| symmetry(t, s)).collect()).collect();
        assert_eq!(boards.len(), 8);
    }

    #[test]
    fn every_position_comes_back_from_its_index() {
        for name in ["KRvK", "KPvK", "KBBvK", "KPvKP"] {
            let index = TableIndex::new(name.parse().unwrap());
            let mut positions = 0;
            for i in (0..index.len()).step_by(7) {
                if let Some(p) = index.placement(i) {
                    positions += 1;
                    assert_eq!(index.index(&p), i, "{name} index {i}");
                    let board = index.board(&p).expect("a stored placement is a legal board");
                    assert_eq!(index.placement_of(&board).map(|q| index.index(&q)), Some(i));
                }
            }
            assert!(positions > 0);
        }
    }
}
