//! `gamegraph.chess.Tablebase`: chess endgame tables probed by FEN or by any board with a
//! `fen()` method (python-chess), distances to mate in plies as `solve chess -` prints them.

use std::path::PathBuf;
use std::sync::Arc;

use gamegraph_games::chess::{parse_fen, Dtm, ProbeError, Tablebase as Tables};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;

use crate::errors::{bad_input, directory_error, DatabaseError};

/// A directory of chess endgame tables (built by `gamegraph build chess` or `gamegraph.build`).
#[pyclass(module = "gamegraph._native", frozen)]
pub struct Tablebase {
    tables: Arc<Tables>,
}

/// `("win", plies)`, `("draw", 0)` or `("loss", plies)` for the side to move.
fn outcome(dtm: Dtm) -> (&'static str, u32) {
    match dtm {
        Dtm::Win(n) => ("win", n),
        Dtm::Draw => ("draw", 0),
        Dtm::Loss(n) => ("loss", n),
    }
}

/// A position the tables cannot answer: `KeyError` where no table covers it, `DatabaseError`
/// where its table is damaged, `ValueError` for a position no table can hold.
fn probe_error(error: ProbeError) -> PyErr {
    match error {
        ProbeError::NotBuilt { .. } | ProbeError::TooManyPieces { .. } => {
            PyKeyError::new_err(error.to_string())
        }
        ProbeError::Damaged(_) => DatabaseError::new_err(error.to_string()),
        ProbeError::Castling | ProbeError::KingsTouch => bad_input(error),
    }
}

/// The FEN of `position`: a string, or an object with a `fen()` method.
fn fen_of(position: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = position.extract::<String>() {
        return Ok(text);
    }
    match position.getattr("fen") {
        Ok(fen) => fen.call0()?.extract(),
        Err(_) => Err(bad_input("give a FEN or a board with a fen() method (a python-chess Board)")),
    }
}

/// The board of `position` (a FEN or a board), or why it cannot be read, as the command line
/// says it.
fn board_of(position: &Bound<'_, PyAny>) -> PyResult<cozy_chess::Board> {
    let fen = fen_of(position)?;
    parse_fen(&fen)
        .map_err(|e| bad_input(format!("bad chess position '{}': {e}", gamegraph_games::excerpt(&fen))))
}

#[pymethods]
impl Tablebase {
    /// Opens the tables of `directory` (its manifest; each table is opened and checked the
    /// first time a probe needs it).
    #[new]
    fn new(directory: PathBuf) -> PyResult<Self> {
        let tables = Tables::shared(&directory).map_err(|e| directory_error(e.into()))?;
        Ok(Self { tables })
    }

    /// The value of the position for the side to move: `("win", plies)`, `("draw", 0)` or
    /// `("loss", plies)`, plies to mate under perfect play.
    fn probe(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<(&'static str, u32)> {
        let board = board_of(position)?;
        let tables = &self.tables;
        py.detach(|| tables.probe(&board)).map(outcome).map_err(probe_error)
    }

    /// Every legal move in UCI notation with its value for the side making it, best first:
    /// `[("h1h8", "win", 31), ...]`.
    fn moves(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<(String, &'static str, u32)>> {
        let board = board_of(position)?;
        let tables = &self.tables;
        let values = py.detach(|| tables.probe_moves(&board)).map_err(probe_error)?;
        Ok(values
            .into_iter()
            .map(|(mv, dtm)| {
                let (word, plies) = outcome(dtm);
                (mv.to_string(), word, plies)
            })
            .collect())
    }

    /// The tables of the directory, by material (`"KQvK"`, ...).
    #[getter]
    fn tables(&self) -> Vec<String> {
        self.tables.materials().iter().map(|m| m.to_string()).collect()
    }

    /// The most pieces (kings included) a table of the directory holds.
    #[getter]
    fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    fn __repr__(&self) -> String {
        format!(
            "<gamegraph.chess.Tablebase {} ({} tables)>",
            self.tables.dir().display(),
            self.tables.entries().len()
        )
    }
}
