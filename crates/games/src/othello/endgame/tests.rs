//! The small solver of the last empties against oracles written here: plain minimax and plain
//! alpha-beta over the `Game` trait, on every null window and on wide ones, with passes,
//! finished games, stability cutoffs and its table kept from window to window.

use super::*;
use crate::othello::{random_position, Board, Othello, PASS};
use gamegraph::{Game, Notation, SolverOwner};

/// Null windows at and around the value of random positions, and far above it, where the
/// stable discs cut off: the small solver's fail-soft answers hold, and some cutoffs happen.
/// The stable discs' bound itself never falls below the value, and near the end it often
/// meets it.
#[test]
fn small_solver_with_stability_cutoffs_equals_minimax() {
    let owner = SolverOwner::new();
    let mut rng = gamegraph::rng::SplitMix64(11);
    let (mut cutoffs, mut tight) = (0, 0);
    for i in 0..160 {
        let b = random_position(1 + i % 8, &mut rng).expect("random games reach the board");
        let exact = minimax(&b);
        if let Some(high) = stability_cutoff(b.player, b.opponent, 63) {
            assert!(high >= exact, "{}: bound {high} below {exact}", Othello.format_position(&b));
            tight += usize::from(high == exact);
        }
        if b.empties() < 7 {
            continue;
        }
        for a in [exact - 3, exact - 1, exact, exact + 1, 20, 40, 56] {
            let a = a.clamp(-64, 63);
            cutoffs += usize::from(stability_cutoff(b.player, b.opponent, a).is_some());
            check_fail_soft(solve_small(b.player, b.opponent, a, a + 1, owner, &mut 0), exact, a, a + 1, &b);
        }
    }
    assert!(cutoffs > 10 && tight > 10, "{cutoffs} stability cutoffs, {tight} tight bounds");
}

/// The small solver's parity levels (six empties and fewer), with passes and finished games
/// (full boards too) among them, against minimax on every null window and on wide ones:
/// exact inside the window, a bound on the right side outside it.
#[test]
fn small_solver_tail_is_fail_soft_on_every_window() {
    let owner = SolverOwner::new();
    let mut rng = gamegraph::rng::SplitMix64(23);
    let (mut passes, mut over) = (0, 0);
    for i in 0..300 {
        let b = random_position(1 + i % 6, &mut rng).expect("random games reach the board");
        // The same discs with the other side to move, which may have to pass, and the
        // position after a move, where the game may be over.
        let mut moves = Vec::new();
        Othello.moves(&b, &mut moves);
        let child = Othello.play(&b, moves[i as usize % moves.len()]);
        for b in [b, b.passed(), child] {
            let exact = minimax(&b);
            let mut moves = Vec::new();
            Othello.moves(&b, &mut moves);
            passes += usize::from(moves == [PASS]);
            over += usize::from(moves.is_empty());
            assert_eq!(
                solve_small(b.player, b.opponent, -64, 64, owner, &mut 0),
                exact,
                "{}",
                Othello.format_position(&b)
            );
            for a in -64..64 {
                check_fail_soft(
                    solve_small(b.player, b.opponent, a, a + 1, owner, &mut 0),
                    exact,
                    a,
                    a + 1,
                    &b,
                );
            }
            for (a, w) in [(exact - 5, exact + 3), (-64, exact - 2), (exact + 2, 64)] {
                check_fail_soft(solve_small(b.player, b.opponent, a, w, owner, &mut 0), exact, a, w, &b);
            }
        }
    }
    assert!(passes > 20 && over > 20, "{passes} passes, {over} finished games");
}

