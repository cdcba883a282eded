//! The one oracle of the front ends: a position of any built-in game valued, with each of its
//! moves, and a move chosen, whatever the game's solver (see [`Solver`]):
//!
//! - **retrograde**: everything reachable is explored and solved backwards (or read from a
//!   database file written by `build`), with remoteness;
//! - **search**: the alpha-beta engine solves exactly, within the time given if any; a search that
//!   does not finish in time falls back to a depth-limited one, marked as not exact;
//! - **database**: exact where the game's database covers the position (the engine reads it at
//!   its leaves), else a limited search.
//!
//! `solve`, `play` and `search` on the command line and `/api/{game}/analyze` on the web page all
//! answer through [`Analyzer`], so they cannot disagree.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gamegraph::database::{Database, Entry};
use gamegraph::engine::{Engine, EngineSettings, Limits, Probe, Report, UNLIMITED};
use gamegraph::explore::TooManyPositions;
use gamegraph::score::decisive_parts;
use gamegraph::{ExploredGame, Game, Model, Outcome, Score, SearchContext, Solution};
use serde::Serialize;

use crate::{BoardView, BuiltinGame, GameError, GameOptions, GameVisitor, Solver};

/// Games are valued in the zero-sum model: a drawn final position is a draw, not a loss.
pub const MODEL: Model = Model::Minimax;

/// How much work one analysis may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Wall time for the whole analysis of a position (its moves share it); `None`: exact
    /// searches run to the end, however long they take.
    pub time: Option<Duration>,
    /// Plies for searches that cannot be exact (none: as deep as the time allows).
    pub depth: Option<u32>,
    /// Most positions explored by retrograde analysis.
    pub positions: usize,
    /// Only win, draw or loss (values 1, 0, -1), which exact searches find faster.
    pub weak: bool,
}

impl Default for Budget {
    fn default() -> Self {
        Self { time: Some(Duration::from_secs(2)), depth: None, positions: 2_000_000, weak: false }
    }
}

/// A value for the player to move (or making a move), and how sure it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Value {
    /// The value in the game's units; none when the time ran out before any answer.
    pub value: Option<Score>,
    /// Win, draw or lose, from the sign of the value.
    pub outcome: Option<Outcome>,
    /// Moves to the end under perfect play, where known.
    pub remoteness: Option<u32>,
    /// Whether the value is the game-theoretic one.
    pub exact: bool,
    /// The plies searched, for a value that is not exact.
    pub depth: Option<u32>,
}

impl Value {
    fn exact(value: Score, remoteness: Option<u32>) -> Self {
        Self { value: Some(value), outcome: Some(Outcome::of(value)), remoteness, exact: true, depth: None }
    }

    fn searched(value: Score, depth: u32) -> Self {
        Self {
            value: Some(value),
            outcome: Some(Outcome::of(value)),
            remoteness: None,
            exact: false,
            depth: Some(depth),
        }
    }

    /// No value: the time ran out before any answer.
    pub const UNKNOWN: Value =
        Value { value: None, outcome: None, remoteness: None, exact: false, depth: None };

    /// A solved database entry.
    fn from_entry(entry: &Entry) -> Self {
        Self { outcome: Some(entry.outcome), ..Self::exact(entry.value.unwrap_or(0), entry.remoteness) }
    }

    /// The same value seen by the other player, one move further from the end.
    fn negated(self) -> Self {
        Self {
            value: self.value.map(|v| -v),
            outcome: self.outcome.map(Outcome::opposite),
            remoteness: self.remoteness.map(|r| r + 1),
            ..self
        }
    }

    /// Whether the value is known only from a search cut by the time limit.
    fn cut_by_time(&self) -> bool {
        !self.exact && self.depth.is_none()
    }
}

impl Value {
    /// The value as text: `~` before a value that is not exact, `?` for none.
    pub fn shown(&self) -> String {
        match (self.value, self.exact) {
            (None, _) => "?".into(),
            (Some(x), true) => x.to_string(),
            (Some(x), false) => format!("~{x}"),
        }
    }
}

