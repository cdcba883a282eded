//! # gamegraph-games
//!
//! The built-in games of gamegraph. Each game is one module implementing the core's
//! [`gamegraph::Game`] trait plus [`gamegraph::Notation`] and [`gamegraph::Evaluate`]; nothing
//! here is an algorithm. Front ends reach every game the same way, through [`visit`]: they write
//! one generic [`GameVisitor`] per command instead of one code path per game.

pub mod nim;
pub mod tictactoe;

use std::fmt;

use gamegraph::{Evaluate, Notation};

pub use nim::Nim;
pub use tictactoe::TicTacToe;

/// What the front ends need of a game: rules, notation and a heuristic for depth-limited search.
pub trait BuiltinGame: Notation + Evaluate + Send + Sync + 'static {}

impl<T: Notation + Evaluate + Send + Sync + 'static> BuiltinGame for T {}

/// Code that works on any built-in game, run by [`visit`] with the game chosen by name.
pub trait GameVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the chosen game.
    fn visit<G: BuiltinGame>(self, game: G) -> Self::Output;
}

/// A built-in game's name and how to write its positions and moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameInfo {
    /// The command-line name.
    pub name: &'static str,
    /// One line about the game.
    pub summary: &'static str,
    /// How positions are written, with an example.
    pub positions: &'static str,
    /// How moves are written, with an example.
    pub moves: &'static str,
}

/// Every built-in game.
pub const GAMES: &[GameInfo] = &[
    GameInfo {
        name: "tictactoe",
        summary: "tic-tac-toe on 3 x 3, X moves first",
        positions: "9 cells row by row, X, O or . (X...O....); the side to move follows from the counts",
        moves: "the cell, 1 to 9 row by row from the top left",
    },
    GameInfo {
        name: "nim",
        summary: "Nim with any number of heaps, normal play (no move = loss); starts from 3,4,5",
        positions: "heap sizes separated by commas (3,4,5)",
        moves: "HEAP:COUNT, heaps numbered from 1 (2:3 takes 3 stones from heap 2)",
    },
];

/// A game name that is not built in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownGame(pub String);

impl fmt::Display for UnknownGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = GAMES.iter().map(|g| g.name).collect();
        write!(f, "unknown game '{}' (built-in games: {})", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownGame {}

/// Runs `visitor` with the game called `name`.
pub fn visit<V: GameVisitor>(name: &str, visitor: V) -> Result<V::Output, UnknownGame> {
    match name.to_ascii_lowercase().as_str() {
        "tictactoe" | "tic-tac-toe" => Ok(visitor.visit(TicTacToe)),
        "nim" => Ok(visitor.visit(Nim::default())),
        _ => Err(UnknownGame(name.to_string())),
    }
}
