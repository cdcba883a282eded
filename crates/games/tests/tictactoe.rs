//! Tic-tac-toe against the published counts (docs/oracles.md), and every solver path
//! against the others.

use gamegraph::dense::solve_game;
use gamegraph::search::{search, Algorithm, SearchOptions};
use gamegraph::{DenseIndex, ExploredGame, Game, Model, Notation, Outcome, FINAL_SCALE};
use gamegraph_games::TicTacToe;

fn explored() -> ExploredGame<TicTacToe> {
    ExploredGame::new(&TicTacToe, TicTacToe.start(), 1_000_000).unwrap()
}

#[test]
fn counts_match_the_published_figures() {
    let g = explored();
    assert_eq!(g.positions.len(), 5478);
    let finals: Vec<_> = g.positions.iter().filter(|p| g.graph.is_final(g.id(p).unwrap())).collect();
    assert_eq!(finals.len(), 958);
    let x_wins = finals.iter().filter(|p| p.last_mover_won() && !p.x_to_move()).count();
    let o_wins = finals.iter().filter(|p| p.last_mover_won() && p.x_to_move()).count();
    assert_eq!((x_wins, o_wins, finals.len() - x_wins - o_wins), (626, 316, 16));
}

#[test]
fn start_and_every_first_move_are_draws() {
    let g = explored();
    let sol = g.solve(Model::Minimax);
    assert_eq!((sol.outcome(0), sol.value(0)), (Outcome::Draw, Some(0)));
    let children: Vec<_> = g.edges(0).collect();
    assert_eq!(children.len(), 9);
    for (_, child) in children {
        assert_eq!(sol.outcome(child), Outcome::Draw);
    }
}

#[test]
fn un_move_retrograde_agrees_with_the_explored_graph() {
    let g = explored();
    let sol = g.solve(Model::Minimax);
    let dense = solve_game(&TicTacToe).expect("tic-tac-toe fits a dense store");
    for (id, pos) in g.positions.iter().enumerate() {
        let i = TicTacToe.index(pos);
        assert_eq!(TicTacToe.position(i), Some(*pos));
        assert_eq!(
            (dense.value(i), dense.remoteness(i)),
            (sol.value(id as u32), sol.remoteness(id as u32)),
            "{}",
            TicTacToe.format_position(pos)
        );
    }
}

#[test]
fn full_depth_search_agrees_with_retrograde_analysis() {
    let g = explored();
    let sol = g.solve(Model::Minimax);
    for (id, pos) in g.positions.iter().enumerate() {
        let expected = sol.value(id as u32).unwrap();
        for algorithm in [Algorithm::Minimax, Algorithm::AlphaBeta] {
            let r = search(&TicTacToe, pos, SearchOptions::new(algorithm, 9));
            assert_eq!(r.value / FINAL_SCALE, expected, "{}", TicTacToe.format_position(pos));
            if let Some(best) = r.best {
                let child = g.id(&TicTacToe.play(pos, best)).unwrap();
                assert_eq!(sol.value(child), Some(-expected), "best move must achieve the value");
            }
        }
    }
}

#[test]
fn symmetric_positions_share_values_and_765_classes_remain() {
    let g = explored();
    let sol = g.solve(Model::Minimax);
    let mut classes = std::collections::HashSet::new();
    for (id, pos) in g.positions.iter().enumerate() {
        let canon = TicTacToe.canonical(pos);
        classes.insert(canon);
        assert_eq!(sol.value(g.id(&canon).unwrap()), sol.value(id as u32));
    }
    assert_eq!(classes.len(), 765);
}

#[test]
fn notation_round_trips_and_rejects_bad_boards() {
    let t = TicTacToe;
    let pos = t.parse_position("X...O..X.").unwrap();
    assert_eq!(t.format_position(&pos), "X...O..X.");
    let err = |s: &str| t.parse_position(s).unwrap_err().column;
    assert_eq!(err("X..?....."), 4);
    assert_eq!(err("X.."), 4);
    assert_eq!(err("X........O"), 10);
    assert_eq!(err("XX......."), 1);
    assert_eq!(err("XXXOO.O.."), 1, "O to move cannot face a finished game");
    assert!(t.parse_move(&pos, "5").is_err(), "cell 5 is taken");
    assert!(t.parse_move(&pos, "10").is_err());
    assert_eq!(t.parse_move(&pos, "2"), Ok(1));
}

mod engine {
    use super::*;
    use gamegraph::engine::{Engine, EngineSettings, Limits, UNLIMITED};

    /// Wins and losses in n plies: the engine's distances, stored in its table relative to each
    /// node, equal retrograde remoteness on every position (tic-tac-toe is full of transpositions).
    #[test]
    fn distances_to_the_end_equal_remoteness() {
        let g = explored();
        let sol = g.solve(Model::Minimax);
        let engine = Engine::new(&TicTacToe, EngineSettings { tt_mib: 4, ..EngineSettings::default() });
        for (id, pos) in g.positions.iter().enumerate() {
            let id = id as u32;
            let r = engine.search(pos, Limits::default());
            let expected = match (sol.value(id).unwrap(), sol.remoteness(id)) {
                (0, _) => 0,
                (v, Some(d)) => gamegraph::score::decisive(v, d),
                (_, None) => unreachable!(),
            };
            assert_eq!(r.value, expected, "{}", TicTacToe.format_position(pos));
            assert_eq!(r.depth, UNLIMITED);
        }
    }

    /// A search stopped by a limit reports its last completed iteration, never the partial one.
    #[test]
    fn an_interrupted_iteration_does_not_replace_the_last_completed_one() {
        let start = TicTacToe.start();
        for nodes in [50, 300, 2_000, 10_000] {
            let engine = Engine::new(&TicTacToe, EngineSettings { tt_mib: 1, ..EngineSettings::default() });
            let r = engine.search(&start, Limits { nodes: Some(nodes), ..Limits::default() });
            if r.complete {
                continue;
            }
            let fresh = Engine::new(&TicTacToe, EngineSettings { tt_mib: 1, ..EngineSettings::default() });
            let at_depth = fresh.search(&start, Limits { depth: Some(r.depth), ..Limits::default() });
            assert_eq!((r.value, r.best), (at_depth.value, at_depth.best), "limit {nodes}");
        }
    }
}