/// A value in words: `draw`, or `win +1 in 3` (the value and the distance where known).
pub fn describe(outcome: Outcome, value: Option<i32>, remoteness: Option<u32>) -> String {
    if outcome == Outcome::Draw {
        return "draw".into();
    }
    let value = value.map_or(String::new(), |v| format!(" {v:+}"));
    match remoteness {
        Some(r) => format!("{}{value} in {r}", outcome.name()),
        None => format!("{}{value}", outcome.name()),
    }
}

/// An analysis on one line, as games valued by databases show it by default: the position, its
/// value, and each move's as `MOVE:VALUE` (values not exact marked `~`), then, when some value
/// came from a limited search, a line that says how deep.
pub fn one_line(a: &Analysis) -> String {
    let mut line = format!("{} {}", a.position, a.value.shown());
    for m in &a.moves {
        line.push_str(&format!(" {}:{}", m.notation, m.value.shown()));
    }
    if let Some(depth) = a.moves.iter().map(|m| &m.value).chain([&a.value]).find_map(|v| v.depth) {
        line.push_str(&format!("\n(~: searched {depth} plies, beyond the database: not exact)"));
    }
    line
}

/// The first moves that force a win within a number of moves (chess mates), found by a
/// solver that searches every move whatever the time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ForcedWins {
    /// The position.
    pub position: String,
    /// The most moves asked for.
    #[serde(rename = "mate")]
    pub within: u32,
    /// Each first move that forces the win: in the game's customary notation, in its
    /// notation for programs, and the moves it takes.
    pub moves: Vec<ForcedWin>,
    /// Positions searched.
    pub nodes: u64,
    /// Seconds it took.
    pub seconds: f64,
    /// Whether every first move was searched to the end: false when the time ran out, and then
    /// a first move not listed may still win (those listed do).
    pub complete: bool,
}

/// What a search of forced wins may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForcedWinLimits {
    /// The table of proven positions, in MiB at most.
    pub table_mib: usize,
    /// When to give up; none: search to the end.
    pub time: Option<Duration>,
}

/// One first move that forces a win.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForcedWin {
    /// The move as players write it (SAN in chess).
    #[serde(rename = "move")]
    pub notation: String,
    /// The move in the game's notation for programs (UCI in chess).
    pub uci: String,
    /// Moves of the winner to the end.
    pub mate_in: u32,
}

impl ForcedWins {
    /// `POSITION; mate N: MOVE MOVE ...` or `POSITION; no mate in N`: one line of an answer
    /// file.
    pub fn line(&self) -> String {
        match (self.moves.is_empty(), self.complete) {
            (true, true) => format!("{}; no mate in {}", self.position, self.within),
            (true, false) => format!("{}; no mate found in {} within the time", self.position, self.within),
            (false, complete) => {
                let list: Vec<&str> = self.moves.iter().map(|m| m.notation.as_str()).collect();
                let cut = if complete { "" } else { " (the time ran out: other first moves may mate too)" };
                format!("{}; mate {}: {}{cut}", self.position, self.within, list.join(" "))
            }
        }
    }
}

impl std::fmt::Display for ForcedWins {
    /// Each move with its length, what the search took, then [`ForcedWins::line`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for m in &self.moves {
            writeln!(f, "  {:>8}  mate in {}", m.notation, m.mate_in)?;
        }
        let how = if self.complete { "every move searched" } else { "stopped by the time limit" };
        writeln!(f, "({} positions in {:.2} s, {how})", self.nodes, self.seconds)?;
        write!(f, "{}", self.line())
    }
}

/// One legal move and its value for the player making it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveValue {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// The move as players write it, where that differs (chess: SAN).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
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
    /// The optimal moves: the best value, then the fastest win or the slowest loss where the
    /// distance is known. The first is the one to play: among values of limited searches, the
    /// game's favourite.
    pub best: Vec<String>,
    /// Whether some value was cut short by the time limit.
    pub cut_by_time: bool,
    /// The position as a grid, for drawing.
    pub board: BoardView,
    /// Positions searched (0 for retrograde analysis and databases).
    #[serde(skip)]
    pub nodes: u64,
}

