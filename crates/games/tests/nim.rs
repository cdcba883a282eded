//! Nim: the player to move wins exactly when the heaps' xor is not zero (Bouton's theorem).

use gamegraph::{ExploredGame, Game, Model, Notation, Outcome};
use gamegraph_games::Nim;

fn check_bouton(start: &str) -> usize {
    let nim = Nim::default();
    let root = nim.parse_position(start).unwrap();
    let g = ExploredGame::new(&nim, root, 1_000_000).unwrap();
    let sol = g.solve(Model::Minimax);
    for (id, heaps) in g.positions.iter().enumerate() {
        let xor = heaps.iter().fold(0, |x, &h| x ^ h);
        let expected = if xor != 0 { Outcome::Win } else { Outcome::Lose };
        assert_eq!(sol.outcome(id as u32), expected, "{heaps:?}");
        // Best moves of a won position leave a zero xor.
        let edges: Vec<_> = g.edges(id as u32).collect();
        for i in sol.best_moves(id as u32, edges.iter().map(|e| e.1)) {
            if expected == Outcome::Win {
                let after = nim.play(heaps, edges[i].0);
                assert_eq!(after.iter().fold(0, |x, &h| x ^ h), 0);
            }
        }
    }
    g.positions.len()
}

#[test]
fn every_position_up_to_7_7_7() {
    assert_eq!(check_bouton("7,7,7"), 512);
}

#[test]
fn other_heap_counts() {
    assert_eq!(check_bouton("1,2,3,4,5"), 720);
    assert_eq!(check_bouton("12"), 13);
    assert_eq!(check_bouton("0"), 1);
}

#[test]
fn notation_errors_name_the_column() {
    let nim = Nim::default();
    assert_eq!(nim.parse_position("3, x,5").unwrap_err().column, 4);
    assert_eq!(nim.parse_position("3,4,-1").unwrap_err().column, 5);
    let heaps = nim.parse_position("3,4,5").unwrap();
    assert_eq!(nim.format_move(&heaps, nim.parse_move(&heaps, "2:3").unwrap()), "2:3");
    assert!(nim.parse_move(&heaps, "2:5").is_err());
    assert!(nim.parse_move(&heaps, "4:1").is_err());
    assert!(nim.parse_move(&heaps, "1:0").is_err());
}
