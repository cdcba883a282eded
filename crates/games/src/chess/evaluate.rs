//! What the alpha-beta engine needs to play chess beyond the rules: a tapered evaluation
//! (material and piece placement, blended from the middlegame to the endgame by the material
//! left), move ordering (captures by most valuable victim, least valuable attacker), the moves a
//! quiescence search still plays (captures and queen promotions; every move in check), check
//! extensions, and when a pass is safe for null-move pruning (never in check or with only pawns).
//!
//! The placement terms are simple functions of the square (centrality, advance), not tables
//! tuned on games: they give the engine sound chess (develop, centralise, push passed pawns in
//! the endgame, keep the king home until the queens are off) that search then sharpens.

use std::sync::OnceLock;

use cozy_chess::{BitBoard, Board, Color, Move, Piece, Square};
use gamegraph::{Evaluate, MoveOrdering, Payoff, Score, SearchContext, Selectivity};

use super::Chess;

/// Piece values in centipawns, middlegame and endgame, in `Piece` order (pawn, knight, bishop,
/// rook, queen, king).
const VALUE: [(Score, Score); 6] = [(90, 110), (320, 300), (330, 320), (480, 520), (950, 950), (0, 0)];

/// What each piece weighs in the game phase; a full board weighs [`FULL_PHASE`].
const PHASE: [Score; 6] = [0, 1, 1, 2, 4, 0];
const FULL_PHASE: Score = 24;

/// Two bishops against fewer.
const BISHOP_PAIR: (Score, Score) = (30, 50);

/// Having the move.
const TEMPO: Score = 10;

/// Middlegame and endgame placement bonus of each piece on each square, for White (Black's
/// squares are mirrored).
struct Placement {
    bonus: [[(Score, Score); 64]; 6],
}

impl Placement {
    fn get() -> &'static Placement {
        static TABLE: OnceLock<Placement> = OnceLock::new();
        TABLE.get_or_init(|| {
            let mut bonus = [[(0, 0); 64]; 6];
            for piece in Piece::ALL {
                for square in Square::ALL {
                    bonus[piece as usize][square as usize] = placement(piece, square);
                }
            }
            Placement { bonus }
        })
    }
}

/// The placement bonus of a White `piece` on `square`: `(middlegame, endgame)`.
fn placement(piece: Piece, square: Square) -> (Score, Score) {
    let (file, rank) = (square.file() as Score, square.rank() as Score);
    // 0 on the edge, 3 on the four centre squares.
    let centre = (7 - (2 * file - 7).abs().max((2 * rank - 7).abs())) / 2;
    let central_file = (7 - (2 * file - 7).abs()) / 2;
    match piece {
        Piece::Pawn => {
            let advance = rank - 1;
            let centre_pawn = if (3..=4).contains(&file) && (2..=4).contains(&rank) { 12 } else { 0 };
            (advance * 4 + centre_pawn, advance * advance * 3)
        }
        Piece::Knight => (centre * 12 - 20, centre * 8 - 12),
        Piece::Bishop => (centre * 6 - 6, centre * 4 - 4),
        Piece::Rook => (if rank == 6 { 20 } else { 0 } + central_file * 3, if rank == 6 { 10 } else { 0 }),
        Piece::Queen => (centre * 3 - 4, centre * 6 - 8),
        Piece::King => {
            let sheltered = if rank == 0 && !(3..=4).contains(&file) { 20 } else { 0 };
            (sheltered - rank * 15, centre * 12 - 18)
        }
    }
}

/// The middlegame and endgame totals of one side, and its share of the phase.
fn side_terms(pos: &Board, color: Color) -> (Score, Score, Score) {
    let table = Placement::get();
    let (mut mg, mut eg, mut phase) = (0, 0, 0);
    for piece in Piece::ALL {
        let pieces = pos.colored_pieces(color, piece);
        let (value_mg, value_eg) = VALUE[piece as usize];
        let count = pieces.len() as Score;
        mg += value_mg * count;
        eg += value_eg * count;
        phase += PHASE[piece as usize] * count;
        for square in pieces {
            let white_square = if color == Color::White { square } else { square.flip_rank() };
            let (b_mg, b_eg) = table.bonus[piece as usize][white_square as usize];
            mg += b_mg;
            eg += b_eg;
        }
    }
    if pos.colored_pieces(color, Piece::Bishop).len() >= 2 {
        mg += BISHOP_PAIR.0;
        eg += BISHOP_PAIR.1;
    }
    (mg, eg, phase)
}

/// Whether neither side has the material to mate: kings alone, or with one minor piece.
fn cannot_mate(pos: &Board) -> bool {
    let heavy = pos.pieces(Piece::Pawn) | pos.pieces(Piece::Rook) | pos.pieces(Piece::Queen);
    let minors = pos.pieces(Piece::Knight) | pos.pieces(Piece::Bishop);
    heavy.is_empty() && minors.len() <= 1
}

/// The value of the piece on `square` for ordering captures (a king counts as nothing: it is
/// never captured).
fn victim(pos: &Board, square: Square) -> Score {
    pos.piece_on(square).map_or(0, |p| VALUE[p as usize].0)
}

/// Whether `mv` takes something (en passant included) or promotes.
fn is_noisy(pos: &Board, mv: Move) -> bool {
    mv.promotion.is_some() || is_capture(pos, mv)
}

