//! Solving one stone count of Awari: a game graph whose captures leave it.
//!
//! The positions with `n` stones on the board form a graph of the moves that capture nothing;
//! a capture of `c` stones exits into the already solved `n - c` layer, worth `c` minus the
//! child's value. The layer is a [`DenseLayer`] of the core, solved by its one dense path
//! ([`gamegraph::dense::solve_layer`]) in the minimax model, each position's best exit entering
//! as an exit seed and cycles being worth 0. Per position it needs two bytes: the label or move
//! counter ([`ByteStore`]), and the best exit.

use std::sync::Arc;

use gamegraph::dense::{self, ByteStore, DenseLayer, Exit, Forward};
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
        let mut pits = self.ranking.unrank(self.stones, start);
        for (i, fact) in out.iter_mut().enumerate() {
            if i > 0 {
                pits = Ranking::next(&pits).expect("the chunk lies inside the layer");
            }
            *fact = self.forward_one(&pits);
        }
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
    /// Counts the in-layer moves of a position and finds its best exit: what the smaller layers
    /// say each capture is worth, or the stones taken at the end of the game, which enters as an
    /// exit too (the game leaves the layer).
    fn forward_one(&self, pits: &Pits) -> Forward {
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
            } else {
                let child = self.lower[stones(&m.child)].bytes()[self.ranking.rank(&m.child) as usize] as i8;
                let value = m.captured as Stake - Stake::from(child);
                exit = Some(exit.map_or(value, |e: Stake| e.max(value)));
            }
        }
        Forward::Moves { inside, exit: exit.map(Exit::new) }
    }
}

/// One stone count that owns what it reads: the ranking and the smaller layers' values, shared.
/// For solvers that keep a layer beyond a borrow (the cluster kernel's dataflows).
pub struct OwnedLayer {
    rules: Rules,
    ranking: Arc<Ranking>,
    stones: usize,
    lower: Vec<Arc<memmap2::Mmap>>,
}

impl OwnedLayer {
    /// The layer of `stones` stones of `rules`, above the solved layers `lower[0..stones]`.
    pub fn new(rules: Rules, ranking: Arc<Ranking>, stones: usize, lower: Vec<Arc<memmap2::Mmap>>) -> Self {
        assert!(lower.len() >= stones, "layers below {stones} stones must be solved first");
        Self { rules, ranking, stones, lower }
    }

    fn view(&self) -> Layer<'_, Arc<memmap2::Mmap>> {
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

impl LayerBytes for Arc<memmap2::Mmap> {
    fn bytes(&self) -> &[u8] {
        &self[..]
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
