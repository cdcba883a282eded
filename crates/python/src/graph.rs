//! `gamegraph.Graph` and its `Solution`: game graphs read from text or numpy arrays, solved by
//! the core's retrograde kernel, values handed back as numpy arrays indexed by node.

use std::sync::Arc;

use gamegraph::graph::{Csr, CsrFiller};
use gamegraph::graph_text::{parse_edges, parse_text, NamedGraph};
use gamegraph::report::GraphReport;
use gamegraph::solution::solve_graph;
use gamegraph::{GameGraph, Model, Outcome, Stake};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;

use crate::errors::bad_input;
use crate::work::{interruptible, to_python};

/// A game graph: positions `0..len(graph)`, moves between them, and the stake of every final
/// position (what its player to move loses).
#[pyclass(module = "gamegraph._native", frozen)]
pub struct Graph {
    graph: Arc<NamedGraph>,
}

/// A node id below `nodes`, from any integer array element.
fn node_id<T: Copy + TryInto<u32> + std::fmt::Display>(
    value: T,
    nodes: u64,
    what: &str,
    at: usize,
) -> PyResult<u32> {
    match value.try_into() {
        Ok(id) if u64::from(id) < nodes => Ok(id),
        _ => Err(PyValueError::new_err(format!(
            "{what}[{at}] is {value}: node ids go from 0 to {} here",
            nodes.saturating_sub(1)
        ))),
    }
}

/// The forward adjacency of the moves `sources[i] -> targets[i]`, in their order, two passes
/// over the arrays without copying them.
fn adjacency<T>(sources: &[T], targets: &[T], nodes: u64) -> PyResult<Csr>
where
    T: Copy + TryInto<u32> + std::fmt::Display,
{
    let mut counts = vec![0u64; nodes as usize + 1];
    for (at, &u) in sources.iter().enumerate() {
        counts[node_id(u, nodes, "sources", at)? as usize + 1] += 1;
    }
    let mut filler = CsrFiller::from_counts(counts);
    for (at, (&u, &v)) in sources.iter().zip(targets).enumerate() {
        let v = node_id(v, nodes, "targets", at)?;
        filler.push(node_id(u, nodes, "sources", at)? as usize, v);
    }
    Ok(filler.finish())
}

/// One more than the largest id of `ids`, if any.
fn id_bound<T: Copy + TryInto<i64>>(ids: &[T]) -> PyResult<u64> {
    let mut bound = 0u64;
    for &id in ids {
        let id: i64 = id.try_into().map_err(|_| PyValueError::new_err("node ids must fit in 64 bits"))?;
        if id < 0 {
            return Err(PyValueError::new_err(format!("node id {id} is negative")));
        }
        bound = bound.max(id as u64 + 1);
    }
    Ok(bound)
}

/// The graph of two integer arrays of one element type.
fn from_arrays<T>(
    py: Python<'_>,
    sources: &[T],
    targets: &[T],
    nodes: Option<u64>,
    stakes: Option<Vec<Stake>>,
) -> PyResult<GameGraph>
where
    T: Copy + TryInto<u32> + TryInto<i64> + std::fmt::Display + Sync,
{
    if sources.len() != targets.len() {
        return Err(PyValueError::new_err(format!(
            "sources has {} moves and targets {}: one target per source",
            sources.len(),
            targets.len()
        )));
    }
    // Given the node count, the ids are checked against it while the moves are read: no pass of
    // its own over the arrays.
    let nodes = match nodes {
        Some(nodes) => nodes,
        None => id_bound(sources)?.max(id_bound(targets)?).max(stakes.as_ref().map_or(0, |s| s.len() as u64)),
    };
    if nodes > u64::from(u32::MAX) {
        return Err(PyValueError::new_err(format!("{nodes} nodes: a graph holds at most {}", u32::MAX)));
    }
    let stakes = stakes.unwrap_or_else(|| vec![0; nodes as usize]);
    if stakes.len() as u64 != nodes {
        return Err(PyValueError::new_err(format!("stakes has {} entries for {nodes} nodes", stakes.len())));
    }
    let forward = py.detach(|| adjacency(sources, targets, nodes))?;
    Ok(py.detach(|| GameGraph::new(forward, stakes)))
}

/// Reads `array` as a slice of `T` if it is a one-dimensional contiguous array of that type.
macro_rules! try_arrays {
    ($py:expr, $sources:expr, $targets:expr, $nodes:expr, $stakes:expr, $($t:ty),+) => {
        $(
            if let (Ok(s), Ok(t)) = ($sources.extract::<PyReadonlyArray1<'_, $t>>(), $targets.extract::<PyReadonlyArray1<'_, $t>>()) {
                if let (Ok(s), Ok(t)) = (s.as_slice(), t.as_slice()) {
                    return from_arrays($py, s, t, $nodes, $stakes);
                }
            }
        )+
    };
}

