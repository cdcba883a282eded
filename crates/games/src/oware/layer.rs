//! Solving one stone count of Awari: a game graph whose captures leave it.
//!
//! The positions with `n` stones on the board form a graph of the moves that capture nothing;
//! a capture of `c` stones exits into the already solved `n - c` layer, worth `c` minus the
//! child's value. The core kernel ([`gamegraph::retrograde::propagate`]) solves the layer in the
//! minimax model, each position's best exit entering as an exit seed and cycles being worth 0.
//! Per position it needs two bytes: the label or move counter, and the best exit.

use std::sync::atomic::{AtomicU8, Ordering};

use gamegraph::retrograde::{propagate, Label, LabelStore, NodeId, Predecessors, Seed, Side};
use rayon::prelude::*;

use super::rules::{stones, Ending, Rules};
use super::{Pits, Ranking};

/// Reports how far a layer has got.
pub trait Progress: Sync {
    /// A layer of `positions` positions starts; its work counts `2 * positions` units.
    fn start(&self, stones: usize, positions: u64);
    /// `units` more units of work are done.
    fn advance(&self, units: u64);
    /// The layer is complete.
    fn finish(&self, stones: usize);
}

/// Reports nothing.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: usize, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish(&self, _: usize) {}
}

/// No exit from this position.
const NO_EXIT: i8 = i8::MIN;
/// Set in a decided cell; the low six bits hold the level.
const DECIDED: u8 = 0x80;
/// Set in a decided cell won by the player to move.
const WON: u8 = 0x40;
const LEVEL: u8 = 0x3F;

/// One byte per position: the move counter (at most 7) while undecided, else the label.
struct LayerStore<N> {
    cells: Vec<AtomicU8>,
    node: std::marker::PhantomData<N>,
}

fn encode(label: Label) -> u8 {
    DECIDED | if label.side == Side::Win { WON } else { 0 } | label.level as u8
}

/// The value a cell stores for the player to move, 0 for undecided (endless play).
fn cell_value(cell: u8) -> i8 {
    match (cell & DECIDED != 0, cell & WON != 0) {
        (false, _) => 0,
        (true, true) => (cell & LEVEL) as i8,
        (true, false) => -((cell & LEVEL) as i8),
    }
}

impl<N: NodeId> LabelStore for LayerStore<N> {
    type Node = N;

    #[inline]
    fn is_decided(&self, node: N) -> bool {
        self.cells[node.index()].load(Ordering::Relaxed) & DECIDED != 0
    }

    #[inline]
    fn label(&self, node: N) -> Option<Label> {
        let cell = self.cells[node.index()].load(Ordering::Relaxed);
        (cell & DECIDED != 0).then(|| Label {
            side: if cell & WON != 0 { Side::Win } else { Side::Lose },
            level: i32::from(cell & LEVEL),
            remoteness: 0,
        })
    }

    #[inline]
    fn decide(&self, node: N, label: Label) -> bool {
        let new = encode(label);
        self.cells[node.index()]
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| (c & DECIDED == 0).then_some(new))
            .is_ok()
    }

    #[inline]
    fn decrement(&self, node: N, label: Label) -> bool {
        let decided = encode(label);
        let update =
            self.cells[node.index()].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| match c {
                c if c & DECIDED != 0 => None,
                1 => Some(decided),
                c => Some(c - 1),
            });
        update == Ok(1)
    }
}

/// The in-layer moves, walked backwards with un-sowings.
struct LayerUnmoves<'a, N> {
    rules: Rules,
    ranking: &'a Ranking,
    stones: usize,
    node: std::marker::PhantomData<N>,
}

impl<N: NodeId> Predecessors for LayerUnmoves<'_, N> {
    type Node = N;
    type Scratch = ();

    #[inline]
    fn for_each_predecessor(&self, node: N, _: &mut (), mut f: impl FnMut(N)) {
        let pits = self.ranking.unrank(self.stones, node.index() as u64);
        self.rules.unsowings(&pits, |before| f(N::from_index(self.ranking.rank(before) as usize)));
    }
}

