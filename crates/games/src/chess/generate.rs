//! Building one table by retrograde analysis on the core's dense path: the table's index is a
//! [`DenseLayer`] whose forward pass counts the moves that stay in the table and values the
//! captures and promotions from the smaller tables built before (exits carrying their distance
//! to mate), and whose predecessors come from the un-move generator.

use cozy_chess::{Board, Move};
use gamegraph::dense::{solve_layer, DenseLayer, Exit, Forward};
use gamegraph::retrograde::{DenseStore, LabelStore, Side};
use rayon::prelude::*;

use super::index::TableIndex;
use super::material::Material;
use super::{Dtm, Entry};

/// Where the builder reads the values of the tables that captures and promotions lead to.
pub trait ChildTables: Sync {
    /// The stored entry of `board`, whose material is a smaller or other table built before.
    fn entry(&self, board: &Board) -> Entry;
}

/// One table as a layer of the dense path.
struct TableLayer<'a, C> {
    index: &'a TableIndex,
    children: &'a C,
}

impl<C: ChildTables> DenseLayer for TableLayer<'_, C> {
    type Scratch = ();
    const EXIT_REMOTENESS: bool = true;

    fn len(&self) -> u64 {
        self.index.len()
    }

    fn forward(&self, start: u64, out: &mut [Forward]) {
        for (i, fact) in out.iter_mut().enumerate() {
            *fact = match self.index.placement(start + i as u64).and_then(|p| self.index.board(&p)) {
                None => Forward::Absent,
                Some(board) => forward_one(&board, self.children),
            };
        }
    }

    fn predecessors(&self, index: u64, _: &mut (), f: impl FnMut(u64)) {
        if let Some(p) = self.index.placement(index) {
            self.index.unmoves(&p, f);
        }
    }

    fn max_exit(&self) -> gamegraph::Stake {
        1
    }
}

/// Counts the moves of `board` that stay in its table and finds the best of those that leave
/// it. A stalemate is a position whose only "move" is a drawn exit, so that it stays drawn.
fn forward_one(board: &Board, children: &impl ChildTables) -> Forward {
    let mut inside = 0;
    let mut best: Option<Exit> = None;
    let mut any = false;
    board.generate_moves(|moves| {
        any = true;
        for mv in moves {
            if leaves_table(board, mv) {
                let mut child = board.clone();
                child.play_unchecked(mv);
                let exit = children.entry(&child).dtm().map_or(Exit::new(0), Dtm::exit);
                if best.map_or(true, |b| better(exit, b)) {
                    best = Some(exit);
                }
            } else {
                inside += 1;
            }
        }
        false
    });
    if !any {
        return if board.checkers().is_empty() {
            Forward::Moves { inside: 0, exit: Some(Exit::new(0)) }
        } else {
            Forward::Final(1)
        };
    }
    Forward::Moves { inside, exit: best }
}

/// Whether a move leaves its table: a capture or a promotion.
pub fn leaves_table(board: &Board, mv: Move) -> bool {
    mv.promotion.is_some() || board.colors(!board.side_to_move()).has(mv.to)
}

/// Whether exit `a` is better than `b` for the mover: a higher value, then the fastest win or
/// the slowest loss.
fn better(a: Exit, b: Exit) -> bool {
    let key = |e: Exit| (e.value, -(e.value as i64) * i64::from(e.remoteness));
    key(a) > key(b)
}

/// Builds the table of `material` (canonical), whose captures and promotions `children` value:
/// one entry per index. `progress` is told of `2 * len` units of work as it is done.
pub fn build_table(
    material: Material,
    children: &impl ChildTables,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Entry>, gamegraph::dense::DenseError> {
    let index = TableIndex::new(material);
    let layer = TableLayer { index: &index, children };
    let store: DenseStore<u64> = solve_layer(&layer, progress)?;
    Ok((0..index.len())
        .into_par_iter()
        .map(|i| match store.label(i) {
            Some(label) => Entry::of(match label.side {
                Side::Win => Dtm::Win(label.remoteness),
                Side::Lose => Dtm::Loss(label.remoteness),
            }),
            None if index.placement(i).is_some() => Entry::of(Dtm::Draw),
            None => Entry::NONE,
        })
        .collect())
}
