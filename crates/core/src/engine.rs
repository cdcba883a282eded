//! The full-strength search engine: negamax alpha-beta with a shared transposition table,
//! principal-variation (null-window) search, killer and history move ordering, enhanced
//! transposition cutoffs, iterative deepening with aspiration windows or MTD(f), exact solving
//! by null-window narrowing, limits by depth, nodes or time, and Lazy SMP on every core.
//!
//! It works on any game that implements [`Evaluate`] and [`PositionKey`]. Scores are from the
//! point of view of the player to move. Scores at or beyond [`DECISIVE`] (won or lost games under
//! the default [`Evaluate::final_score`]) are kept relative to the root inside the search, so that
//! a faster win scores higher, and converted to distances from the node in the table, where a
//! position can be reached at any ply.
//!
//! Not handled: draws by repetition. A game whose value depends on the path (graph-history
//! interaction) must put what matters of the history into its positions.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;
use std::time::{Duration, Instant};

use crate::game::{Evaluate, Game, PositionKey, FINAL_SCALE, MAX_SCORE};
use crate::tt::{Bound, TranspositionTable, TtEntry};

/// Larger than every score: the open ends of a window.
pub const INFINITY: i32 = i32::MAX;

/// Scores at least this large in magnitude are won or lost games, adjusted by distance.
pub const DECISIVE: i32 = FINAL_SCALE / 2;

/// The depth that means "to the end of the game".
pub const UNLIMITED: u32 = u32::MAX;

/// How the engine searches. The defaults are what measured best on the games here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSettings {
    /// Transposition table size in MiB.
    pub tt_mib: usize,
    /// Search threads (Lazy SMP); 1 searches on the calling thread only.
    pub threads: usize,
    /// Principal-variation search: null windows after the first move.
    pub pvs: bool,
    /// Aspiration windows around the previous iteration's score.
    pub aspiration: bool,
    /// MTD(f) instead of a window search at each iteration of iterative deepening.
    pub mtdf: bool,
    /// Killer moves (two per ply).
    pub killers: bool,
    /// History heuristic (needs [`Evaluate::move_id`]).
    pub history: bool,
    /// Enhanced transposition cutoffs: probe the children before searching them.
    pub etc: bool,
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            tt_mib: 64,
            threads: 1,
            pvs: true,
            aspiration: true,
            mtdf: false,
            // Measured on Connect 4: killers and history override the game's far better ordering
            // hint and multiply the nodes by six. Off by default, on by choice.
            killers: false,
            history: false,
            // Near the root, with the children's buckets prefetched together: Test_L1_R3 (first
            // 10, 1 thread) 2.67 s to 2.41 s, FFO #40-#44 (2 threads) 5.10 s to 4.64 s.
            etc: true,
        }
    }
}

/// When to stop. The first iteration of iterative deepening always completes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration (plies).
    pub depth: Option<u32>,
    /// Nodes searched by the main thread.
    pub nodes: Option<u64>,
    /// Wall time.
    pub time: Option<Duration>,
}

/// Counters of a search, summed over threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Positions visited.
    pub nodes: u64,
    /// Table probes that found an entry.
    pub tt_hits: u64,
    /// Nodes answered by a table entry.
    pub tt_cutoffs: u64,
    /// Nodes where a move failed high.
    pub beta_cutoffs: u64,
    /// Of those, how many failed high on the first move searched (ordering quality).
    pub first_move_cutoffs: u64,
    /// Nodes answered by enhanced transposition cutoffs.
    pub etc_cutoffs: u64,
}

impl SearchStats {
    fn add(&mut self, o: &SearchStats) {
        self.nodes += o.nodes;
        self.tt_hits += o.tt_hits;
        self.tt_cutoffs += o.tt_cutoffs;
        self.beta_cutoffs += o.beta_cutoffs;
        self.first_move_cutoffs += o.first_move_cutoffs;
        self.etc_cutoffs += o.etc_cutoffs;
    }
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report<M> {
    /// The value for the player to move (the last completed iteration's, or the exact value).
    pub value: i32,
    /// Bounds on the value proven so far: equal when the value is exact.
    pub bounds: (i32, i32),
    /// A move achieving `value`, if the root has moves.
    pub best: Option<M>,
    /// The principal variation read back from the table.
    pub pv: Vec<M>,
    /// The deepest completed iteration ([`UNLIMITED`] when searched to the end).
    pub depth: u32,
    /// Whether the search finished what it was asked (false when a limit stopped it).
    pub complete: bool,
    /// Counters, summed over threads.
    pub stats: SearchStats,
    /// Wall time.
    pub elapsed: Duration,
}

impl<M> Report<M> {
    /// Whether the value is the game-theoretic value (searched to the end, bounds met).
    pub fn is_exact(&self) -> bool {
        self.complete && self.depth == UNLIMITED && self.bounds.0 == self.bounds.1
    }

    /// Nodes per second.
    pub fn nodes_per_second(&self) -> f64 {
        self.stats.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Effective branching factor: the depth-th root of the node count.
    pub fn branching_factor(&self) -> f64 {
        if self.depth == 0 || self.depth == UNLIMITED {
            return f64::NAN;
        }
        (self.stats.nodes as f64).powf(1.0 / self.depth as f64)
    }
}

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
}

/// A worker's per-ply buffers.
struct Buffers<G: Game> {
    /// The moves of the node at each ply, in search order once ordered.
    moves: Vec<Vec<G::Move>>,
    /// Per ply, the moves as generated, before ordering (table entries index into them).
    generated: Vec<Vec<G::Move>>,
    /// Per ply, the first children played, to prefetch their table buckets, kept for their
    /// search.
    children: Vec<Vec<Child<G>>>,
}

impl<G: Game> Default for Buffers<G> {
    fn default() -> Self {
        Self { moves: Vec::new(), generated: Vec::new(), children: Vec::new() }
    }
}

impl<G: Game> std::fmt::Debug for Buffers<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Buffers for {} plies", self.moves.len())
    }
}

