//! The full-strength search engine: negamax alpha-beta with a shared transposition table,
//! principal-variation (null-window) search, enhanced transposition cutoffs, iterative deepening
//! with aspiration windows or MTD(f), exact solving by null-window probes, limits by depth, nodes
//! or time, and every core (split subtrees for exact solves, Lazy SMP for depth-limited ones).
//!
//! It works on any game that has the search traits ([`Searchable`]); game code that searches inside a
//! node gets the search's [`crate::SearchContext`]. Scores are from the
//! point of view of the player to move, on the scale of [`crate::score`]: decisive scores are
//! kept relative to the root inside the search, so that a faster win scores higher, and relative
//! to the node in the table, where a position can be reached at any ply.
//!
//! The engine is split by concept:
//! - [`settings`]: what to search with and until when, and the report;
//! - `worker`: one search thread and its negamax, read top to bottom;
//! - `probes`: exact solving by null-window probes around a guess;
//! - `deepening`: iterative deepening with aspiration windows or MTD(f);
//! - `order`: move ordering, prefetching and enhanced transposition cutoffs;
//! - `split`: younger-brothers-wait parallel search of exact solves.
//!
//! Games with cycles ([`crate::Game::CYCLES`]) get draws by repetition along the searched path,
//! and results that depended on the path stay out of the table.

pub mod clock;
mod deepening;
mod order;
mod probes;
pub mod settings;
mod split;
mod worker;

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::game::{ExactHints, Game, Searchable};
use crate::score::{Score, MAX_SCORE};
use crate::search_context::SearchContext;
use crate::solver_owner::SolverOwner;
use crate::tt::TranspositionTable;

pub use crate::score::UNLIMITED;
pub use settings::{
    EngineSettings, Iteration, IterationHook, Limits, Probe, Report, SearchControl, SearchStats,
};
use worker::{Buffers, RootResult, Worker};

/// How often the watchdog looks at an engine's interrupt flag ([`Engine::with_interrupt`]).
const INTERRUPT_POLL: Duration = Duration::from_millis(20);

/// Runs `work` with a watchdog that raises `stop` once `time` has passed since `started`, or once
/// `interrupt` is raised from outside, so that a search ends within its time even where single
/// nodes are slow (a game's own ordering searches, say): workers read the flag at every node, the
/// clock only every 1,024 nodes.
fn with_deadline<T>(
    stop: &Arc<AtomicBool>,
    started: Instant,
    (time, interrupt): (Option<Duration>, Option<&AtomicBool>),
    work: impl FnOnce() -> T,
) -> T {
    if time.is_none() && interrupt.is_none() {
        return work();
    }
    let done = (Mutex::new(false), Condvar::new());
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let (lock, wake) = &done;
            let mut finished = lock.lock().unwrap_or_else(|e| e.into_inner());
            while !*finished {
                let left =
                    time.map_or(Duration::MAX, |t| (started + t).saturating_duration_since(Instant::now()));
                if left.is_zero() || interrupt.is_some_and(|i| i.load(Relaxed)) {
                    stop.store(true, Relaxed);
                    return;
                }
                let wait = if interrupt.is_some() { left.min(INTERRUPT_POLL) } else { left };
                finished = wake.wait_timeout(finished, wait).unwrap_or_else(|e| e.into_inner()).0;
            }
        });
        let result = work();
        *done.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        done.1.notify_one();
        result
    })
}

/// Nodes a search with several threads first tries on the calling thread alone.
const QUICK_NODES: u64 = 20_000;

/// Nodes an exact solve with several threads first tries alone, before splitting subtrees.
const QUICK_SPLIT_NODES: u64 = 2_000;

/// A search engine for one game, owning its transposition table.
#[derive(Debug)]
pub struct Engine<'g, G: Game> {
    game: &'g G,
    tt: TranspositionTable,
    settings: EngineSettings,
    /// The threads that exact solves split their subtrees over, started by the first solve that
    /// needs them (none with one thread, or if they could not be started).
    pool: OnceLock<Option<rayon::ThreadPool>>,
    /// Buffers of finished workers, for the next ones: a split creates a worker per subtree,
    /// which would otherwise allocate its buffers again.
    spare: Mutex<Vec<Buffers<G>>>,
    /// Whom the game's own solver works for, as the engine was made: its tables on each thread
    /// are this engine's alone.
    owner: SolverOwner,
    /// How many times [`Engine::clear`] was called: the game's solver forgets what it kept for
    /// older generations.
    generation: std::sync::atomic::AtomicU32,
    /// Raised from outside to stop whatever search runs (a user's Ctrl-C), see
    /// [`Engine::with_interrupt`].
    interrupt: Option<Arc<AtomicBool>>,
}

