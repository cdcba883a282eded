//! One search thread ([`Worker`]) and its negamax, read top to bottom: a node is counted, stopped
//! if a limit says so, handed to the game's own solver if it has one, checked for repetition,
//! valued at once if the game can, bounded, passed through to its child if it has a single move
//! (in exact solves), answered by the table if the table can, cut by the game's probable bound
//! (in the selective pass of an exact solve), cut by a null move if passing already beats the
//! window, and else expanded: the table's move first, then the others in order, each with a
//! null window after the first (and a ply more below a move the game extends), and the result
//! stored in the table. At the horizon, the moves the game names
//! (captures in chess) are searched before the evaluation is trusted (quiescence).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::settings::{EngineSettings, IterationHook, Limits, Probe, SearchControl, SearchStats};
use super::Engine;
use crate::game::{Game, Searchable};
use crate::score::{from_node, to_node, Score, DECISIVE, INFINITY, UNLIMITED};
use crate::search_context::SearchContext;
use crate::solver_owner::SolverOwner;
use crate::tt::{Bound, TranspositionTable, TtEntry};

/// A worker's per-ply buffers.
pub(super) struct Buffers<G: Game> {
    /// The moves of the node at each ply, in search order once ordered.
    moves: Vec<Vec<G::Move>>,
    /// Per ply, the moves as generated, before ordering (table entries index into them).
    generated: Vec<Vec<G::Move>>,
    /// Per ply, the first children played, to prefetch their table buckets, kept for their
    /// search.
    pub(super) children: Vec<Vec<Child<G>>>,
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
pub(super) const SPARE_BUFFERS: usize = 64;

/// What a worker shares with the engine: the game, the table, the settings, the spare buffers,
/// and whom the game's own solver works for.
type Parts<'e, G> =
    (&'e G, &'e TranspositionTable, &'e EngineSettings, &'e Mutex<Vec<Buffers<G>>>, SolverOwner);

/// The spare buffers, even if a thread panicked while holding them (they hold no invariant).
pub(super) fn lock<G: Game>(spare: &Mutex<Vec<Buffers<G>>>) -> std::sync::MutexGuard<'_, Vec<Buffers<G>>> {
    spare.lock().unwrap_or_else(|e| e.into_inner())
}

impl<G: Game> Drop for Worker<'_, G> {
    fn drop(&mut self) {
        let mut spare = lock(self.spare);
        if spare.len() < SPARE_BUFFERS {
            spare.push(std::mem::take(&mut self.buffers));
        }
    }
}

/// A move, the position it leads to and that position's table key.
pub(super) type Child<G> = (<G as Game>::Move, <G as Game>::Position, u64);

/// What a driver (a probe sequence, iterative deepening) found at the root.
pub(super) struct RootResult<M> {
    pub(super) value: i32,
    pub(super) bounds: (i32, i32),
    pub(super) best: Option<M>,
    pub(super) depth: u32,
    pub(super) complete: bool,
    /// The null-window probes of an exact solve, in order.
    pub(super) probes: Vec<Probe>,
}

