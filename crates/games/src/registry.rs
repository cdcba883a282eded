//! The built-in games, one [`GameEntry`] each: name, aliases, summary, notations, options with
//! their types and defaults, solver kind and what `--db` means. The command line and the web page
//! derive their game options, help and game lists from these entries, and reach a game by name
//! through [`visit`]. Adding a game is its module, its [`BuiltinGame`] impl (with its entry) and
//! its name in the `builtin_games!` list at the end of this file.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::chess::{self, Chess};
use crate::oware::{self, Oware};
use crate::{BoardView, BuiltinGame, Connect4, DatabaseDirectory, Nim, Othello, TicTacToe};

/// How front ends find exact values of a game's positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Solver {
    /// Explore everything reachable and solve it backwards: small games, with remoteness.
    Retrograde,
    /// Search each position with the alpha-beta engine: games too large to explore.
    Search,
    /// Read exact values from a database of endgames where it covers the position; elsewhere, a
    /// search limited by depth or time that reads the database at its leaves.
    Database,
}

/// What `--db PATH` is for a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DatabaseKind {
    /// The game takes no database.
    None,
    /// One file written by `build GAME --out FILE`: the whole solved game.
    File,
    /// A directory of files written by `build GAME --db DIR` (endgame databases).
    Directory,
}

/// The type of a game option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum OptionKind {
    /// A whole number from `min` to `max`.
    Integer {
        /// The smallest value.
        min: u32,
        /// The largest value.
        max: u32,
    },
    /// One of the listed words.
    Choice {
        /// The words allowed.
        choices: &'static [&'static str],
    },
    /// Any text, read by the game (a list of chess tables, say).
    Text,
}

/// One option of a game (`--width 7` on the command line, `width=7` on the web).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GameOption {
    /// What the option sets.
    pub help: &'static str,
    /// The value's type.
    #[serde(flatten)]
    pub kind: OptionKind,
    /// The value when none is given.
    pub default: &'static str,
}

/// One built-in game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GameEntry {
    /// The command-line name.
    pub name: &'static str,
    /// The name shown to people ("Tic-tac-toe", "Connect 4").
    pub title: &'static str,
    /// Other names accepted for it.
    pub aliases: &'static [&'static str],
    /// One line about the game.
    pub summary: &'static str,
    /// How positions are written, with an example.
    pub positions: &'static str,
    /// How moves are written, with an example.
    pub moves: &'static str,
    /// The options it takes, by name.
    #[serde(serialize_with = "options_by_name")]
    pub options: &'static [(&'static str, GameOption)],
    /// How its positions get exact values.
    pub solver: Solver,
    /// What `--db` is for it.
    pub database: DatabaseKind,
}

fn options_by_name<S: serde::Serializer>(
    options: &&'static [(&'static str, GameOption)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(options.iter().map(|(name, option)| (*name, option)))
}

impl GameEntry {
    /// Whether `name` (any case) is this game's name or an alias.
    pub fn is_called(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        self.name == name || self.aliases.contains(&name.as_str())
    }

    /// The option called `name`.
    pub fn option(&self, name: &str) -> Option<&GameOption> {
        self.options.iter().find(|(n, _)| *n == name).map(|(_, o)| o)
    }

    /// Refuses options this game does not take and values of the wrong type.
    pub fn check(&self, options: &GameOptions) -> Result<(), GameError> {
        check_options(self.name, self.options, options)?;
        if options.database.is_some() && self.database == DatabaseKind::None {
            return Err(GameError::BadOptions(format!(
                "{} is solved by search; it has no database (--db)",
                self.name
            )));
        }
        Ok(())
    }
}

