//! `Engine::clear` forgets what the games' own solvers learnt as well as the engine's table, so
//! that a measurement after it costs what it costs from nothing. A test binary of its own: the
//! games' tables forget on every thread of the process at once, and other tests clearing their
//! engines at the same time would disturb the counts.

use std::path::PathBuf;

use gamegraph::engine::{Engine, EngineSettings, Limits};
use gamegraph::game::{ExactHints, PositionKey};
use gamegraph::Notation;
use gamegraph_games::{Connect4, Othello};

/// The nodes of three solves of `position` on one thread: after a clear, with a fresh engine (the
/// game's tables still hold what the first solve put there), and after a clear again.
fn nodes_of_three_solves<G>(game: &G, position: &str) -> [u64; 3]
where
    G: ExactHints + PositionKey + Notation + Sync,
{
    let pos = game.parse_position(position).expect("a test position");
    let settings = EngineSettings { tt_mib: 16, threads: 1, ..EngineSettings::default() };
    let solve = |engine: &Engine<'_, G>| {
        let report = engine.solve(&pos, Limits::default());
        assert!(report.is_exact());
        report.stats.nodes
    };
    let first = Engine::new(game, settings.clone());
    first.clear();
    let cleared = solve(&first);
    let fresh = Engine::new(game, settings);
    let remembered = solve(&fresh);
    fresh.clear();
    [cleared, remembered, solve(&fresh)]
}

fn assert_clear_forgets(nodes: [u64; 3], what: &str) {
    let [cleared, remembered, again] = nodes;
    assert!(
        remembered < cleared,
        "{what}: the game's tables remembered nothing ({remembered} nodes, {cleared} from nothing)"
    );
    assert_eq!(again, cleared, "{what}: a solve after a clear costs what it cost the first time");
}

#[test]
fn clearing_the_engine_clears_the_games_own_tables() {
    // Test_L2_R2, line 1: 27 empty cells, searched by the engine down to the small solver's 18.
    let connect4 = nodes_of_three_solves(&Connect4::default(), "274552224131661");
    assert_clear_forgets(connect4, "Connect 4");

    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/othello/fforum-1-19.obf");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let first = text.lines().next().expect("FFO #1");
    let board = first.split(';').next().expect("a board").trim();
    assert_clear_forgets(nodes_of_three_solves(&Othello, board), "Othello FFO #1");
}
