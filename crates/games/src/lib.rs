//! # gamegraph-games
//!
//! The built-in games of gamegraph. Each game is one module implementing the core's
//! [`gamegraph::Game`] trait plus [`gamegraph::Notation`] and [`gamegraph::Evaluate`], with what
//! is proper to that game only (the Awari score files and their index); the algorithms are the
//! core's. Front ends reach every game the same way, through [`visit`]: they write
//! one generic [`GameVisitor`] per command instead of one code path per game.

pub mod analysis;
pub mod board;
pub mod connect4;
pub mod nim;
pub mod othello;
pub mod oware;
pub mod tictactoe;

use std::fmt;
use std::path::PathBuf;

use gamegraph::{Evaluate, Notation, PositionKey};

pub use board::{BoardView, Cell};
pub use connect4::Connect4;
pub use nim::Nim;
pub use othello::Othello;
pub use oware::Oware;
pub use tictactoe::TicTacToe;

/// How front ends find exact values of a game's positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Solver {
    /// Explore everything reachable and solve it backwards: small games, with remoteness.
    Retrograde,
    /// Search each position with the alpha-beta engine: games too large to explore.
    Search,
    /// Read exact values from a database of endgames where it covers the position; elsewhere, a
    /// search limited by depth or time that reads the database at its leaves.
    Database,
}

/// What the front ends need of a game: rules, notation, search support and how to solve it.
pub trait BuiltinGame: Notation + Evaluate + PositionKey + Send + Sync + 'static {
    /// How `solve` and `play` get exact values.
    const SOLVER: Solver;

    /// The position as a grid of cells for graphical front ends.
    fn board(&self, pos: &Self::Position) -> BoardView;

    /// Leaves of the game tree `depth` moves below `pos` (a finished game counts as one leaf at
    /// every deeper depth): the standard check of a move generator. Games override it with a
    /// faster count.
    fn perft(&self, pos: &Self::Position, depth: u32) -> u64 {
        perft(self, pos, depth)
    }
}

/// Leaves of the game tree `depth` moves below `pos`, a finished game counting as one leaf at
/// every deeper depth, through the [`gamegraph::Game`] trait alone.
pub fn perft<G: gamegraph::Game + ?Sized>(game: &G, pos: &G::Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::new();
    game.moves(pos, &mut moves);
    if moves.is_empty() {
        return 1;
    }
    moves.iter().map(|&mv| perft(game, &game.play(pos, mv), depth - 1)).sum()
}

impl BuiltinGame for TicTacToe {
    const SOLVER: Solver = Solver::Retrograde;
    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }
}

impl BuiltinGame for Nim {
    const SOLVER: Solver = Solver::Retrograde;
    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }
}

impl BuiltinGame for Connect4 {
    const SOLVER: Solver = Solver::Search;
    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }
}

impl BuiltinGame for Othello {
    const SOLVER: Solver = Solver::Search;
    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }
    fn perft(&self, pos: &Self::Position, depth: u32) -> u64 {
        othello::perft(pos.player, pos.opponent, depth)
    }
}

impl BuiltinGame for Oware {
    const SOLVER: Solver = Solver::Database;
    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }
}

/// Parameters of games that have them; `None` takes the game's default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameOptions {
    /// Board width (Connect 4).
    pub width: Option<u32>,
    /// Board height (Connect 4).
    pub height: Option<u32>,
    /// Rule variant (Oware: vu or abapa).
    pub rules: Option<String>,
    /// A directory of score files to read exact values from (Oware); other games ignore it.
    pub database: Option<PathBuf>,
}

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
        name: "connect4",
        summary: "Connect 4, 7 x 6 by default (--width, --height: any size with width * (height + 1) <= 64)",
        positions: "the columns played, 1-based (4453); empty for the start",
        moves: "a column number",
    },
    GameInfo {
        name: "tictactoe",
        summary: "tic-tac-toe on 3 x 3, X moves first",
        positions: "9 cells row by row, X, O or . (X...O....); the side to move follows from the counts",
        moves: "the cell, 1 to 9 row by row from the top left",
    },
    GameInfo {
        name: "oware",
        summary: "Awari / Oware (--rules vu, the published solution's rules, or abapa); exact values \
                  from databases built with 'build oware --db DIR'",
        positions: "the 12 pit counts from pit 0 (the mover's 6 pits, then the opponent's), optionally \
                    '/' and the stones captured by the mover and by the opponent (4,4,4,4,4,4,4,4,4,4,4,4/0,0)",
        moves: "the pit sown, 0 to 5",
    },
    GameInfo {
        name: "othello",
        summary: "Othello on 8 x 8, exact endgame solving (empties go to the winner)",
        positions: "64 squares A1 B1 ... H8 (X black, O white, - empty), a space and the side to move, as in .obf files",
        moves: "a square, a1 to h8 (either case), or ps to pass",
    },
    GameInfo {
        name: "nim",
        summary: "Nim with any number of heaps, normal play (no move = loss); starts from 3,4,5",
        positions: "heap sizes separated by commas (3,4,5)",
        moves: "HEAP:COUNT, heaps numbered from 1 (2:3 takes 3 stones from heap 2)",
    },
];

/// A game name that is not built in, or options it does not take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameError {
    /// No built-in game has this name.
    Unknown(String),
    /// The options do not fit the game.
    BadOptions(String),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::Unknown(name) => {
                let names: Vec<&str> = GAMES.iter().map(|g| g.name).collect();
                write!(f, "unknown game '{name}' (built-in games: {})", names.join(", "))
            }
            GameError::BadOptions(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for GameError {}

/// Runs `visitor` with the game called `name`, set up with `options`.
pub fn visit<V: GameVisitor>(name: &str, options: &GameOptions, visitor: V) -> Result<V::Output, GameError> {
    let name = name.to_ascii_lowercase();
    let sized = name == "connect4" || name == "connect-4";
    if !sized && (options.width.is_some() || options.height.is_some()) {
        return Err(GameError::BadOptions(format!("{name} has no --width or --height")));
    }
    let oware = name == "oware" || name == "awari";
    if !oware && options.rules.is_some() {
        return Err(GameError::BadOptions(format!("{name} has no --rules")));
    }
    match name.as_str() {
        "oware" | "awari" => Ok(visitor.visit(oware_game(options)?)),
        "tictactoe" | "tic-tac-toe" => Ok(visitor.visit(TicTacToe)),
        "nim" => Ok(visitor.visit(Nim::default())),
        "othello" | "reversi" => Ok(visitor.visit(Othello)),
        "connect4" | "connect-4" => {
            let game = Connect4::new(options.width.unwrap_or(7), options.height.unwrap_or(6))
                .map_err(|e| GameError::BadOptions(e.to_string()))?;
            Ok(visitor.visit(game))
        }
        _ => Err(GameError::Unknown(name)),
    }
}

/// Oware with the rules and database of `options`.
fn oware_game(options: &GameOptions) -> Result<Oware, GameError> {
    let rules = options
        .rules
        .as_deref()
        .map(str::parse::<oware::Rules>)
        .transpose()
        .map_err(GameError::BadOptions)?;
    let Some(dir) = &options.database else {
        return Ok(Oware::new(rules.unwrap_or_default()));
    };
    let database = oware::Database::open(dir).map_err(|e| GameError::BadOptions(e.to_string()))?;
    if let Some(rules) = rules.filter(|&r| r != database.rules()) {
        return Err(GameError::BadOptions(format!(
            "{} holds a database for the {} rules, not {rules}",
            dir.display(),
            database.rules()
        )));
    }
    Ok(Oware::with_database(database))
}