impl<'g, G: Searchable + Sync> Engine<'g, G> {
    /// An engine with its own table of `settings.tt_mib` MiB.
    ///
    /// # Panics
    /// If the table's memory cannot be mapped; [`Engine::try_new`] reports it instead.
    pub fn new(game: &'g G, settings: EngineSettings) -> Self {
        Self::try_new(game, settings).expect("memory for the transposition table")
    }

    /// Like [`Engine::new`], but reports a table too large to map as an error.
    pub fn try_new(game: &'g G, settings: EngineSettings) -> std::io::Result<Self> {
        let tt = TranspositionTable::try_new(settings.tt_mib)?;
        Ok(Self {
            game,
            tt,
            settings,
            pool: OnceLock::new(),
            spare: Mutex::new(Vec::new()),
            owner: SolverOwner::new(),
            generation: 0.into(),
            interrupt: None,
        })
    }

    /// Stops every search of this engine, within a few tens of milliseconds, while `interrupt`
    /// is raised: for front ends whose user can interrupt any call (Python's Ctrl-C). A stopped
    /// search reports what it had, as one stopped by its time limit does (not exact).
    pub fn with_interrupt(mut self, interrupt: Arc<AtomicBool>) -> Self {
        self.interrupt = Some(interrupt);
        self
    }

    /// Whom the game's own solver works for in this engine's searches, as of now.
    fn solver_owner(&self) -> SolverOwner {
        self.owner.at_generation(self.generation.load(Relaxed))
    }

    /// The settings.
    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// Forgets the engine's table but not what the game's own solvers learnt: to measure what
    /// each remembers.
    pub fn clear_table(&self) {
        self.tt.clear();
    }

    /// Forgets everything learnt, in the engine's table and the game's own
    /// (those kept for this engine, see [`SolverOwner`]; no other engine's): between unrelated
    /// positions, for fair and repeatable measurements.
    pub fn clear(&self) {
        self.clear_table();
        self.generation.fetch_add(1, Relaxed);
    }

    /// The exact value of `pos` with perfect play to the end of the game, by null-window searches
    /// that halve the interval of possible values until it closes.
    pub fn solve(&self, pos: &G::Position, limits: Limits) -> Report<G::Move> {
        self.solve_within(pos, -MAX_SCORE, MAX_SCORE, limits)
    }

    /// Like [`Engine::solve`] but only to tell values below `low`, in `low..=high` and above
    /// `high` apart: `solve_within(p, -1, 1)` is a weak solve (win, draw or loss).
    pub fn solve_within(
        &self,
        pos: &G::Position,
        low: Score,
        high: Score,
        limits: Limits,
    ) -> Report<G::Move> {
        let Some(pool) = self.split_pool() else {
            return self.run(pos, limits, &SearchControl::default(), |w| w.solve(pos, low, high));
        };
        let started = Instant::now();
        let stop = Arc::new(AtomicBool::new(false));
        let drive = |w: &mut Worker<'_, G>| w.solve(pos, low, high);
        with_deadline(&stop, started, (limits.time, self.interrupt.as_deref()), || {
            let control = SearchControl::default();
            let quick = (QUICK_SPLIT_NODES, &control);
            let quick_stats = match self.try_alone(pos, limits, quick, started, &stop, &drive) {
                Ok(report) => return report,
                Err(stats) => stats,
            };
            pool.install(|| {
                let mut main = Worker::new(self, &stop, limits, started, 0);
                main.split = true;
                let result = drive(&mut main);
                let mut stats = main.stats;
                stats.add(&quick_stats);
                self.report(pos, result, stats, started)
            })
        })
    }

