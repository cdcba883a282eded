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
    get_between_rays, get_bishop_moves, get_bishop_rays, get_king_moves, get_knight_moves, get_pawn_attacks,
    get_rook_moves, get_rook_rays, BitBoard, Board, BoardBuilder, Color, Piece, Square,
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

impl Placement {
    /// The same placement with slot `slot` on `square` and `to_move` to move.
    ///
    /// Built in a register: writing one byte of a copy that is then read whole stalls the
    /// processor's store forwarding, and the builder's hot loops do this for every move.
    #[inline]
    pub fn with_move(&self, slot: usize, square: u8, to_move: Color) -> Placement {
        let shift = 8 * slot;
        let packed = pack(&self.squares) & !(0xff << shift) | u64::from(square) << shift;
        Placement { squares: unpack(packed), to_move }
    }
}

/// Five squares as the low bytes of a word.
#[inline]
fn pack(squares: &[u8; 5]) -> u64 {
    squares.iter().rev().fold(0, |word, &s| word << 8 | u64::from(s))
}

/// The five squares of a word's low bytes.
#[inline]
fn unpack(word: u64) -> [u8; 5] {
    let b = word.to_le_bytes();
    [b[0], b[1], b[2], b[3], b[4]]
}

/// How positions of one table are numbered.
#[derive(Debug, Clone)]
pub struct TableIndex {
    material: Material,
    slots: Vec<Slot>,
    /// The ranges of slots holding two or more identical pieces.
    repeated: Vec<std::ops::Range<usize>>,
    /// For each slot, the slots holding the same piece (itself included) as a range `start..end`:
    /// their squares are kept sorted, and a lone piece's range has one slot.
    identical: [(u8, u8); 5],
    pawns: bool,
    /// The king pairs of the table's symmetries.
    kings: &'static KingPairs,
    /// Indices per side to move.
    half: u64,
    /// For each slot, what one square more on it adds to the index.
    weights: [u64; 5],
    /// What one king pair number more adds to the index: the product of the other slots' ranges.
    pair_weight: u64,
}

/// The 8 symmetries of the square as maps of squares; the first two are the identity and the
/// left-right mirror, all that tables with pawns use.
const fn symmetry_of(t: usize, square: u8) -> u8 {
    let (mut file, mut rank) = (square & 7, square >> 3);
    if t & 4 != 0 {
        let f = file;
        file = rank;
        rank = f;
    }
    if t & 1 != 0 {
        file = 7 - file;
    }
    if t & 2 != 0 {
        rank = 7 - rank;
    }
    rank * 8 + file
}

/// [`symmetry_of`] for every symmetry and square.
const SYMMETRY: [[u8; 64]; 8] = {
    let mut table = [[0u8; 64]; 8];
    let mut t = 0;
    while t < 8 {
        let mut s = 0;
        while s < 64 {
            table[t][s] = symmetry_of(t, s as u8);
            s += 1;
        }
        t += 1;
    }
    table
};

/// Symmetry `t` applied to `square`.
#[inline]
fn symmetry(t: usize, square: u8) -> u8 {
    SYMMETRY[t][usize::from(square)]
}