/// The levels the small solver keeps in its table, from 9 empties to `SMALL` (8, the first,
/// is in the tests above, against minimax), the table kept from window to window and from
/// position to position, against plain alpha-beta over the Game trait: exact inside each
/// window, a bound on the right side outside it. Each position is probed on null windows
/// around its value, then its children on theirs, where the parent's entries (bounds from
/// many windows) settle or narrow many nodes. A solve of a position solved before finds its
/// entries and visits fewer positions.
#[test]
fn small_solver_stored_levels_are_fail_soft_on_every_window() {
    let owner = SolverOwner::new();
    let mut rng = gamegraph::rng::SplitMix64(31);
    for i in 0..40 {
        let b = random_position(9 + i % (SMALL - 8), &mut rng).expect("random games reach the board");
        let mut moves = Vec::new();
        Othello.moves(&b, &mut moves);
        let children = moves.iter().map(|&m| Othello.play(&b, m));
        for b in std::iter::once(b).chain(children) {
            let exact = alpha_beta(&b, -65, 65);
            for a in (exact - 6).max(-64)..(exact + 6).min(63) {
                check_fail_soft(
                    solve_small(b.player, b.opponent, a, a + 1, owner, &mut 0),
                    exact,
                    a,
                    a + 1,
                    &b,
                );
            }
            for (a, w) in [(exact - 5, exact + 3), (-64, exact - 2), (exact + 2, 64), (exact - 1, exact + 1)]
            {
                check_fail_soft(solve_small(b.player, b.opponent, a, w, owner, &mut 0), exact, a, w, &b);
            }
        }
        let (mut first, mut again) = (0, 0);
        let c = random_position(9 + i % (SMALL - 8), &mut rng).expect("random games reach the board");
        let exact = alpha_beta(&c, -65, 65);
        assert_eq!(
            solve_small(c.player, c.opponent, -64, 64, owner, &mut first),
            exact,
            "{}",
            Othello.format_position(&c)
        );
        assert_eq!(solve_small(c.player, c.opponent, -64, 64, owner, &mut again), exact);
        assert!(again < first || first == 0, "{again} nodes again against {first}");
    }
}

/// The exact score within `(alpha, beta)` by plain alpha-beta over the Game trait, in the
/// order the moves are generated.
fn alpha_beta(b: &Board, mut alpha: i32, beta: i32) -> i32 {
    let mut moves = Vec::new();
    Othello.moves(b, &mut moves);
    if moves.is_empty() {
        return b.final_score();
    }
    for &m in &moves {
        alpha = alpha.max(-alpha_beta(&Othello.play(b, m), -beta, -alpha));
        if alpha >= beta {
            break;
        }
    }
    alpha
}

/// The exact score by plain minimax over the Game trait.
fn minimax(b: &Board) -> i32 {
    let mut moves = Vec::new();
    Othello.moves(b, &mut moves);
    if moves.is_empty() {
        return b.final_score();
    }
    moves.iter().map(|&m| -minimax(&Othello.play(b, m))).max().unwrap()
}

/// Checks the fail-soft result `v` of a search of a position worth `exact` in `(a, w)`.
fn check_fail_soft(v: i32, exact: i32, a: i32, w: i32, b: &Board) {
    crate::testing::check_fail_soft(v, exact, a, w, &Othello.format_position(b));
}

/// The small solver against plain minimax over the Game trait.
#[test]
fn small_solver_equals_minimax() {
    let owner = SolverOwner::new();
    let text = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";
    let mut b = Othello.parse_position(text).unwrap();
    // Play the first legal moves until 7 empties remain, checking every window on the way.
    while b.empties() > 0 {
        if b.empties() <= 8 {
            let exact = minimax(&b);
            assert_eq!(
                solve_small(b.player, b.opponent, -64, 64, owner, &mut 0),
                exact,
                "{}",
                Othello.format_position(&b)
            );
            for (a, w) in [(-64, exact), (exact, 64), (exact - 1, exact + 1)] {
                check_fail_soft(solve_small(b.player, b.opponent, a, w, owner, &mut 0), exact, a, w, &b);
            }
        }
        let mut moves = Vec::new();
        Othello.moves(&b, &mut moves);
        if moves.is_empty() {
            break;
        }
        b = Othello.play(&b, moves[moves.len() / 2]);
    }
}
