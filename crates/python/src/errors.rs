//! The library's errors as Python exceptions: `ValueError` for bad input, `FileNotFoundError` and
//! `OSError` for files, `gamegraph.DatabaseError` for databases that cannot be read or are
//! damaged; each with the one-line message the command line prints.

use std::io::ErrorKind;

use gamegraph_games::databases::DirectoryError;
use gamegraph_games::verify_record::RecordError;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    gamegraph,
    DatabaseError,
    pyo3::exceptions::PyException,
    "A database that cannot be used: damaged, of another game or rule variant, or missing a part."
);

/// Bad input (a tree, a graph, a position, an option): `ValueError` with `error`'s message.
pub fn bad_input(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// A database operation's failure as the exception a Python user expects.
pub fn directory_error(error: DirectoryError) -> PyErr {
    let message = error.to_string();
    match (&error, error.io_kind()) {
        (DirectoryError::Options(_), _) | (DirectoryError::Record(RecordError::Line { .. }), _) => {
            PyValueError::new_err(message)
        }
        (_, Some(ErrorKind::NotFound)) => PyFileNotFoundError::new_err(message),
        (_, Some(_)) => PyOSError::new_err(message),
        (_, None) => DatabaseError::new_err(message),
    }
}