    /// Runs `drive` on the calling thread alone for at most `quick` nodes: most searches are
    /// small, and then do not pay for threads. The report if it finished (or reached the
    /// caller's own node limit), else the attempt's counters; the table keeps what the attempt
    /// learnt.
    fn try_alone(
        &self,
        pos: &G::Position,
        limits: Limits,
        (quick, control): (u64, &SearchControl<'_, G::Move>),
        started: Instant,
        stop: &Arc<AtomicBool>,
        drive: &impl Fn(&mut Worker<'_, G>) -> RootResult<G::Move>,
    ) -> Result<Report<G::Move>, SearchStats> {
        let quick_limit = quick.min(limits.nodes.unwrap_or(u64::MAX));
        let mut main = Worker::new(self, stop, Limits { nodes: Some(quick_limit), ..limits }, started, 0)
            .with_control(control);
        let result = drive(&mut main);
        if !main.aborted || limits.nodes.is_some_and(|n| n <= quick) {
            return Ok(self.report(pos, result, main.stats, started));
        }
        Err(main.stats)
    }

    /// The threads that searches to the end of the game split their subtrees over (young
    /// brothers wait), if there are several and the game has no cycles (a split subtree would
    /// not see the path above it). Measured on FFO #40-#44 with two threads: 14.1 s, against
    /// 35.3 s with Lazy SMP's threads probing neighbouring thresholds (27.0 s on one thread);
    /// on the first 100 positions of Test_L1_R2, 103 ms against 132 ms. Without the pool's
    /// threads (the system refused them), exact solves fall back to Lazy SMP.
    fn split_pool(&self) -> Option<&rayon::ThreadPool> {
        if G::CYCLES || self.settings.threads <= 1 {
            return None;
        }
        let threads = self.settings.threads;
        self.pool.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(threads).build().ok()).as_ref()
    }

    /// One fail-soft alpha-beta search of `pos` to `depth` plies ([`UNLIMITED`] for the end of the
    /// game) with the window `(alpha, beta)`: a result `<= alpha` is an upper bound on the value,
    /// `>= beta` a lower bound, anything between exact. The building block of the drivers, public
    /// for teaching and testing.
    pub fn window(&self, pos: &G::Position, depth: u32, alpha: Score, beta: Score) -> Score {
        let stop = Arc::new(AtomicBool::new(false));
        let search = || {
            let mut w = Worker::new(self, &stop, Limits::default(), Instant::now(), 0);
            w.split = self.split_pool().is_some();
            match w.known_at_root(pos) {
                Some(known) => known.value,
                None => w.negamax(pos, depth, 0, alpha, beta),
            }
        };
        match self.split_pool() {
            Some(pool) => pool.install(search),
            None => search(),
        }
    }

    /// Iterative deepening to `limits.depth` (or until the game's end is reached, or a limit).
    pub fn search(&self, pos: &G::Position, limits: Limits) -> Report<G::Move> {
        self.search_with(pos, limits, &SearchControl::default())
    }

    /// [`Engine::search`] steered from outside: stopped when `control.stop` is raised, repetitions
    /// of the positions played before counted, each completed iteration reported.
    pub fn search_with(
        &self,
        pos: &G::Position,
        limits: Limits,
        control: &SearchControl<'_, G::Move>,
    ) -> Report<G::Move> {
        self.run(pos, limits, control, |w| w.iterate(pos))
    }

    /// Runs `drive` on the main worker and, with several threads, on helpers sharing the table
    /// until the main worker is done.
    fn run(
        &self,
        pos: &G::Position,
        limits: Limits,
        control: &SearchControl<'_, G::Move>,
        drive: impl Fn(&mut Worker<'_, G>) -> RootResult<G::Move> + Sync,
    ) -> Report<G::Move> {
        let started = Instant::now();
        let stop = control.stop.clone().unwrap_or_default();
        with_deadline(&stop, started, (limits.time, self.interrupt.as_deref()), || {
            self.run_until(pos, limits, (started, control), &stop, drive)
        })
    }

    /// [`Engine::run`] once the stop flag and the clock are set up.
    fn run_until(
        &self,
        pos: &G::Position,
        limits: Limits,
        (started, control): (Instant, &SearchControl<'_, G::Move>),
        stop: &Arc<AtomicBool>,
        drive: impl Fn(&mut Worker<'_, G>) -> RootResult<G::Move> + Sync,
    ) -> Report<G::Move> {
        let helpers = self.settings.threads.max(1) - 1;
        let mut quick_stats = SearchStats::default();
        if helpers > 0 {
            match self.try_alone(pos, limits, (QUICK_NODES, control), started, stop, &drive) {
                Ok(report) => return report,
                Err(stats) => quick_stats = stats,
            }
        }
        let (result, mut stats) = std::thread::scope(|scope| {
            let handles: Vec<_> = (1..=helpers)
                .map(|id| {
                    let (stop, drive) = (stop, &drive);
                    scope.spawn(move || {
                        // Helpers see the game's history too; only the main thread reports.
                        let mut w =
                            Worker::new(self, stop, Limits::default(), started, id).with_control(control);
                        drive(&mut w);
                        w.stats
                    })
                })
                .collect();
            let mut main = Worker::new(self, stop, limits, started, 0).with_control(control);
            let result = drive(&mut main);
            stop.store(true, Relaxed);
            let mut stats = main.stats;
            for h in handles {
                stats.add(&h.join().expect("search threads do not panic"));
            }
            (result, stats)
        });
        stats.add(&quick_stats);
        self.report(pos, result, stats, started)
    }

    fn report(
        &self,
        pos: &G::Position,
        result: RootResult<G::Move>,
        mut stats: SearchStats,
        started: Instant,
    ) -> Report<G::Move> {
        stats.nodes = stats.nodes.max(1);
        let pv = principal_variation(self.game, &self.tt, pos, result.best, self.solver_owner());
        Report {
            value: result.value,
            bounds: result.bounds,
            best: result.best,
            pv,
            depth: result.depth,
            complete: result.complete,
            stats,
            probes: result.probes,
            elapsed: started.elapsed(),
        }
    }
}

/// The moves from `pos` following the table's best moves, starting with `first`; below the
/// engine's table, the game's own solver's best moves, for `owner`.
pub(super) fn principal_variation<G: Searchable>(
    game: &G,
    tt: &TranspositionTable,
    pos: &G::Position,
    first: Option<G::Move>,
    owner: SolverOwner,
) -> Vec<G::Move> {
    let mut pv = Vec::new();
    let Some(first) = first else { return pv };
    let mut seen = std::collections::HashSet::new();
    let mut pos = game.play(pos, first);
    pv.push(first);
    let mut moves = Vec::new();
    while pv.len() < 128 {
        let key = game.key(&pos);
        if !seen.insert(key) {
            break;
        }
        let Some(index) = tt.probe(key).and_then(|e| e.best) else {
            // The game's own solver leaves no best moves in the table: below the engine, the
            // line goes on by that solver's values.
            match best_solved_move(game, &pos, owner) {
                Some(mv) => {
                    pv.push(mv);
                    pos = game.play(&pos, mv);
                    continue;
                }
                None => break,
            }
        };
        moves.clear();
        // Table indices refer to the moves as generated.
        if game.search_moves(&pos, &mut moves).is_some() {
            break;
        }
        let Some(&mv) = moves.get(index as usize) else { break };
        pv.push(mv);
        pos = game.play(&pos, mv);
    }
    pv
}

/// The best move of `pos` where the game solves it itself (see [`ExactHints::solves_directly`]):
/// the first, in the game's move order, to a child worth least to its own player, by the game's
/// solver. `None` elsewhere, where the game is over, or where the game declines to solve.
///
/// It solves `pos` once, then asks of each child in turn only whether it is worth that value
/// (a null window), which costs a fraction of solving every child with the whole window.
fn best_solved_move<G: ExactHints>(game: &G, pos: &G::Position, owner: SolverOwner) -> Option<G::Move> {
    if G::CYCLES || !game.solves_directly(pos) {
        return None;
    }
    let mut moves = Vec::new();
    game.moves(pos, &mut moves);
    if moves.is_empty() {
        return None;
    }
    let context = &mut SearchContext::outside_search(owner);
    let value = game.solve_directly(pos, -MAX_SCORE, MAX_SCORE, context)?;
    let mut replies = Vec::new();
    for mv in moves {
        let child = game.play(pos, mv);
        replies.clear();
        game.moves(&child, &mut replies);
        // No child is worth less than `-value` to its player: within the window, `-value` or more.
        let worth = if replies.is_empty() {
            game.final_score(&child)
        } else {
            game.solve_directly(&child, -value - 1, -value + 1, context)?
        };
        if worth == -value {
            return Some(mv);
        }
    }
    None
}