/// Counts the in-layer moves of a position and finds its best exit: what `lower` (the values of
/// the smaller layers, by stone count) says each capture is worth, or the stones taken at the
/// end of the game.
fn forward(rules: Rules, ranking: &Ranking, pits: &Pits, lower: &[&[u8]]) -> (u8, i8) {
    let n = stones(pits) as i8;
    let moves = rules.sowings(pits);
    if moves.as_slice().is_empty() {
        return match rules.ending(pits) {
            Some(Ending::MoverTakes) => (1, n),
            _ => (1, -n),
        };
    }
    let mut inside = 0;
    let mut exit = NO_EXIT;
    for m in moves.as_slice() {
        if m.captured == 0 {
            inside += 1;
        } else {
            let child = lower[stones(&m.child)][ranking.rank(&m.child) as usize] as i8;
            exit = exit.max(m.captured as i8 - child);
        }
    }
    (inside + u8::from(exit != NO_EXIT), exit)
}

/// Positions handled per parallel task in the forward pass.
const CHUNK: usize = 1 << 14;

/// Solves the layer of `n` stones, given the solved layers `lower[0..n]` (one signed byte per
/// position, in index order): one signed byte per position, the value for the player to move.
pub fn solve_layer(
    rules: Rules,
    ranking: &Ranking,
    n: usize,
    lower: &[&[u8]],
    progress: &dyn Progress,
) -> Vec<u8> {
    assert!(lower.len() >= n, "layers below {n} stones must be solved first");
    let len = ranking.len(n);
    progress.start(n, len);
    let values = if len <= u64::from(u32::MAX) {
        solve_with::<u32>(rules, ranking, n, lower, progress)
    } else {
        solve_with::<u64>(rules, ranking, n, lower, progress)
    };
    progress.finish(n);
    values
}

fn solve_with<N: NodeId>(
    rules: Rules,
    ranking: &Ranking,
    n: usize,
    lower: &[&[u8]],
    progress: &dyn Progress,
) -> Vec<u8> {
    let len = ranking.len(n) as usize;
    let mut cells: Vec<AtomicU8> = (0..len).into_par_iter().map(|_| AtomicU8::new(0)).collect();
    let mut exits = vec![NO_EXIT; len];
    cells.par_chunks_mut(CHUNK).zip(exits.par_chunks_mut(CHUNK)).enumerate().for_each(
        |(c, (cells, exits))| {
            let mut pits = ranking.unrank(n, (c * CHUNK) as u64);
            for (i, (cell, exit)) in cells.iter_mut().zip(exits.iter_mut()).enumerate() {
                if i > 0 {
                    pits = Ranking::next(&pits).expect("the chunk lies inside the layer");
                }
                let (count, best) = forward(rules, ranking, &pits, lower);
                *cell.get_mut() = count;
                *exit = best;
            }
            progress.advance(cells.len() as u64);
        },
    );
    let store = LayerStore::<N> { cells, node: std::marker::PhantomData };
    let unmoves = LayerUnmoves::<N> { rules, ranking, stones: n, node: std::marker::PhantomData };
    let levels = (1..=n as i8).rev();
    let seeds = levels.flat_map(|level| {
        progress.advance(len as u64 / n as u64);
        let nodes: Vec<usize> = exits
            .par_iter()
            .enumerate()
            .filter(|&(_, &e)| e == level || e == -level)
            .map(|(i, _)| i)
            .collect();
        let exits = &exits;
        nodes.into_iter().map(move |i| Seed::Exit {
            node: N::from_index(i),
            child: if exits[i] > 0 { Side::Lose } else { Side::Win },
            level: i32::from(level),
        })
    });
    propagate(&unmoves, &store, seeds);
    store.cells.into_par_iter().map(|c| cell_value(c.into_inner()) as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_layers_by_hand() {
        let ranking = Ranking::new();
        let l0 = solve_layer(Rules::Vu, &ranking, 0, &[], &Silent);
        assert_eq!(l0, vec![0]);
        let l1 = solve_layer(Rules::Vu, &ranking, 1, &[&l0], &Silent);
        let at = |pits: Pits| l1[ranking.rank(&pits) as usize] as i8;
        // The mover has no stone: the opponent takes it.
        assert_eq!(at([0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]), -1);
        // The mover cannot feed the opponent: the starving move is legal and he takes the stone.
        assert_eq!(at([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 1);
        // The only move feeds the opponent, who then cannot feed back and takes the stone.
        assert_eq!(at([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), -1);
    }
}
