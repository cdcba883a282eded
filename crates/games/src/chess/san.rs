//! Standard algebraic notation (SAN), as chess players and books write moves (`Nbd7`, `exd5`,
//! `O-O`, `e8=Q#`): for output, beside the UCI notation (`e2e4`) that positions are read in.

use cozy_chess::{Board, Move, Piece, Square};

use super::evaluate::is_capture;
use super::material::letter;

/// The SAN of `mv`, a legal move of `board`, with `+` for check and `#` for mate.
pub fn san(board: &Board, mv: Move) -> String {
    let side = board.side_to_move();
    let piece = board.piece_on(mv.from).expect("a legal move starts on a piece");
    let mut text = String::new();
    if piece == Piece::King && board.color_on(mv.to) == Some(side) {
        // cozy-chess writes castling as the king taking its own rook.
        text.push_str(if mv.to.file() > mv.from.file() { "O-O" } else { "O-O-O" });
    } else {
        let capture = is_capture(board, mv);
        if piece == Piece::Pawn {
            if capture {
                text.push(file_char(mv.from));
            }
        } else {
            text.push(letter(piece));
            text.push_str(&disambiguation(board, mv, piece));
        }
        if capture {
            text.push('x');
        }
        text.push(file_char(mv.to));
        text.push(rank_char(mv.to));
        if let Some(promotion) = mv.promotion {
            text.push('=');
            text.push(letter(promotion));
        }
    }
    let mut after = board.clone();
    after.play_unchecked(mv);
    if !after.checkers().is_empty() {
        text.push(if after.generate_moves(|_| true) { '+' } else { '#' });
    }
    text
}

/// What tells `mv` apart from the moves of other pieces of its kind to the same square: its
/// file if that is enough, else its rank, else both; nothing if no other piece can go there.
fn disambiguation(board: &Board, mv: Move, piece: Piece) -> String {
    let mut rivals = Vec::new();
    board.generate_moves_for(board.colored_pieces(board.side_to_move(), piece), |moves| {
        rivals.extend(moves.into_iter().filter(|m| m.to == mv.to && m.from != mv.from).map(|m| m.from));
        false
    });
    if rivals.is_empty() {
        String::new()
    } else if rivals.iter().all(|s| s.file() != mv.from.file()) {
        file_char(mv.from).to_string()
    } else if rivals.iter().all(|s| s.rank() != mv.from.rank()) {
        rank_char(mv.from).to_string()
    } else {
        format!("{}{}", file_char(mv.from), rank_char(mv.from))
    }
}

fn file_char(square: Square) -> char {
    char::from(b'a' + square.file() as u8)
}

fn rank_char(square: Square) -> char {
    char::from(b'1' + square.rank() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SAN of a move given in UCI notation (castling as the king's two-square move).
    fn san_of(fen: &str, uci: &str) -> String {
        let board: Board = fen.parse().unwrap();
        let chess = super::super::Chess::new();
        let mv = gamegraph::Notation::parse_move(&chess, &board, uci).unwrap();
        san(&board, mv)
    }

    #[test]
    fn moves_are_written_as_players_write_them() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(san_of(start, "e2e4"), "e4");
        assert_eq!(san_of(start, "g1f3"), "Nf3");
        let open = "r3k2r/pppq1ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPPQ1PPP/R3K2R w KQkq - 0 1";
        assert_eq!(san_of(open, "e1g1"), "O-O");
        assert_eq!(san_of(open, "e1c1"), "O-O-O");
        assert_eq!(san_of(open, "c4f7"), "Bxf7+");
        // Other pieces of the kind reach the square: file, rank, or both.
        assert_eq!(san_of("4k3/8/8/8/8/8/5K2/R6R w - - 0 1", "a1d1"), "Rad1");
        assert_eq!(san_of("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3"), "R1a3");
        assert_eq!(san_of("7k/2N5/8/8/8/2N1N3/8/4K3 w - - 0 1", "c3d5"), "Nc3d5");
        assert_eq!(san_of("7k/8/8/8/8/2N1N3/8/4K3 w - - 0 1", "c3d5"), "Ncd5");
        assert_eq!(san_of("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5"), "exd5");
        assert_eq!(san_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), "exd6");
        assert_eq!(san_of("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1", "e7e8q"), "e8=Q");
        assert_eq!(san_of("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8"), "Rd8#");
    }
}