/// The stored king pairs and, for each (White, Black) king square pair, its number.
#[derive(Debug)]
struct KingPairs {
    pairs: Vec<(u8, u8)>,
    number: Vec<u16>,
    /// For each (White, Black) king square pair, the symmetries that make it a stored pair, as
    /// a bit set: one bit, or two when both kings are on the a1-h8 diagonal.
    storing: Vec<u8>,
    /// For each pair, the symmetries other than the identity that leave both kings in place.
    fixing: Vec<u8>,
    /// For each (White, Black) king square pair, whether the identity alone stores it and no
    /// other symmetry fixes it: the pairs whose positions' indices need no symmetry.
    plain: Vec<bool>,
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
        let symmetries = if pawns { 2 } else { 8 };
        let mut storing = vec![0u8; 64 * 64];
        let mut fixing = vec![0u8; 64 * 64];
        for wk in 0..64u8 {
            for bk in 0..64u8 {
                let at = usize::from(wk) * 64 + usize::from(bk);
                for t in 0..symmetries {
                    let (w, b) = (symmetry(t, wk), symmetry(t, bk));
                    if number[usize::from(w) * 64 + usize::from(b)] != NO_PAIR {
                        storing[at] |= 1 << t;
                    }
                    if t > 0 && w == wk && b == bk {
                        fixing[at] |= 1 << t;
                    }
                }
            }
        }
        let plain = storing.iter().zip(&fixing).map(|(&s, &f)| s == 1 && f == 0).collect();
        Self { pairs, number, storing, fixing, plain }
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
        let kings = KingPairs::get(pawns);
        let half = slots[2..]
            .iter()
            .map(|s| if s.piece == Piece::Pawn { PAWN_SQUARES } else { 64 })
            .product::<u64>()
            * kings.pairs.len() as u64;
        // Identical pieces are adjacent slots.
        let mut identical = [(0u8, 0u8); 5];
        for i in 0..slots.len() {
            let start = (0..=i).find(|&j| slots[j] == slots[i]).unwrap_or(i);
            let end = (i..slots.len()).find(|&j| slots[j] != slots[i]).unwrap_or(slots.len());
            identical[i] = (start as u8, end as u8);
        }
        let mut repeated: Vec<_> = identical[..slots.len()]
            .iter()
            .filter(|&&(start, end)| end - start > 1)
            .map(|&(start, end)| usize::from(start)..usize::from(end))
            .collect();
        repeated.dedup();
        let mut weights = [0u64; 5];
        let mut weight = 1;
        for i in (2..slots.len()).rev() {
            weights[i] = weight;
            weight *= if slots[i].piece == Piece::Pawn { PAWN_SQUARES } else { 64 };
        }
        Self { material, slots, repeated, identical, pawns, half, weights, kings, pair_weight: weight }
    }

    /// The table's material.
    pub fn material(&self) -> Material {
        self.material
    }

    /// The pieces, kings first (White's, then Black's), then White's and Black's others.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The digits an index is written in, most significant first, as their number of values:
    /// the side to move (2), the king pair, then each other slot's square (64, or 48 for a pawn).
    pub fn digits(&self) -> Vec<u64> {
        let squares = self.slots[2..].iter().map(|s| if s.piece == Piece::Pawn { PAWN_SQUARES } else { 64 });
        [2, self.kings.pairs.len() as u64].into_iter().chain(squares).collect()
    }

    /// How many indices the table has (both sides to move, positions or not).
    pub fn len(&self) -> u64 {
        2 * self.half
    }

    /// Whether the table has no index (never: every table has positions).
    pub fn is_empty(&self) -> bool {
        self.half == 0
    }

    /// The canonical index of a legal placement in this table's orientation.
    pub fn index(&self, p: &Placement) -> u64 {
        let kings = self.kings;
        let mut best = u64::MAX;
        let mut storing = kings.storing[usize::from(p.squares[0]) * 64 + usize::from(p.squares[1])];
        while storing != 0 {
            let t = storing.trailing_zeros() as usize;
            storing &= storing - 1;
            let (wk, bk) = (symmetry(t, p.squares[0]), symmetry(t, p.squares[1]));
            let pair = kings.number[usize::from(wk) * 64 + usize::from(bk)];
            let mut squares = [0u8; 5];
            for (i, s) in squares.iter_mut().enumerate().take(self.slots.len()).skip(2) {
                *s = symmetry(t, p.squares[i]);
            }
            best = best.min(self.number(pair, &mut squares, p.to_move));
        }
        debug_assert!(best != u64::MAX, "a legal placement has its kings apart");
        best
    }

    /// The index of `p` (stored at `index`) with slot `slot` moved to `to` and the other side to
    /// move, computed from `index` where no symmetry is involved: the kings before and after the
    /// move have no symmetry but the identity that stores or fixes them. The digits that change
    /// are then the moved piece's (with its identical pieces, kept sorted) or the king pair's.
    /// `None` elsewhere: [`TableIndex::index`] then. Un-moves ask for millions of indices a
    /// second, and this skips the symmetries for most of them.
    #[inline(always)]
    pub fn index_after_move(&self, index: u64, p: &Placement, slot: usize, to: u8) -> Option<u64> {
        let kings = self.kings;
        let pair = |wk: u8, bk: u8| usize::from(wk) * 64 + usize::from(bk);
        let [wk, bk, ..] = p.squares;
        if !kings.plain[pair(wk, bk)] {
            return None;
        }
        let moved = if slot < 2 {
            let (nwk, nbk) = if slot == 0 { (to, bk) } else { (wk, to) };
            if !kings.plain[pair(nwk, nbk)] {
                return None;
            }
            let number = |at: usize| i64::from(kings.number[at]);
            (number(pair(nwk, nbk)) - number(pair(wk, bk))) * self.pair_weight as i64
        } else if self.identical[slot].1 - self.identical[slot].0 == 1 {
            (i64::from(to) - i64::from(p.squares[slot])) * self.weights[slot] as i64
        } else {
            // One of identical pieces: their squares stay sorted, so each one's digit may change.
            let range = usize::from(self.identical[slot].0)..usize::from(self.identical[slot].1);
            let mut squares = p.squares;
            squares[slot] = to;
            squares[range.clone()].sort_unstable();
            range.map(|i| (i64::from(squares[i]) - i64::from(p.squares[i])) * self.weights[i] as i64).sum()
        };
        let side = if p.to_move == Color::White { self.half as i64 } else { -(self.half as i64) };
        Some((index as i64 + moved + side) as u64)
    }

    /// The index of kings pair `pair` and the other pieces on `squares[2..]` (sorted here within
    /// groups of identical pieces).
    fn number(&self, pair: u16, squares: &mut [u8; 5], to_move: Color) -> u64 {
        let n = self.slots.len();
        for range in &self.repeated {
            squares[range.clone()].sort_unstable();
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
        self.position(self.decode(index), index)
    }

    /// Calls `f` with each index of `range` and [`TableIndex::placement`] of it: the same, with
    /// each placement decoded from the one before, which is cheaper than from its index.
    pub fn placements(&self, range: std::ops::Range<u64>, mut f: impl FnMut(u64, Option<Placement>)) {
        if range.is_empty() {
            return;
        }
        let mut p = self.decode(range.start);
        let last = self.slots.len() - 1;
        let end = if self.slots[last].piece == Piece::Pawn { 56 } else { 64 };
        for index in range {
            f(index, self.position(p, index));
            // Mostly the last slot's square just counts up.
            if p.squares[last] + 1 < end {
                p = p.with_move(last, p.squares[last] + 1, p.to_move);
            } else {
                p = self.decode_next(&p);
            }
        }
    }

    /// The placement numbered one more than `p`'s: the last slot's square counts up and
    /// carries into the slots before it, then into the king pair, then into the side to move.
    fn decode_next(&self, p: &Placement) -> Placement {
        let mut packed = pack(&p.squares);
        for i in (2..self.slots.len()).rev() {
            let shift = 8 * i;
            let (first, end) = if self.slots[i].piece == Piece::Pawn { (8, 56) } else { (0, 64) };
            if (packed >> shift & 0xff) + 1 < end {
                return Placement { squares: unpack(packed + (1 << shift)), to_move: p.to_move };
            }
            packed = packed & !(0xff << shift) | first << shift;
        }
        let pair =
            usize::from(self.kings.number[usize::from(p.squares[0]) * 64 + usize::from(p.squares[1])]) + 1;
        let (pair, to_move) =
            if pair == self.kings.pairs.len() { (0, !p.to_move) } else { (pair, p.to_move) };
        let (wk, bk) = self.kings.pairs[pair];
        packed = packed & !0xffff | u64::from(wk) | u64::from(bk) << 8;
        Placement { squares: unpack(packed), to_move }
    }

    /// `p` if it is a legal position stored at `index`, its index: see [`TableIndex::placement`].
    fn position(&self, p: Placement, index: u64) -> Option<Placement> {
        let n = self.slots.len();
        let mut occupied = 0u64;
        for (i, &s) in p.squares[..n].iter().enumerate() {
            if occupied & (1 << s) != 0 {
                return None;
            }
            occupied |= 1 << s;
            if i > 2 && self.slots[i] == self.slots[i - 1] && p.squares[i - 1] > s {
                return None;
            }
        }
        // Only kings both on the a1-h8 diagonal leave a second symmetry that keeps them stored.
        let on_diagonal = |s: u8| s & 7 == s >> 3;
        if !self.pawns && on_diagonal(p.squares[0]) && on_diagonal(p.squares[1]) && self.index(&p) != index {
            return None;
        }
        (!self.in_check(&p, !p.to_move)).then_some(p)
    }

    /// The placement that `index` numbers, position or not: [`TableIndex::placement`] without
    /// its checks, for indices known to be positions (those the solve has decided).
    pub fn decode(&self, index: u64) -> Placement {
        let to_move = if index >= self.half { Color::Black } else { Color::White };
        let mut rest = index % self.half;
        let mut packed = 0u64;
        for i in (2..self.slots.len()).rev() {
            let square = if self.slots[i].piece == Piece::Pawn {
                let s = rest % PAWN_SQUARES;
                rest /= PAWN_SQUARES;
                s + 8
            } else {
                let s = rest % 64;
                rest /= 64;
                s
            };
            packed |= square << (8 * i);
        }
        let (wk, bk) = self.kings.pairs[rest as usize];
        packed |= u64::from(wk) | u64::from(bk) << 8;
        Placement { squares: unpack(packed), to_move }
    }

    /// Whether `color`'s king is attacked in `p`.
    pub fn in_check(&self, p: &Placement, color: Color) -> bool {
        let king = p.squares[if color == Color::White { 0 } else { 1 }];
        self.attacked(p, king, !color)
    }

    /// Whether `by`'s pieces attack `square` in `p`. A slider is first tested against the lines
    /// through `square` (one table lookup): most are not on one, and need no look at the board.
    /// A piece on `square` itself is the one a move there would capture, not an attacker.
    pub fn attacked(&self, p: &Placement, square: u8, by: Color) -> bool {
        let occupied = self.occupied(p).0;
        let target = sq(square);
        self.slots.iter().zip(&p.squares).any(|(&slot, &s)| {
            slot.color == by && s != square && attack_line(slot, s, target) & occupied == 0
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
        // The identity, then the others that keep both kings in place (rarely any).
        let kings = self.kings;
        let mut fixing = kings.fixing[usize::from(p.squares[0]) * 64 + usize::from(p.squares[1])];
        let mut count = 1;
        while fixing != 0 {
            let t = fixing.trailing_zeros() as usize;
            fixing &= fixing - 1;
            let mut image = *p;
            for s in image.squares[..n].iter_mut() {
                *s = symmetry(t, *s);
            }
            count += usize::from(self.same_board(p, &image));
        }
        count
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
    fn cells(&self, p: &Placement) -> ([(u8, u8); 5], usize) {
        let n = self.slots.len();
        let mut cells = [(0u8, 0u8); 5];
        for (i, cell) in cells.iter_mut().enumerate().take(n) {
            *cell = (p.squares[i], self.identical[i].0);
        }
        cells[..n].sort_unstable();
        (cells, n)
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
#[inline]
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

/// The squares from which a slider (rook, bishop or queen) would reach `target` on an empty
/// board: where it can check a king or pin a piece to it. `None` for the other pieces, which
/// attack the same squares whatever stands between.
#[inline]
pub fn slider_rays(piece: Piece, target: Square) -> Option<BitBoard> {
    match piece {
        Piece::Rook => Some(get_rook_rays(target)),
        Piece::Bishop => Some(get_bishop_rays(target)),
        Piece::Queen => Some(get_rook_rays(target) | get_bishop_rays(target)),
        Piece::King | Piece::Knight | Piece::Pawn => None,
    }
}

/// The squares that must all be empty for `slot`'s piece on `from` to attack `target`: the
/// squares between them for a slider on a line through `target`, none for a piece that attacks
/// it whatever stands elsewhere, and [`NEVER`] for one that cannot attack it from there.
#[inline]
pub fn attack_line(slot: Slot, from: u8, target: Square) -> u64 {
    match slider_rays(slot.piece, target) {
        Some(rays) if rays.has(sq(from)) => get_between_rays(sq(from), target).0,
        Some(_) => NEVER,
        None if attacks(slot.piece, slot.color, sq(from), BitBoard::EMPTY).has(target) => 0,
        None => NEVER,
    }
}

/// An [`attack_line`] that is never empty: every square.
pub const NEVER: u64 = u64::MAX;

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

    /// Attacks found through the lines to the square are those of the pieces' own attack sets.
    #[test]
    fn attacked_squares_are_those_the_pieces_attack() {
        for name in ["KQvKR", "KBBvK", "KPvKP", "KRNvKB"] {
            let index = TableIndex::new(name.parse().unwrap());
            let (mut checked, mut attacked) = (0, 0);
            for i in (0..index.len()).step_by(9_973) {
                let p = index.decode(i);
                let occupied = index.occupied(&p);
                if occupied.len() as usize != index.slots.len() {
                    continue;
                }
                for square in 0..64u8 {
                    for by in [Color::White, Color::Black] {
                        let expected = index.slots.iter().zip(&p.squares).any(|(slot, &s)| {
                            slot.color == by
                                && s != square
                                && attacks(slot.piece, slot.color, sq(s), occupied).has(sq(square))
                        });
                        assert_eq!(index.attacked(&p, square, by), expected, "{name} {i} {square} {by:?}");
                        checked += 1;
                        attacked += usize::from(expected);
                    }
                }
            }
            assert!(attacked > 0 && attacked < checked, "{name}: {attacked} of {checked}");
        }
    }

    /// Placements decoded one from the other are those decoded from their indices, across the
    /// carries into the king pair and the side to move.
    #[test]
    fn placements_in_a_row_equal_the_decoded_ones() {
        for (name, starts) in [("KRvK", 3), ("KPvKP", 5), ("KBBvK", 7), ("KRPvKR", 11)] {
            let index = TableIndex::new(name.parse().unwrap());
            let pair_size = index.half / index.kings.pairs.len() as u64;
            let carries = [0, pair_size - 2, 2 * pair_size - 3, index.half - 2, index.len() - 2];
            let spread = (0..starts).map(|k| index.len() / starts * k + k * 97);
            for start in carries.into_iter().chain(spread) {
                let end = (start + 200).min(index.len());
                let mut seen = start;
                index.placements(start..end, |i, p| {
                    assert_eq!(i, seen, "{name}");
                    assert_eq!(p, index.placement(i), "{name} index {i}");
                    assert_eq!(
                        index.decode_next(&index.decode(i)),
                        index.decode((i + 1) % index.len()),
                        "{name} {i}"
                    );
                    seen += 1;
                });
                assert_eq!(seen, end, "{name}");
            }
        }
    }

    /// The index found from the parent's index alone is the placement's own, wherever it is
    /// found so; and it is found so for most moves, kings' and identical pieces' included.
    #[test]
    fn indices_after_a_move_equal_the_placements_indices() {
        for (name, step) in
            [("KRvK", 5), ("KPvK", 3), ("KBBvK", 101), ("KPvKP", 37), ("KPPvK", 41), ("KRNvKB", 100_003)]
        {
            let index = TableIndex::new(name.parse().unwrap());
            let (mut fast, mut all) = (0, 0);
            for i in (0..index.len()).step_by(step) {
                let Some(p) = index.placement(i) else { continue };
                let occupied = p.squares[..index.slots.len()].iter().fold(0u64, |o, &s| o | 1 << s);
                for slot in 0..index.slots.len() {
                    let pawn = index.slots[slot].piece == Piece::Pawn;
                    for to in
                        (0..64u8).filter(|&to| occupied & (1 << to) == 0 && (!pawn || (8..56).contains(&to)))
                    {
                        all += 1;
                        let q = p.with_move(slot, to, !p.to_move);
                        if let Some(j) = index.index_after_move(i, &p, slot, to) {
                            fast += 1;
                            assert_eq!(j, index.index(&q), "{name} index {i} slot {slot} to {to}");
                        }
                    }
                }
            }
            assert!(fast * 2 > all, "{name}: {fast} of {all} found from the parent's index");
        }
    }
}
