//! Connect 4 against the public test sets (`tests/data/connect4`) and the published results by
//! board size, and the engine against retrograde analysis on small boards.

use std::path::PathBuf;

use gamegraph::engine::{Engine, EngineSettings, Limits};
use gamegraph::game::{ExactHints, Payoff};
use gamegraph::{ExploredGame, Game, Model, Notation};
use gamegraph_games::connect4::Board;
use gamegraph_games::Connect4;

fn test_set(name: &str) -> Vec<(String, i32)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/connect4").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("{}: {e} (the public test files are in tests/data/connect4)", path.display())
    });
    text.lines()
        .map(|l| {
            let mut f = l.split_whitespace();
            (f.next().unwrap().to_string(), f.next().unwrap().parse().unwrap())
        })
        .collect()
}

fn check_set(name: &str, take: usize, threads: usize) {
    let game = Connect4::default();
    let engine = Engine::new(&game, EngineSettings { tt_mib: 16, threads, ..EngineSettings::default() });
    for (moves, expected) in test_set(name).into_iter().take(take) {
        engine.clear();
        let pos = game.parse_position(&moves).unwrap();
        let r = engine.solve(&pos, Limits::default());
        assert!(r.is_exact());
        assert_eq!(r.value, expected, "{name}: {moves}");
        // Through the positions the game solves itself, the principal variation goes on to the
        // end of the game (above them, it ends where the table lost the line), and at the end the
        // score is the value.
        let end = r.pv.iter().fold(pos, |b, &mv| game.play(&b, mv));
        let mut left = Vec::new();
        game.moves(&end, &mut left);
        let solved_directly = game.solves_directly(&pos);
        assert!(left.is_empty() || !solved_directly, "{name}: {moves}: the variation {:?} stops early", r.pv);
        let sign = 1 - 2 * (r.pv.len() % 2) as i32;
        if left.is_empty() {
            assert_eq!(sign * game.final_score(&end), expected, "{name}: {moves}: the variation {:?}", r.pv);
        }
        // The best move really achieves the score.
        let best = r.best.expect("a best move");
        let child = game.play(&pos, best);
        let after = if game.last_mover_won(&child) {
            expected
        } else {
            engine.clear();
            -engine.solve(&child, Limits::default()).value
        };
        assert_eq!(after, expected, "{name}: {moves} best move {}", best + 1);
    }
}

#[test]
fn end_game_set() {
    check_set("Test_L3_R1", 1000, 1);
}

#[test]
fn middle_game_sets() {
    check_set("Test_L2_R1", 1000, 1);
    check_set("Test_L2_R2", 1000, 2);
}

#[test]
fn beginning_sets() {
    check_set("Test_L1_R1", 1000, 2);
    check_set("Test_L1_R2", 20, 2);
    check_set("Test_L1_R3", 2, 2);
}

/// The published results by board size (docs/oracles.md) (first player: + win, - loss, = draw), every board up to
/// 6 x 5 and 5 x 6.
#[test]
fn board_sizes_agree_with_the_reference_table() {
    let table = [(4, 4, 0), (5, 4, 0), (6, 4, -1), (4, 5, 0), (5, 5, 0), (6, 5, 0), (4, 6, 0), (5, 6, 0)];
    for (w, h, sign) in table {
        let game = Connect4::new(w, h).unwrap();
        let engine =
            Engine::new(&game, EngineSettings { tt_mib: 32, threads: 2, ..EngineSettings::default() });
        let r = engine.solve(&game.start(), Limits::default());
        assert_eq!(r.value.signum(), sign, "{w} x {h}: score {}", r.value);
    }
}

/// Retrograde analysis of the whole 4 x 4 game, with the same scores as stakes, agrees with the
/// engine on a sample of positions; `Board` keys and notation round-trip on all of them.
#[test]
fn engine_agrees_with_retrograde_analysis_on_4x4() {
    let game = Connect4::new(4, 4).unwrap();
    let explored = ExploredGame::new(&game, game.start(), 10_000_000).unwrap();
    let solution = explored.solve(Model::Minimax);
    let engine = Engine::new(&game, EngineSettings { tt_mib: 8, threads: 1, ..EngineSettings::default() });
    let positions: &[Board] = &explored.positions;
    for (id, pos) in positions.iter().enumerate().step_by(97) {
        let expected = solution.value(id as u32).unwrap();
        let r = engine.solve(pos, Limits::default());
        assert_eq!(r.value, expected, "{}", game.format_position(pos));
        assert_eq!(game.parse_position(&game.format_position(pos)).unwrap(), *pos);
    }
}

/// Enhanced transposition cutoffs answer nodes from their children's table entries: they must
/// happen on real positions, and never change a score.
#[test]
fn enhanced_transposition_cutoffs_fire_and_agree() {
    let game = Connect4::default();
    let settings = |etc| EngineSettings { tt_mib: 16, threads: 1, etc, ..EngineSettings::default() };
    let (with, without) = (Engine::new(&game, settings(true)), Engine::new(&game, settings(false)));
    let mut cutoffs = [0, 0];
    for (moves, expected) in test_set("Test_L2_R2").into_iter().take(30) {
        let pos = game.parse_position(&moves).unwrap();
        for (engine, count) in [&with, &without].into_iter().zip(&mut cutoffs) {
            engine.clear();
            let r = engine.solve(&pos, Limits::default());
            assert_eq!(r.value, expected, "{moves}");
            *count += r.stats.etc_cutoffs;
        }
    }
    assert!(cutoffs[0] > 0, "no enhanced transposition cutoff in 30 positions");
    assert_eq!(cutoffs[1], 0, "enhanced transposition cutoffs while turned off");
}

/// A line typed by the user stays as typed in the analysis and its moves' positions, though the
/// board has other sequences (the game's own notation would pick one of them).
#[test]
fn an_analysed_line_keeps_the_sequence_typed() {
    use gamegraph_games::analysis::{analyze_named, AnalysisRequest, Budget};
    let game = Connect4::default();
    let typed = "2314";
    let own = game.format_position(&game.parse_position(typed).unwrap());
    assert_ne!(own, typed, "the game's own notation writes this board another way");
    let options = gamegraph_games::GameOptions::default();
    let analysis = analyze_named(AnalysisRequest {
        game: "connect4",
        options: &options,
        position: Some(typed),
        budget: Budget { time: Some(std::time::Duration::from_millis(200)), ..Budget::default() },
        settings: EngineSettings { tt_mib: 4, threads: 1, ..EngineSettings::default() },
        cache: None,
        interrupt: None,
        database_file: None,
    })
    .unwrap();
    assert_eq!(analysis.position, typed);
    let children: Vec<&str> = analysis.moves.iter().map(|m| m.position.as_str()).collect();
    assert_eq!(children, ["23141", "23142", "23143", "23144", "23145", "23146", "23147"]);
}
