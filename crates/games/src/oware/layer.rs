//! Solving one stone count of Awari: a game graph whose captures leave it.
//!
//! The positions with `n` stones on the board form a graph of the moves that capture nothing;
//! a capture of `c` stones exits into the already solved `n - c` layer, worth `c` minus the
//! child's value. The layer is a [`DenseLayer`] of the core, solved by its one dense path
//! ([`gamegraph::dense::solve_layer`]) in the minimax model, each position's best exit entering
//! as an exit seed and cycles being worth 0. Per position it needs two bytes: the label or move
//! counter ([`ByteStore`]), and the best exit.

use std::sync::Arc;

use gamegraph::dense::{self, ByteStore, DenseLayer, Exit, Forward, Leaving, Reached};
use gamegraph::Stake;

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
    /// Whether the user asked the build to stop before its next layer.
    fn interrupted(&self) -> bool {
        false
    }
}

/// Reports nothing.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: usize, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish(&self, _: usize) {}
}

/// One stone count of a rule variant, as the core's dense solver sees it.
struct Layer<'a, B: LayerBytes> {
    rules: Rules,
    ranking: &'a Ranking,
    stones: usize,
    /// The values of the smaller layers, by stone count.
    lower: &'a [B],
    /// Asked whether to stop.
    progress: &'a dyn Progress,
}

impl<B: LayerBytes + Sync> DenseLayer for Layer<'_, B> {
    type Scratch = ();

    fn len(&self) -> u64 {
        self.ranking.len(self.stones)
    }

    /// Walks the chunk's boards in index order, each from the previous one.
    fn forward(&self, start: u64, out: &mut [Forward]) {
        self.forward_with(start, out, |_, child, captured| {
            let value = self.lower[stones(child)].bytes()[self.ranking.rank(child) as usize];
            Some(capture_value(Stake::from(captured), value))
        });
    }

    fn interrupted(&self) -> bool {
        self.progress.interrupted()
    }

    #[inline]
    fn predecessors(&self, index: u64, _: &mut (), mut f: impl FnMut(u64)) {
        let pits = self.ranking.unrank(self.stones, index);
        self.rules.unsowings(&pits, |before| f(self.ranking.rank(before)));
    }
}

impl<B: LayerBytes> Layer<'_, B> {
    /// The facts of the chunk from `start`, walking its boards in index order, each from the
    /// previous one; `capture(offset, child, captured)` values each capture of the board at
    /// `offset`, or names it and says `None` (see [`Layer::forward_one`]).
    fn forward_with(
        &self,
        start: u64,
        out: &mut [Forward],
        mut capture: impl FnMut(usize, &Pits, u8) -> Option<Stake>,
    ) {
        let mut pits = self.ranking.unrank(self.stones, start);
        for (i, fact) in out.iter_mut().enumerate() {
            if i > 0 {
                pits = Ranking::next(&pits).expect("the chunk lies inside the layer");
            }
            *fact = self.forward_one(&pits, |child, captured| capture(i, child, captured));
        }
    }

    /// Counts the in-layer moves of a position and finds its best exit: the stones taken at the
    /// end of the game, which enters as an exit (the game leaves the layer), or the best that
    /// `capture(child, captured)` says a capture is worth (what the smaller layers say it is; a
    /// capture it gives no value is left to whoever asks the layer it reaches).
    fn forward_one(&self, pits: &Pits, mut capture: impl FnMut(&Pits, u8) -> Option<Stake>) -> Forward {
        let n = stones(pits) as Stake;
        let moves = self.rules.sowings(pits);
        if moves.as_slice().is_empty() {
            let taken = match self.rules.ending(pits) {
                Some(Ending::MoverTakes) => n,
                _ => -n,
            };
            return Forward::Moves { inside: 0, exit: Some(Exit::new(taken)) };
        }
        let mut inside = 0;
        let mut exit = None;
        for m in moves.as_slice() {
            if m.captured == 0 {
                inside += 1;
            } else if let Some(value) = capture(&m.child, m.captured) {
                exit = Some(exit.map_or(value, |e: Stake| e.max(value)));
            }
        }
        Forward::Moves { inside, exit: exit.map(Exit::new) }
    }
}

/// What a build holds of a solved stone count: its values, mapped from its file, all of them or
/// one worker's range (a cluster's, which asks the owners of the others).
#[derive(Clone)]
pub struct Held {
    /// The index of the first value held.
    pub start: u64,
    /// The values from `start` on.
    pub values: Arc<memmap2::Mmap>,
}

/// One stone count that owns what it reads: the ranking and the smaller layers' values, shared.
/// For solvers that keep a layer beyond a borrow (the cluster kernel's dataflows).
pub struct OwnedLayer {
    rules: Rules,
    ranking: Arc<Ranking>,
    stones: usize,
    lower: Vec<Held>,
    /// Whether `lower` holds only this worker's shares, so that captures are asked of their
    /// owners ([`DenseLayer::asks`]).
    shares: bool,
}

