//! How the engine is told to search ([`EngineSettings`], [`Limits`]) and what it says it found
//! ([`Report`], [`SearchStats`]).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use crate::score::{Score, UNLIMITED};

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
    /// History heuristic (needs [`crate::MoveOrdering::move_id`]).
    pub history: bool,
    /// Enhanced transposition cutoffs: probe the children before searching them.
    pub etc: bool,
    /// Null-move pruning in depth-limited searches, for games that say when passing is safe to
    /// assume ([`crate::Selectivity::null_move`]); exact solves never use it.
    pub null_move: bool,
    /// Late move reductions in depth-limited searches: quiet moves late in the order
    /// ([`crate::Selectivity::is_quiet`]) are searched less deep first, and fully only if they
    /// surprise. Exact solves never use them.
    pub late_move_reductions: bool,
    /// A selective pass before the probes of an exact solve, for games that give probable bounds
    /// ([`crate::game::ExactHints::probable_bound`], ProbCut): it finds a close first guess and
    /// leaves best moves in the table. The value is always the exact pass's.
    pub probable_bounds: bool,
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
            null_move: true,
            late_move_reductions: true,
            probable_bounds: true,
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

/// A search steered from outside while it runs (a UCI front end, a game in progress).
pub struct SearchControl<'a, M> {
    /// Raised by another thread to stop the search (a UCI `stop`). The first iteration of
    /// iterative deepening still completes, so that there is always a best move.
    pub stop: Option<Arc<AtomicBool>>,
    /// Keys ([`crate::PositionKey::key`]) of the positions played before the root, oldest first:
    /// in games with cycles, the search scores a return to one of them as a repetition.
    pub history: Vec<u64>,
    /// Told of every iteration of iterative deepening that the main thread completes.
    pub on_iteration: Option<&'a IterationHook<'a, M>>,
}

/// What [`SearchControl::on_iteration`] calls.
pub type IterationHook<'a, M> = dyn Fn(&Iteration<M>) + Sync + 'a;

impl<M> Default for SearchControl<'_, M> {
    fn default() -> Self {
        Self { stop: None, history: Vec::new(), on_iteration: None }
    }
}

/// One completed iteration of iterative deepening, as the main thread saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Iteration<M> {
    /// The iteration's depth in plies ([`UNLIMITED`] when it reached the end of the game).
    pub depth: u32,
    /// The deepest ply a node of the iteration was searched at, quiescence and extensions included.
    pub seldepth: u32,
    /// The value for the player to move.
    pub value: Score,
    /// Nodes the main thread searched so far.
    pub nodes: u64,
    /// Wall time since the search started.
    pub elapsed: Duration,
    /// The principal variation read back from the table.
    pub pv: Vec<M>,
}

/// One null-window probe of an exact solve ("is the value at least `threshold`?"), in the order
/// the solve made them: where the nodes of a solve went, probe by probe (see
/// `docs/othello-speed.md` for what these told about the hardest FFO positions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// The threshold asked about.
    pub threshold: Score,
    /// The fail-soft answer: at least `threshold` means the value is at least this, below it
    /// that the value is at most this.
    pub result: Score,
    /// Nodes the probe searched, its subtrees split over other threads included.
    pub nodes: u64,
    /// Whether the probe belonged to the selective pass, which trusts the game's probable bounds:
    /// its answer is a guess when exact probes follow it (a selective pass that used no probable
    /// bound was exact, and ends the solve).
    pub selective: bool,
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
    /// Nodes answered by a probable bound in the selective pass of an exact solve
    /// ([`crate::game::ExactHints::probable_bound`]).
    pub probable_cutoffs: u64,
}

impl SearchStats {
    pub(super) fn add(&mut self, o: &SearchStats) {
        self.nodes += o.nodes;
        self.tt_hits += o.tt_hits;
        self.tt_cutoffs += o.tt_cutoffs;
        self.beta_cutoffs += o.beta_cutoffs;
        self.first_move_cutoffs += o.first_move_cutoffs;
        self.etc_cutoffs += o.etc_cutoffs;
        self.probable_cutoffs += o.probable_cutoffs;
    }
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report<M> {
    /// The value for the player to move (the last completed iteration's, or the exact value).
    pub value: Score,
    /// Bounds on the value proven so far: equal when the value is exact.
    pub bounds: (Score, Score),
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
    /// The null-window probes of an exact solve, in order (none for iterative deepening, or
    /// when the root's value was known at once).
    pub probes: Vec<Probe>,
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