/// How many spare buffers an engine keeps: enough for every subtree searched at once.
const SPARE_BUFFERS: usize = 64;

impl<'g, G: Evaluate + PositionKey + Sync> Engine<'g, G> {
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
        Ok(Self { game, tt, settings, pool: OnceLock::new(), spare: Mutex::new(Vec::new()) })
    }

    /// The settings.
    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// Forgets everything learnt (between unrelated positions, for fair measurements).
    pub fn clear(&self) {
        self.tt.clear();
    }

    /// The exact value of `pos` with perfect play to the end of the game, by null-window searches
    /// that halve the interval of possible values until it closes.
    pub fn solve(&self, pos: &G::Position, limits: Limits) -> Report<G::Move> {
        self.solve_within(pos, -MAX_SCORE, MAX_SCORE, limits)
    }

    /// Like [`Engine::solve`] but only to tell values below `low`, in `low..=high` and above
    /// `high` apart: `solve_within(p, -1, 1)` is a weak solve (win, draw or loss).
    pub fn solve_within(&self, pos: &G::Position, low: i32, high: i32, limits: Limits) -> Report<G::Move> {
        let Some(pool) = self.split_pool() else {
            return self.run(pos, limits, |w| w.solve(pos, low, high));
        };
        let started = Instant::now();
        let stop = AtomicBool::new(false);
        let drive = |w: &mut Worker<'_, G>| w.solve(pos, low, high);
        let quick_stats = match self.try_alone(pos, limits, QUICK_SPLIT_NODES, started, &stop, &drive) {
            Ok(report) => return report,
            Err(stats) => stats,
        };
        pool.install(|| {
            let mut main = Worker::new(self, &stop, limits, started, 0);
            main.split = true;
            let outcome = drive(&mut main);
            let mut stats = main.stats;
            stats.add(&quick_stats);
            self.report(pos, outcome, stats, started)
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
        quick: u64,
        started: Instant,
        stop: &AtomicBool,
        drive: &impl Fn(&mut Worker<'_, G>) -> Outcome<G::Move>,
    ) -> Result<Report<G::Move>, SearchStats> {
        let quick_limit = quick.min(limits.nodes.unwrap_or(u64::MAX));
        let mut main = Worker::new(self, stop, Limits { nodes: Some(quick_limit), ..limits }, started, 0);
        let outcome = drive(&mut main);
        if !main.aborted || limits.nodes.is_some_and(|n| n <= quick) {
            return Ok(self.report(pos, outcome, main.stats, started));
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
    pub fn window(&self, pos: &G::Position, depth: u32, alpha: i32, beta: i32) -> i32 {
        let stop = AtomicBool::new(false);
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
        self.run(pos, limits, |w| w.iterate(pos))
    }

    /// Runs `drive` on the main worker and, with several threads, on helpers sharing the table
    /// until the main worker is done.
    fn run(
        &self,
        pos: &G::Position,
        limits: Limits,
        drive: impl Fn(&mut Worker<'_, G>) -> Outcome<G::Move> + Sync,
    ) -> Report<G::Move> {
        let started = Instant::now();
        let stop = AtomicBool::new(false);
        let helpers = self.settings.threads.max(1) - 1;
        let mut quick_stats = SearchStats::default();
        if helpers > 0 {
            match self.try_alone(pos, limits, QUICK_NODES, started, &stop, &drive) {
                Ok(report) => return report,
                Err(stats) => quick_stats = stats,
            }
        }
        let (outcome, mut stats) = std::thread::scope(|scope| {
            let handles: Vec<_> = (1..=helpers)
                .map(|id| {
                    let (stop, drive) = (&stop, &drive);
                    scope.spawn(move || {
                        let mut w = Worker::new(self, stop, Limits::default(), started, id);
                        drive(&mut w);
                        w.stats
                    })
                })
                .collect();
            let mut main = Worker::new(self, &stop, limits, started, 0);
            let outcome = drive(&mut main);
            stop.store(true, Relaxed);
            let mut stats = main.stats;
            for h in handles {
                stats.add(&h.join().expect("search threads do not panic"));
            }
            (outcome, stats)
        });
        stats.add(&quick_stats);
        self.report(pos, outcome, stats, started)
    }

    fn report(
        &self,
        pos: &G::Position,
        outcome: Outcome<G::Move>,
        mut stats: SearchStats,
        started: Instant,
    ) -> Report<G::Move> {
        stats.nodes = stats.nodes.max(1);
        let pv = self.principal_variation(pos, outcome.best);
        Report {
            value: outcome.value,
            bounds: outcome.bounds,
            best: outcome.best,
            pv,
            depth: outcome.depth,
            complete: outcome.complete,
            stats,
            elapsed: started.elapsed(),
        }
    }

    /// The moves from `pos` following the table's best moves, starting with `first`.
    fn principal_variation(&self, pos: &G::Position, first: Option<G::Move>) -> Vec<G::Move> {
        let mut pv = Vec::new();
        let Some(first) = first else { return pv };
        let mut seen = std::collections::HashSet::new();
        let mut pos = self.game.play(pos, first);
        pv.push(first);
        let mut moves = Vec::new();
        while pv.len() < 128 {
            let key = self.game.key(&pos);
            if !seen.insert(key) {
                break;
            }
            let Some(index) = self.tt.probe(key).and_then(|e| e.best) else { break };
            moves.clear();
            // Table indices refer to the moves as generated.
            if self.game.search_moves(&pos, &mut moves).is_some() {
                break;
            }
            let Some(&mv) = moves.get(index as usize) else { break };
            pv.push(mv);
            pos = self.game.play(&pos, mv);
        }
        pv
    }
}

/// What a worker shares with the engine: the game, the table, the settings, the spare buffers.
type Parts<'e, G> = (&'e G, &'e TranspositionTable, &'e EngineSettings, &'e Mutex<Vec<Buffers<G>>>);

/// The spare buffers, even if a thread panicked while holding them (they hold no invariant).
fn lock<G: Game>(spare: &Mutex<Vec<Buffers<G>>>) -> std::sync::MutexGuard<'_, Vec<Buffers<G>>> {
    spare.lock().unwrap_or_else(|e| e.into_inner())
}

impl<G: Evaluate> Drop for Worker<'_, G> {
    fn drop(&mut self) {
        let mut spare = lock(self.spare);
        if spare.len() < SPARE_BUFFERS {
            spare.push(std::mem::take(&mut self.buffers));
        }
    }
}

/// The flag that stops the subtrees of one split (set when one of them cuts off), linked to
/// the flags of the splits above it.
struct Cancel {
    flag: AtomicBool,
    above: Option<Arc<Cancel>>,
}

/// A move, the position it leads to and that position's table key.
type Child<G> = (<G as Game>::Move, <G as Game>::Position, u64);

/// A driver's result.
struct Outcome<M> {
    value: i32,
    bounds: (i32, i32),
    best: Option<M>,
    depth: u32,
    complete: bool,
}

/// One search thread: its own counters, move buffers and ordering tables.
struct Worker<'e, G: Evaluate> {
    game: &'e G,
    tt: &'e TranspositionTable,
    settings: &'e EngineSettings,
    stop: &'e AtomicBool,
    limits: Limits,
    started: Instant,
    /// 0 for the main thread; helpers vary their move order by their id.
    id: usize,
    stats: SearchStats,
    buffers: Buffers<G>,
    /// Where the buffers go back when the worker is done.
    spare: &'e Mutex<Vec<Buffers<G>>>,
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<u32>,
    /// Best root move of the current iteration.
    root_best: Option<G::Move>,
    /// Whether a leaf at the depth limit was evaluated this iteration.
    hit_horizon: bool,
    /// Whether limits may stop the current iteration.
    may_stop: bool,
    /// Whether this helper perturbs its move order (iterative deepening; exact solving varies
    /// the probed thresholds instead).
    perturb: bool,
    /// Keys of the positions on the current path (games with cycles only).
    path: Vec<u64>,
    /// The lowest ply of a position repeated in the subtree being searched (`usize::MAX` if
    /// none): results at or below it depend on the path and stay out of the table.
    repeated_at: usize,
    aborted: bool,
    /// The node count at which to look at the clock and the stop flag next.
    next_check: u64,
    /// Whether this worker searches the younger brothers of big nodes in parallel.
    split: bool,
    /// The flags of the splits above this worker: one is set when a sibling subtree searched in
    /// parallel with this worker's cut off, and the work is no longer needed.
    cancel: Option<Arc<Cancel>>,
}

/// Nodes a search with several threads first tries on the calling thread alone.
const QUICK_NODES: u64 = 20_000;

/// Nodes an exact solve with several threads first tries alone, before splitting subtrees.
const QUICK_SPLIT_NODES: u64 = 2_000;

/// How many children's table buckets a node prefetches before searching them.
const PREFETCHED_CHILDREN: usize = 8;

/// Enhanced transposition cutoffs are tried at nodes less than this many plies deep, where
/// subtrees are big enough to repay the probes. Measured with 1 thread on the first 100
/// positions of Test_L1_R2: 128.7 ms without, 132.3 ms at every ply, 119.1 ms below 12 plies,
/// 116.4 ms below 20, 123.0 ms below 24.
const ETC_PLIES: usize = 20;

/// Exact solves search younger brothers in parallel at nodes less than this many plies deep.
/// Measured with 2 threads: Test_L1_R2 (first 100) 82.1 ms at 6, 80.8 at 8, 80.1 at 10, 96 at
/// 14; Test_L1_R3 (first 10) 1.49 s at 6, 1.42 s at 10; FFO #40-#44 4.79 s at 6 and 10.
const SPLIT_PLIES: usize = 10;

/// How often (in nodes) a worker looks at the clock and the stop flag.
const CHECK_EVERY: u64 = 1024;

impl<'e, G: Evaluate + PositionKey + Sync> Worker<'e, G> {
    fn new<'g>(
        engine: &'e Engine<'g, G>,
        stop: &'e AtomicBool,
        limits: Limits,
        started: Instant,
        id: usize,
    ) -> Self
    where
        'g: 'e,
    {
        Self::from_parts(
            (engine.game, &engine.tt, &engine.settings, &engine.spare),
            stop,
            limits,
            started,
            id,
        )
    }

    /// A fresh worker on the engine's game, table and settings.
    fn from_parts(
        (game, tt, settings, spare): Parts<'e, G>,
        stop: &'e AtomicBool,
        limits: Limits,
        started: Instant,
        id: usize,
    ) -> Self {
        Self {
            game,
            tt,
            settings,
            stop,
            limits,
            started,
            id,
            stats: SearchStats::default(),
            buffers: lock(spare).pop().unwrap_or_default(),
            spare,
            killers: Vec::new(),
            history: Vec::new(),
            root_best: None,
            hit_horizon: false,
            may_stop: true,
            perturb: false,
            path: Vec::new(),
            repeated_at: usize::MAX,
            aborted: false,
            next_check: 0,
            split: false,
            cancel: None,
        }
    }

    /// A worker for a subtree searched in parallel, sharing everything but its buffers, with
    /// `cancel` (the split's flag, linked to those above) to stop it.
    fn fork(&self, cancel: &Arc<Cancel>) -> Self {
        let parts = (self.game, self.tt, self.settings, self.spare);
        let mut worker = Self::from_parts(parts, self.stop, self.limits, self.started, self.id);
        worker.may_stop = self.may_stop;
        worker.split = true;
        worker.cancel = Some(Arc::clone(cancel));
        worker
    }

    /// The value clamped to `[low, high]` by null-window searches that narrow the interval of
    /// possible values until it closes (see [`Thresholds`] for which values are probed).
    fn solve(&mut self, pos: &G::Position, low: i32, high: i32) -> Outcome<G::Move> {
        if let Some(known) = self.known_at_root(pos) {
            return known;
        }
        let (lo, hi) = self.game.score_bounds(pos);
        let mut probes = Thresholds::new(lo.max(-MAX_SCORE), hi.min(MAX_SCORE), self.game.estimate(pos));
        let mut best = None;
        while probes.min < probes.max && probes.max > low && probes.min < high {
            // Helpers probe the neighbouring thresholds (main: t, helper 1: t - 1, helper 2:
            // t + 1, ...), so the bounds the main thread needs next are being proven already.
            // Measured on Test_L1_R2 with two threads: 146 ms with helpers that only perturb the
            // move order, 132 ms with this.
            let offset = ((self.id as i32 + 1) / 2) * if self.id % 2 == 1 { -1 } else { 1 };
            let t = probes.next().saturating_add(offset);
            // Only values inside [low, high] matter, and the threshold must split [min, max].
            let t = t.clamp(probes.min.max(low) + 1, probes.max.min(high));
            let r = self.negamax(pos, UNLIMITED, 0, t - 1, t);
            if self.aborted {
                break;
            }
            if r >= t {
                best = self.root_best;
            }
            probes.record(t, r);
        }
        let (min, max) = (probes.min, probes.max);
        if best.is_none() && !self.aborted {
            best = self.move_reaching(pos, min);
        }
        let value = if max <= low { max } else { min.max(max.min(0)) };
        Outcome { value, bounds: (min, max), best, depth: UNLIMITED, complete: !self.aborted }
    }

    /// The outcome of a root that needs no search: final, or valued at once by the game.
    fn known_at_root(&mut self, pos: &G::Position) -> Option<Outcome<G::Move>> {
        let mut moves = Vec::new();
        self.game.moves(pos, &mut moves);
        let (score, best) = if moves.is_empty() {
            (self.game.final_score(pos), None)
        } else {
            (self.game.immediate_score(pos)?, self.immediate_move(pos))
        };
        Some(Outcome { value: score, bounds: (score, score), best, depth: UNLIMITED, complete: true })
    }

    /// At a position whose value the game knows at once, the move that realises it: the one whose
    /// child is best for us by its final score or its own immediate score.
    fn immediate_move(&mut self, pos: &G::Position) -> Option<G::Move> {
        let mut moves = Vec::new();
        self.game.moves(pos, &mut moves);
        let mut children = Vec::new();
        moves.into_iter().max_by_key(|&mv| {
            let child = self.game.play(pos, mv);
            children.clear();
            self.game.moves(&child, &mut children);
            let value = if children.is_empty() {
                self.game.final_score(&child)
            } else {
                self.game.immediate_score(&child).unwrap_or(0)
            };
            -value
        })
    }

    /// A root move whose value is at least `value`, by one null-window search per move.
    fn move_reaching(&mut self, pos: &G::Position, value: i32) -> Option<G::Move> {
        let mut moves = Vec::new();
        if self.game.search_moves(pos, &mut moves).is_some() {
            return self.immediate_move(pos);
        }
        self.game.order_moves(pos, &mut moves, UNLIMITED);
        for &mv in &moves {
            let child = self.game.play(pos, mv);
            let r = -self.negamax(&child, UNLIMITED, 1, -value, -value + 1);
            if self.aborted {
                return None;
            }
            if r >= value {
                return Some(mv);
            }
        }
        moves.first().copied()
    }

    /// Iterative deepening; returns the last completed iteration.
    fn iterate(&mut self, pos: &G::Position) -> Outcome<G::Move> {
        self.perturb = true;
        if let Some(known) = self.known_at_root(pos) {
            return known;
        }
        let max_depth = self.limits.depth.unwrap_or(u32::from(TtEntry::UNLIMITED) - 1).max(1);
        let mut done: Option<Outcome<G::Move>> = None;
        let mut previous = 0;
        // Helpers start one ply deeper on odd ids so that threads spread over depths.
        let first = 1 + (self.id % 2) as u32;
        for depth in first..=max_depth {
            self.may_stop = done.is_some();
            self.hit_horizon = false;
            self.root_best = None;
            let value = if self.settings.mtdf {
                self.mtdf(pos, depth, previous)
            } else if self.settings.aspiration && done.is_some() {
                self.aspiration(pos, depth, previous)
            } else {
                self.negamax(pos, depth, 0, -INFINITY, INFINITY)
            };
            if self.aborted {
                break;
            }
            previous = value;
            let reached_end = !self.hit_horizon;
            done = Some(Outcome {
                value,
                bounds: (value, value),
                best: self.root_best,
                depth: if reached_end { UNLIMITED } else { depth },
                complete: true,
            });
            if reached_end {
                break;
            }
        }
        let mut outcome = done.expect("the first iteration always completes");
        outcome.complete =
            !self.aborted || outcome.depth == UNLIMITED || Some(outcome.depth) == self.limits.depth;
        outcome
    }

    /// A window around `guess` that widens on failure until the value falls inside.
    fn aspiration(&mut self, pos: &G::Position, depth: u32, guess: i32) -> i32 {
        let mut delta: i64 = if guess.abs() >= DECISIVE { INFINITY as i64 } else { 16 };
        loop {
            let alpha = (guess as i64 - delta).max(-(INFINITY as i64)) as i32;
            let beta = (guess as i64 + delta).min(INFINITY as i64) as i32;
            let value = self.negamax(pos, depth, 0, alpha, beta);
            if self.aborted || (value > alpha && value < beta) || (alpha == -INFINITY && beta == INFINITY) {
                return value;
            }
            delta *= 4;
        }
    }

    /// MTD(f): null-window searches converging on the value from a first guess.
    fn mtdf(&mut self, pos: &G::Position, depth: u32, guess: i32) -> i32 {
        let (mut lower, mut upper) = (-INFINITY, INFINITY);
        let mut g = guess;
        let mut best = None;
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            g = self.negamax(pos, depth, 0, beta - 1, beta);
            if self.aborted {
                return g;
            }
            if g < beta {
                upper = g;
            } else {
                lower = g;
                best = self.root_best;
            }
        }
        if best.is_some() {
            self.root_best = best;
        }
        g
    }

    /// Whether to abandon the search: checked every [`CHECK_EVERY`] nodes.
    fn check_stop(&mut self) -> bool {
        // Nodes counted by the game's own solver make the counter jump: compare, not divide.
        if self.stats.nodes >= self.next_check {
            self.next_check = self.stats.nodes + CHECK_EVERY;
            if self.stop.load(Relaxed) && (self.may_stop || self.id != 0) || self.cancelled() {
                self.aborted = true;
            } else if self.id == 0 && self.may_stop {
                let nodes = self.limits.nodes.is_some_and(|n| self.stats.nodes >= n);
                let time = self.limits.time.is_some_and(|t| self.started.elapsed() >= t);
                if nodes || time {
                    self.aborted = true;
                }
            }
        }
        self.aborted
    }

    fn negamax(&mut self, pos: &G::Position, depth: u32, ply: usize, alpha: i32, beta: i32) -> i32 {
        self.negamax_keyed(pos, None, depth, ply, alpha, beta)
    }

    /// [`Worker::negamax`] with the position's table key, if the caller computed it already.
    fn negamax_keyed(
        &mut self,
        pos: &G::Position,
        key: Option<u64>,
        depth: u32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        self.stats.nodes += 1;
        if ply == 0 {
            self.path.clear();
            self.repeated_at = usize::MAX;
        }
        if self.check_stop() {
            return 0;
        }
        if self.buffers.moves.len() <= ply {
            self.buffers.moves.resize_with(ply + 1, Vec::new);
            self.buffers.generated.resize_with(ply + 1, Vec::new);
            self.buffers.children.resize_with(ply + 1, Vec::new);
        }
        // Below the root, the game may solve small subproblems itself, faster than a search.
        if ply > 0 {
            let (a, b) = (to_node(alpha, ply), to_node(beta, ply));
            if let Some(score) = self.game.solve_directly(pos, a, b, &mut self.stats.nodes) {
                return from_node(score, ply);
            }
        }
        // Start fetching this node's table bucket now (unless the parent did): the memory
        // latency then overlaps move generation instead of stalling the probe.
        let key = key.unwrap_or_else(|| {
            let key = self.game.key(pos);
            self.tt.prefetch(key);
            key
        });
        if G::CYCLES {
            if let Some(at) = self.path.iter().position(|&k| k == key) {
                self.repeated_at = self.repeated_at.min(at);
                return self.game.repetition_score(pos);
            }
            self.path.push(key);
        }
        let mut moves = std::mem::take(&mut self.buffers.moves[ply]);
        moves.clear();
        let value = match self.game.search_moves(pos, &mut moves) {
            Some(score) => from_node(score, ply),
            None => self.expand(pos, key, &mut moves, depth, ply, alpha, beta),
        };
        self.buffers.moves[ply] = moves;
        if G::CYCLES {
            self.path.pop();
        }
        value
    }

    /// The body of [`Worker::negamax`] once the moves are generated.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &mut self,
        pos: &G::Position,
        key: u64,
        moves: &mut [G::Move],
        depth: u32,
        ply: usize,
        alpha: i32,
        mut beta: i32,
    ) -> i32 {
        if moves.is_empty() {
            return from_node(self.game.final_score(pos), ply);
        }
        if depth == 0 {
            self.hit_horizon = true;
            return self.game.evaluate(pos);
        }
        let (low, high) = self.game.score_bounds(pos);
        let (low, high) = (from_node(low, ply), from_node(high, ply));
        if high <= alpha {
            return high;
        }
        if low >= beta {
            return low;
        }
        beta = beta.min(high);
        let tt_depth = depth.min(u32::from(TtEntry::UNLIMITED)) as u8;
        let entry = self.tt.probe(key);
        if let Some(e) = entry {
            self.stats.tt_hits += 1;
            if e.depth >= tt_depth {
                let score = from_node(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                // The root is always searched, so that it has a best move.
                if cut && ply > 0 {
                    self.stats.tt_cutoffs += 1;
                    // A depth-limited entry carries heuristic values: this iteration is not exact.
                    self.hit_horizon |= e.depth != TtEntry::UNLIMITED;
                    return score;
                }
            }
        }
        self.search_children(pos, moves, entry, key, depth, ply, alpha, beta)
    }

    /// Searches the moves with principal-variation search and stores the result: the table's
    /// move first, and only if it does not cut off, the others in the game's order (so nodes
    /// answered by the table move never pay for move ordering).
    #[allow(clippy::too_many_arguments)]
    fn search_children(
        &mut self,
        pos: &G::Position,
        moves: &mut [G::Move],
        entry: Option<TtEntry>,
        key: u64,
        depth: u32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let nodes_before = self.stats.nodes;
        let horizon_above = std::mem::replace(&mut self.hit_horizon, false);
        let mut node = NodeState { best: -INFINITY, best_move: None, alpha, searched: 0 };
        let tt_move = entry.and_then(|e| e.best);
        // Table indices refer to the moves as generated, before ordering.
        let tt_index = tt_move.filter(|&i| (i as usize) < moves.len());
        let tt_move = tt_index.map(|i| moves[i as usize]);
        let mut cut = false;
        if let Some(mv) = tt_move {
            let child = self.game.play(pos, mv);
            cut = self.search_move(&child, None, mv, &mut node, depth, ply, beta);
        }
        let mut best_index = tt_index;
        if !cut && !self.aborted {
            let mut generated = std::mem::take(&mut self.buffers.generated[ply]);
            generated.clear();
            // A loop rather than a call to memcpy, which costs more for a handful of moves.
            generated.extend(moves.iter().copied());
            let children = self.prefetch_children(pos, moves, tt_index, ply);
            // Ordering the moves gives the loads time to arrive.
            let others = self.move_order(pos, moves, tt_index, depth, ply);
            if !self.transposition_cutoff(&children, &mut node, depth, ply, beta) {
                self.search_in_order(pos, others, &children, &mut node, depth, ply, beta);
            }
            self.buffers.children[ply] = children;
            best_index = node.best_move.and_then(|m| generated_index(&generated, m));
            self.buffers.generated[ply] = generated;
        }
        if self.aborted {
            return 0;
        }
        let best = node.best;
        let bound = if best <= alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let stored_best = if bound == Bound::Upper { tt_index } else { best_index };
        let work = work_of(self.stats.nodes - nodes_before);
        // A subtree that never met the depth limit was searched to the end of the game: its
        // result holds at any depth.
        let tt_depth = if self.hit_horizon {
            depth.min(u32::from(TtEntry::UNLIMITED) - 1) as u8
        } else {
            TtEntry::UNLIMITED
        };
        self.hit_horizon |= horizon_above;
        if self.repeated_at > ply {
            let entry =
                TtEntry { score: to_node(best, ply), depth: tt_depth, bound, best: stored_best, work };
            self.tt.store(key, entry);
        } else if self.repeated_at == ply {
            self.repeated_at = usize::MAX; // the repetition closes here: ancestors are unaffected
        }
        best
    }

    /// Plays the first moves (as generated, the table move excepted) and starts loading their
    /// table buckets: the search is bound by memory latency, and these loads overlap the work
    /// that follows. The children are kept, with their keys, for their search.
    fn prefetch_children(
        &mut self,
        pos: &G::Position,
        moves: &[G::Move],
        tt_index: Option<u8>,
        ply: usize,
    ) -> Vec<Child<G>> {
        let mut children = std::mem::take(&mut self.buffers.children[ply]);
        children.clear();
        let skip = tt_index.map_or(usize::MAX, usize::from);
        for (_, &mv) in moves.iter().enumerate().filter(|&(i, _)| i != skip).take(PREFETCHED_CHILDREN) {
            let child = self.game.play(pos, mv);
            let key = self.game.key(&child);
            self.tt.prefetch(key);
            children.push((mv, child, key));
        }
        children
    }

    /// Searches `moves` in this order (after the table move, if any, without a cutoff), taking
    /// the children already played from `children`.
    #[allow(clippy::too_many_arguments)]
    fn search_in_order(
        &mut self,
        pos: &G::Position,
        moves: &[G::Move],
        children: &[Child<G>],
        node: &mut NodeState<G::Move>,
        depth: u32,
        ply: usize,
        beta: i32,
    ) {
        for (k, &mv) in moves.iter().enumerate() {
            if node.searched > 0 && moves.len() - k >= 2 && self.splits_at(depth, ply) {
                self.search_in_parallel(pos, &moves[k..], node, depth, ply, beta);
                break;
            }
            let cut = match children.iter().find(|c| c.0 == mv) {
                Some((_, child, key)) => self.search_move(child, Some(*key), mv, node, depth, ply, beta),
                None => {
                    let child = self.game.play(pos, mv);
                    self.search_move(&child, None, mv, node, depth, ply, beta)
                }
            };
            if cut || self.aborted {
                break;
            }
        }
    }

    /// Searches one move of a node, leading to `child` (whose table key may be known): a null
    /// window after the first move, searched again when it lands inside the window. Updates the
    /// node; returns true on a cutoff.
    #[allow(clippy::too_many_arguments)]
    fn search_move(
        &mut self,
        child: &G::Position,
        key: Option<u64>,
        mv: G::Move,
        node: &mut NodeState<G::Move>,
        depth: u32,
        ply: usize,
        beta: i32,
    ) -> bool {
        let next = child_depth(depth);
        let a = node.alpha;
        let score = if node.searched == 0 || !self.settings.pvs {
            -self.negamax_keyed(child, key, next, ply + 1, -beta, -a)
        } else {
            let s = -self.negamax_keyed(child, key, next, ply + 1, -a - 1, -a);
            if s > a && s < beta && !self.aborted {
                -self.negamax_keyed(child, key, next, ply + 1, -beta, -a)
            } else {
                s
            }
        };
        self.take_score(node, mv, score, depth, ply, beta)
    }

    /// Takes the score of a searched move into its node; returns true on a cutoff.
    fn take_score(
        &mut self,
        node: &mut NodeState<G::Move>,
        mv: G::Move,
        score: i32,
        depth: u32,
        ply: usize,
        beta: i32,
    ) -> bool {
        node.searched += 1;
        if self.aborted || score <= node.best {
            return false;
        }
        node.best = score;
        node.best_move = Some(mv);
        if ply == 0 {
            self.root_best = Some(mv);
        }
        node.alpha = node.alpha.max(score);
        if node.alpha < beta {
            return false;
        }
        self.stats.beta_cutoffs += 1;
        if node.searched == 1 {
            self.stats.first_move_cutoffs += 1;
        }
        self.reward(mv, depth, ply);
        true
    }

    /// Whether the younger brothers of a node are searched in parallel: in exact solves, near
    /// the root, where subtrees are big enough to repay a task.
    fn splits_at(&self, depth: u32, ply: usize) -> bool {
        self.split && depth == UNLIMITED && ply < SPLIT_PLIES
    }

    /// Searches `moves` (the first move of the node already searched without a cutoff) on the
    /// pool's threads, each with a null window at the node's alpha, and takes the results into the
    /// node; returns true on a cutoff. A subtree that fails high cancels the others; moves that
    /// land inside a wider window are searched again with it.
    fn search_in_parallel(
        &mut self,
        pos: &G::Position,
        moves: &[G::Move],
        node: &mut NodeState<G::Move>,
        depth: u32,
        ply: usize,
        beta: i32,
    ) -> bool {
        let cancel = Arc::new(Cancel { flag: AtomicBool::new(false), above: self.cancel.clone() });
        let alpha = node.alpha;
        let this = &*self;
        let results: Vec<(i32, SearchStats, bool, bool)> = moves
            .par_iter()
            .map(|&mv| {
                let mut w = this.fork(&cancel);
                let child = w.game.play(pos, mv);
                let score = -w.negamax(&child, child_depth(depth), ply + 1, -alpha - 1, -alpha);
                if !w.aborted && score >= beta {
                    cancel.flag.store(true, Relaxed);
                }
                (score, w.stats, w.hit_horizon, w.aborted)
            })
            .collect();
        let mut cut = false;
        for (&mv, (score, stats, horizon, aborted)) in moves.iter().zip(results) {
            self.stats.add(&stats);
            self.hit_horizon |= horizon;
            if aborted {
                // Cancelled because a sibling cut off, or stopped for good.
                self.aborted |= !cancel.flag.load(Relaxed) || self.stop.load(Relaxed) || self.cancelled();
                continue;
            }
            if cut {
                continue;
            }
            // Above the split's alpha, the null-window result is only a lower bound: unless it
            // cuts off, the move is searched again with the node's window as it is now.
            let score = if score > alpha && score < beta {
                let child = self.game.play(pos, mv);
                -self.negamax(&child, child_depth(depth), ply + 1, -beta, -node.alpha)
            } else {
                score
            };
            cut = self.take_score(node, mv, score, depth, ply, beta);
        }
        cut
    }

    /// Whether a split above this worker cancelled its subtree.
    fn cancelled(&self) -> bool {
        std::iter::successors(self.cancel.as_deref(), |c| c.above.as_deref()).any(|c| c.flag.load(Relaxed))
    }

    /// Enhanced transposition cutoffs: whether a child's table entry proves the node fails high,
    /// without searching it. The children's buckets were prefetched together, so their loads
    /// overlap. Not at the root, which must be searched to have a best move.
    fn transposition_cutoff(
        &mut self,
        children: &[Child<G>],
        node: &mut NodeState<G::Move>,
        depth: u32,
        ply: usize,
        beta: i32,
    ) -> bool {
        if !self.settings.etc || depth <= 2 || ply == 0 || ply >= ETC_PLIES {
            return false;
        }
        let needed = child_depth(depth).min(u32::from(TtEntry::UNLIMITED)) as u8;
        for &(mv, _, key) in children {
            let Some(e) = self.tt.probe(key) else { continue };
            // The child is worth at most its stored upper bound, so this node at least its
            // opposite.
            let score = -from_node(e.score, ply + 1);
            if e.depth >= needed && matches!(e.bound, Bound::Exact | Bound::Upper) && score >= beta {
                self.stats.etc_cutoffs += 1;
                self.hit_horizon |= e.depth != TtEntry::UNLIMITED;
                return self.take_score(node, mv, score, depth, ply, beta);
            }
        }
        false
    }

    /// Puts the moves into the order to search them in: the game's order, then killers first
    /// and by history where those are on. Returns them without the table move (at `tt_index`
    /// among the moves as generated), which was searched already.
    fn move_order<'m>(
        &self,
        pos: &G::Position,
        moves: &'m mut [G::Move],
        tt_index: Option<u8>,
        depth: u32,
        ply: usize,
    ) -> &'m mut [G::Move] {
        let moves = match tt_index {
            Some(at) => {
                moves[at as usize..].rotate_left(1);
                let last = moves.len() - 1;
                &mut moves[..last]
            }
            None => moves,
        };
        if moves.len() > 1 {
            self.game.order_moves(pos, moves, depth);
        }
        if self.settings.killers || self.settings.history {
            let rank = |&mv: &G::Move| -> (bool, std::cmp::Reverse<u32>) {
                let killer =
                    self.settings.killers && self.killers.get(ply).is_some_and(|k| k.contains(&Some(mv)));
                let history = if self.settings.history {
                    self.game.move_id(mv).and_then(|id| self.history.get(id as usize).copied()).unwrap_or(0)
                } else {
                    0
                };
                (!killer, std::cmp::Reverse(history))
            };
            moves.sort_by_key(rank);
        }
        if self.id > 0 && self.perturb && moves.len() >= 2 {
            // In iterative deepening, helpers swap the first two candidate moves at about one
            // node in four, so that they explore, and fill the table with, other lines.
            let noise =
                (self.stats.nodes ^ (ply as u64).wrapping_mul(0x9E37)).wrapping_mul(0x2545_F491_4F6C_DD1D);
            if noise >> 62 == 0 {
                moves.swap(0, 1);
            }
        }
        moves
    }

    /// Remembers a move that caused a cutoff.
    fn reward(&mut self, mv: G::Move, depth: u32, ply: usize) {
        if self.settings.killers && self.killers.len() <= ply {
            self.killers.resize(ply + 1, [None, None]);
        }
        if self.settings.killers && self.killers[ply][0] != Some(mv) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(mv);
        }
        if self.settings.history {
            if let Some(id) = self.game.move_id(mv) {
                let id = id as usize;
                if self.history.len() <= id {
                    self.history.resize(id + 1, 0);
                }
                let d = depth.min(32);
                self.history[id] = self.history[id].saturating_add(d * d);
            }
        }
    }
}

