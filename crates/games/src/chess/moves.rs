//! The move generator on placements: the legal moves of a table's position without building a
//! board, for the builder's forward pass, which visits every index of a table and would
//! otherwise spend a fifth of its time making cozy-chess boards. Tables hold no castling and no
//! en passant rights, so the moves are the pieces' own; a test checks them against cozy-chess's
//! legal moves on eleven tables (pawns, promotions, identical pieces).

use cozy_chess::{get_between_rays, get_king_moves, get_line_rays, get_pawn_attacks, BitBoard, Color, Piece};

use super::index::{attacks, slider_rays, sq, Placement, TableIndex};

/// The pieces a pawn may become.
pub const PROMOTIONS: [Piece; 4] = [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight];

/// A legal move that leaves its table: a capture, a promotion, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaving {
    /// The placement after the move, in the table's slots (the captured slot's square is the
    /// capturer's).
    pub after: Placement,
    /// The slot that moved.
    pub moved: usize,
    /// The slot taken, if any.
    pub captured: Option<usize>,
    /// What a pawn became, if it promoted.
    pub promoted: Option<Piece>,
}

/// What the moves of one placement are, as the forward pass needs them.
pub trait MoveVisitor {
    /// Whether only captures are wanted (promotions that capture among them): the other moves
    /// are then not generated, and [`MoveVisitor::inside`] never called. A reader raising a
    /// table's entries to its captures' values wants those alone, of some 30 moves a position.
    const CAPTURES_ONLY: bool = false;
    /// A legal move that stays in the table (neither a capture nor a promotion).
    fn inside(&mut self);
    /// A legal move that leaves the table.
    fn leaving(&mut self, mv: Leaving);
}

impl TableIndex {
    /// Tells `visitor` of every legal move of the position `p`, and returns whether its side to
    /// move is in check. `p` must be a legal position: the side not to move is not in check.
    pub fn visit_moves<V: MoveVisitor>(&self, p: &Placement, visitor: &mut V) -> bool {
        let n = self.slots().len();
        let mover = p.to_move;
        let (mut own, mut their) = (0u64, 0u64);
        for (slot, &s) in self.slots().iter().zip(&p.squares[..n]) {
            if slot.color == mover {
                own |= 1 << s;
            } else {
                their |= 1 << s;
            }
        }
        let occupied = own | their;
        let king = p.squares[king_slot(mover)];
        let threats = self.threats(p, king, occupied);
        // The opponent's king is never taken: the position is legal.
        let targets = their & !(1 << p.squares[king_slot(!mover)]);
        for (i, slot) in self.slots().iter().enumerate() {
            if slot.color != mover {
                continue;
            }
            let from = p.squares[i];
            let mut destinations = match slot.piece {
                Piece::King => get_king_moves(sq(from)).0 & !own & !threats.danger,
                // In double check only the king moves.
                _ if threats.checkers.count_ones() > 1 => 0,
                Piece::Pawn => pawn_destinations(from, mover, occupied, targets) & threats.evasions,
                piece => {
                    attacks(piece, mover, sq(from), BitBoard(occupied)).0
                        & (targets | !occupied)
                        & threats.evasions
                }
            };
            if threats.pinned & (1 << from) != 0 {
                destinations &= get_line_rays(sq(king), sq(from)).0;
            }
            if V::CAPTURES_ONLY {
                destinations &= targets;
            }
            let last_rank = if mover == Color::White { 7 } else { 0 };
            while destinations != 0 {
                let to = destinations.trailing_zeros() as u8;
                destinations &= destinations - 1;
                let captured = (targets & (1 << to) != 0)
                    .then(|| (2..n).find(|&j| p.squares[j] == to).expect("a piece stands on a target"));
                let after = p.with_move(i, to, !mover);
                if slot.piece == Piece::Pawn && to >> 3 == last_rank {
                    for piece in PROMOTIONS {
                        visitor.leaving(Leaving { after, moved: i, captured, promoted: Some(piece) });
                    }
                } else if captured.is_some() {
                    visitor.leaving(Leaving { after, moved: i, captured, promoted: None });
                } else {
                    visitor.inside();
                }
            }
        }
        threats.checkers != 0
    }