/// Whether `mv` takes a piece, en passant included.
pub fn is_capture(pos: &Board, mv: Move) -> bool {
    pos.colors(!pos.side_to_move()).has(mv.to)
        || (pos.piece_on(mv.from) == Some(Piece::Pawn) && mv.from.file() != mv.to.file())
}

/// The ordering key of a move: winning and equal captures by most valuable victim then least
/// valuable attacker, queen promotions, then the quiet moves.
fn order_key(pos: &Board, mv: Move) -> Score {
    let mut key = 0;
    if is_capture(pos, mv) {
        // En passant takes a pawn on another square.
        let taken = victim(pos, mv.to).max(VALUE[0].0);
        let attacker = pos.piece_on(mv.from).map_or(0, |p| VALUE[p as usize].0);
        key += 10_000 + taken * 16 - attacker / 16;
    }
    match mv.promotion {
        Some(Piece::Queen) => key += 9_000,
        Some(_) => key -= 1_000,
        None if key == 0 => key = placement_gain(pos, mv),
        None => {}
    }
    key
}

/// What a quiet move gains in middlegame placement: quiet moves are tried towards better
/// squares first, which matters most to late move reductions.
fn placement_gain(pos: &Board, mv: Move) -> Score {
    let Some(piece) = pos.piece_on(mv.from) else { return 0 };
    let white = |square: Square| if pos.side_to_move() == Color::White { square } else { square.flip_rank() };
    let bonus = &Placement::get().bonus[piece as usize];
    bonus[white(mv.to) as usize].0 - bonus[white(mv.from) as usize].0
}

impl Payoff for Chess {
    fn payoff_score(&self, loss: gamegraph::Stake) -> Score {
        loss.saturating_mul(-gamegraph::score::FINAL_SCALE)
    }
}

impl Evaluate for Chess {
    /// Material and placement for the side to move, blended by the material left, plus a tempo;
    /// 0 where no side can mate.
    fn evaluate(&self, pos: &Board) -> Score {
        if cannot_mate(pos) {
            return 0;
        }
        let us = pos.side_to_move();
        let (our_mg, our_eg, our_phase) = side_terms(pos, us);
        let (their_mg, their_eg, their_phase) = side_terms(pos, !us);
        let phase = (our_phase + their_phase).min(FULL_PHASE);
        let (mg, eg) = (our_mg - their_mg, our_eg - their_eg);
        (mg * phase + eg * (FULL_PHASE - phase)) / FULL_PHASE + TEMPO
    }
}

/// Puts the most promising of `pos`'s `moves` first (captures of big pieces by small ones,
/// promotions, then the quiet moves by their placement gain).
fn sort_by_promise(pos: &Board, moves: &mut [Move]) {
    moves.sort_by_cached_key(|&mv| -order_key(pos, mv));
}

impl MoveOrdering for Chess {
    fn order_moves(&self, pos: &Board, moves: &mut [Move], _depth: u32, _context: &mut SearchContext<'_>) {
        sort_by_promise(pos, moves);
    }

    fn move_id(&self, mv: Move) -> Option<u16> {
        Some(mv.from as u16 * 64 + mv.to as u16)
    }
}

impl Selectivity for Chess {
    fn horizon_moves(&self, pos: &Board, moves: &mut Vec<Move>) -> bool {
        let in_check = !pos.checkers().is_empty();
        if !in_check {
            moves.retain(|&mv| is_noisy(pos, mv) && matches!(mv.promotion, None | Some(Piece::Queen)));
        }
        sort_by_promise(pos, moves);
        !in_check
    }

    fn extends(&self, pos: &Board) -> bool {
        !pos.checkers().is_empty()
    }

    fn null_move(&self, pos: &Board) -> Option<Board> {
        let us = pos.colors(pos.side_to_move());
        let pawns_and_king = pos.pieces(Piece::Pawn) | pos.pieces(Piece::King);
        if (us & !pawns_and_king) == BitBoard::EMPTY {
            return None; // zugzwang is common with only pawns
        }
        pos.null_move()
    }

    fn is_quiet(&self, pos: &Board, mv: Move) -> bool {
        pos.checkers().is_empty() && !is_noisy(pos, mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(fen: &str) -> Score {
        Chess::new().evaluate(&fen.parse().unwrap())
    }

    #[test]
    fn the_start_is_level_and_mirrored_positions_score_alike() {
        assert_eq!(eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"), TEMPO);
        let white = eval("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let black = eval("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3");
        assert_eq!(white, black);
    }

    #[test]
    fn material_counts_and_bare_minors_are_drawn() {
        assert!(eval("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") > 800);
        assert!(eval("4k3/8/8/8/8/8/8/3QK3 b - - 0 1") < -800);
        assert_eq!(eval("4k3/8/8/8/8/8/8/3NK3 w - - 0 1"), 0);
    }

    #[test]
    fn horizon_moves_are_captures_unless_in_check() {
        let chess = Chess::new();
        let pos: Board = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1".parse().unwrap();
        let mut moves = Vec::new();
        gamegraph::Game::moves(&chess, &pos, &mut moves);
        assert!(chess.horizon_moves(&pos, &mut moves));
        assert_eq!(moves.len(), 1, "only exd5");
        let check: Board = "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1".parse().unwrap();
        let mut moves = Vec::new();
        gamegraph::Game::moves(&chess, &check, &mut moves);
        let all = moves.len();
        assert!(!chess.horizon_moves(&check, &mut moves));
        assert_eq!(moves.len(), all);
        assert_eq!(moves[0].to, Square::E2, "taking the checking rook first");
    }
}