/// The thresholds an exact solve probes, one null-window search each ("is the value at least
/// `t`?"), and the bounds proven so far.
///
/// With an estimate of the value (see [`Evaluate::estimate`]) the first probe is the estimate
/// and the next ones step away from it in the direction of the answers, doubling the step, until
/// the value is bracketed; then they bisect. Probes near the value cost the most, so a good
/// estimate saves most of the work. Without an estimate they bisect, probing half-way towards
/// zero first (most positions are close to it, and small windows cut more).
struct Thresholds {
    /// The value is at least this.
    min: i32,
    /// The value is at most this.
    max: i32,
    /// The first threshold, if the game estimated the value.
    estimate: Option<i32>,
    /// The next step away from the estimate, while the value is not yet bracketed.
    step: i32,
    /// Which side the value was last found on: true above, false below, `None` before a probe.
    above: Option<bool>,
    /// Whether both sides have answered: bisect from then on.
    bracketed: bool,
}

impl Thresholds {
    fn new(min: i32, max: i32, estimate: Option<i32>) -> Self {
        Self { min, max, estimate, step: 1, above: None, bracketed: false }
    }

    /// The next threshold `t`, with `min < t <= max`.
    fn next(&mut self) -> i32 {
        let (min, max) = (self.min as i64, self.max as i64);
        let t = match (self.estimate, self.above) {
            (Some(guess), None) => guess as i64,
            (Some(_), Some(true)) if !self.bracketed => min + self.step as i64,
            (Some(_), Some(false)) if !self.bracketed => max + 1 - self.step as i64,
            (Some(_), _) => min + (max - min + 1) / 2,
            (None, _) => {
                let mid = (min + max) / 2;
                let mid = if mid <= 0 && min / 2 < mid {
                    min / 2
                } else if mid >= 0 && max / 2 > mid {
                    max / 2
                } else {
                    mid
                };
                mid + 1
            }
        };
        t.clamp(min + 1, max) as i32
    }