/// The value of one position with what it took to find it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionValue<M> {
    /// The value for the player to move.
    pub value: Value,
    /// A move achieving it, where known.
    pub best: Option<M>,
    /// Positions searched.
    pub nodes: u64,
    /// The null-window probes of an exact solve, in order (none for other ways of valuing): where
    /// its nodes went.
    pub probes: Vec<Probe>,
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
    /// A database file does not hold the position.
    #[error("position {0} is not in the database")]
    NotInDatabase(String),
    /// The game's database should hold the position but cannot answer it.
    #[error("{0}")]
    Database(String),
    /// A database file belongs to another game.
    #[error("a database of {found}, not of {wanted}")]
    WrongGame {
        /// The game of the database.
        found: String,
        /// The game analysed.
        wanted: String,
    },
}

/// One analysis asked for by the game's name, as a front end receives it: the web page's
/// `/api/{game}/analyze` and Python's `gamegraph.analyze`.
pub struct AnalysisRequest<'a> {
    /// The game's name (or an alias).
    pub game: &'a str,
    /// Its options by name, and the database to read if any.
    pub options: &'a GameOptions,
    /// The position in the game's notation; `None` for the start.
    pub position: Option<&'a str>,
    /// How much work the analysis may do.
    pub budget: Budget,
    /// How the searches search.
    pub settings: EngineSettings,
    /// Solved graphs shared with other analyses, if any.
    pub cache: Option<Arc<SolvedCache>>,
    /// Stops the searches once raised (a user's Ctrl-C).
    pub interrupt: Option<Arc<AtomicBool>>,
    /// A database file written by `build`, for games solved whole (their values are read
    /// there instead of explored).
    pub database_file: Option<Database>,
}

/// Why an analysis asked for by name failed: the name or options, the position, or the analysis.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// No such game, or options it does not take.
    #[error("{0}")]
    Game(#[from] GameError),
    /// The position cannot be read.
    #[error(transparent)]
    Position(#[from] crate::BadPosition),
    /// The position was read but could not be analysed.
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
}

/// Analyses the position `request` names: the one answer every front end gives.
pub fn analyze_named(request: AnalysisRequest<'_>) -> Result<Analysis, RequestError> {
    crate::visit(request.game, request.options, NamedAnalysis(request))?
}

/// [`analyze_named`] once the game is known.
struct NamedAnalysis<'a>(AnalysisRequest<'a>);

impl GameVisitor for NamedAnalysis<'_> {
    type Output = Result<Analysis, RequestError>;

    fn visit<G: BuiltinGame>(self, game: G) -> Self::Output {
        let request = self.0;
        let pos = crate::position_or_start(&game, request.position)?;
        let mut analyzer = Analyzer::new(&game, request.budget, request.settings);
        if let Some(cache) = request.cache {
            analyzer = analyzer.with_cache(cache);
        }
        if let Some(interrupt) = request.interrupt {
            analyzer = analyzer.with_interrupt(interrupt);
        }
        if let Some(database) = request.database_file {
            analyzer = analyzer.with_database(database)?;
        }
        let mut analysis = analyzer.analyze(&pos)?;
        // The position and its children written as the user wrote the position (a Connect 4 line
        // stays the sequence typed).
        if let Some(text) = request.position.filter(|text| !text.trim().is_empty()) {
            if let Some(given) = game.format_given(text, &pos) {
                analysis.position = given;
            }
            let mut moves = Vec::new();
            game.moves(&pos, &mut moves);
            for (shown, mv) in analysis.moves.iter_mut().zip(moves) {
                if let Some(after) = game.format_after(text, &pos, mv) {
                    shown.position = after;
                }
            }
        }
        Ok(analysis)
    }
}

/// Everything reachable from some position of a game, solved.
pub struct SolvedGraph<G: Game> {
    explored: ExploredGame<G>,
    solution: Solution,
}

/// Solved graphs kept across analyses, for front ends that analyse position after position of
/// the same small games (the web page, request after request): a position that an earlier
/// exploration reached is answered from it instead of being explored again. Holds at most
/// `capacity` graphs, dropping the oldest.
pub struct SolvedCache {
    graphs: Mutex<VecDeque<(String, Arc<dyn Any + Send + Sync>)>>,
    capacity: usize,
    explorations: AtomicUsize,
}

