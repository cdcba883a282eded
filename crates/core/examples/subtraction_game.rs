//! A game defined from scratch and solved: the subtraction game.
//!
//! A pile of stones; a move removes 1, 3 or 4 of them; the player who cannot move loses. The whole
//! game is the `impl Game` below; `ExploredGame` builds its graph and the retrograde kernel
//! solves every position. Run with `cargo run -p gamegraph --example subtraction_game -- 20`.

use gamegraph::{ExploredGame, Game, Model};

/// The rules: which amounts may be taken.
struct Subtraction {
    pile: u32,
    takes: &'static [u32],
}

impl Game for Subtraction {
    type Position = u32; // stones left
    type Move = u32; // stones taken

    fn start(&self) -> u32 {
        self.pile
    }

    fn moves(&self, pile: &u32, moves: &mut Vec<u32>) {
        moves.extend(self.takes.iter().filter(|&&t| t <= *pile));
    }

    fn play(&self, pile: &u32, take: u32) -> u32 {
        pile - take
    }
    // `final_loss` keeps its default: the player who cannot move loses 1.
}

fn main() {
    let pile = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let game = Subtraction { pile, takes: &[1, 3, 4] };
    let explored = ExploredGame::new(&game, game.start(), 1_000_000).expect("a small game");
    let solution = explored.solve(Model::Minimax);
    println!("pile  outcome  moves-to-end  winning takes");
    let mut ids: Vec<u32> = (0..explored.positions.len() as u32).collect();
    ids.sort_by_key(|&id| explored.positions[id as usize]);
    for id in ids {
        let pile = explored.positions[id as usize];
        let edges: Vec<(u32, u32)> = explored.edges(id).collect();
        let best: Vec<String> = solution
            .best_moves(id, edges.iter().map(|&(_, child)| child))
            .into_iter()
            .map(|i| edges[i].0.to_string())
            .collect();
        let remoteness = solution.remoteness(id).map_or("-".into(), |r| r.to_string());
        let outcome = solution.outcome(id);
        let shown = if outcome == gamegraph::Outcome::Win { best.join(",") } else { String::new() };
        println!("{pile:>4}  {:<7}  {remoteness:>12}  {shown}", outcome.name());
    }
}
