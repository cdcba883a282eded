//! Tests of the board, the rules and the small solver against minimax.

use super::*;
use gamegraph::rng::SplitMix64;

/// The value of `b` by plain minimax over the rules, the oracle of the small solver.
fn minimax(game: &Connect4, b: &Board) -> i32 {
    memo_minimax(game, b, &mut std::collections::HashMap::new())
}

/// The positions of one game of random moves on `game`'s board, the final one excepted.
fn random_line(game: &Connect4, rng: &mut SplitMix64) -> Vec<Board> {
    let mut line = Vec::new();
    let mut b = game.start();
    let mut moves = Vec::new();
    loop {
        moves.clear();
        game.moves(&b, &mut moves);
        if moves.is_empty() {
            return line;
        }
        line.push(b);
        b = game.play(&b, moves[rng.below(moves.len() as u64) as usize]);
    }
}

/// Positions that the small solver takes, with at most 18 empty cells (plain minimax of
/// positions with 21 takes minutes), not over, from random play on boards of several sizes.
fn small_positions(count: usize) -> Vec<(Connect4, Board)> {
    let mut rng = SplitMix64(7);
    let mut out = Vec::new();
    let sizes = [(7, 6), (5, 4), (4, 4), (6, 5), (4, 3)];
    while out.len() < count {
        let (width, height) = sizes[out.len() % sizes.len()];
        let game = Connect4::new(width, height).expect("a board that fits");
        let line = random_line(&game, &mut rng);
        let mut small = line.into_iter().filter(|b| game.cells() - b.moves <= SMALL_EMPTIES.min(18));
        if let Some(b) = small.find(|_| rng.below(3) == 0) {
            out.push((game, b));
        }
    }
    out
}

/// The small solver is exact and fail-soft on every window: a result at or below alpha
/// bounds the value from above, at or above beta from below, and else is the value. The
/// positions include threats to block, double threats and full boards but for a cell.
#[test]
fn small_solver_is_fail_soft_on_every_window() {
    let (mut forced, mut lost, mut played) = (0, 0, 0);
    let context = &mut SearchContext::default();
    for (game, b) in small_positions(300) {
        let value = minimax(&game, &b);
        let threats = game.winning_cells(b.current ^ b.mask, b.mask) & game.playable(&b);
        forced += usize::from(threats != 0);
        lost += usize::from(threats.count_ones() >= 2);
        assert!(game.solves_directly(&b));
        let windows = (-12..12).map(|a| (a, a + 1)).chain([(-30, 30), (-3, 2), (0, 5)]);
        for (alpha, beta) in windows {
            let r = game.solve_directly(&b, alpha, beta, context).expect("solved");
            let nodes = context.take_nodes();
            crate::testing::check_fail_soft(r, value, alpha, beta, &game.format_position(&b));
            // The nodes are the positions played into: none when two threats cannot be
            // blocked, as the engine counted the position handed over.
            assert!(threats.count_ones() < 2 || nodes == 0, "{nodes} nodes in a lost position");
            played += nodes;
        }
    }
    assert!(forced > 20 && lost > 5, "too few threats among the positions: {forced}, {lost}");
    assert!(played > 0);
}

/// The small solver's table keeps one board size at a time: the same stones on a board one
/// column wider are another position, with another score, under the same key.
#[test]
fn the_small_solvers_table_keeps_board_sizes_apart() {
    let narrow = Connect4::new(4, 4).expect("a board that fits");
    let wide = Connect4::new(5, 4).expect("a board that fits");
    let mut rng = SplitMix64(5);
    let (mut memo_narrow, mut memo_wide) = (Default::default(), Default::default());
    let mut differ = 0;
    // One owner for both boards, on one thread: the table is the same.
    let context = &mut SearchContext::default();
    for _ in 0..20 {
        for b in random_line(&narrow, &mut rng).iter().filter(|b| b.moves >= 2) {
            let w = wide.board(b.current, b.mask, b.moves);
            let exact = (memo_minimax(&narrow, b, &mut memo_narrow), memo_minimax(&wide, &w, &mut memo_wide));
            differ += usize::from(exact.0 != exact.1);
            for (game, b, exact) in [(&narrow, b, exact.0), (&wide, &w, exact.1), (&narrow, b, exact.0)] {
                assert!(game.solves_directly(b));
                let solved = game.solve_directly(b, -30, 30, context).expect("solved");
                assert_eq!(solved, exact, "{} on {}x4", game.format_position(b), game.width);
            }
        }
    }
    assert!(differ > 20, "only {differ} positions worth differently on the two boards");
}

#[test]
fn detects_fours_in_every_direction() {
    let g = Connect4::default();
    for (moves, won) in [
        ("1212121", true),
        ("1122334", true),
        ("12234334544", true),
        ("76654554344", true),
        ("1223343444", false),
    ] {
        let b = g.parse_position(moves).unwrap();
        assert_eq!(g.last_mover_won(&b), won, "{moves}");
    }
}