/// The graph of `sources`/`targets`, numpy arrays of one integer type (any of the common ones,
/// read in place).
fn graph_of_arrays(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    targets: &Bound<'_, PyAny>,
    nodes: Option<u64>,
    stakes: Option<Vec<Stake>>,
) -> PyResult<GameGraph> {
    try_arrays!(py, sources, targets, nodes, stakes, i64, u32, i32, u64);
    Err(PyValueError::new_err(
        "sources and targets must be one-dimensional contiguous numpy arrays of one integer type \
         (int64, uint32, int32 or uint64)",
    ))
}

#[pymethods]
impl Graph {
    /// Reads the `graph` text format (`a -> b c`, `b = 3`, `# comments`).
    #[staticmethod]
    fn from_text(py: Python<'_>, text: &str) -> PyResult<Self> {
        let graph = py.detach(|| parse_text(text)).map_err(|e| bad_input(format!("bad graph: {e}")))?;
        Ok(Self { graph: Arc::new(graph) })
    }

    /// Reads a numeric edge list (`u v` per move, `u = p` for a final node's stake), as
    /// `gamegraph graph --format edges` does.
    #[staticmethod]
    fn from_edge_list(py: Python<'_>, text: &str) -> PyResult<Self> {
        let graph = py.detach(|| parse_edges(text)).map_err(|e| bad_input(format!("bad graph: {e}")))?;
        Ok(Self { graph: Arc::new(graph) })
    }

    /// The graph with the moves `sources[i] -> targets[i]` (numpy integer arrays, read in place),
    /// over `nodes` nodes (by default one more than the largest id), final nodes losing
    /// `stakes[node]` (by default 0).
    #[staticmethod]
    #[pyo3(signature = (sources, targets, nodes = None, stakes = None))]
    fn from_arrays(
        py: Python<'_>,
        sources: &Bound<'_, PyAny>,
        targets: &Bound<'_, PyAny>,
        nodes: Option<u64>,
        stakes: Option<PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<Self> {
        let stakes = match stakes {
            None => None,
            Some(s) => Some(
                s.as_array()
                    .iter()
                    .enumerate()
                    .map(|(at, &p)| {
                        Stake::try_from(p).map_err(|_| {
                            PyValueError::new_err(format!("stakes[{at}] is {p}, beyond 32-bit stakes"))
                        })
                    })
                    .collect::<PyResult<Vec<_>>>()?,
            ),
        };
        let graph = graph_of_arrays(py, sources, targets, nodes, stakes)?;
        Ok(Self { graph: Arc::new(NamedGraph::numbered(graph)) })
    }

    /// The number of nodes.
    fn __len__(&self) -> usize {
        self.graph.graph.nodes()
    }

    /// The number of moves.
    #[getter]
    fn edges(&self) -> usize {
        self.graph.graph.edges()
    }

    /// Every node's name, in id order (their ids, as text, for graphs built from arrays).
    #[getter]
    fn names(&self) -> Vec<String> {
        (0..self.graph.graph.nodes() as u32).map(|u| self.graph.name(u)).collect()
    }

    /// The id of the node called `name`.
    fn id(&self, name: &str) -> PyResult<u32> {
        self.graph.id(name).ok_or_else(|| PyKeyError::new_err(format!("no node called '{name}'")))
    }

    /// The nodes one move from `node`.
    fn successors(&self, node: u32) -> PyResult<Vec<u32>> {
        self.check(node)?;
        Ok(self.graph.graph.successors(node).to_vec())
    }

    /// Every position solved in `model` ("outcome", "stakes" or "minimax"), on `threads`
    /// threads (all cores by default).
    #[pyo3(signature = (model = "stakes", threads = None))]
    fn solve(&self, py: Python<'_>, model: &str, threads: Option<usize>) -> PyResult<Solution> {
        let model: Model = model.parse().map_err(bad_input)?;
        let graph = Arc::clone(&self.graph);
        let pool = rayon_pool(threads)?;
        let solution = interruptible(py, move |_| pool.install(|| solve_graph(&graph.graph, model)))?;
        Ok(Solution { graph: Arc::clone(&self.graph), solution: Arc::new(solution) })
    }

    fn __repr__(&self) -> String {
        format!("<gamegraph.Graph: {} nodes, {} moves>", self.graph.graph.nodes(), self.graph.graph.edges())
    }
}

impl Graph {
    fn check(&self, node: u32) -> PyResult<()> {
        if (node as usize) < self.graph.graph.nodes() {
            Ok(())
        } else {
            Err(PyKeyError::new_err(format!("no node {node}: the graph has {}", self.graph.graph.nodes())))
        }
    }
}

/// A thread pool of `threads` threads, or of every core.
fn rayon_pool(threads: Option<usize>) -> PyResult<rayon::ThreadPool> {
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| PyValueError::new_err(format!("cannot start {} threads: {e}", threads.unwrap_or(0))))
}