    /// Takes in the fail-soft result `r` of the probe at `t`.
    fn record(&mut self, t: i32, r: i32) {
        let above = r >= t;
        if above {
            self.min = r;
        } else {
            self.max = r;
        }
        if self.above.is_some_and(|a| a != above) {
            self.bracketed = true;
        }
        if self.above.is_some() {
            self.step = self.step.saturating_mul(2);
        }
        self.above = Some(above);
    }
}

/// The search state of one node while its moves are tried.
struct NodeState<M> {
    best: i32,
    best_move: Option<M>,
    alpha: i32,
    searched: usize,
}

/// The depth left below a node searched to `depth`.
fn child_depth(depth: u32) -> u32 {
    if depth == UNLIMITED {
        UNLIMITED
    } else {
        depth - 1
    }
}

/// The index of `mv` among the moves as generated.
fn generated_index<M: PartialEq>(generated: &[M], mv: M) -> Option<u8> {
    generated.iter().position(|g| *g == mv).and_then(|i| u8::try_from(i).ok())
}

/// The size class of a subtree of `nodes` nodes (its bit length), which the table uses to keep
/// the entries that cost the most to recompute.
fn work_of(nodes: u64) -> u8 {
    (64 - nodes.leading_zeros()) as u8
}

/// A node-relative score as seen from the root: a decisive score loses one point per ply, so
/// nearer wins are worth more.
#[inline]
fn from_node(score: i32, ply: usize) -> i32 {
    let ply = ply as i32;
    if score >= DECISIVE {
        score - ply
    } else if score <= -DECISIVE {
        score + ply
    } else {
        score
    }
}