impl OwnedLayer {
    /// The layer of `stones` stones of `rules`, above the solved layers `lower[0..stones]`: whole,
    /// or, if `shares`, each one worker's range.
    pub fn new(rules: Rules, ranking: Arc<Ranking>, stones: usize, lower: Vec<Held>, shares: bool) -> Self {
        assert!(lower.len() >= stones, "layers below {stones} stones must be solved first");
        Self { rules, ranking, stones, lower, shares }
    }

    fn view(&self) -> Layer<'_, Held> {
        Layer {
            rules: self.rules,
            ranking: &self.ranking,
            stones: self.stones,
            lower: &self.lower,
            progress: &Silent,
        }
    }
}

impl DenseLayer for OwnedLayer {
    type Scratch = ();

    fn len(&self) -> u64 {
        self.view().len()
    }

    fn forward(&self, start: u64, out: &mut [Forward]) {
        self.view().forward(start, out);
    }

    #[inline]
    fn predecessors(&self, index: u64, scratch: &mut (), f: impl FnMut(u64)) {
        self.view().predecessors(index, scratch, f);
    }

    fn asks(&self) -> bool {
        self.shares
    }

    /// Each capture named by the stone count it reaches (the layer's number), the index there,
    /// and the stones it takes (its tag).
    fn forward_leaving(
        &self,
        start: u64,
        out: &mut [Forward],
        _: &mut [Option<Exit>],
        leave: &mut dyn FnMut(usize, Leaving),
    ) {
        if !self.shares {
            return self.forward(start, out);
        }
        self.view().forward_with(start, out, |offset, child, captured| {
            let (layer, index) = (stones(child) as u32, self.ranking.rank(child));
            leave(offset, Leaving { layer, index, tag: u32::from(captured) });
            None
        });
    }

    /// Every smaller stone count, each one segment.
    fn reached(&self) -> Vec<Reached> {
        (0..self.stones).map(|n| self.ranking.len(n)).map(|len| Reached { len, segment: len }).collect()
    }

    fn exit_through(&self, leaving: Leaving) -> Exit {
        let held = &self.lower[leaving.layer as usize];
        let value = held.values[(leaving.index - held.start) as usize];
        Exit::new(capture_value(leaving.tag as Stake, value))
    }
}

/// What a capture of `captured` stones is worth to its mover, the position it reaches holding
/// `child` (its stored byte, a signed value for the player to move there).
fn capture_value(captured: Stake, child: u8) -> Stake {
    captured - Stake::from(child as i8)
}

/// The values of a solved layer, however they are held.
trait LayerBytes {
    fn bytes(&self) -> &[u8];
}

impl LayerBytes for &[u8] {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl LayerBytes for Held {
    fn bytes(&self) -> &[u8] {
        debug_assert_eq!(self.start, 0, "a layer that reads its captures holds the smaller layers whole");
        &self.values[..]
    }
}

/// Solves the layer of `n` stones, given the solved layers `lower[0..n]` (one signed byte per
/// position, in index order): one signed byte per position, the value for the player to move.
/// `None` if `progress` asked to stop ([`Progress::interrupted`]) before the layer was solved.
pub fn solve_layer(
    rules: Rules,
    ranking: &Ranking,
    n: usize,
    lower: &[&[u8]],
    progress: &dyn Progress,
) -> Option<Vec<u8>> {
    assert!(lower.len() >= n, "layers below {n} stones must be solved first");
    let layer = Layer { rules, ranking, stones: n, lower, progress };
    progress.start(n, layer.len());
    let advance = |units| progress.advance(units);
    // At most 6 moves and 48 stones: a byte store and byte exits hold every layer.
    let values = if layer.len() <= u64::from(u32::MAX) {
        dense::solve_layer::<_, ByteStore<u32>>(&layer, &advance).map(ByteStore::into_values)
    } else {
        dense::solve_layer::<_, ByteStore<u64>>(&layer, &advance).map(ByteStore::into_values)
    };
    match values {
        Ok(values) => {
            progress.finish(n);
            Some(values)
        }
        Err(dense::DenseError::Interrupted) => None,
        Err(e) => panic!("Awari layers fit a byte store: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_layers_by_hand() {
        let ranking = Ranking::new();
        let l0 = solve_layer(Rules::Vu, &ranking, 0, &[], &Silent).unwrap();
        assert_eq!(l0, vec![0]);
        let l1 = solve_layer(Rules::Vu, &ranking, 1, &[&l0], &Silent).unwrap();
        let at = |pits: Pits| l1[ranking.rank(&pits) as usize] as i8;
        // The mover has no stone: the opponent takes it.
        assert_eq!(at([0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]), -1);
        // The mover cannot feed the opponent: the starving move is legal and he takes the stone.
        assert_eq!(at([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 1);
        // The only move feeds the opponent, who then cannot feed back and takes the stone.
        assert_eq!(at([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), -1);
    }
}
