//! `gamegraph.search(game, ...)`: the core's alpha-beta engine on a game written in Python.
//!
//! The engine sees positions as numbers: each Python position met is interned once (a dict
//! from position to number, so positions must be hashable), its moves and the positions they
//! lead to asked of Python once and kept. A move is its index in the list `moves(position)`
//! returned. An exception raised by the game stops the search and is raised again to the caller.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gamegraph::engine::{Engine, EngineSettings, Limits, UNLIMITED};
use gamegraph::score::{decisive_parts, DECISIVE};
use gamegraph::{Evaluate, ExactHints, Game, MoveOrdering, Payoff, PositionKey, Score, Selectivity, Stake};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::work::interruptible_with;

/// What is known of one interned position.
struct Node {
    position: Py<PyAny>,
    /// Its moves and the nodes they lead to, once asked.
    expanded: Option<Expanded>,
}

/// The moves of a position and where they lead; a final position has none and a payoff.
struct Expanded {
    moves: Vec<Py<PyAny>>,
    children: Vec<u32>,
    /// What the player to move gets at a final position.
    payoff: Option<Stake>,
}

/// The positions met so far.
struct Interned {
    nodes: Vec<Node>,
    /// Python position -> node number.
    ids: Py<PyDict>,
}

/// A game written in Python, as the engine sees it.
struct PythonGame {
    game: Py<PyAny>,
    evaluate: Option<Py<PyAny>>,
    interned: Mutex<Interned>,
    /// The first exception the game raised; the search is stopped when one is.
    error: Mutex<Option<PyErr>>,
    stop: Arc<AtomicBool>,
    /// Most positions interned.
    limit: usize,
}

impl PythonGame {
    fn interned(&self) -> std::sync::MutexGuard<'_, Interned> {
        self.interned.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps the first error and stops the search.
    fn fail(&self, error: PyErr) {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(error);
        self.stop.store(true, Relaxed);
    }

    /// The number of `position`, interned now if new.
    fn intern(&self, py: Python<'_>, interned: &mut Interned, position: Bound<'_, PyAny>) -> PyResult<u32> {
        let ids = interned.ids.bind(py);
        if let Some(id) = ids.get_item(&position)? {
            return id.extract();
        }
        if interned.nodes.len() >= self.limit {
            return Err(PyMemoryError::new_err(format!(
                "more than {} positions met: raise limit= if memory allows",
                self.limit
            )));
        }
        let id = interned.nodes.len() as u32;
        ids.set_item(&position, id)?;
        interned.nodes.push(Node { position: position.unbind(), expanded: None });
        Ok(id)
    }

    /// Asks Python for the payoff, moves and children of node `id`.
    fn expand(&self, py: Python<'_>, id: u32) -> PyResult<()> {
        let mut interned = self.interned();
        if interned.nodes[id as usize].expanded.is_some() {
            return Ok(());
        }
        let game = self.game.bind(py);
        let position = interned.nodes[id as usize].position.clone_ref(py);
        let payoff = game.call_method1("payoff", (&position,))?;
        let expanded = if payoff.is_none() {
            let moves: Vec<Bound<'_, PyAny>> =
                game.call_method1("moves", (&position,))?.try_iter()?.collect::<PyResult<_>>()?;
            if moves.is_empty() {
                return Err(PyValueError::new_err(format!(
                    "position {} has no moves but payoff() returned None: a final position needs a payoff",
                    position.bind(py).repr()?
                )));
            }
            let mut children = Vec::with_capacity(moves.len());
            for mv in &moves {
                let child = game.call_method1("play", (&position, mv))?;
                children.push(self.intern(py, &mut interned, child)?);
            }
            Expanded { moves: moves.into_iter().map(Bound::unbind).collect(), children, payoff: None }
        } else {
            let value: i64 = payoff.extract()?;
            let payoff =
                Stake::try_from(value).ok().filter(|p| p.unsigned_abs() < 2_000).ok_or_else(|| {
                    PyValueError::new_err(format!("payoff {value}: payoffs go from -1999 to 1999"))
                })?;
            Expanded { moves: Vec::new(), children: Vec::new(), payoff: Some(payoff) }
        };
        interned.nodes[id as usize].expanded = Some(expanded);
        Ok(())
    }

    /// `f` of node `id`'s expansion, asking Python first if needed; `None` after an error.
    fn with_expanded<T>(&self, id: u32, f: impl FnOnce(&Expanded) -> T) -> Option<T> {
        if self.stop.load(Relaxed) && self.error.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
            return None;
        }
        if let Err(e) = Python::attach(|py| self.expand(py, id)) {
            self.fail(e);
            return None;
        }
        self.interned().nodes[id as usize].expanded.as_ref().map(f)
    }
}

impl Game for PythonGame {
    type Position = u32;
    type Move = u32;

    // A Python game may repeat positions: searches track their path.
    const CYCLES: bool = true;

    fn start(&self) -> u32 {
        0
    }

    fn moves(&self, pos: &u32, moves: &mut Vec<u32>) {
        if let Some(n) = self.with_expanded(*pos, |e| e.children.len() as u32) {
            moves.extend(0..n);
        }
    }