    /// What the opponent's pieces do to the king of the side to move in `p`, on `king`.
    fn threats(&self, p: &Placement, king: u8, occupied: u64) -> Threats {
        let mut threats = Threats { danger: 0, checkers: 0, evasions: u64::MAX, pinned: 0 };
        // Sliders see through the king: it cannot step back along their line.
        let without_king = BitBoard(occupied & !(1 << king));
        for (slot, &s) in self.slots().iter().zip(&p.squares) {
            if slot.color == p.to_move {
                continue;
            }
            let attacked = attacks(slot.piece, slot.color, sq(s), without_king).0;
            threats.danger |= attacked;
            if attacked & (1 << king) != 0 {
                threats.checkers |= 1 << s;
                threats.evasions = get_between_rays(sq(king), sq(s)).0 | 1 << s;
                continue;
            }
            let Some(rays) = slider_rays(slot.piece, sq(king)) else { continue };
            if rays.has(sq(s)) {
                let between = get_between_rays(sq(king), sq(s)).0 & occupied;
                if between.count_ones() == 1 {
                    // Only the mover's own pieces matter: an enemy piece between is not pinned.
                    threats.pinned |= between;
                }
            }
        }
        threats
    }
}

/// The opponent's hold on the king of the side to move.
struct Threats {
    /// The squares the opponent's pieces attack, seen through the king.
    danger: u64,
    /// The pieces giving check.
    checkers: u64,
    /// Where a piece other than the king must go to answer a single check (everywhere without
    /// check): onto the checker or between it and the king.
    evasions: u64,
    /// The squares of pieces that stand alone between the king and an enemy slider.
    pinned: u64,
}

/// The slot of `color`'s king: White's first, Black's second.
fn king_slot(color: Color) -> usize {
    usize::from(color == Color::Black)
}

/// Where a pawn of `color` on `from` may go: one square ahead if empty, two from its first rank
/// if both are empty, and diagonally ahead onto `targets`.
fn pawn_destinations(from: u8, color: Color, occupied: u64, targets: u64) -> u64 {
    let captures = get_pawn_attacks(sq(from), color).0 & targets;
    let (one, two, start) = match color {
        Color::White => (from + 8, from.wrapping_add(16), 1),
        Color::Black => (from - 8, from.wrapping_sub(16), 6),
    };
    let mut pushes = 0;
    if occupied & (1 << one) == 0 {
        pushes |= 1 << one;
        if from >> 3 == start && occupied & (1 << two) == 0 {
            pushes |= 1 << two;
        }
    }
    captures | pushes
}

#[cfg(test)]
mod tests {
    use gamegraph::rng::SplitMix64;

    use super::*;

    /// The captures a visitor is told of, as (moved slot, square reached, promotion).
    struct Captures<const ONLY: bool>(Vec<(usize, u8, Option<Piece>)>);

    impl<const ONLY: bool> MoveVisitor for Captures<ONLY> {
        const CAPTURES_ONLY: bool = ONLY;

        fn inside(&mut self) {
            assert!(!ONLY, "a visitor of captures only is told of no other move");
        }

        fn leaving(&mut self, mv: Leaving) {
            if mv.captured.is_some() {
                self.0.push((mv.moved, mv.after.squares[mv.moved], mv.promoted));
            } else {
                assert!(!ONLY, "a visitor of captures only is told of no other move");
            }
        }
    }

    /// A visitor of captures only is told of the captures every visitor is told of, no other
    /// move, and as many as cozy-chess's legal moves onto an enemy piece.
    #[test]
    fn captures_only_are_the_captures_of_all_moves() {
        let mut rng = SplitMix64(61);
        for name in ["KQvKR", "KPvKP", "KRPvKR", "KBNvKP", "KQRvKQ", "KRvKPP"] {
            let index = TableIndex::new(name.parse().unwrap());
            let mut captures = 0;
            for _ in 0..20_000 {
                let Some(p) = index.placement(rng.below(index.len())) else { continue };
                let (mut all, mut only) = (Captures::<false>(Vec::new()), Captures::<true>(Vec::new()));
                let check = index.visit_moves(&p, &mut all);
                assert_eq!(index.visit_moves(&p, &mut only), check);
                assert_eq!(all.0, only.0, "{name}: {p:?}");
                let board = index.board(&p).unwrap();
                let mut expected = 0;
                board.generate_moves(|moves| {
                    expected +=
                        moves.into_iter().filter(|mv| board.colors(!board.side_to_move()).has(mv.to)).count();
                    false
                });
                assert_eq!(only.0.len(), expected, "{name}: {board}");
                captures += expected;
            }
            assert!(captures > 1000, "{name}: {captures} captures");
        }
    }
}