impl std::fmt::Debug for SolvedCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SolvedCache of {} graphs ({} explorations)", self.graphs().len(), self.explorations())
    }
}

impl SolvedCache {
    /// A cache of at most `capacity` solved graphs.
    pub fn new(capacity: usize) -> Self {
        Self { graphs: Mutex::new(VecDeque::new()), capacity, explorations: AtomicUsize::new(0) }
    }

    /// How many explorations were made through this cache (the misses).
    pub fn explorations(&self) -> usize {
        self.explorations.load(Ordering::Relaxed)
    }

    fn graphs(&self) -> std::sync::MutexGuard<'_, VecDeque<(String, Arc<dyn Any + Send + Sync>)>> {
        self.graphs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A cached graph of `game` that holds `pos`.
    fn find<G: BuiltinGame>(&self, game: &G, pos: &G::Position) -> Option<Arc<SolvedGraph<G>>> {
        let name = game.name();
        self.graphs()
            .iter()
            .filter(|(n, _)| *n == name)
            .filter_map(|(_, g)| Arc::clone(g).downcast::<SolvedGraph<G>>().ok())
            .find(|g| g.explored.id(pos).is_some())
    }

    fn insert<G: BuiltinGame>(&self, game: &G, graph: Arc<SolvedGraph<G>>) {
        self.explorations.fetch_add(1, Ordering::Relaxed);
        let mut graphs = self.graphs();
        graphs.push_back((game.name(), graph));
        while graphs.len() > self.capacity {
            graphs.pop_front();
        }
    }
}

/// Where retrograde values come from.
enum Solved<G: BuiltinGame> {
    /// Not yet explored.
    Nothing,
    /// Everything reachable from some root, solved (maybe shared with a cache).
    Explored(Arc<SolvedGraph<G>>),
    /// A database file written by `build`.
    File(Database),
}

/// Analyses positions of one game, keeping what it learnt (the search table, the solved graph)
/// from one position to the next: a game played move after move is explored once.
pub struct Analyzer<'g, G: BuiltinGame> {
    game: &'g G,
    budget: Budget,
    settings: EngineSettings,
    engine: Option<Engine<'g, G>>,
    solved: Solved<G>,
    cache: Option<Arc<SolvedCache>>,
    interrupt: Option<Arc<AtomicBool>>,
}

impl<'g, G: BuiltinGame> Analyzer<'g, G> {
    /// An analyzer of `game` within `budget`, whose searches use `settings`.
    pub fn new(game: &'g G, budget: Budget, settings: EngineSettings) -> Self {
        Self { game, budget, settings, engine: None, solved: Solved::Nothing, cache: None, interrupt: None }
    }