/// One search thread: its own counters, move buffers and ordering tables.
pub(super) struct Worker<'e, G: Game> {
    pub(super) game: &'e G,
    pub(super) tt: &'e TranspositionTable,
    pub(super) settings: &'e EngineSettings,
    pub(super) stop: &'e Arc<AtomicBool>,
    pub(super) limits: Limits,
    pub(super) started: Instant,
    /// 0 for the main thread; helpers vary their move order by their id.
    pub(super) id: usize,
    pub(super) stats: SearchStats,
    pub(super) buffers: Buffers<G>,
    /// Where the buffers go back when the worker is done.
    pub(super) spare: &'e Mutex<Vec<Buffers<G>>>,
    /// What game code called from this worker's nodes knows of the search: its stop flag, the
    /// nodes it counted (added to `stats` after each call) and whom the game's own solver works
    /// for (this engine, as it was when the search started).
    pub(super) context: SearchContext<'e>,
    pub(super) killers: Vec<[Option<G::Move>; 2]>,
    pub(super) history: Vec<u32>,
    /// Best root move of the current iteration.
    pub(super) root_best: Option<G::Move>,
    /// Whether a leaf at the depth limit was evaluated this iteration.
    pub(super) hit_horizon: bool,
    /// Whether limits may stop the current iteration.
    pub(super) may_stop: bool,
    /// Whether this helper perturbs its move order (iterative deepening; exact solving varies
    /// the probed thresholds instead).
    pub(super) perturb: bool,
    /// Keys of the positions on the current path (games with cycles only).
    pub(super) path: Vec<u64>,
    /// The lowest ply of a position repeated in the subtree being searched (`usize::MAX` if
    /// none): results at or below it depend on the path and stay out of the table.
    pub(super) repeated_at: usize,
    pub(super) aborted: bool,
    /// The node count at which to look at the clock and the stop flag next.
    pub(super) next_check: u64,
    /// Whether this worker searches the younger brothers of big nodes in parallel.
    pub(super) split: bool,
    /// The flags of the splits above this worker: one is set when a sibling subtree searched in
    /// parallel with this worker's cut off, and the work is no longer needed.
    pub(super) cancel: Option<Arc<Cancel>>,
    /// Keys of the positions played before the root, oldest first (games with cycles).
    pub(super) played_before: &'e [u64],
    /// Told of each iteration the main thread completes.
    pub(super) on_iteration: Option<&'e IterationHook<'e, G::Move>>,
    /// The depth of the current iteration of iterative deepening (0 outside one): extensions
    /// stop at twice this many plies.
    pub(super) iteration_depth: u32,
    /// The deepest ply searched in the current iteration.
    pub(super) seldepth: usize,
    /// Whether this is the selective pass of an exact solve, which trusts the game's probable
    /// bounds (see [`ExactHints::probable_bound`]).
    pub(super) selective: bool,
}

/// The flag that stops the subtrees of one split (set when one of them cuts off), linked to
/// the flags of the splits above it (see `split.rs`).
pub(super) struct Cancel {
    pub(super) flag: AtomicBool,
    pub(super) above: Option<Arc<Cancel>>,
}

/// Deepest ply of a quiescence search: beyond it the evaluation is taken as it stands.
const MAX_QUIESCENCE_PLY: usize = 128;

/// Moves searched at full depth at every node before late move reductions start.
const REDUCE_AFTER: usize = 3;

/// How often (in nodes) a worker looks at the clock and the stop flag.
const CHECK_EVERY: u64 = 1024;

