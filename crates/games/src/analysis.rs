//! A position of any built-in game valued with every move, the way front ends show it: exactly
//! where the game's solver can (retrograde analysis of everything reachable, an exact search, a
//! database), otherwise from a search cut at a depth or time limit and marked as not exact.

use std::time::Duration;

use gamegraph::engine::{Engine, EngineSettings, Limits, UNLIMITED};
use gamegraph::explore::TooManyPositions;
use gamegraph::{ExploredGame, Model, Outcome, Solution};
use serde::Serialize;

use crate::{BoardView, BuiltinGame, Solver};

/// How much work one analysis may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Wall time for the search of all the moves together.
    pub time: Duration,
    /// Plies for searches that cannot be exact (none: as deep as the time allows).
    pub depth: Option<u32>,
    /// Most positions explored by retrograde analysis.
    pub positions: usize,
    /// Transposition table of the search, in MiB.
    pub hash_mib: usize,
    /// Search threads.
    pub threads: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Self { time: Duration::from_secs(2), depth: None, positions: 2_000_000, hash_mib: 16, threads: 1 }
    }
}

/// A value for the player to move (or making a move), and how sure it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Value {
    /// The value in the game's units; none when the time ran out before any answer.
    pub value: Option<i32>,
    /// `win`, `draw` or `lose`, from the sign of the value.
    pub outcome: Option<&'static str>,
    /// Moves to the end under perfect play, where known.
    pub remoteness: Option<u32>,
    /// Whether the value is the game-theoretic one.
    pub exact: bool,
    /// The plies searched, for a value that is not exact.
    pub depth: Option<u32>,
}

impl Value {
    fn exact(value: i32, remoteness: Option<u32>) -> Self {
        Self { value: Some(value), outcome: Some(sign(value).name()), remoteness, exact: true, depth: None }
    }

    fn searched(value: i32, depth: u32) -> Self {
        Self {
            value: Some(value),
            outcome: Some(sign(value).name()),
            remoteness: None,
            exact: false,
            depth: Some(depth),
        }
    }

    const UNKNOWN: Value = Value { value: None, outcome: None, remoteness: None, exact: false, depth: None };

    /// The same value seen by the other player, one move further from the end.
    fn negated(self) -> Self {
        Self {
            value: self.value.map(|v| -v),
            outcome: self.value.map(|v| sign(-v).name()),
            remoteness: self.remoteness.map(|r| r + 1),
            ..self
        }
    }
}

fn sign(v: i32) -> Outcome {
    match v.signum() {
        1 => Outcome::Win,
        -1 => Outcome::Lose,
        _ => Outcome::Draw,
    }
}

/// One legal move and its value for the player making it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveValue {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// The position it leads to.
    pub position: String,
    /// Its value for the player making it.
    #[serde(flatten)]
    pub value: Value,
}

/// A position, its value and every move's value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// The game's name.
    pub game: String,
    /// The position in the game's notation.
    pub position: String,
    /// Its value for the player to move.
    #[serde(flatten)]
    pub value: Value,
    /// Whether the game is over.
    pub over: bool,
    /// Every legal move, in generation order.
    pub moves: Vec<MoveValue>,
    /// The moves with the best value.
    pub best: Vec<String>,
    /// Whether some value was cut short by the time limit.
    pub cut_by_time: bool,
    /// The position as a grid, for drawing.
    pub board: BoardView,
}

/// Why a position could not be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    /// Too many positions are reachable for retrograde analysis.
    #[error(transparent)]
    TooLarge(#[from] TooManyPositions),
    /// The search table could not be allocated.
    #[error("cannot allocate a {0} MiB search table")]
    Memory(usize),
}

/// Values `pos` and each of its moves within `budget`, with a search table of its own when the
/// game is solved by search.
pub fn analyze<G: BuiltinGame>(
    game: &G,
    pos: &G::Position,
    budget: &Budget,
) -> Result<Analysis, AnalysisError> {
    analyze_with(game, pos, budget, None)
}