    /// Looks for solved graphs in `cache`, and leaves its explorations there, before exploring.
    pub fn with_cache(mut self, cache: Arc<SolvedCache>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Stops the searches within a few tens of milliseconds once `interrupt` is raised (a user's
    /// Ctrl-C): what they found by then is reported, marked not exact.
    pub fn with_interrupt(mut self, interrupt: Arc<AtomicBool>) -> Self {
        self.interrupt = Some(interrupt);
        self
    }

    /// Reads retrograde values from `database` (written by `build`) instead of exploring.
    pub fn with_database(mut self, database: Database) -> Result<Self, AnalysisError> {
        if database.game != self.game.name() {
            return Err(AnalysisError::WrongGame { found: database.game, wanted: self.game.name() });
        }
        self.solved = Solved::File(database);
        Ok(self)
    }

    /// The search engine, created with its table on first use.
    pub fn engine(&mut self) -> Result<&Engine<'g, G>, AnalysisError> {
        if self.engine.is_none() {
            let mut engine = Engine::try_new(self.game, self.settings.clone())
                .map_err(|_| AnalysisError::Memory(self.settings.tt_mib))?;
            if let Some(interrupt) = &self.interrupt {
                engine = engine.with_interrupt(Arc::clone(interrupt));
            }
            self.engine = Some(engine);
        }
        Ok(self.engine.as_ref().expect("just created"))
    }

    /// Iterative deepening from `pos` within `limits`: the engine's own report.
    pub fn search(&mut self, pos: &G::Position, limits: Limits) -> Result<Report<G::Move>, AnalysisError> {
        Ok(self.engine()?.search(pos, limits))
    }

    /// The value of `pos` for its player to move, with a move achieving it, within the whole
    /// time budget.
    pub fn value(&mut self, pos: &G::Position) -> Result<PositionValue<G::Move>, AnalysisError> {
        self.game.check_database(pos).map_err(AnalysisError::Database)?;
        match G::ENTRY.solver {
            Solver::Retrograde => {
                let a = self.analyze(pos)?;
                let best = self.best_move(pos, &a);
                Ok(PositionValue { value: a.value, best, nodes: 0, probes: Vec::new() })
            }
            Solver::Search | Solver::Database => self.searched_value(pos, self.budget.time),
        }
    }

    /// Values `pos` and each of its moves; the moves share the time budget.
    pub fn analyze(&mut self, pos: &G::Position) -> Result<Analysis, AnalysisError> {
        let game = self.game;
        game.check_database(pos).map_err(AnalysisError::Database)?;
        let mut moves = Vec::new();
        game.moves(pos, &mut moves);
        let (value, values, nodes) = match G::ENTRY.solver {
            Solver::Retrograde => self.retrograde(pos, &moves)?,
            Solver::Search | Solver::Database => self.searched(pos, &moves)?,
        };
        let cut_by_time = values.iter().chain([&value]).any(Value::cut_by_time);
        let best = self.play_first(pos, &moves, optimal(&values), &values);
        let moves: Vec<MoveValue> = moves
            .iter()
            .zip(values)
            .map(|(&mv, value)| MoveValue {
                notation: game.format_move(pos, mv),
                display: game.display_move(pos, mv),
                position: game.format_position(&game.play(pos, mv)),
                value,
            })
            .collect();
        let best = best.into_iter().map(|i| moves[i].notation.clone()).collect();
        Ok(Analysis {
            game: game.name(),
            position: game.format_position(pos),
            over: moves.is_empty(),
            value,
            moves,
            best,
            cut_by_time,
            board: game.board(pos),
            nodes,
        })
    }

    /// `best` (indices of `moves`, all of the best value) with the move to play first. Where the
    /// values come from limited searches, which tell tied moves apart no further, they go in the
    /// game's move order (its own guess at the best), not in the order of generation, which would
    /// open Connect 4 on the edge column.
    fn play_first(
        &self,
        pos: &G::Position,
        moves: &[G::Move],
        best: Vec<usize>,
        values: &[Value],
    ) -> Vec<usize> {
        if best.iter().all(|&i| values[i].exact) {
            return best;
        }
        let mut tied: Vec<G::Move> = best.iter().map(|&i| moves[i]).collect();
        self.game.order_moves(pos, &mut tied, 0, &mut SearchContext::default());
        tied.iter().map(|mv| moves.iter().position(|m| m == mv).expect("one of the moves")).collect()
    }

    /// The move to play at `pos`, analysed as `analysis`: the first optimal move, or where no
    /// move could be valued in time, the engine's choice at the depth it reaches in the time
    /// budget. `None` at the end of the game.
    pub fn best_move(&mut self, pos: &G::Position, analysis: &Analysis) -> Option<G::Move> {
        let mut moves = Vec::new();
        self.game.moves(pos, &mut moves);
        let first = *moves.first()?;
        if let Some(best) = analysis.best.first() {
            return moves.iter().copied().find(|&mv| &self.game.format_move(pos, mv) == best);
        }
        let time = self.budget.time;
        let Ok(engine) = self.engine() else { return Some(first) };
        engine.clear();
        Some(engine.search(pos, Limits { time, ..Limits::default() }).best.unwrap_or(first))
    }

    /// Exact values with remoteness from the solved graph of everything reachable from `pos`
    /// (explored now unless an earlier exploration reached it), or from the database file.
    fn retrograde(
        &mut self,
        pos: &G::Position,
        moves: &[G::Move],
    ) -> Result<(Value, Vec<Value>, u64), AnalysisError> {
        let game = self.game;
        let explored_here = match &self.solved {
            Solved::Explored(graph) => graph.explored.id(pos).is_some(),
            Solved::File(_) => true,
            Solved::Nothing => false,
        };
        if !explored_here {
            let cached = self.cache.as_ref().and_then(|c| c.find(game, pos));
            let graph = match cached {
                Some(graph) => graph,
                None => {
                    let explored = ExploredGame::new(game, pos.clone(), self.budget.positions)?;
                    let solution = explored.solve(MODEL);
                    let graph = Arc::new(SolvedGraph { explored, solution });
                    if let Some(cache) = &self.cache {
                        cache.insert(game, Arc::clone(&graph));
                    }
                    graph
                }
            };
            self.solved = Solved::Explored(graph);
        }
        let value_of = |p: &G::Position| -> Result<Value, AnalysisError> {
            let entry = match &self.solved {
                Solved::Explored(graph) => {
                    graph.explored.id(p).map(|id| Entry::from_solution(&graph.solution, id))
                }
                Solved::File(db) => db.get(&game.format_position(p)).copied(),
                Solved::Nothing => None,
            };
            entry
                .map(|e| Value::from_entry(&e))
                .ok_or_else(|| AnalysisError::NotInDatabase(game.format_position(p)))
        };
        let values = moves
            .iter()
            .map(|&mv| value_of(&game.play(pos, mv)).map(Value::negated))
            .collect::<Result<_, _>>()?;
        Ok((value_of(pos)?, values, 0))
    }

    /// Values by the engine: exact at the end of the game, where the game knows them at once (a
    /// database) or where an exact search finishes in time; else from a limited search. The moves
    /// share the time budget.
    fn searched(
        &mut self,
        pos: &G::Position,
        moves: &[G::Move],
    ) -> Result<(Value, Vec<Value>, u64), AnalysisError> {
        let share = self.budget.time.map(|t| t / moves.len().max(1) as u32);
        let mut nodes = 0;
        let mut values = Vec::with_capacity(moves.len());
        for &mv in moves {
            let child = self.searched_value(&self.game.play(pos, mv), share)?;
            nodes += child.nodes;
            values.push(child.value.negated());
        }
        let value = if moves.is_empty() {
            self.final_value(pos)
        } else {
            match values.iter().filter_map(|v| v.value).max() {
                // Exact: the optimal move's value, with its distance where known.
                Some(_) if values.iter().all(|v| v.exact) => values[optimal(&values)[0]],
                Some(best) => {
                    Value { depth: values.iter().filter_map(|v| v.depth).min(), ..Value::searched(best, 0) }
                }
                None => Value::UNKNOWN,
            }
        };
        Ok((value, values, nodes))
    }

    /// The exact value of a final position.
    fn final_value(&self, pos: &G::Position) -> Value {
        Value::exact(self.weak(self.game.final_score(pos)), Some(0))
    }

    /// `score`, or only its sign in a weak analysis.
    fn weak(&self, score: Score) -> Score {
        if self.budget.weak {
            score.signum()
        } else {
            score
        }
    }

    /// The value of `pos` for its player to move within `time` (`None`: exact, however long).
    fn searched_value(
        &mut self,
        pos: &G::Position,
        time: Option<Duration>,
    ) -> Result<PositionValue<G::Move>, AnalysisError> {
        let game = self.game;
        let mut moves = Vec::new();
        game.moves(pos, &mut moves);
        if moves.is_empty() {
            return Ok(PositionValue {
                value: self.final_value(pos),
                best: None,
                nodes: 0,
                probes: Vec::new(),
            });
        }
        let (depth, weak) = (self.budget.depth, self.budget.weak);
        let exact_search = G::ENTRY.solver == Solver::Search && depth.is_none();
        if !exact_search {
            if let Some(score) = game.immediate_score(pos) {
                // A decisive database value carries its distance to the end (a distance to mate).
                let remoteness = decisive_parts(score).map(|(_, plies)| plies);
                return Ok(PositionValue {
                    value: Value::exact(self.weak(score), remoteness),
                    best: None,
                    nodes: 0,
                    probes: Vec::new(),
                });
            }
        }
        let engine = self.engine()?;
        let mut nodes = 0;
        let mut time = time;
        if exact_search {
            // An exact search first; if it does not finish, a limited one in the time left.
            let limits = Limits { time: time.map(|t| t / 2), ..Limits::default() };
            let r = if weak { engine.solve_within(pos, -1, 1, limits) } else { engine.solve(pos, limits) };
            if r.complete {
                let value = if weak { r.value.signum() } else { r.value };
                return Ok(PositionValue {
                    value: Value::exact(value, None),
                    best: r.best,
                    nodes: r.stats.nodes,
                    probes: r.probes,
                });
            }
            nodes = r.stats.nodes;
            time = time.map(|t| t / 2);
        }
        let r = engine.search(pos, Limits { depth, time, ..Limits::default() });
        let value = match r.depth {
            UNLIMITED if r.complete => Value::exact(self.weak(r.value), None),
            0 => Value::UNKNOWN,
            d => Value::searched(self.weak(r.value), d),
        };
        Ok(PositionValue { value, best: r.best, nodes: nodes + r.stats.nodes, probes: Vec::new() })
    }
}

/// The indices of the optimal moves among `values` (for the player making each): the best value,
/// then, where distances are known, the fastest win or the slowest loss.
fn optimal(values: &[Value]) -> Vec<usize> {
    let Some(best) = values.iter().filter_map(|v| v.value).max() else { return Vec::new() };
    let candidates: Vec<usize> = (0..values.len()).filter(|&i| values[i].value == Some(best)).collect();
    let distance = |i: usize| values[i].remoteness;
    let chosen = match Outcome::of(best) {
        Outcome::Win => candidates.iter().filter_map(|&i| distance(i)).min(),
        Outcome::Lose => candidates.iter().filter_map(|&i| distance(i)).max(),
        Outcome::Draw => None,
    };
    match chosen {
        Some(d) => candidates.into_iter().filter(|&i| distance(i) == Some(d)).collect(),
        None => candidates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Nim, TicTacToe};

    /// Moves tied on the values of limited searches are put in the game's order: Connect 4's
    /// empty board, where 4 plies prove nothing, is opened in the centre, not on the edge.
    #[test]
    fn ties_between_limited_values_go_to_the_games_order() {
        use gamegraph::Notation;
        let game = crate::Connect4::default();
        let budget = Budget { time: None, depth: Some(4), ..Budget::default() };
        let mut analyzer = Analyzer::new(&game, budget, EngineSettings::default());
        let start = game.start();
        let analysis = analyzer.analyze(&start).unwrap();
        assert_eq!(analysis.best.len(), 7, "every column at ~0: {:?}", analysis.best);
        assert_eq!(analysis.best[0], "4");
        let mv = analyzer.best_move(&start, &analysis).unwrap();
        assert_eq!(game.format_move(&start, mv), "4");
    }

    /// Positions reached by an earlier exploration are answered from the cache, game by game.
    #[test]
    fn the_cache_serves_positions_an_exploration_reached() {
        let cache = Arc::new(SolvedCache::new(2));
        fn analyzer<G: BuiltinGame>(game: &G) -> Analyzer<'_, G> {
            Analyzer::new(game, Budget::default(), EngineSettings::default())
        }
        let start = TicTacToe.start();
        let a = analyzer(&TicTacToe).with_cache(cache.clone()).analyze(&start).unwrap();
        assert_eq!(cache.explorations(), 1);
        // A later analyzer, as for the next web request: the child is in the cached graph.
        let child = TicTacToe.play(&start, 4);
        let b = analyzer(&TicTacToe).with_cache(cache.clone()).analyze(&child).unwrap();
        assert_eq!(cache.explorations(), 1);
        assert_eq!(b.value, analyzer(&TicTacToe).analyze(&child).unwrap().value);
        assert_eq!(a.value.value, Some(0));
        // Another game does not take tic-tac-toe's graph; the oldest graph makes room.
        let nim = Nim::default();
        analyzer(&nim).with_cache(cache.clone()).analyze(&nim.start()).unwrap();
        analyzer(&nim).with_cache(cache.clone()).analyze(&vec![1, 1]).unwrap();
        assert_eq!(cache.explorations(), 3);
        analyzer(&TicTacToe).with_cache(cache.clone()).analyze(&child).unwrap();
        assert_eq!(cache.explorations(), 4);
    }
}
