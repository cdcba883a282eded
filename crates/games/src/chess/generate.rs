//! Building one table by retrograde analysis on the core's dense path: the table's index is a
//! [`DenseLayer`] whose forward pass counts the moves that stay in the table and values the
//! captures and promotions from the smaller tables built before (exits carrying their distance
//! to mate), and whose predecessors come from the un-move generator.

use cozy_chess::{Board, Move, Piece};
use gamegraph::dense::{solve_layer, DenseLayer, Exit, Forward, OutcomeStore};
use gamegraph::retrograde::{NodeId, Side};

use super::en_passant::EnPassantPositions;
use super::index::TableIndex;
use super::material::Material;
use super::{Dtm, Entry};

/// Where the builder reads the values of the tables that captures and promotions lead to.
pub trait ChildTables: Sync {
    /// The stored entry of `board`, whose material is a smaller or other table built before.
    fn entry(&self, board: &Board) -> Entry;
}

/// One table as a layer of the dense path: its indices, then its positions with an en passant
/// right.
struct TableLayer<'a, C> {
    index: &'a TableIndex,
    en_passant: EnPassantPositions,
    children: &'a C,
}

impl<C> TableLayer<'_, C> {
    /// The board at a layer index.
    fn board(&self, i: u64) -> Option<Board> {
        let base = self.index.len();
        if i < base {
            return self.index.board(&self.index.placement(i)?);
        }
        let (position, file) = self.en_passant.get(i - base);
        self.index.board_with_en_passant(&self.index.placement(position)?, file)
    }

    /// Calls `f` with the layer index of the position at table index `q` and of its versions with
    /// an en passant right: each has the same moves (and one more).
    fn with_en_passant_versions(&self, q: u64, f: &mut impl FnMut(u64)) {
        f(q);
        if self.en_passant.is_empty() {
            return;
        }
        let Some(p) = self.index.placement(q) else { return };
        for file in self.index.en_passant_files(&p) {
            let n = self.en_passant.number(q, file).expect("found when the layer was made");
            f(self.index.len() + n);
        }
    }
}

impl<C: ChildTables> DenseLayer for TableLayer<'_, C> {
    type Scratch = ();

    fn len(&self) -> u64 {
        self.index.len() + self.en_passant.len()
    }

    fn forward(&self, start: u64, out: &mut [Forward]) {
        for (i, fact) in out.iter_mut().enumerate() {
            *fact = match self.board(start + i as u64) {
                None => Forward::Absent,
                Some(board) => forward_one(&board, self.children),
            };
        }
    }

    fn predecessors(&self, index: u64, _: &mut (), mut f: impl FnMut(u64)) {
        let base = self.index.len();
        if self.en_passant.is_empty() {
            if let Some(p) = self.index.placement(index) {
                self.index.unmoves(&p, f);
            }
            return;
        }
        // Tables with pawns on both sides have no symmetric board: one index per un-move.
        if index >= base {
            // Only the double push leads to a position with an en passant right.
            let (position, file) = self.en_passant.get(index - base);
            let p = self.index.placement(position).expect("found as a position");
            if let Some(q) = self.index.before_double_push(&p, file) {
                self.with_en_passant_versions(self.index.index(&q), &mut f);
            }
            return;
        }
        let Some(p) = self.index.placement(index) else { return };
        self.index.unmove_placements(&p, |q| {
            let pushed = (0..self.index.slots().len()).find(|&i| q.squares[i].abs_diff(p.squares[i]) == 16);
            if let Some(i) = pushed.filter(|&i| self.index.slots()[i].piece == Piece::Pawn) {
                // That push leads to the position with the en passant right where it exists.
                if self.en_passant.number(index, p.squares[i] & 7).is_some() {
                    return;
                }
            }
            self.with_en_passant_versions(self.index.index(&q), &mut f);
        });
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

/// Whether a move leaves its table: a capture (en passant too) or a promotion.
pub fn leaves_table(board: &Board, mv: Move) -> bool {
    let en_passant = board.piece_on(mv.from) == Some(Piece::Pawn) && mv.from.file() != mv.to.file();
    mv.promotion.is_some() || en_passant || board.colors(!board.side_to_move()).has(mv.to)
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
    let en_passant = EnPassantPositions::find(&index);
    let layer = TableLayer { index: &index, en_passant, children };
    // Four-byte node numbers where they suffice: the kernel's lists of exits and rounds are
    // half the size.
    let cells = if layer.len() <= u64::from(u32::MAX) {
        solve::<u32, _>(&layer, progress)?
    } else {
        solve::<u64, _>(&layer, progress)?
    };
    // Same size: the collect reuses the cells' memory.
    Ok(cells.into_iter().map(Entry).collect())
}

/// Solves `layer` with node numbers `N` into one entry (as its `u16`) per table index; the en
/// passant positions after them are dropped.
fn solve<N: NodeId, C: ChildTables>(
    layer: &TableLayer<'_, C>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<u16>, gamegraph::dense::DenseError> {
    let store: OutcomeStore<N> = solve_layer(layer, progress)?;
    let index = layer.index;
    let mut cells = store.into_u16(|i, label| {
        let entry = match label {
            Some(label) => Entry::of(match label.side {
                Side::Win => Dtm::Win(label.remoteness),
                Side::Lose => Dtm::Loss(label.remoteness),
            }),
            None if index.placement(i as u64).is_some() => Entry::of(Dtm::Draw),
            None => Entry::NONE,
        };
        entry.0
    });
    cells.truncate(index.len() as usize);
    Ok(cells)
}