#[test]
fn rejects_bad_sequences() {
    let g = Connect4::default();
    assert_eq!(g.parse_position("12121218").unwrap_err().column, 8);
    assert_eq!(g.parse_position("12121212").unwrap_err().column, 8, "continues after a win");
    assert_eq!(g.parse_position("1111111").unwrap_err().column, 7, "column full");
    assert_eq!(g.parse_position("4x").unwrap_err().column, 2);
    assert_eq!(g.parse_position("40").unwrap_err().column, 2);
}

#[test]
fn notation_round_trips_through_a_sequence() {
    let g = Connect4::default();
    for s in ["", "4", "4453", "444444", "1234567123", "37313333717124171162542"] {
        let b = g.parse_position(s).unwrap();
        let again = g.parse_position(&g.format_position(&b)).unwrap();
        assert_eq!(again, b, "{s}");
    }
}

#[test]
fn sizes_must_fit_in_64_bits() {
    assert!(Connect4::new(8, 7).is_ok());
    assert!(Connect4::new(9, 7).is_err());
    assert!(Connect4::new(0, 4).is_err());
    assert!(Connect4::new(16, 3).is_ok());
}

/// Minimax over the rules, remembering the positions valued in `memo` (shared between
/// positions of one board size), so that positions with more empty cells stay cheap.
fn memo_minimax(game: &Connect4, b: &Board, memo: &mut std::collections::HashMap<(u64, u64), i32>) -> i32 {
    if let Some(&v) = memo.get(&(b.current, b.mask)) {
        return v;
    }
    let mut moves = Vec::new();
    game.moves(b, &mut moves);
    let v = if moves.is_empty() {
        -game.final_loss(b)
    } else {
        moves.iter().map(|&m| -memo_minimax(game, &game.play(b, m), memo)).max().unwrap_or(0)
    };
    memo.insert((b.current, b.mask), v);
    v
}

/// The follow-up bounds hold the exact value of positions from random play, on boards of
/// even and odd heights, for the whole window and for null windows around 0; each of the four
/// bounds (cannot win, loses, cannot lose, wins) is met many times, as are the bounds that
/// need two or more odd columns and those that need the aftereven.
#[test]
fn follow_up_bounds_hold_the_value() {
    let mut rng = SplitMix64(11);
    let mut narrowed = [0usize; 6]; // high 0, high -1, low 0, low 1, two odd columns or more, aftereven
    for (width, height, empties) in [(4, 4, 14), (5, 4, 12), (4, 5, 13), (6, 3, 12), (7, 6, 10)] {
        let game = Connect4::new(width, height).expect("a board that fits");
        let mut memo = std::collections::HashMap::new();
        for _ in 0..150 {
            for b in random_line(&game, &mut rng).iter().filter(|b| game.cells() - b.moves <= empties) {
                let value = memo_minimax(&game, b, &mut memo);
                let p = game.format_position(b);
                for window in [(-i32::MAX, i32::MAX), (-3, -2), (-2, -1), (-1, 0), (0, 1), (1, 2), (2, 3)] {
                    let (low, high) = game.follow_up_bounds(b.current, b.mask, (-100, 100), window);
                    assert!(
                        low <= value && value <= high,
                        "{width}x{height} {p} in {window:?}: {value} not in [{low}, {high}]"
                    );
                }
                let (low, high) = game.follow_up_bounds(b.current, b.mask, (-100, 100), (-100, 100));
                assert!(
                    low <= value && value <= high,
                    "{width}x{height} {p}: {value} not in [{low}, {high}]"
                );
                let odd = game.playable_cells(b.mask) & !game.first_of_pairs;
                let empty = game.board & !b.mask;
                let ours = b.current | (empty & (game.first_of_pairs | odd));
                let aftereven = odd.count_ones().is_multiple_of(2) && high == -1 && game.has_four(ours);
                let two_odd = odd.count_ones() >= 2 && (high <= 0 || low >= 0);
                let hits = [high == 0, high == -1, low == 0, low == 1, two_odd, aftereven];
                for (count, hit) in narrowed.iter_mut().zip(hits) {
                    *count += usize::from(hit);
                }
            }
        }
    }
    assert!(narrowed.iter().all(|&n| n >= 20), "each bound met often enough: {narrowed:?}");
}

#[test]
fn mirrored_positions_share_a_key() {
    let g = Connect4::default();
    let a = g.parse_position("1123").unwrap();
    let b = g.parse_position("7765").unwrap();
    assert_eq!(g.key(&a), g.key(&b));
    assert_ne!(g.key(&a), g.key(&g.parse_position("1124").unwrap()));
}
