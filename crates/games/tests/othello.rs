//! Othello against the public oracles: the standard perft counts and the FFO endgame test
//! positions #1-#19 and #59 (exact score and a best move, and for #1-#19 a principal variation
//! that reaches that score), solved by the generic engine.

use gamegraph::engine::{Engine, EngineSettings, Limits, UNLIMITED};
use gamegraph::{Game, Notation};

use gamegraph_games::othello::{Board, PASS};
use gamegraph_games::{BuiltinGame, Othello};

fn ffo(file: &str) -> Vec<(String, i32, Vec<String>)> {
    let path = format!("{}/../../tests/data/othello/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (the public FFO files are in tests/data/othello)"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut fields = line.split(';').map(str::trim).filter(|f| !f.is_empty());
            let position = fields.next().unwrap().to_string();
            let scored: Vec<(String, i32)> = fields
                .map(|f| {
                    let (m, s) = f.split_once(':').unwrap();
                    (m.to_string(), s.trim().parse().unwrap())
                })
                .collect();
            let best = scored[0].1;
            let moves = scored.iter().filter(|s| s.1 == best).map(|s| s.0.clone()).collect();
            (position, best, moves)
        })
        .collect()
}

#[test]
fn ffo_1_to_19_exact_scores_and_best_moves() {
    let engine_settings = EngineSettings { tt_mib: 64, threads: 2, ..EngineSettings::default() };
    for (i, (text, score, best)) in ffo("fforum-1-19.obf").into_iter().enumerate() {
        let pos = Othello.parse_position(&text).unwrap();
        let engine = Engine::new(&Othello, engine_settings.clone());
        let r = engine.solve(&pos, Limits::default());
        assert_eq!(r.value, score, "FFO #{}", i + 1);
        let mv = Othello.format_move(&pos, r.best.unwrap());
        assert!(best.contains(&mv), "FFO #{}: {mv} is not among {best:?}", i + 1);
        // The principal variation goes on below the engine, through the positions the game
        // solves itself, to the end of the game, where the score is the value.
        let end = r.pv.iter().fold(pos, |b, &mv| Othello.play(&b, mv));
        let mut moves = Vec::new();
        Othello.moves(&end, &mut moves);
        assert!(moves.is_empty(), "FFO #{}: the variation {:?} stops before the end", i + 1, r.pv);
        let sign = 1 - 2 * (r.pv.len() % 2) as i32;
        assert_eq!(sign * end.final_score(), score, "FFO #{}: the variation {:?}", i + 1, r.pv);
        // One search with the whole window, its subtrees split over both threads, agrees.
        engine.clear();
        assert_eq!(engine.window(&pos, UNLIMITED, -65, 65), score, "FFO #{}, whole window", i + 1);
    }
}

/// FFO #59 (34 empties) is a wipeout, +64. Its proof is short because the game bounds every
/// score by 64 (`ExactHints::score_bounds`): once a probe shows +64, nothing is left to refute.
/// About a million nodes; with the engine's default bounds (any score), more than a billion.
#[test]
fn ffo_59_wipeout_is_proven_within_the_score_range() {
    let (text, score, best) = ffo("fforum-40-59.obf").swap_remove(19);
    let pos = Othello.parse_position(&text).unwrap();
    let engine =
        Engine::new(&Othello, EngineSettings { tt_mib: 64, threads: 1, ..EngineSettings::default() });
    let r = engine.solve(&pos, Limits { nodes: Some(20_000_000), ..Limits::default() });
    assert!(r.complete, "FFO #59 not solved in 20 M nodes");
    assert_eq!((r.value, score), (64, 64));
    assert!(best.contains(&Othello.format_move(&pos, r.best.unwrap())));
}

#[test]
fn fast_perft_equals_the_generic_count_from_several_positions() {
    let start = Board::start();
    assert_eq!(Othello.perft(&start, 7), 55_092);
    for (text, _, _) in ffo("fforum-1-19.obf").into_iter().take(3) {
        let pos = Othello.parse_position(&text).unwrap();
        assert_eq!(Othello.perft(&pos, 5), gamegraph_games::perft(&Othello, &pos, 5), "{text}");
    }
}

#[test]
fn a_player_without_moves_passes_and_the_game_ends_when_neither_can_move() {
    // White to move has no legal square, black has: white must pass.
    let pos = Othello.parse_position(&format!("XO{} O", "-".repeat(62))).unwrap();
    let mut moves = Vec::new();
    Othello.moves(&pos, &mut moves);
    assert_eq!(moves, vec![PASS]);
    assert_eq!(Othello.parse_move(&pos, "ps").unwrap(), PASS);
    assert!(Othello.parse_move(&pos, "c1").unwrap_err().message.contains("ps"));
    let after = Othello.play(&pos, PASS);
    assert!(after.black_to_move);
    // Only black discs: nobody can move; black wins all 64 (the empties go to the winner).
    let over = Othello.parse_position(&format!("XX{} X", "-".repeat(62))).unwrap();
    moves.clear();
    Othello.moves(&over, &mut moves);
    assert!(moves.is_empty());
    assert_eq!(over.final_score(), 64);
}