impl<'e, G: Searchable + Sync> Worker<'e, G> {
    pub(super) fn new<'g>(
        engine: &'e Engine<'g, G>,
        stop: &'e Arc<AtomicBool>,
        limits: Limits,
        started: Instant,
        id: usize,
    ) -> Self
    where
        'g: 'e,
    {
        Self::from_parts(
            (engine.game, &engine.tt, &engine.settings, &engine.spare, engine.solver_owner()),
            stop,
            limits,
            started,
            id,
        )
    }

    /// A fresh worker on the engine's game, table and settings.
    pub(super) fn from_parts(
        (game, tt, settings, spare, owner): Parts<'e, G>,
        stop: &'e Arc<AtomicBool>,
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
            context: SearchContext::new(stop, owner),
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
            played_before: &[],
            on_iteration: None,
            iteration_depth: 0,
            seldepth: 0,
            selective: false,
        }
    }

    /// The same worker, steered by `control`: the game's history and the iteration callback.
    pub(super) fn with_control(mut self, control: &'e SearchControl<'_, G::Move>) -> Self {
        self.played_before = &control.history;
        self.on_iteration = control.on_iteration;
        self
    }

    /// Whether to abandon the search: the stop flag at every node, the limits and the splits
    /// above every [`CHECK_EVERY`] nodes.
    pub(super) fn check_stop(&mut self) -> bool {
        // The stop flag at every node (the deadline's watchdog raises it, and a node can be slow);
        // the clock and the node limit every CHECK_EVERY nodes.
        if self.stop.load(Relaxed) && (self.may_stop || self.id != 0) {
            self.aborted = true;
        }
        // Nodes counted by the game's own solver make the counter jump: compare, not divide.
        if !self.aborted && self.stats.nodes >= self.next_check {
            self.next_check = self.stats.nodes + CHECK_EVERY;
            if self.cancelled() {
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

    /// The fail-soft value of `pos`, `ply` plies below the root, searched `depth` plies deep
    /// ([`UNLIMITED`]: to the end of the game) within the window `(alpha, beta)`.
    pub(super) fn negamax(
        &mut self,
        pos: &G::Position,
        depth: u32,
        ply: usize,
        alpha: Score,
        beta: Score,
    ) -> Score {
        self.negamax_keyed(pos, None, depth, ply, alpha, beta)
    }

    /// [`Worker::negamax`] with the position's table key, if the caller computed it already.
    pub(super) fn negamax_keyed(
        &mut self,
        pos: &G::Position,
        key: Option<u64>,
        depth: u32,
        ply: usize,
        alpha: Score,
        beta: Score,
    ) -> Score {
        self.stats.nodes += 1;
        if ply == 0 {
            self.path.clear();
            self.path.extend_from_slice(self.played_before);
            self.repeated_at = usize::MAX;
        }
        if self.check_stop() {
            return 0;
        }
        self.reach(ply);
        // Below the root, the game may solve small subproblems itself, faster than a search.
        if ply > 0 && self.game.solves_directly(pos) {
            if let Some(score) = self.solve_directly(pos, key, ply, alpha, beta) {
                return score;
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
            // The root is searched even when the game was there before.
            if let Some(at) = self.path.iter().position(|&k| k == key).filter(|_| ply > 0) {
                // The ply of the repeated position; before the root, everything depends on it.
                let at = at.saturating_sub(self.played_before.len());
                self.repeated_at = self.repeated_at.min(at);
                return self.game.repetition_score(pos);
            }
            self.path.push(key);
        }
        let mut moves = std::mem::take(&mut self.buffers.moves[ply]);
        moves.clear();
        let value = match self.game.search_moves(pos, &mut moves) {
            Some(score) => from_node(score, ply),
            None => self.expand(&Node { pos, key, depth, ply, beta }, &mut moves, alpha),
        };
        self.buffers.moves[ply] = moves;
        if G::CYCLES {
            self.path.pop();
        }
        value
    }

    /// The game's own solve of `pos` (see [`ExactHints::solves_directly`]), kept in the table like
    /// a searched node: transpositions of these small subproblems are many, and the parent's
    /// transposition cutoffs find them there. `None` if the game declines after all.
    #[inline(never)]
    fn solve_directly(
        &mut self,
        pos: &G::Position,
        key: Option<u64>,
        ply: usize,
        alpha: Score,
        beta: Score,
    ) -> Option<Score> {
        let key = key.unwrap_or_else(|| self.game.key(pos));
        let entry = self.tt.probe(key);
        if let Some(score) = entry.and_then(|e| self.table_cutoff(&e, TtEntry::TO_THE_END, ply, alpha, beta))
        {
            return Some(score);
        }
        let (a, b) = (to_node(alpha, ply), to_node(beta, ply));
        let score = self.game.solve_directly(pos, a, b, &mut self.context);
        let nodes = self.context.take_nodes();
        self.stats.nodes += nodes;
        let score = score?;
        let work = work_of(nodes);
        let entry =
            TtEntry { score, depth: TtEntry::TO_THE_END, bound: Bound::of(score, a, b), best: None, work };
        self.tt.store(key, entry);
        Some(from_node(score, ply))
    }

    /// The score the table entry `e` settles a node with, `ply` plies deep within `(alpha, beta)`,
    /// if it was searched at least `tt_depth` deep and bounds the value on the side of the window
    /// it falls. Counts the hit and the cutoff. Never at the root, which is always searched, so
    /// that it has a best move.
    fn table_cutoff(
        &mut self,
        e: &TtEntry,
        tt_depth: u8,
        ply: usize,
        alpha: Score,
        beta: Score,
    ) -> Option<Score> {
        self.stats.tt_hits += 1;
        let score = from_node(e.score, ply);
        if e.depth < tt_depth || !e.bound.settles(score, alpha, beta) || ply == 0 {
            return None;
        }
        self.stats.tt_cutoffs += 1;
        // A depth-limited entry carries heuristic values: this iteration is not exact.
        self.hit_horizon |= e.depth != TtEntry::TO_THE_END;
        Some(score)
    }

    /// The depth a table entry needs to settle a node searched `depth` plies deep: in the
    /// selective pass, the heuristic entries of that pass settle nodes searched to the end too.
    #[inline]
    pub(super) fn needed_depth(&self, depth: u32) -> u8 {
        if self.selective && depth == UNLIMITED {
            TtEntry::MAX_DEPTH as u8
        } else {
            TtEntry::depth_byte(depth)
        }
    }

    /// Makes the per-ply buffers reach `ply`, and counts it in the iteration's selective depth.
    #[inline]
    fn reach(&mut self, ply: usize) {
        self.seldepth = self.seldepth.max(ply);
        if self.buffers.moves.len() <= ply {
            self.buffers.moves.resize_with(ply + 1, Vec::new);
            self.buffers.generated.resize_with(ply + 1, Vec::new);
            self.buffers.children.resize_with(ply + 1, Vec::new);
        }
    }

    /// The body of [`Worker::negamax`] once the moves are generated: final and horizon nodes,
    /// the game's bounds, the table, a null move, and else the search of the moves.
    fn expand(&mut self, node: &Node<'_, G::Position>, moves: &mut Vec<G::Move>, alpha: Score) -> Score {
        let (pos, ply) = (node.pos, node.ply);
        if moves.is_empty() {
            return from_node(self.game.final_score(pos), ply);
        }
        if node.depth == 0 {
            self.hit_horizon = true;
            return self.quiescence(pos, ply, alpha, node.beta, moves);
        }
        let (low, high) = self.game.score_bounds(pos, to_node(alpha, ply), to_node(node.beta, ply));
        let (low, high) = (from_node(low, ply), from_node(high, ply));
        if high <= alpha {
            return high;
        }
        if low >= node.beta {
            return low;
        }
        let node = Node { beta: node.beta.min(high), ..*node };
        if moves.len() == 1 && node.depth == UNLIMITED && ply > 0 && !G::CYCLES {
            return self.search_forced(&node, moves[0], alpha);
        }
        let tt_depth = self.needed_depth(node.depth);
        let entry = self.tt.probe(node.key);
        if let Some(score) = entry.and_then(|e| self.table_cutoff(&e, tt_depth, ply, alpha, node.beta)) {
            return score;
        }
        if self.selective && ply > 0 {
            if let Some(score) = self.probable_cut(&node, alpha) {
                return score;
            }
        }
        // Exact solves (to the end) never prune: the test stays out of their path.
        if node.depth != UNLIMITED && self.settings.null_move {
            if let Some(score) = self.null_move_cut(&node, alpha) {
                return score;
            }
        }
        self.search_children(&node, moves, entry, alpha)
    }

    /// A node with a single move, in an exact solve: worth exactly its child's opposite, so the
    /// child is searched in its place, without a table entry of its own. More than a quarter of
    /// the nodes of a Connect 4 solve have one move (a threat to block). Measured with callgrind
    /// on the first 30 positions of Test_L2_R2: 9.4% fewer instructions, although the lost
    /// entries (for transpositions and the parents' transposition cutoffs) cost 6.8% more nodes.
    /// Storing the result all the same won back only a fifth of those nodes, for fewer savings.
    fn search_forced(&mut self, node: &Node<'_, G::Position>, mv: G::Move, alpha: Score) -> Score {
        let child = self.game.play(node.pos, mv);
        -self.negamax(&child, UNLIMITED, node.ply + 1, -node.beta, -alpha)
    }

    /// The game's probable bound on `node`'s score outside the window, in the selective pass of
    /// an exact solve: a guess, so the node and its ancestors are stored in the table as
    /// heuristic (as if the search had met a horizon), for their best moves only.
    #[inline(never)]
    fn probable_cut(&mut self, node: &Node<'_, G::Position>, alpha: Score) -> Option<Score> {
        let ply = node.ply;
        let bound = self.game.probable_bound(
            node.pos,
            to_node(alpha, ply),
            to_node(node.beta, ply),
            &mut self.context,
        );
        self.stats.nodes += self.context.take_nodes();
        let score = from_node(bound?, ply);
        self.stats.probable_cutoffs += 1;
        self.hit_horizon = true;
        Some(score)
    }

    /// Null-move pruning (asked for, in a depth-limited search): at a node expected to fail high, lets the
    /// player to move pass and searches the reply less deep; if passing still reaches `beta`, a
    /// real move would too (the null-move observation; the game refuses a pass where it is not
    /// safe, in check or where zugzwang is likely). Only on null windows away from the root
    /// and from decisive scores, so the principal variation and mates are searched in full.
    #[inline(never)]
    fn null_move_cut(&mut self, node: &Node<'_, G::Position>, alpha: Score) -> Option<Score> {
        let depth = node.depth;
        if depth < 3
            || node.ply == 0
            || i64::from(node.beta) - i64::from(alpha) != 1
            || node.beta.abs() >= DECISIVE
        {
            return None;
        }
        let passed = self.game.null_move(node.pos)?;
        if self.game.evaluate(node.pos) < node.beta {
            return None;
        }
        let reduction = if depth > 6 { 3 } else { 2 };
        let score = -self.negamax(&passed, depth - 1 - reduction, node.ply + 1, -node.beta, -alpha);
        if self.aborted {
            return Some(0);
        }
        (score >= node.beta).then(|| score.min(DECISIVE - 1))
    }

    /// The value of `pos` at the horizon, fail-soft within `(alpha, beta)`: its evaluation, once
    /// the moves the game says must be searched first (captures and promotions in chess; every
    /// move in check, where the evaluation cannot stand) cannot improve on it. `moves` holds
    /// every move of `pos`, which is not final.
    #[inline(never)]
    fn quiescence(
        &mut self,
        pos: &G::Position,
        ply: usize,
        mut alpha: Score,
        beta: Score,
        moves: &mut Vec<G::Move>,
    ) -> Score {
        let may_stand = self.game.horizon_moves(pos, moves);
        let mut best = -INFINITY;
        if may_stand || moves.is_empty() || ply >= MAX_QUIESCENCE_PLY {
            best = self.game.evaluate(pos);
            if best >= beta || moves.is_empty() || ply >= MAX_QUIESCENCE_PLY {
                return best;
            }
            alpha = alpha.max(best);
        }
        for &mv in moves.iter() {
            let child = self.game.play(pos, mv);
            let score = -self.quiescence_node(&child, ply + 1, -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
        }
        best
    }

    /// A node of the quiescence search: counted and stopped as any node, then valued as final
    /// or by [`Worker::quiescence`]. No table: these subtrees are small and change with the
    /// window.
    fn quiescence_node(&mut self, pos: &G::Position, ply: usize, alpha: Score, beta: Score) -> Score {
        self.stats.nodes += 1;
        if self.check_stop() {
            return 0;
        }
        self.reach(ply);
        let mut moves = std::mem::take(&mut self.buffers.moves[ply]);
        moves.clear();
        self.game.moves(pos, &mut moves);
        let value = if moves.is_empty() {
            from_node(self.game.final_score(pos), ply)
        } else {
            self.quiescence(pos, ply, alpha, beta, &mut moves)
        };
        self.buffers.moves[ply] = moves;
        value
    }

    /// Searches the moves with principal-variation search and stores the result: the table's
    /// move first, and only if it does not cut off, the others in the game's order (so nodes
    /// answered by the table move never pay for move ordering).
    fn search_children(
        &mut self,
        node: &Node<'_, G::Position>,
        moves: &mut [G::Move],
        entry: Option<TtEntry>,
        alpha: Score,
    ) -> Score {
        let (pos, ply) = (node.pos, node.ply);
        let nodes_before = self.stats.nodes;
        let horizon_above = std::mem::replace(&mut self.hit_horizon, false);
        let mut state = NodeState { best: -INFINITY, best_move: None, alpha, searched: 0 };
        let tt_move = entry.and_then(|e| e.best);
        // Table indices refer to the moves as generated, before ordering.
        let tt_index = tt_move.filter(|&i| (i as usize) < moves.len());
        let tt_move = tt_index.map(|i| moves[i as usize]);
        let mut cut = false;
        if let Some(mv) = tt_move {
            let child = self.game.play(pos, mv);
            cut = self.search_move(node, &child, None, mv, &mut state);
        }
        let mut best_index = tt_index;
        if !cut && !self.aborted {
            let mut generated = std::mem::take(&mut self.buffers.generated[ply]);
            generated.clear();
            // A loop rather than a call to memcpy, which costs more for a handful of moves.
            generated.extend(moves.iter().copied());
            let mut children = self.prefetch_children(pos, moves, tt_index, ply);
            // Ordering the moves gives the loads time to arrive.
            let others = self.move_order(pos, moves, &mut children, tt_index, node.depth, ply);
            // Ordering may search (Othello's shallow searches): those nodes count too.
            self.stats.nodes += self.context.take_nodes();
            if !self.transposition_cutoff(node, &children, &mut state) {
                self.search_in_order(node, others, &children, &mut state);
            }
            self.buffers.children[ply] = children;
            best_index = state.best_move.and_then(|m| generated_index(&generated, m));
            self.buffers.generated[ply] = generated;
        }
        if self.aborted {
            return 0;
        }
        let best = state.best;
        let bound = Bound::of(best, alpha, node.beta);
        let stored_best = if bound == Bound::Upper { tt_index } else { best_index };
        let work = work_of(self.stats.nodes - nodes_before);
        // A subtree that never met the depth limit was searched to the end of the game: its
        // result holds at any depth.
        let tt_depth = if self.hit_horizon {
            TtEntry::depth_byte(node.depth.min(TtEntry::MAX_DEPTH))
        } else {
            TtEntry::TO_THE_END
        };
        self.hit_horizon |= horizon_above;
        if self.repeated_at > ply {
            let entry =
                TtEntry { score: to_node(best, ply), depth: tt_depth, bound, best: stored_best, work };
            self.tt.store(node.key, entry);
        } else if self.repeated_at == ply {
            self.repeated_at = usize::MAX; // the repetition closes here: ancestors are unaffected
        }
        best
    }

    /// Searches `moves` in this order (after the table move, if any, without a cutoff), taking
    /// the children already played from `children`.
    fn search_in_order(
        &mut self,
        node: &Node<'_, G::Position>,
        moves: &[G::Move],
        children: &[Child<G>],
        state: &mut NodeState<G::Move>,
    ) {
        for (k, &mv) in moves.iter().enumerate() {
            if state.searched > 0 && moves.len() - k >= 2 && self.splits_at(node) {
                self.search_in_parallel(node, &moves[k..], state);
                break;
            }
            let cut = match children.iter().find(|c| c.0 == mv) {
                Some((_, child, key)) => self.search_move(node, child, Some(*key), mv, state),
                None => {
                    let child = self.game.play(node.pos, mv);
                    self.search_move(node, &child, None, mv, state)
                }
            };
            if cut || self.aborted {
                break;
            }
        }
    }

    /// Searches one move of `node`, leading to `child` (whose table key may be known): a null
    /// window after the first move, searched again when it lands inside the window. Updates the
    /// node's state; returns true on a cutoff.
    fn search_move(
        &mut self,
        node: &Node<'_, G::Position>,
        child: &G::Position,
        key: Option<u64>,
        mv: G::Move,
        state: &mut NodeState<G::Move>,
    ) -> bool {
        let (next, ply, beta) = (self.depth_below(node, child), node.ply, node.beta);
        let a = state.alpha;
        let score = if state.searched == 0 || !self.settings.pvs {
            -self.negamax_keyed(child, key, next, ply + 1, -beta, -a)
        } else {
            let reduction = self.reduction(node, next, mv, state.searched);
            let mut s = a + 1;
            if reduction > 0 {
                s = -self.negamax_keyed(child, key, next - reduction, ply + 1, -a - 1, -a);
            }
            // A reduced move that beats alpha is searched again at its full depth.
            if s > a && !self.aborted {
                s = -self.negamax_keyed(child, key, next, ply + 1, -a - 1, -a);
            }
            if s > a && s < beta && !self.aborted {
                -self.negamax_keyed(child, key, next, ply + 1, -beta, -a)
            } else {
                s
            }
        };
        self.take_score(node, state, mv, score)
    }

    /// The depth to search `child`, a child of `node`, to: one ply less, or as much when the game
    /// extends the move (a check), up to twice the iteration's depth from the root.
    #[inline]
    fn depth_below(&self, node: &Node<'_, G::Position>, child: &G::Position) -> u32 {
        let extended = node.depth != UNLIMITED
            && (node.ply as u32) < 2 * self.iteration_depth
            && self.game.extends(child);
        if extended {
            node.depth
        } else {
            child_depth(node.depth)
        }
    }

    /// How many plies less to search `mv`, the move of `node` after `searched` others, whose
    /// child would be searched `next` plies deep (late move reductions): none for the first
    /// moves, at the root, for moves the game does not call quiet or extends, and in exact
    /// solves; one ply, two for the moves after the sixth in deep searches.
    #[inline]
    fn reduction(&self, node: &Node<'_, G::Position>, next: u32, mv: G::Move, searched: usize) -> u32 {
        if !self.settings.late_move_reductions
            || node.depth == UNLIMITED
            || next < 2
            || next == node.depth
            || searched < REDUCE_AFTER
            || node.ply == 0
            || !self.game.is_quiet(node.pos, mv)
        {
            return 0;
        }
        let reduction = if searched >= 6 && next >= 5 { 2 } else { 1 };
        reduction.min(next - 1)
    }

    /// Takes the score of a searched move into its node's state; returns true on a cutoff.
    pub(super) fn take_score(
        &mut self,
        node: &Node<'_, G::Position>,
        state: &mut NodeState<G::Move>,
        mv: G::Move,
        score: Score,
    ) -> bool {
        state.searched += 1;
        if self.aborted || score <= state.best {
            return false;
        }
        state.best = score;
        state.best_move = Some(mv);
        if node.ply == 0 {
            self.root_best = Some(mv);
        }
        state.alpha = state.alpha.max(score);
        if state.alpha < node.beta {
            return false;
        }
        self.stats.beta_cutoffs += 1;
        if state.searched == 1 {
            self.stats.first_move_cutoffs += 1;
        }
        self.reward(mv, node.depth, node.ply);
        true
    }
}

/// A node being searched: its position and table key, the plies to search below it
/// ([`UNLIMITED`]: to the end), its distance from the root, and the upper end of its window (the
/// lower end rises as moves are searched, in [`NodeState`]).
pub(super) struct Node<'p, P> {
    pub(super) pos: &'p P,
    pub(super) key: u64,
    pub(super) depth: u32,
    pub(super) ply: usize,
    pub(super) beta: Score,
}

impl<P> Clone for Node<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Node<'_, P> {}

/// The search state of one node while its moves are tried.
pub(super) struct NodeState<M> {
    /// The best score found so far.
    pub(super) best: Score,
    /// The move that found it.
    pub(super) best_move: Option<M>,
    /// The lower end of the window, raised by each better score.
    pub(super) alpha: Score,
    /// Moves searched so far.
    pub(super) searched: usize,
}

/// The depth left below a node searched to `depth`.
pub(super) fn child_depth(depth: u32) -> u32 {
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
