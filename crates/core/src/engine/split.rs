//! Parallel search of exact solves, young brothers wait: near the root, once a node's first move
//! is searched without a cutoff, its other moves are searched at once on the pool's threads, each
//! by a forked worker with a null window; a subtree that fails high cancels its siblings.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

use rayon::prelude::*;

use super::settings::SearchStats;
use super::worker::{child_depth, Cancel, Node, NodeState, Worker};
use crate::game::Searchable;
use crate::score::{Score, UNLIMITED};

/// Exact solves search younger brothers in parallel at nodes less than this many plies deep.
/// Measured with 2 threads: Test_L1_R2 (first 100) 82.1 ms at 6, 80.8 at 8, 80.1 at 10, 96 at
/// 14; Test_L1_R3 (first 10) 1.49 s at 6, 1.42 s at 10; FFO #40-#44 4.79 s at 6 and 10.
const SPLIT_PLIES: usize = 10;

impl<'e, G: Searchable + Sync> Worker<'e, G> {
    /// A worker for a subtree searched in parallel, sharing everything but its buffers, with
    /// `cancel` (the split's flag, linked to those above) to stop it.
    fn fork(&self, cancel: &Arc<Cancel>) -> Self {
        let parts = (self.game, self.tt, self.settings, self.spare, self.context.owner());
        let mut worker = Self::from_parts(parts, self.stop, self.limits, self.started, self.id);
        worker.may_stop = self.may_stop;
        worker.split = true;
        worker.selective = self.selective;
        worker.cancel = Some(Arc::clone(cancel));
        worker
    }

    /// Whether the younger brothers of `node` are searched in parallel: in exact solves, near
    /// the root, where subtrees are big enough to repay a task.
    pub(super) fn splits_at(&self, node: &Node<'_, G::Position>) -> bool {
        self.split && node.depth == UNLIMITED && node.ply < SPLIT_PLIES
    }

    /// Searches `moves` (the first move of the node already searched without a cutoff) on the
    /// pool's threads, each with a null window at the node's alpha, and takes the results into the
    /// node's state; returns true on a cutoff. A subtree that fails high cancels the others; moves
    /// that land inside a wider window are searched again with it.
    pub(super) fn search_in_parallel(
        &mut self,
        node: &Node<'_, G::Position>,
        moves: &[G::Move],
        state: &mut NodeState<G::Move>,
    ) -> bool {
        let (pos, depth, ply, beta) = (node.pos, node.depth, node.ply, node.beta);
        let cancel = Arc::new(Cancel { flag: AtomicBool::new(false), above: self.cancel.clone() });
        let alpha = state.alpha;
        let this = &*self;
        let results: Vec<(Score, SearchStats, bool, bool)> = moves
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
                -self.negamax(&child, child_depth(depth), ply + 1, -beta, -state.alpha)
            } else {
                score
            };
            cut = self.take_score(node, state, mv, score);
        }
        cut
    }

    /// Whether a split above this worker cancelled its subtree.
    pub(super) fn cancelled(&self) -> bool {
        std::iter::successors(self.cancel.as_deref(), |c| c.above.as_deref()).any(|c| c.flag.load(Relaxed))
    }
}
