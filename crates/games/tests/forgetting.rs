//! `Engine::clear` forgets what the games' own solvers learnt as well as the engine's table, so
//! that a measurement after it costs what it costs from nothing; and it forgets only its own
//! engine's: the solvers' tables belong to each search's workers, so a search on another thread
//! keeps its tables while another engine is cleared again and again.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use gamegraph::engine::{Engine, EngineSettings, Limits};
use gamegraph::game::Searchable;
use gamegraph::Notation;
use gamegraph_games::{Connect4, Othello};

/// One thread, a small table: the solves below are repeatable.
fn settings() -> EngineSettings {
    EngineSettings { tt_mib: 16, threads: 1, ..EngineSettings::default() }
}

/// The exact value and nodes of a solve of `pos`.
fn solve<G: Searchable + Sync>(engine: &Engine<'_, G>, pos: &G::Position) -> (i32, u64) {
    let report = engine.solve(pos, Limits::default());
    assert!(report.is_exact());
    (report.value, report.stats.nodes)
}

/// Checks, for `position` of `game`: a solve from nothing, the same solve again with the
/// engine's table cleared but not the game's (by another engine reusing nothing: a fresh
/// engine), a solve after `clear`; then two engines at once on two threads, one clearing itself
/// all the time, the other solving with what it learnt.
fn check_clear<G>(game: &G, position: &str, what: &str)
where
    G: Searchable + Notation + Sync,
    G::Position: Sync,
{
    let pos = game.parse_position(position).expect("a test position");
    let engine = Engine::new(game, settings());
    let (value, cold) = solve(&engine, &pos);
    let (again, warm) = solve(&engine, &pos);
    assert_eq!(again, value, "{what}");
    assert!(warm < cold, "{what}: the engine remembered nothing ({warm} nodes, {cold} from nothing)");
    engine.clear();
    assert_eq!(
        solve(&engine, &pos),
        (value, cold),
        "{what}: a solve after a clear costs what it cost the first time"
    );
    // A fresh engine starts from nothing too: no table is shared between engines.
    assert_eq!(solve(&Engine::new(game, settings()), &pos), (value, cold), "{what}: a fresh engine");

    // What the game's tables alone remember: the engine's table cleared, the game's kept.
    engine.clear();
    solve(&engine, &pos);
    engine.clear_table();
    let (_, game_tables_only) = solve(&engine, &pos);
    assert!(game_tables_only < cold, "{what}: the game's tables remembered nothing");

    // Two searches at once: an engine that clears itself all the time on another thread never
    // empties this one's game tables.
    let beside = Engine::new(game, settings());
    solve(&beside, &pos);
    let done = AtomicBool::new(false);
    let found = std::thread::scope(|scope| {
        scope.spawn(|| {
            let clearing = Engine::new(game, EngineSettings { tt_mib: 1, ..settings() });
            assert_eq!(solve(&clearing, &pos).0, value, "{what}: the clearing engine's value");
            while !done.load(Relaxed) {
                clearing.clear();
            }
        });
        // Let the other thread start clearing.
        std::thread::sleep(std::time::Duration::from_millis(200));
        beside.clear_table();
        let found = solve(&beside, &pos);
        done.store(true, Relaxed);
        found
    });
    assert_eq!(
        found,
        (value, game_tables_only),
        "{what}: beside an engine that clears itself (value, nodes)"
    );
}

#[test]
fn clearing_an_engine_forgets_its_own_game_tables_and_no_other() {
    // Test_L2_R2, line 1: 27 empty cells, searched by the engine down to the small solver's.
    check_clear(&Connect4::default(), "274552224131661", "Connect 4");

    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/othello/fforum-1-19.obf");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let first = text.lines().next().expect("FFO #1");
    let board = first.split(';').next().expect("a board").trim();
    check_clear(&Othello, board, "Othello FFO #1");
}
