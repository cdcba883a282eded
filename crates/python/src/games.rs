//! `gamegraph.games()` and `gamegraph.analyze(...)`: the registry's games and the one analysis
//! every front end gives (`/api/{game}/analyze` on the web page, `solve` on the command line).

use std::path::PathBuf;
use std::time::Duration;

use gamegraph::database::Database;
use gamegraph::engine::EngineSettings;
use gamegraph_games::analysis::{analyze_named, AnalysisError, AnalysisRequest, Budget, RequestError};
use gamegraph_games::{DatabaseKind, GameOptions};
use pyo3::exceptions::{PyFileNotFoundError, PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{bad_input, DatabaseError};
use crate::work::{interruptible, to_python};

/// Most positions one analysis explores by retrograde analysis: the command line's default
/// (`--limit`), since a Python user's machine is theirs, not a shared server's.
pub const MAX_POSITIONS: usize = 20_000_000;

/// Every built-in game with its options, as `gamegraph games --json` lists them.
#[pyfunction]
pub fn games(py: Python<'_>) -> PyResult<Py<PyAny>> {
    to_python(py, &serde_json::Value::Array(gamegraph_games::registry::listing()))
}

/// A game option's value as the registry reads it: Python's `True` as `true`, numbers and text
/// as written.
fn option_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(flag) = value.extract::<bool>() {
        return Ok(flag.to_string());
    }
    Ok(value.str()?.to_string())
}

/// The options `kwargs` gives, by name, as text.
pub fn game_options(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<GameOptions> {
    let mut options = GameOptions::default();
    for (name, value) in kwargs.into_iter().flat_map(|k| k.iter()) {
        options.set(&name.extract::<String>()?, option_text(&value)?);
    }
    Ok(options)
}

/// A database file written by `build`, read whole.
fn read_database_file(path: &std::path::Path) -> PyResult<Database> {
    Database::read_file(path).map_err(|e| match e.io_kind() {
        Some(std::io::ErrorKind::NotFound) => PyFileNotFoundError::new_err(e.to_string()),
        Some(_) => PyOSError::new_err(e.to_string()),
        None => DatabaseError::new_err(e.to_string()),
    })
}

/// Values `position` (the game's notation; the start if `None`) of `game` and each of its
/// moves, as `GET /api/{game}/analyze` answers: exact values from retrograde analysis, a
/// database or a search that finished, else the search's estimate marked `"exact": False`.
/// `limits` is `(time, depth)`: time bounds the searches in seconds (none: exact, however
/// long), depth the plies of searches that cannot be exact; `db` is the game's database (a file for games solved
/// whole, a directory for chess and Oware); `engine` is the searches' threads and table size
/// in MiB (every core and 64 MiB by default); the game's options by name (`width=7`).
#[pyfunction]
#[pyo3(signature = (game, position = None, limits = (None, None), db = None, engine = (None, None), **options))]
pub fn analyze(
    py: Python<'_>,
    game: &str,
    position: Option<&str>,
    limits: (Option<f64>, Option<u32>),
    db: Option<PathBuf>,
    engine: (Option<usize>, Option<usize>),
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let ((time, depth), (threads, hash)) = (limits, engine);
    let time = match time {
        None => None,
        Some(t) if t > 0.0 && t.is_finite() => Some(Duration::from_secs_f64(t)),
        Some(t) => return Err(PyValueError::new_err(format!("time {t}: give a positive number of seconds"))),
    };
    if depth == Some(0) {
        return Err(PyValueError::new_err("depth 0: give at least 1 ply"));
    }
    let entry = gamegraph_games::entry(game).map_err(bad_input)?;
    let mut options = game_options(options)?;
    let mut database_file = None;
    match (entry.database, db) {
        (DatabaseKind::Directory, db) => options.database = db,
        (DatabaseKind::File, Some(path)) => database_file = Some(read_database_file(&path)?),
        (DatabaseKind::None, Some(_)) => {
            return Err(PyValueError::new_err(format!("{} has no database: leave db out", entry.name)))
        }
        (_, None) => {}
    }
    let defaults = EngineSettings::default();
    let settings = EngineSettings {
        threads: threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1),
        tt_mib: hash.unwrap_or(defaults.tt_mib).max(1),
        ..defaults
    };
    let budget = Budget { time, depth, positions: MAX_POSITIONS, weak: false };
    let game = game.to_string();
    let analysis = interruptible(py, move |interrupt| {
        analyze_named(AnalysisRequest {
            game: &game,
            options: &options,
            position,
            budget,
            settings,
            cache: None,
            interrupt: Some(interrupt),
            database_file,
        })
    })?
    .map_err(|e| match e {
        RequestError::Analysis(AnalysisError::Memory(_)) => PyMemoryError::new_err(e.to_string()),
        RequestError::Analysis(AnalysisError::Database(_) | AnalysisError::WrongGame { .. }) => {
            DatabaseError::new_err(e.to_string())
        }
        e => bad_input(e),
    })?;
    let mut json = serde_json::to_value(analysis).expect("an analysis serialises");
    json["time_limit_seconds"] = serde_json::json!(time.map(|t| t.as_secs_f64()));
    to_python(py, &json)
}