/// Every position of a graph solved in one model.
#[pyclass(module = "gamegraph._native", frozen)]
pub struct Solution {
    graph: Arc<NamedGraph>,
    solution: Arc<gamegraph::Solution>,
}

/// Remoteness of positions that have none (draws): the largest `uint32`.
pub const NO_REMOTENESS: u32 = u32::MAX;

#[pymethods]
impl Solution {
    /// The model: "outcome", "stakes" or "minimax".
    #[getter]
    fn model(&self) -> &'static str {
        self.solution.model().name()
    }

    /// Every node's outcome for its player to move: 1 win, 0 draw, -1 lose (int8).
    #[getter]
    fn outcome<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let s = &self.solution;
        let v: Vec<i8> = py.detach(|| {
            (0..s.len() as u32)
                .map(|u| match s.outcome(u) {
                    Outcome::Win => 1,
                    Outcome::Draw => 0,
                    Outcome::Lose => -1,
                })
                .collect()
        });
        v.into_pyarray(py)
    }

    /// Every node's value in the model (int64); 0 where the model gives none (draws, and every
    /// node in the outcome model).
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let s = &self.solution;
        let v: Vec<i64> =
            py.detach(|| (0..s.len() as u32).map(|u| s.value(u).map_or(0, i64::from)).collect());
        v.into_pyarray(py)
    }

    /// Every node's remoteness, moves to the end under optimal play (uint32); the largest uint32
    /// for draws.
    #[getter]
    fn remoteness<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        let s = &self.solution;
        let v: Vec<u32> =
            py.detach(|| (0..s.len() as u32).map(|u| s.remoteness(u).unwrap_or(NO_REMOTENESS)).collect());
        v.into_pyarray(py)
    }

    /// The nodes that optimal moves from `node` reach (a node id or a name).
    fn best(&self, node: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        let u = self.node(node)?;
        let succ = self.graph.graph.successors(u);
        let mut best: Vec<u32> =
            self.solution.best_moves(u, succ.iter().copied()).into_iter().map(|i| succ[i]).collect();
        best.dedup();
        Ok(best)
    }

    /// The value of one node (a name or an id) as `gamegraph graph --json` prints it: outcome
    /// ("win", "lose", "draw"), value, remoteness and the best moves by name.
    fn __getitem__(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let u = self.node(node)?;
        let report = GraphReport::position(&self.graph, &self.solution, u);
        to_python(py, &serde_json::to_value(report).expect("a position report serialises"))
    }

    /// The whole solution as `gamegraph graph --json` prints it.
    fn to_json(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let report = GraphReport::new(&self.graph, &self.solution, false);
        to_python(py, &serde_json::to_value(report).expect("a graph report serialises"))
    }

    fn __len__(&self) -> usize {
        self.solution.len()
    }
}

impl Solution {
    /// The id of `node`: an id, or a name.
    fn node(&self, node: &Bound<'_, PyAny>) -> PyResult<u32> {
        let nodes = self.graph.graph.nodes();
        if let Ok(name) = node.extract::<String>() {
            return self
                .graph
                .id(&name)
                .ok_or_else(|| PyKeyError::new_err(format!("no node called '{name}'")));
        }
        let id: i64 = node.extract()?;
        if id < 0 || id as usize >= nodes {
            return Err(PyKeyError::new_err(format!("no node {id}: the graph has {nodes}")));
        }
        Ok(id as u32)
    }
}

/// Sources, targets and stakes of a graph's moves, as numpy arrays.
type RandomArrays<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<i64>>);

/// The moves and stakes of the reproducible random graph of `gamegraph bench graph --nodes N
/// --edges M --seed S` as numpy arrays `(sources, targets, stakes)`: the same graph in Python
/// and on the command line, for benchmarks and tests.
#[pyfunction]
pub fn random_graph_arrays(
    py: Python<'_>,
    nodes: usize,
    edges: usize,
    seed: u64,
) -> PyResult<RandomArrays<'_>> {
    use gamegraph::graph::GraphStream;
    if nodes >= u32::MAX as usize {
        return Err(PyValueError::new_err("nodes must be below 2^32 - 1 (node ids are 32-bit)"));
    }
    let stream = gamegraph::random_graph::RandomGraph::new(nodes, edges, seed);
    let (sources, targets, stakes) = py.detach(|| {
        let (mut sources, mut targets) =
            (Vec::with_capacity(stream.edges()), Vec::with_capacity(stream.edges()));
        stream.for_each_move(&mut |u, v| {
            sources.push(u);
            targets.push(v);
        });
        let mut stakes = vec![0i64; nodes];
        stream.for_each_stake(&mut |u, p| stakes[u as usize] = i64::from(p));
        (sources, targets, stakes)
    });
    Ok((sources.into_pyarray(py), targets.into_pyarray(py), stakes.into_pyarray(py)))
}
