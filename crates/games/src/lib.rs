//! # gamegraph-games
//!
//! The built-in games of gamegraph, and what front ends need to use them alike. Each game is one
//! module implementing the core's [`gamegraph::Game`] trait plus [`gamegraph::Notation`] and the
//! search traits ([`gamegraph::Searchable`]), with what is proper to that game only
//! (the Awari score files and their index); the algorithms are the core's.
//!
//! - [`registry`]: one [`GameEntry`] per game (name, options, solver kind, database kind) and
//!   [`visit`], which runs generic front-end code with a game chosen by name;
//! - [`mod@databases`]: directories of endgame databases (Awari, chess) behind one trait, for
//!   `build`, `verify`, `stats` and serving;
//! - [`analysis`]: the one oracle front ends ask for a position's value, its moves' values and a
//!   move to play, whatever the game's solver;
//! - [`session`]: a game being played move after move (moves, undo, repetition, the end, the
//!   engine's moves), for every front end that plays;
//! - [`records`]: the customary test-file lines of games that have them (Connect 4 test sets,
//!   Othello's `.obf`), for `solve -` and the benchmarks;
//! - [`board`]: a position as a grid of cells, for graphical front ends.

pub mod analysis;
pub mod board;
pub mod chess;
pub mod connect4;
pub mod databases;
pub mod nim;
pub mod othello;
pub mod oware;
#[cfg(feature = "progress-bars")]
pub mod progress_bars;
pub mod records;
pub mod registry;
pub mod session;
mod solver_table;
pub mod tictactoe;
pub mod verify_record;
pub mod whole;

use gamegraph::{Notation, Searchable};

pub use board::{BoardView, Cell};
pub use chess::Chess;
pub use connect4::Connect4;
pub use databases::DatabaseDirectory;
pub use nim::Nim;
pub use othello::Othello;
pub use oware::Oware;
pub use records::Records;
pub use registry::{
    databases, entry, visit, DatabaseKind, GameEntry, GameError, GameOption, GameOptions, GameVisitor,
    OptionKind, Solver, GAMES,
};
pub use tictactoe::TicTacToe;

/// What the front ends need of a game: rules, notation, search support, its registry entry.
pub trait BuiltinGame: Notation + Searchable + Records + Send + Sync + Sized + 'static {
    /// The game's entry in the registry: names, notations, options, solver, database.
    const ENTRY: GameEntry;

    /// The game's directory of endgame databases, for a game whose entry's database is a
    /// directory.
    const DATABASES: Option<&'static dyn DatabaseDirectory> = None;

    /// The game set up with `options`, which [`GameEntry::check`] has accepted.
    fn from_options(options: &GameOptions) -> Result<Self, GameError>;

    /// The position as a grid of cells for graphical front ends.
    fn board(&self, pos: &Self::Position) -> BoardView;

    /// Leaves of the game tree `depth` moves below `pos` (a finished game counts as one leaf at
    /// every deeper depth): the standard check of a move generator. Games override it with a
    /// faster count.
    fn perft(&self, pos: &Self::Position, depth: u32) -> u64 {
        perft(self, pos, depth)
    }

    /// An analysis as the game's players read it (`solve`, for games valued by databases): by
    /// default [`analysis::one_line`].
    fn describe_analysis(&self, _pos: &Self::Position, analysis: &analysis::Analysis) -> String {
        analysis::one_line(analysis)
    }

    /// An analysis as JSON: by default the analysis's own fields.
    fn analysis_json(&self, analysis: &analysis::Analysis) -> serde_json::Value {
        serde_json::to_value(analysis).expect("an analysis serialises")
    }

    /// One position's value as a line of an answer file (`solve GAME -`, for games valued by
    /// databases): `POSITION VALUE` by default.
    fn value_record(&self, text: &str, value: &analysis::Value) -> String {
        format!("{text} {}", value.shown())
    }

    /// Refuses a position that the game's database should hold but cannot answer (its table was
    /// not built, its file is damaged), so that no front end answers it with a search instead.
    fn check_database(&self, _pos: &Self::Position) -> Result<(), String> {
        Ok(())
    }

    /// The first moves that force a win from `pos` within `moves` moves, for games with a solver
    /// of forced wins (chess mates), within `limits`; `None` for the others.
    fn forced_wins(
        &self,
        _pos: &Self::Position,
        _moves: u32,
        _limits: analysis::ForcedWinLimits,
    ) -> Option<analysis::ForcedWins> {
        None
    }
}

/// A position that cannot be read, worded as every front end says it:
/// `bad GAME position 'TEXT': what is wrong, and where`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad {game} position '{text}': {message}")]
pub struct BadPosition {
    /// The game's name.
    pub game: String,
    /// The position as given (shortened if long, see [`excerpt`]).
    pub text: String,
    /// What is wrong with it, and at which column.
    pub message: String,
}

/// `text` read as a position of `game`; its start when `None`.
pub fn position_or_start<G: gamegraph::Notation>(
    game: &G,
    text: Option<&str>,
) -> Result<G::Position, BadPosition> {
    match text {
        None => Ok(game.start()),
        Some(text) => game.parse_position(text).map_err(|e| BadPosition {
            game: game.name(),
            text: excerpt(text),
            message: e.to_string(),
        }),
    }
}

/// `text` as an error message quotes it: whole when short, else its start and its length, so that
/// a 60 KB input does not come back as a 60 KB message.
pub fn excerpt(text: &str) -> String {
    const SHOWN: usize = 80;
    match text.char_indices().nth(SHOWN) {
        None => text.to_string(),
        Some((end, _)) => format!("{}... ({} characters)", &text[..end], text.chars().count()),
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

/// What the games' own tests share.
#[cfg(test)]
mod testing {
    /// Checks the fail-soft result `v` of a search within `(a, w)` of the position `at`, worth
    /// `exact`: a bound on the right side outside the window, the value inside it.
    pub(crate) fn check_fail_soft(v: i32, exact: i32, a: i32, w: i32, at: &str) {
        if v <= a {
            assert!(exact <= v, "{at}: {v} in ({a}, {w}) for {exact}");
        } else if v >= w {
            assert!(exact >= v, "{at}: {v} in ({a}, {w}) for {exact}");
        } else {
            assert_eq!(v, exact, "{at}");
        }
    }
}
