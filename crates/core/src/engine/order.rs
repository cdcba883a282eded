//! Move ordering, and the table work that goes with it: the first children (all of them, for a
//! game that orders by the children) are played and their table buckets prefetched before the
//! moves are ordered (so the loads overlap the ordering),
//! enhanced transposition cutoffs probe those children, and the game's order is refined by
//! killer moves and history where they are switched on.

use super::worker::{child_depth, Child, Node, NodeState, Worker};
use crate::game::Searchable;
use crate::score::from_node;
use crate::tt::{Bound, TtEntry};

/// How many children's table buckets a node prefetches before searching them.
const PREFETCHED_CHILDREN: usize = 8;

/// Enhanced transposition cutoffs are tried at nodes less than this many plies deep, where
/// subtrees are big enough to repay the probes. Measured with 1 thread on the first 100
/// positions of Test_L1_R2: 128.7 ms without, 132.3 ms at every ply, 119.1 ms below 12 plies,
/// 116.4 ms below 20, 123.0 ms below 24.
const ETC_PLIES: usize = 20;

impl<'e, G: Searchable + Sync> Worker<'e, G> {
    /// Plays the first moves (as generated, the table move excepted) and starts loading their
    /// table buckets: the search is bound by memory latency, and these loads overlap the work
    /// that follows. The children are kept, with their keys, for their search.
    pub(super) fn prefetch_children(
        &mut self,
        pos: &G::Position,
        moves: &[G::Move],
        tt_index: Option<u8>,
        ply: usize,
    ) -> Vec<Child<G>> {
        let mut children = std::mem::take(&mut self.buffers.children[ply]);
        children.clear();
        let skip = tt_index.map_or(usize::MAX, usize::from);
        // A game that orders by the children needs them all.
        let count = if G::ORDERS_BY_CHILDREN { usize::MAX } else { PREFETCHED_CHILDREN };
        for (_, &mv) in moves.iter().enumerate().filter(|&(i, _)| i != skip).take(count) {
            let child = self.game.play(pos, mv);
            let key = self.game.key(&child);
            self.tt.prefetch(key);
            children.push((mv, child, key));
        }
        children
    }

    /// Enhanced transposition cutoffs: whether a child's table entry proves `node` fails high,
    /// without searching it. The children's buckets were prefetched together, so their loads
    /// overlap. Not at the root, which must be searched to have a best move.
    pub(super) fn transposition_cutoff(
        &mut self,
        node: &Node<'_, G::Position>,
        children: &[Child<G>],
        state: &mut NodeState<G::Move>,
    ) -> bool {
        let (depth, ply) = (node.depth, node.ply);
        if !self.settings.etc || depth <= 2 || ply == 0 || ply >= ETC_PLIES {
            return false;
        }
        let needed = self.needed_depth(child_depth(depth));
        for &(mv, _, key) in children {
            let Some(e) = self.tt.probe(key) else { continue };
            // The child is worth at most its stored upper bound, so this node at least its
            // opposite.
            let score = -from_node(e.score, ply + 1);
            if e.depth >= needed && matches!(e.bound, Bound::Exact | Bound::Upper) && score >= node.beta {
                self.stats.etc_cutoffs += 1;
                self.hit_horizon |= e.depth != TtEntry::TO_THE_END;
                return self.take_score(node, state, mv, score);
            }
        }
        false
    }

    /// Puts the moves into the order to search them in: the game's order, then killers first
    /// and by history where those are on. Returns them without the table move (at `tt_index`
    /// among the moves as generated), which was searched already.
    /// Where the game orders by the children, `children` (every move but the table move, played)
    /// are put in the same order.
    pub(super) fn move_order<'m>(
        &mut self,
        pos: &G::Position,
        moves: &'m mut [G::Move],
        children: &mut [Child<G>],
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
        if moves.len() > 1 && G::ORDERS_BY_CHILDREN {
            self.game.order_children(pos, children, |c| (c.0, &c.1), depth, &mut self.context);
            for (mv, child) in moves.iter_mut().zip(children.iter()) {
                *mv = child.0;
            }
        } else if moves.len() > 1 {
            self.game.order_moves(pos, moves, depth, &mut self.context);
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
    pub(super) fn reward(&mut self, mv: G::Move, depth: u32, ply: usize) {
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
