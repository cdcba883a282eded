//! Mate solving against an exhaustive search written separately here (plain AND/OR recursion
//! over every legal move: no table, no ordering, no shortcut at the last move), on mates in 1, 2
//! and 3 of our own composition: the same set of first moves, and the shortest mate exactly as
//! long as claimed.

use cozy_chess::{Board, Move};
use gamegraph_games::chess::mate::{legal_moves, MateSearch};
use gamegraph_games::chess::san::san;

/// Whether the side to move mates in at most `n` moves.
fn mates(board: &Board, n: u32) -> bool {
    n > 0 && legal_moves(board).into_iter().any(|mv| mated(board, mv, n - 1))
}

/// Whether, after `mv`, the defender is mated or every reply allows a mate in at most `n`.
fn mated(board: &Board, mv: Move, n: u32) -> bool {
    let mut after = board.clone();
    after.play_unchecked(mv);
    let replies = legal_moves(&after);
    if replies.is_empty() {
        return !after.checkers().is_empty();
    }
    replies.into_iter().all(|reply| {
        let mut next = after.clone();
        next.play_unchecked(reply);
        mates(&next, n)
    })
}

/// Checks a puzzle: the solver's first moves for mate in `n` are the oracle's, in SAN `expected`
/// when given, and there is no shorter mate.
fn check(fen: &str, n: u32, expected: Option<&[&str]>) {
    let board: Board = fen.parse().unwrap();
    let mut search = MateSearch::new();
    let found: Vec<Move> = search.mating_moves(&board, n);
    let oracle: Vec<Move> = legal_moves(&board).into_iter().filter(|&mv| mated(&board, mv, n - 1)).collect();
    assert_eq!(found, oracle, "{fen}: mate in {n}");
    assert!(!found.is_empty(), "{fen} has a mate in {n}");
    assert!(!mates(&board, n - 1), "{fen} has a mate in fewer than {n}");
    assert_eq!(MateSearch::new().shortest_mate(&board, n + 1), Some(n), "{fen}");
    if let Some(expected) = expected {
        let names: Vec<String> = found.iter().map(|&mv| san(&board, mv)).collect();
        assert_eq!(names, expected, "{fen}");
    }
}

#[test]
fn mates_in_one() {
    check("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1, Some(&["Rd8#"]));
    check("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1, Some(&["Qxf7#"]));
    check("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1", 1, None);
}

#[test]
fn mates_in_two() {
    check("k7/8/2K5/8/8/8/8/7R w - - 0 1", 2, Some(&["Kb6", "Kc7"]));
    check("2r3k1/5ppp/8/8/8/8/3R1PPP/3R2K1 w - - 0 1", 2, Some(&["Rd8+"]));
}

#[test]
fn mates_in_three() {
    check("k7/8/8/3K4/8/8/8/7R w - - 0 1", 3, Some(&["Kc6"]));
    check("6k1/5p1p/6p1/8/8/8/1Q3PPP/3R2K1 w - - 0 1", 1, Some(&["Rd8#"]));
}

#[test]
fn no_mate_is_claimed_where_there_is_none() {
    let board: Board = "4k3/8/8/8/8/8/8/4K2R w - - 0 1".parse().unwrap();
    let mut search = MateSearch::new();
    assert!(search.mating_moves(&board, 2).is_empty());
    assert!(!mates(&board, 2));
    // Stalemate is no mate: the only "mating" try stalemates.
    let board: Board = "k7/8/1Q6/8/8/8/8/4K3 w - - 0 1".parse().unwrap();
    assert!(!search.mating_moves(&board, 1).iter().any(|&mv| san(&board, mv) == "Qb7"));
}
