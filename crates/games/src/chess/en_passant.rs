//! En passant inside tables. A table's position holds no en passant right, but a double pawn
//! push next to an enemy pawn leads to the same pieces *with* the right to capture en passant:
//! another position, with one more move. Where that capture is legal, such positions are
//! numbered after the table's own indices and solved with them (their value is not stored: a
//! probe values them from their moves), so that the push that leads there gets its true value.

use cozy_chess::{Board, BoardBuilder, Color, File, Piece, Rank, Square};
use rayon::prelude::*;

use super::index::{Placement, TableIndex};

impl TableIndex {
    /// Whether both sides have pawns: only then can a table's moves lead to an en passant right.
    pub fn has_en_passant(&self) -> bool {
        let pawns = |c: Color| self.slots().iter().any(|s| s.color == c && s.piece == Piece::Pawn);
        pawns(Color::White) && pawns(Color::Black)
    }

    /// The files of the pawns that the side that just moved may have pushed two squares to reach
    /// `p` (on their fourth rank, both squares behind empty) and that the side to move can then
    /// capture en passant, legally: each is a position of its own.
    pub fn en_passant_files(&self, p: &Placement) -> Vec<u8> {
        let pusher = !p.to_move;
        let fourth = if pusher == Color::White { 3 } else { 4 };
        let occupied = self.occupied(p).0;
        let mut files = Vec::new();
        for (i, slot) in self.slots().iter().enumerate() {
            let at = p.squares[i];
            if slot.color != pusher || slot.piece != Piece::Pawn || at >> 3 != fourth {
                continue;
            }
            let (behind, start) = if pusher == Color::White { (at - 8, at - 16) } else { (at + 8, at + 16) };
            if occupied & (1 << behind | 1 << start) != 0 {
                continue;
            }
            if self.board_with_en_passant(p, at & 7).is_some_and(|b| has_en_passant_capture(&b)) {
                files.push(at & 7);
            }
        }
        files
    }

    /// The board of `p` with the right to capture en passant on `file`.
    pub fn board_with_en_passant(&self, p: &Placement, file: u8) -> Option<Board> {
        let board = self.board(p)?;
        let mut builder = BoardBuilder::from_board(&board);
        let rank = if p.to_move == Color::White { Rank::Sixth } else { Rank::Third };
        builder.en_passant = Some(Square::new(File::index(usize::from(file)), rank));
        builder.build().ok()
    }

    /// The position before the double push on `file` that led to `p`, if it is legal.
    pub fn before_double_push(&self, p: &Placement, file: u8) -> Option<Placement> {
        let pusher = !p.to_move;
        let (fourth, back) = if pusher == Color::White { (3u8, -16i8) } else { (4, 16) };
        let i = (0..self.slots().len()).find(|&i| {
            let s = self.slots()[i];
            s.color == pusher && s.piece == Piece::Pawn && p.squares[i] == fourth * 8 + file
        })?;
        let mut q = *p;
        q.squares[i] = p.squares[i].wrapping_add_signed(back);
        q.to_move = pusher;
        (!self.in_check(&q, p.to_move)).then_some(q)
    }
}

/// The positions of a table with an en passant right, as (index of the position without it,
/// file), in increasing order: numbered after the table's indices.
#[derive(Debug, Default)]
pub struct EnPassantPositions {
    list: Vec<(u64, u8)>,
}

impl EnPassantPositions {
    /// Finds them in a table (none unless both sides have pawns).
    pub fn find(index: &TableIndex) -> Self {
        if !index.has_en_passant() {
            return Self::default();
        }
        let list = (0..index.len())
            .into_par_iter()
            .flat_map_iter(|i| {
                let files = index.placement(i).map(|p| index.en_passant_files(&p)).unwrap_or_default();
                files.into_iter().map(move |f| (i, f))
            })
            .collect();
        Self { list }
    }

    /// How many there are.
    pub fn len(&self) -> u64 {
        self.list.len() as u64
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The `n`th: the index of the position without the right, and the file.
    pub fn get(&self, n: u64) -> (u64, u8) {
        self.list[n as usize]
    }

    /// The number of the position at `index` with the right on `file`, if it has it.
    pub fn number(&self, index: u64, file: u8) -> Option<u64> {
        self.list.binary_search(&(index, file)).ok().map(|n| n as u64)
    }
}

/// Whether the side to move can capture en passant.
pub fn has_en_passant_capture(board: &Board) -> bool {
    let Some(file) = board.en_passant() else { return false };
    let rank = if board.side_to_move() == Color::White { Rank::Sixth } else { Rank::Third };
    let target = Square::new(file, rank);
    let pawns = board.colored_pieces(board.side_to_move(), Piece::Pawn);
    let mut found = false;
    board.generate_moves_for(pawns, |moves| {
        found |= moves.to.has(target);
        found
    });
    found
}

/// The same board without its en passant square.
pub fn without_en_passant(board: &Board) -> Board {
    let mut builder = BoardBuilder::from_board(board);
    builder.en_passant = None;
    builder.build().expect("a legal board stays legal without its en passant square")
}