/// [`analyze`] with the caller's engine, if given, instead of a new one (whose table `budget`
/// sizes): a caller analysing position after position keeps one table for all of them.
pub fn analyze_with<G: BuiltinGame>(
    game: &G,
    pos: &G::Position,
    budget: &Budget,
    engine: Option<&Engine<'_, G>>,
) -> Result<Analysis, AnalysisError> {
    let mut moves = Vec::new();
    game.moves(pos, &mut moves);
    let (value, values) = match G::SOLVER {
        Solver::Retrograde => retrograde(game, pos, &moves, budget)?,
        Solver::Search | Solver::Database => searched(game, pos, &moves, budget, engine)?,
    };
    let best_value = values.iter().filter_map(|v| v.value).max();
    let cut_by_time = values.iter().chain([&value]).any(|v| !v.exact && v.depth.is_none());
    let moves: Vec<MoveValue> = moves
        .iter()
        .zip(values)
        .map(|(&mv, value)| MoveValue {
            notation: game.format_move(pos, mv),
            position: game.format_position(&game.play(pos, mv)),
            value,
        })
        .collect();
    let best = moves
        .iter()
        .filter(|m| m.value.value.is_some() && m.value.value == best_value)
        .map(|m| m.notation.clone())
        .collect();
    Ok(Analysis {
        game: game.name(),
        position: game.format_position(pos),
        over: moves.is_empty(),
        value,
        moves,
        best,
        cut_by_time,
        board: game.board(pos),
    })
}

/// Exact values with remoteness from the solved graph of everything reachable from `pos`.
fn retrograde<G: BuiltinGame>(
    game: &G,
    pos: &G::Position,
    moves: &[G::Move],
    budget: &Budget,
) -> Result<(Value, Vec<Value>), AnalysisError> {
    let explored = ExploredGame::new(game, pos.clone(), budget.positions)?;
    let solution: Solution = explored.solve(Model::Minimax);
    let value_of = |p: &G::Position| {
        let id = explored.id(p).expect("reachable positions are explored");
        Value::exact(solution.value(id).unwrap_or(0), solution.remoteness(id))
    };
    let values = moves.iter().map(|&mv| value_of(&game.play(pos, mv)).negated()).collect();
    Ok((value_of(pos), values))
}

/// Values by the engine: exact at the end of the game, where the game knows them at once (a
/// database) or where an exact search finishes in time; else from a limited search.
fn searched<G: BuiltinGame>(
    game: &G,
    pos: &G::Position,
    moves: &[G::Move],
    budget: &Budget,
    engine: Option<&Engine<'_, G>>,
) -> Result<(Value, Vec<Value>), AnalysisError> {
    let owned;
    let engine = match engine {
        Some(engine) => engine,
        None => {
            let settings = EngineSettings {
                tt_mib: budget.hash_mib,
                threads: budget.threads.max(1),
                ..EngineSettings::default()
            };
            owned = Engine::try_new(game, settings).map_err(|_| AnalysisError::Memory(budget.hash_mib))?;
            &owned
        }
    };
    let share = budget.time / moves.len().max(1) as u32;
    let values: Vec<Value> = moves
        .iter()
        .map(|&mv| position_value(game, engine, &game.play(pos, mv), share, budget.depth).negated())
        .collect();
    let value = if moves.is_empty() {
        Value::exact(game.final_score(pos), Some(0))
    } else {
        let best = values.iter().filter_map(|v| v.value).max();
        match best {
            Some(best) if values.iter().all(|v| v.exact) => Value::exact(best, None),
            Some(best) => Value {
                value: Some(best),
                outcome: Some(sign(best).name()),
                remoteness: None,
                exact: false,
                depth: values.iter().filter_map(|v| v.depth).min(),
            },
            None => Value::UNKNOWN,
        }
    };
    Ok((value, values))
}

/// The value of `pos` for its player to move within `time`.
fn position_value<G: BuiltinGame>(
    game: &G,
    engine: &Engine<'_, G>,
    pos: &G::Position,
    time: Duration,
    depth: Option<u32>,
) -> Value {
    let mut moves = Vec::new();
    game.moves(pos, &mut moves);
    if moves.is_empty() {
        return Value::exact(game.final_score(pos), Some(0));
    }
    if let Some(score) = game.immediate_score(pos) {
        return Value::exact(score, None);
    }
    let mut time = time;
    if G::SOLVER == Solver::Search && depth.is_none() {
        // An exact search first; if it does not finish, a limited one in the time left.
        let r = engine.solve(pos, Limits { time: Some(time / 2), ..Limits::default() });
        if r.complete {
            return Value::exact(r.value, None);
        }
        time /= 2;
    }
    let limits = Limits { depth, time: Some(time), ..Limits::default() };
    let r = engine.search(pos, limits);
    match r.depth {
        UNLIMITED if r.complete => Value::exact(r.value, None),
        0 => Value::UNKNOWN,
        d => Value::searched(r.value, d),
    }
}