/// Refuses the values of `options` that `declared` (the options of `owner`, a game or its
/// database build) does not take or whose type is wrong; options not given are not looked at.
pub fn check_options(
    owner: &str,
    declared: &[(&'static str, GameOption)],
    options: &GameOptions,
) -> Result<(), GameError> {
    let option = |name: &str| declared.iter().find(|(n, _)| *n == name).map(|(_, o)| o);
    for (name, value) in &options.values {
        let Some(option) = option(name) else {
            let known: Vec<&str> = declared.iter().map(|(n, _)| *n).collect();
            let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            return Err(GameError::BadOptions(format!(
                "{owner} has no option '{name}' (its options: {known})"
            )));
        };
        option.kind.check(name, value)?;
    }
    Ok(())
}

impl OptionKind {
    /// Refuses `value` for the option `name` when it is not of this type.
    pub fn check(&self, name: &str, value: &str) -> Result<(), GameError> {
        match *self {
            OptionKind::Integer { min, max } => match value.parse::<u32>() {
                Ok(v) if (min..=max).contains(&v) => Ok(()),
                _ => Err(GameError::BadOptions(format!(
                    "option '{name}' = {value}: give a whole number from {min} to {max}"
                ))),
            },
            OptionKind::Choice { choices } => {
                if choices.iter().any(|c| c.eq_ignore_ascii_case(value)) {
                    Ok(())
                } else {
                    Err(GameError::BadOptions(format!(
                        "option '{name}' = '{value}': unknown (expected {})",
                        choices.join(" or ")
                    )))
                }
            }
            OptionKind::Text => Ok(()),
        }
    }
}

/// The options given for a game, by name, as text; games read them with [`GameOptions::get`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameOptions {
    values: BTreeMap<String, String>,
    /// The database (`--db`): a file or a directory, as the game's [`DatabaseKind`] says.
    pub database: Option<PathBuf>,
}

impl GameOptions {
    /// Sets option `name` to `value`.
    pub fn set(&mut self, name: &str, value: impl ToString) {
        self.values.insert(name.to_string(), value.to_string());
    }

    /// Every value given, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// The value given for `name`, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// The value of `name` for `entry`: the one given, or the entry's default.
    pub fn value<'a>(&'a self, entry: &'a GameEntry, name: &str) -> &'a str {
        self.get(name).or_else(|| entry.option(name).map(|o| o.default)).unwrap_or("")
    }
}

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

/// Code that works on any built-in game, run by [`visit`] with the game chosen by name.
pub trait GameVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the chosen game.
    fn visit<G: BuiltinGame>(self, game: G) -> Self::Output;
}

/// The entry of the game called `name` (or one of its aliases).
pub fn entry(name: &str) -> Result<&'static GameEntry, GameError> {
    GAMES.iter().find(|g| g.is_called(name)).ok_or_else(|| GameError::Unknown(name.to_ascii_lowercase()))
}

/// Declares the built-in games once: the list of their entries and the dispatch by name.
macro_rules! builtin_games {
    ($($game:ty),* $(,)?) => {
        /// Every built-in game's entry, in the order front ends list them.
        pub const GAMES: &[GameEntry] = &[$(<$game as BuiltinGame>::ENTRY),*];

        /// Runs `visitor` with the game called `name`, set up with `options` (checked against
        /// its entry first).
        pub fn visit<V: GameVisitor>(name: &str, options: &GameOptions, visitor: V) -> Result<V::Output, GameError> {
            let entry = entry(name)?;
            entry.check(options)?;
            $(
                if entry.name == <$game as BuiltinGame>::ENTRY.name {
                    return Ok(visitor.visit(<$game as BuiltinGame>::from_options(options)?));
                }
            )*
            unreachable!("every entry has a game")
        }

        /// The directory of endgame databases of the game of `entry`, if it has one.
        pub fn databases(entry: &GameEntry) -> Option<&'static dyn DatabaseDirectory> {
            $(
                if entry.name == <$game as BuiltinGame>::ENTRY.name {
                    return <$game as BuiltinGame>::DATABASES;
                }
            )*
            None
        }
    };
}

builtin_games!(crate::Connect4, crate::TicTacToe, crate::Oware, crate::Othello, crate::Nim, crate::Chess);