    fn play(&self, pos: &u32, mv: u32) -> u32 {
        self.with_expanded(*pos, |e| e.children[mv as usize]).unwrap_or(*pos)
    }

    fn final_loss(&self, pos: &u32) -> Stake {
        -self.with_expanded(*pos, |e| e.payoff.unwrap_or(0)).unwrap_or(0)
    }
}

impl PositionKey for PythonGame {
    fn key(&self, pos: &u32) -> u64 {
        // SplitMix64's finaliser: node numbers spread over the table.
        let mut z = u64::from(*pos).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Payoff for PythonGame {}

impl Evaluate for PythonGame {
    fn evaluate(&self, pos: &u32) -> Score {
        let Some(evaluate) = &self.evaluate else { return 0 };
        let result = Python::attach(|py| -> PyResult<f64> {
            let position = self.interned().nodes[*pos as usize].position.clone_ref(py);
            evaluate.bind(py).call1((position,))?.extract()
        });
        match result {
            Ok(v) => v.round().clamp(f64::from(-(DECISIVE - 1)), f64::from(DECISIVE - 1)) as Score,
            Err(e) => {
                self.fail(e);
                0
            }
        }
    }
}

impl MoveOrdering for PythonGame {}

impl Selectivity for PythonGame {}

impl ExactHints for PythonGame {}

/// Runs the alpha-beta engine (iterative deepening, transposition table, principal-variation
/// search) on `game` from `position`: to `depth` plies or for `time` seconds, to the end of the
/// game when neither is given. `evaluate(position)` values positions at the horizon for the
/// player to move (numbers below 500,000; 0 without it). Returns a dict: `value` (the payoff
/// where the end was reached, else the heuristic value), `exact`, `remoteness` (plies to the
/// end where known), `best`, `pv` (moves as `moves()` returned them), `depth`, `nodes`,
/// `positions` (met).
#[pyfunction]
#[pyo3(signature = (game, position, depth = None, time = None, evaluate = None, limit = 10_000_000))]
pub fn search(
    py: Python<'_>,
    game: Py<PyAny>,
    position: Bound<'_, PyAny>,
    depth: Option<u32>,
    time: Option<f64>,
    evaluate: Option<Py<PyAny>>,
    limit: usize,
) -> PyResult<Py<PyAny>> {
    let time = match time {
        None => None,
        Some(t) if t > 0.0 && t.is_finite() => Some(Duration::from_secs_f64(t)),
        Some(t) => return Err(PyValueError::new_err(format!("time {t}: give a positive number of seconds"))),
    };
    for method in ["moves", "play", "payoff"] {
        if !game.bind(py).hasattr(method)? {
            return Err(PyValueError::new_err(format!("the game has no {method}() method")));
        }
    }
    // Raised by Ctrl-C and by the game's own exceptions alike.
    let stop = Arc::new(AtomicBool::new(false));
    let searched = PythonGame {
        game,
        evaluate,
        interned: Mutex::new(Interned { nodes: Vec::new(), ids: PyDict::new(py).unbind() }),
        error: Mutex::new(None),
        stop: Arc::clone(&stop),
        limit: limit.max(1),
    };
    searched.intern(py, &mut searched.interned(), position)?;
    let limits = Limits { depth, time, nodes: None };
    let report = interruptible_with(py, stop, |stop| {
        let settings = EngineSettings { tt_mib: 16, threads: 1, ..EngineSettings::default() };
        let engine = Engine::new(&searched, settings).with_interrupt(stop);
        if depth.is_none() && time.is_none() {
            engine.solve(&0, limits)
        } else {
            engine.search(&0, limits)
        }
    })?;
    if let Some(error) = searched.error.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(error);
    }
    let interned = searched.interned();
    let move_of = |pos: u32, mv: u32| -> Py<PyAny> {
        interned.nodes[pos as usize]
            .expanded
            .as_ref()
            .map_or_else(|| py.None(), |e| e.moves[mv as usize].clone_ref(py))
    };
    let mut pv = Vec::new();
    let mut at = 0u32;
    for &mv in &report.pv {
        pv.push(move_of(at, mv));
        at = interned.nodes[at as usize].expanded.as_ref().map_or(at, |e| e.children[mv as usize]);
    }
    let (value, remoteness) = match decisive_parts(report.value) {
        Some((payoff, plies)) => (i64::from(payoff), Some(plies)),
        None if report.is_exact() => (0, None),
        None => (i64::from(report.value), None),
    };
    let out = PyDict::new(py);
    out.set_item("value", value)?;
    out.set_item("exact", report.is_exact())?;
    out.set_item("remoteness", remoteness)?;
    out.set_item("best", report.best.map(|mv| move_of(0, mv)))?;
    out.set_item("pv", PyList::new(py, pv)?)?;
    out.set_item("depth", (report.depth != UNLIMITED).then_some(report.depth))?;
    out.set_item("nodes", report.stats.nodes)?;
    out.set_item("positions", interned.nodes.len())?;
    Ok(out.into_any().unbind())
}