/// The inverse of [`from_node`], for storing in the table.
#[inline]
fn to_node(score: i32, ply: usize) -> i32 {
    let ply = ply as i32;
    if score >= DECISIVE {
        score.saturating_add(ply).min(MAX_SCORE)
    } else if score <= -DECISIVE {
        score.saturating_sub(ply).max(-MAX_SCORE)
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every schedule closes on the value, with each threshold splitting the interval, whatever
    /// the guess and however tight the fail-soft answers are.
    #[test]
    fn thresholds_close_on_the_value() {
        for estimate in [None, Some(-70), Some(-3), Some(0), Some(5), Some(64)] {
            for value in -64..=64 {
                for loose in [false, true] {
                    let mut probes = Thresholds::new(-64, 64, estimate);
                    let mut count = 0;
                    while probes.min < probes.max {
                        let t = probes.next();
                        assert!(
                            probes.min < t && t <= probes.max,
                            "{t} outside ({}, {}]",
                            probes.min,
                            probes.max
                        );
                        // Loose: the fail-soft result is the value itself; tight: just the bound.
                        let r = match (loose, value >= t) {
                            (true, _) => value,
                            (false, true) => t,
                            (false, false) => t - 1,
                        };
                        probes.record(t, r);
                        count += 1;
                        assert!(count <= 20, "no end for value {value} from {estimate:?}");
                    }
                    assert_eq!(probes.min, value, "from {estimate:?}");
                }
            }
        }
    }

    #[test]
    fn decisive_scores_round_trip_through_the_table() {
        for ply in [0usize, 1, 7, 40] {
            for s in [0, 5, -5, FINAL_SCALE, -FINAL_SCALE, FINAL_SCALE - 3, -(FINAL_SCALE - 9)] {
                assert_eq!(to_node(from_node(s, ply), ply), s, "score {s} at ply {ply}");
            }
        }
        assert_eq!(from_node(FINAL_SCALE, 3), FINAL_SCALE - 3);
        assert_eq!(from_node(-FINAL_SCALE, 3), -FINAL_SCALE + 3);
    }
}
