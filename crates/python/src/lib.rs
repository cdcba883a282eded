//! # gamegraph-python
//!
//! The native half of the Python package `gamegraph` (module `gamegraph._native`), built by
//! maturin with PyO3. It only converts: Python arguments into the library's requests, the
//! library's answers into Python values (dicts as the command line's `--json` prints them, numpy
//! arrays for per-node values). Every game rule, value and report comes from the library crates,
//! so Python, the command line and the web page cannot disagree. The Python half
//! (`crates/python/python/gamegraph`) adds the classes users see, the drawing of trees, the
//! bridge to OpenSpiel and the type stubs.
//!
//! Long calls run on a thread of their own while the calling thread waits without the GIL and
//! looks for Ctrl-C (`work::interruptible`): a `KeyboardInterrupt` stops the search or the build
//! through the library's interrupt flag. A panic inside becomes a `RuntimeError`, never an abort.

mod chess;
mod databases;
mod errors;
mod games;
mod graph;
mod own_game;
mod tree;
mod work;

use pyo3::prelude::*;

/// The native module; users import `gamegraph`, which wraps it.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DatabaseError", m.py().get_type::<errors::DatabaseError>())?;
    m.add_function(wrap_pyfunction!(tree::tree, m)?)?;
    m.add_class::<graph::Graph>()?;
    m.add_class::<graph::Solution>()?;
    m.add_function(wrap_pyfunction!(graph::random_graph_arrays, m)?)?;
    m.add_function(wrap_pyfunction!(games::games, m)?)?;
    m.add_function(wrap_pyfunction!(games::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(databases::build, m)?)?;
    m.add_function(wrap_pyfunction!(databases::verify, m)?)?;
    m.add_function(wrap_pyfunction!(databases::stats, m)?)?;
    m.add_class::<chess::Tablebase>()?;
    m.add_function(wrap_pyfunction!(own_game::search, m)?)?;
    m.add_function(wrap_pyfunction!(work::_panic_for_test, m)?)?;
    Ok(())
}
