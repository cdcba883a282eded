//! Games solved whole: everything reachable from a position explored, solved backwards in the
//! zero-sum model, counted, and written if asked as a database file (which `solve --db` and
//! Python's `analyze(db=...)` read). What `gamegraph build GAME --out FILE` and Python's
//! `build(game, file)` do, for games without a database directory.

use std::fmt;
use std::path::Path;
use std::time::Instant;

use gamegraph::database::{Database, Entry};
use gamegraph::explore::TooManyPositions;
use gamegraph::storage::StorageError;
use gamegraph::{ExploredGame, Outcome};
use serde::Serialize;

use crate::analysis::{describe, MODEL};
use crate::registry::{GameError, GameOptions, GameVisitor};
use crate::BuiltinGame;

/// What is asked: the game by name with its options, where to start, how far to go, where to
/// write.
pub struct WholeRequest<'a> {
    /// The game's name (or an alias).
    pub game: &'a str,
    /// Its options by name.
    pub options: &'a GameOptions,
    /// The position to solve from, in the game's notation; `None` for the start.
    pub from: Option<&'a str>,
    /// Most positions explored.
    pub limit: usize,
    /// The database file to write (atomically: a complete file or none).
    pub out: Option<&'a Path>,
}

/// The value of the position everything was solved from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootValue {
    /// The position in the game's notation.
    pub position: String,
    /// `win`, `lose` or `draw` for its player to move.
    pub outcome: &'static str,
    /// Its value in the zero-sum model.
    pub value: Option<i32>,
    /// Moves to the end under perfect play.
    pub remoteness: Option<u32>,
}

/// What a whole solve found, as `build --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WholeReport {
    /// The game's name.
    pub game: String,
    /// Positions explored.
    pub positions: usize,
    /// Of them, final.
    pub terminal: usize,
    /// Positions won, lost and drawn for their player to move.
    pub win: usize,
    /// See `win`.
    pub lose: usize,
    /// See `win`.
    pub draw: usize,
    /// Moves between the positions.
    #[serde(skip)]
    pub moves: usize,
    /// The root's value.
    pub start: RootValue,
    /// Time to explore and solve.
    pub seconds: f64,
    /// The database file written, if any.
    pub out: Option<String>,
    /// The root's value in words, for the text report.
    #[serde(skip)]
    start_words: String,
}

impl fmt::Display for WholeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} positions ({} terminal), {} moves",
            self.game, self.positions, self.terminal, self.moves
        )?;
        writeln!(f, "for the player to move: {} win, {} lose, {} draw", self.win, self.lose, self.draw)?;
        writeln!(f, "start: {}", self.start_words)?;
        write!(f, "solved in {:.1} ms", self.seconds * 1e3)?;
        if let Some(out) = &self.out {
            write!(f, "\ndatabase written to {out}")?;
        }
        Ok(())
    }
}

crate::databases::report!(WholeReport);

/// Why a whole solve failed.
#[derive(Debug, thiserror::Error)]
pub enum WholeError {
    /// No such game, or options it does not take.
    #[error("{0}")]
    Game(#[from] GameError),
    /// The position to start from cannot be read.
    #[error(transparent)]
    Position(#[from] crate::BadPosition),
    /// More positions are reachable than the limit.
    #[error(transparent)]
    TooLarge(#[from] TooManyPositions),
    /// The database file could not be written.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// Solves everything reachable from the position `request` names and writes the database if
/// asked.
pub fn solve_whole(request: &WholeRequest<'_>) -> Result<WholeReport, WholeError> {
    crate::visit(request.game, request.options, Whole(request))?
}

struct Whole<'a, 'r>(&'a WholeRequest<'r>);

impl GameVisitor for Whole<'_, '_> {
    type Output = Result<WholeReport, WholeError>;

    fn visit<G: BuiltinGame>(self, game: G) -> Self::Output {
        let request = self.0;
        let root = crate::position_or_start(&game, request.from.map(str::trim))?;
        let started = Instant::now();
        let explored = ExploredGame::new(&game, root, request.limit)?;
        let solution = &explored.solve(MODEL);
        let seconds = started.elapsed().as_secs_f64();
        let graph = &explored.graph;
        let nodes = graph.nodes() as u32;
        let count = |o: Outcome| (0..nodes).filter(|&u| solution.outcome(u) == o).count();
        if let Some(out) = request.out {
            let mut db = Database::new(game.name(), MODEL);
            for (id, pos) in explored.positions.iter().enumerate() {
                db.insert(game.format_position(pos), Entry::from_solution(solution, id as u32));
            }
            db.write_file(out)?;
        }
        let start = Entry::from_solution(solution, 0);
        Ok(WholeReport {
            game: game.name(),
            positions: graph.nodes(),
            terminal: (0..nodes).filter(|&u| graph.is_final(u)).count(),
            win: count(Outcome::Win),
            lose: count(Outcome::Lose),
            draw: count(Outcome::Draw),
            moves: graph.edges(),
            start: RootValue {
                position: game.format_position(&explored.positions[0]),
                outcome: start.outcome.name(),
                value: start.value,
                remoteness: start.remoteness,
            },
            seconds,
            out: request.out.map(|p| p.display().to_string()),
            start_words: describe(start.outcome, start.value, start.remoteness),
        })
    }
}
