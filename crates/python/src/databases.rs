//! `gamegraph.build`, `verify` and `stats`: a game's directory of endgame databases (chess
//! tables, Oware score files), found through its registry entry as on the command line, with
//! the command line's progress bars on standard error.

use std::path::PathBuf;

use gamegraph::storage::StorageError;
use gamegraph_games::databases::{BuildRequest, Report, VerifyRequest};
use gamegraph_games::progress_bars::ProgressBars;
use gamegraph_games::whole::{solve_whole, WholeError, WholeRequest};
use gamegraph_games::{DatabaseDirectory, GameOptions};
use pyo3::exceptions::{PyFileNotFoundError, PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{bad_input, directory_error};
use crate::games::{game_options, MAX_POSITIONS};
use crate::work::{interruptible, to_python};

/// The database directory of `game`, or why it has none.
fn directory_of(game: &str, verb: &str) -> PyResult<&'static dyn DatabaseDirectory> {
    let entry = gamegraph_games::entry(game).map_err(bad_input)?;
    gamegraph_games::databases(entry).ok_or_else(|| {
        let with: Vec<&str> = gamegraph_games::registry::GAMES
            .iter()
            .filter(|e| gamegraph_games::databases(e).is_some())
            .map(|e| e.name)
            .collect();
        PyValueError::new_err(format!(
            "{verb} is for games with a database directory ({}); {} has none",
            with.join(", "),
            entry.name
        ))
    })
}

/// A report as a dict, or the exception its failure calls for.
fn report_to_python(py: Python<'_>, report: &dyn Report) -> PyResult<Py<PyAny>> {
    to_python(py, &report.to_json())
}

/// Builds (or completes, resuming after the parts already built) `game`'s databases in the
/// directory `db`: chess `tables="KQvKR"` or `"4"`, Oware `stones=` and `rules=`. Progress bars
/// on standard error unless `progress` is false. A game without a database directory
/// (tic-tac-toe, Nim, small Connect 4 boards) is solved whole into the database file `db`.
/// Returns the build's report as a dict.
#[pyfunction]
#[pyo3(signature = (game, db, progress = true, **options))]
pub fn build(
    py: Python<'_>,
    game: &str,
    db: PathBuf,
    progress: bool,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let entry = gamegraph_games::entry(game).map_err(bad_input)?;
    let Some(databases) = gamegraph_games::databases(entry) else {
        return build_whole(py, entry.name, &db, game_options(options)?);
    };
    let all = game_options(options)?;
    databases.check_build(entry, &all).map_err(bad_input)?;
    let report = interruptible(py, move |interrupt| {
        let bars = ProgressBars::new(!progress).with_interrupt(interrupt);
        databases.build(&db, &BuildRequest::here(&all), &bars)
    })?
    .map_err(directory_error)?;
    let report = report.expect("a build on one machine reports");
    report_to_python(py, &*report)
}

/// A game without a database directory solved whole (every position reachable from its start)
/// into the database file `out`, as `gamegraph build GAME --out FILE` does.
fn build_whole(
    py: Python<'_>,
    game: &str,
    out: &std::path::Path,
    options: GameOptions,
) -> PyResult<Py<PyAny>> {
    let report = interruptible(py, |_| {
        solve_whole(&WholeRequest {
            game,
            options: &options,
            from: None,
            limit: MAX_POSITIONS,
            out: Some(out),
        })
    })?
    .map_err(|e| match e {
        WholeError::Storage(StorageError::Io { ref cause, .. })
            if cause.kind() == std::io::ErrorKind::NotFound =>
        {
            PyFileNotFoundError::new_err(e.to_string())
        }
        WholeError::Storage(_) => PyOSError::new_err(e.to_string()),
        WholeError::TooLarge(_) => PyMemoryError::new_err(e.to_string()),
        e => bad_input(e),
    })?;
    report_to_python(py, &report)
}

/// Checks `game`'s databases in `db`: every file against the manifest's SHA-256, and stored
/// values against their moves (Oware: `sample` positions of each stone count, all of them with
/// `sample=None`; chess tables are always checked whole). With `record`, each part's result is
/// kept in that file and the parts it holds are not checked again. Returns the report as a
/// dict; a database that holds wrong values raises `gamegraph.DatabaseError`.
#[pyfunction]
#[pyo3(signature = (game, db, sample = Some(100_000), record = None, progress = true))]
pub fn verify(
    py: Python<'_>,
    game: &str,
    db: PathBuf,
    sample: Option<u64>,
    record: Option<PathBuf>,
    progress: bool,
) -> PyResult<Py<PyAny>> {
    let databases = directory_of(game, "verify")?;
    if sample == Some(0) {
        return Err(PyValueError::new_err("sample 0: give at least 1, or None for every position"));
    }
    let report = interruptible(py, move |interrupt| {
        let bars = if progress { ProgressBars::bars_only() } else { ProgressBars::new(true) };
        databases.verify(&db, &VerifyRequest { sample, record }, &bars.with_interrupt(interrupt))
    })?
    .map_err(directory_error)?;
    if let Some(failure) = report.failure() {
        return Err(crate::errors::DatabaseError::new_err(failure));
    }
    report_to_python(py, &*report)
}

/// The won, drawn and lost positions of `game`'s databases in `db`, part by part, as a dict.
#[pyfunction]
pub fn stats(py: Python<'_>, game: &str, db: PathBuf) -> PyResult<Py<PyAny>> {
    let databases = directory_of(game, "stats")?;
    let report = interruptible(py, move |_| databases.stats(&db))?.map_err(directory_error)?;
    report_to_python(py, &*report)
}
