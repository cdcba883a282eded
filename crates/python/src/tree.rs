//! `gamegraph.tree`: minimax and alpha-beta on an explicit tree, as `gamegraph tree` does.

use gamegraph::report::TreeReport;
use gamegraph::search::Algorithm;
use gamegraph::tree::{MoveOrder, Tree};
use pyo3::prelude::*;

use crate::errors::bad_input;
use crate::work::to_python;

/// Searches the tree written in `text` with `algo` ("minimax" or "alphabeta"), children in
/// `order` ("natural", "best" or "worst"). Returns the report of `gamegraph tree --json --trace`
/// with every node's shape (a dict), and the Graphviz drawing of `gamegraph tree --dot`.
#[pyfunction]
#[pyo3(signature = (text, algo = "alphabeta", order = "natural"))]
pub fn tree(py: Python<'_>, text: &str, algo: &str, order: &str) -> PyResult<(Py<PyAny>, String)> {
    let algorithm: Algorithm = algo.parse().map_err(bad_input)?;
    let order: MoveOrder = order.parse().map_err(bad_input)?;
    let tree = Tree::parse(text).map_err(|e| bad_input(format!("bad tree: {e}")))?;
    let analysis = py.detach(|| tree.analyze(algorithm, order));
    let report = TreeReport::new(&tree, &analysis, true, true);
    let json = serde_json::to_value(&report).expect("a tree report serialises");
    Ok((to_python(py, &json)?, analysis.to_dot(&tree)))
}