impl BuiltinGame for Connect4 {
    const ENTRY: GameEntry = GameEntry {
        name: "connect4",
        title: "Connect 4",
        aliases: &["connect-4"],
        summary: "Connect 4, 7 x 6 by default (--width, --height: any size with width * (height + 1) <= 64)",
        positions: "the columns played, 1-based (4453); empty for the start",
        moves: "a column number",
        options: &[
            (
                "width",
                GameOption {
                    help: "board width",
                    kind: OptionKind::Integer { min: 1, max: 64 },
                    default: "7",
                },
            ),
            (
                "height",
                GameOption {
                    help: "board height",
                    kind: OptionKind::Integer { min: 1, max: 63 },
                    default: "6",
                },
            ),
        ],
        solver: Solver::Search,
        database: DatabaseKind::None,
    };

    fn from_options(options: &GameOptions) -> Result<Self, GameError> {
        let size = |name| options.value(&Self::ENTRY, name).parse().expect("checked against the entry");
        Connect4::new(size("width"), size("height")).map_err(|e| GameError::BadOptions(e.to_string()))
    }

    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }
}

impl BuiltinGame for TicTacToe {
    const ENTRY: GameEntry = GameEntry {
        name: "tictactoe",
        title: "Tic-tac-toe",
        aliases: &["tic-tac-toe"],
        summary: "tic-tac-toe on 3 x 3, X moves first",
        positions: "9 cells row by row, X, O or . (X...O....); the side to move follows from the counts",
        moves: "the cell, 1 to 9 row by row from the top left",
        options: &[],
        solver: Solver::Retrograde,
        database: DatabaseKind::File,
    };

    fn from_options(_options: &GameOptions) -> Result<Self, GameError> {
        Ok(TicTacToe)
    }

    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }
}

impl BuiltinGame for Oware {
    const ENTRY: GameEntry = GameEntry {
        name: "oware",
        title: "Oware (Awari)",
        aliases: &["awari"],
        summary: "Awari / Oware (--rules vu, the published solution's rules, or abapa); exact values \
                  from databases built with 'build oware --db DIR'",
        positions: "the 12 pit counts from pit 0 (the mover's 6 pits, then the opponent's), optionally \
                    '/' and the stones captured by the mover and by the opponent (4,4,4,4,4,4,4,4,4,4,4,4/0,0)",
        moves: "the pit sown, 0 to 5",
        options: &[(
            "rules",
            GameOption {
                help: "rule variant: vu (the published solution's) or abapa",
                kind: OptionKind::Choice { choices: &["vu", "abapa"] },
                default: "vu",
            },
        )],
        solver: Solver::Database,
        database: DatabaseKind::Directory,
    };

    const DATABASES: Option<&'static dyn DatabaseDirectory> = Some(&oware::directory::ScoreFiles);

    /// Oware with the rules and database of `options`.
    fn from_options(options: &GameOptions) -> Result<Self, GameError> {
        let rules: Option<oware::Rules> =
            options.get("rules").map(str::parse).transpose().map_err(GameError::BadOptions)?;
        let Some(dir) = &options.database else {
            return Ok(Oware::new(rules.unwrap_or_default()));
        };
        let database = oware::Database::shared(dir).map_err(|e| GameError::BadOptions(e.to_string()))?;
        if let Some(rules) = rules.filter(|&r| r != database.rules()) {
            return Err(GameError::BadOptions(format!(
                "{} holds a database for the {} rules, not {rules}",
                dir.display(),
                database.rules()
            )));
        }
        Ok(Oware::with_database(database))
    }

    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }
}

impl BuiltinGame for Othello {
    const ENTRY: GameEntry = GameEntry {
        name: "othello",
        title: "Othello",
        aliases: &["reversi"],
        summary: "Othello on 8 x 8, exact endgame solving (empties go to the winner)",
        positions: "64 squares A1 B1 ... H8 (X black, O white, - empty), a space and the side to move, as in .obf files",
        moves: "a square, a1 to h8 (either case), or ps to pass",
        options: &[],
        solver: Solver::Search,
        database: DatabaseKind::None,
    };

    fn from_options(_options: &GameOptions) -> Result<Self, GameError> {
        Ok(Othello)
    }

    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }

    fn perft(&self, pos: &Self::Position, depth: u32) -> u64 {
        crate::othello::perft(pos.player, pos.opponent, depth)
    }
}

impl BuiltinGame for Nim {
    const ENTRY: GameEntry = GameEntry {
        name: "nim",
        title: "Nim",
        aliases: &[],
        summary: "Nim with any number of heaps, normal play (no move = loss); starts from 3,4,5",
        positions: "heap sizes separated by commas (3,4,5)",
        moves: "HEAP:COUNT, heaps numbered from 1 (2:3 takes 3 stones from heap 2)",
        options: &[],
        solver: Solver::Retrograde,
        database: DatabaseKind::File,
    };

    fn from_options(_options: &GameOptions) -> Result<Self, GameError> {
        Ok(Nim::default())
    }

    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }
}

impl BuiltinGame for Chess {
    const ENTRY: GameEntry = GameEntry {
        name: "chess",
        title: "Chess",
        aliases: &[],
        summary: "Chess (rules by cozy-chess); exact distance to mate for up to 5 pieces from endgame \
                  tables built with 'build chess --tables SPEC --db DIR'",
        positions: "a FEN (rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1)",
        moves: "UCI notation: from and to squares, and the promotion piece (e2e4, e7e8q, castling e1g1)",
        options: &[],
        solver: Solver::Database,
        database: DatabaseKind::Directory,
    };

    const DATABASES: Option<&'static dyn DatabaseDirectory> = Some(&chess::directory::EndgameTables);

    /// Chess with the tables of `options`' directory, if any.
    fn from_options(options: &GameOptions) -> Result<Self, GameError> {
        let Some(dir) = &options.database else { return Ok(Chess::new()) };
        let tables = chess::Tablebase::shared(dir).map_err(|e| GameError::BadOptions(e.to_string()))?;
        Ok(Chess::with_tables(tables))
    }

    fn board(&self, pos: &Self::Position) -> BoardView {
        self.board_view(pos)
    }

    /// Counted as chess programs count: a finished game has no leaf below it.
    fn perft(&self, pos: &Self::Position, depth: u32) -> u64 {
        chess::perft(pos, depth)
    }

    fn describe_analysis(&self, pos: &Self::Position, analysis: &crate::analysis::Analysis) -> String {
        chess::present::describe(self, pos, analysis)
    }

    fn analysis_json(&self, analysis: &crate::analysis::Analysis) -> serde_json::Value {
        chess::present::json(analysis)
    }

    fn value_record(&self, text: &str, value: &crate::analysis::Value) -> String {
        chess::present::record(text, value)
    }

    /// Positions beyond the tables (more pieces, castling rights) are searched; a position of a
    /// table that is missing or damaged, or one that cannot arise, is refused.
    fn check_database(&self, pos: &Self::Position) -> Result<(), String> {
        use chess::tablebase::ProbeError;
        match self.tables().map(|t| t.probe(pos)) {
            Some(Err(
                e @ (ProbeError::NotBuilt { .. } | ProbeError::Damaged(_) | ProbeError::KingsTouch),
            )) => Err(e.to_string()),
            _ => Ok(()),
        }
    }

    fn forced_wins(
        &self,
        pos: &Self::Position,
        moves: u32,
        limits: crate::analysis::ForcedWinLimits,
    ) -> Option<crate::analysis::ForcedWins> {
        Some(chess::present::forced_mates(self, pos, moves, limits))
    }
}

/// Every game as front ends list it (`gamegraph games --json`, `GET /api/games`): its entry's
/// fields and its start position under the default options.
pub fn listing() -> Vec<serde_json::Value> {
    struct Start;
    impl GameVisitor for Start {
        type Output = String;
        fn visit<G: BuiltinGame>(self, game: G) -> String {
            game.format_position(&game.start())
        }
    }
    GAMES
        .iter()
        .map(|entry| {
            let mut listed = serde_json::to_value(entry).expect("an entry serialises");
            let start = visit(entry.name, &GameOptions::default(), Start).expect("the default options fit");
            listed["start"] = serde_json::Value::String(start);
            listed
        })
        .collect()
}
