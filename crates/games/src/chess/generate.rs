//! Building one table by retrograde analysis on the core's dense path: the table's index is a
//! [`DenseLayer`] whose forward pass counts the moves that stay in the table and values the
//! captures and promotions from the smaller tables built before (exits carrying their distance
//! to mate), and whose predecessors come from the un-move generator. On a cluster, where a
//! worker holds only its share of the smaller tables, the forward pass names the captures and
//! promotions instead, and the owners of the positions they reach value them.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use cozy_chess::{Board, Move, Piece};
use gamegraph::dense::{solve_layer, DenseLayer, Exit, Forward, Leaving as Named, OutcomeStore, Reached};
use gamegraph::retrograde::{NodeId, Side};

use super::en_passant::EnPassantPositions;
use super::index::{Placement, TableIndex};
use super::leaving::{reached_halves, LeavingTables};
use super::material::Material;
use super::moves::{Leaving, MoveVisitor};
use super::{Dtm, Entry};

pub use super::leaving::ChildTables;

/// One table as a layer of the dense path: its indices, then its positions with an en passant
/// right. It holds the tables its captures and promotions lead to as `C` (a reference, or an
/// `Arc` for a layer that owns what it reads, as a cluster's workers need).
pub struct TableLayer<C, I> {
    index: TableIndex,
    en_passant: EnPassantPositions,
    children: C,
    leaving: LeavingTables,
    /// The tables its captures and promotions reach, numbered as [`DenseLayer::reached`] gives
    /// them to a cluster.
    reached: Vec<(Material, TableIndex)>,
    /// What the solve learns of each table index's captures.
    captures: CaptureMarks,
    /// Whether the build was told to stop.
    interrupted: I,
}

/// Two bits a table index: whether its best capture is as good as its best move, so that the
/// table's file may leave its value out ([`Entry::BY_CAPTURE`]). The forward pass sees whether
/// the best capture is the best move leaving the table; the solve, whether that move gives the
/// position's value.
struct CaptureMarks(Vec<AtomicU64>);

/// The best capture is the best leaving move, and decisive.
const DECISIVE: u64 = 0b01;
/// With [`DECISIVE`]: the solve kept its value. Alone: the best capture is the best leaving
/// move, a draw, which the position's value is if nothing decides it.
const KEPT: u64 = 0b10;

impl CaptureMarks {
    fn new(len: u64) -> Self {
        Self((0..len.div_ceil(32)).map(|_| AtomicU64::new(0)).collect())
    }

    fn set(&self, index: u64, bits: u64) {
        self.0[(index / 32) as usize].fetch_or(bits << (2 * (index % 32)), Relaxed);
    }

    fn get(&self, index: u64) -> u64 {
        self.0[(index / 32) as usize].load(Relaxed) >> (2 * (index % 32)) & 0b11
    }

    /// Marks a position whose best capture is `capture` and best leaving move `best`.
    fn forward(&self, index: u64, capture: Option<Exit>, best: Option<Exit>) {
        match capture {
            Some(c) if Some(c) == best => self.set(index, if c.value == 0 { KEPT } else { DECISIVE }),
            _ => {}
        }
    }

    /// Whether the value of a position, `None` for a draw, is its best capture's.
    fn by_capture(&self, index: u64, decided: bool) -> bool {
        match self.get(index) {
            0b11 => true,
            KEPT => !decided,
            _ => false,
        }
    }
}

impl<C, I> TableLayer<C, I> {
    /// The table of `index` as a layer, whose captures and promotions `children` value; it
    /// stops when `interrupted` says so.
    pub fn new(index: TableIndex, children: C, interrupted: I) -> Self {
        let en_passant = EnPassantPositions::find(&index);
        let leaving = LeavingTables::new(&index);
        let captures = CaptureMarks::new(index.len());
        let reached = reached_halves(&index).into_iter().map(|(m, _)| (m, TableIndex::new(m))).collect();
        Self { index, en_passant, children, leaving, reached, captures, interrupted }
    }

    /// The table's index.
    pub fn index(&self) -> &TableIndex {
        &self.index
    }

    /// The entries (as their `u16`) of the labels of `store`, whose cell `i` holds layer index
    /// `global(i)`: an undecided table index is a draw if it is a position. An entry whose value
    /// the position's best capture gives is marked [`Entry::BY_CAPTURE`]. The cells of the
    /// positions with an en passant right (after the table's indices) and of indices beyond
    /// the layer hold no entry worth keeping.
    pub fn entries<N: NodeId>(
        &self,
        store: OutcomeStore<N>,
        global: impl Fn(usize) -> u64 + Sync,
    ) -> Vec<u16> {
        let (index, captures) = (&self.index, &self.captures);
        store.into_u16(|i, label| {
            let i = global(i);
            let entry = match label {
                Some(label) => Entry::of(match label.side {
                    Side::Win => Dtm::Win(label.remoteness),
                    Side::Lose => Dtm::Loss(label.remoteness),
                }),
                None if i < index.len() && index.placement(i).is_some() => Entry::of(Dtm::Draw),
                None => Entry::NONE,
            };
            if i < index.len() && captures.by_capture(i, label.is_some()) {
                entry.by_capture().0
            } else {
                entry.0
            }
        })
    }

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

impl<C: ChildTables, I: Fn() -> bool + Sync> DenseLayer for TableLayer<C, I> {
    type Scratch = ();

    fn len(&self) -> u64 {
        self.index.len() + self.en_passant.len()
    }

    /// A side to move's half: a move flips the side to move, and unless it is a king's, keeps
    /// the king pair (the first digit of a half), so a cluster keeps it between one worker's
    /// positions. The positions with an en passant right make a last, short segment.
    fn segment(&self) -> u64 {
        self.index.len() / 2
    }

    fn forward(&self, start: u64, out: &mut [Forward]) {
        let mut value = |_, mv: Reaching| Some(self.exit_of(mv));
        self.forward_with(start, out, &mut value, |at, forward, capture| {
            if let Forward::Moves { exit, .. } = forward {
                self.captures.forward(at, capture, exit);
            }
        });
    }

    fn predecessors(&self, index: u64, _: &mut (), mut f: impl FnMut(u64)) {
        let base = self.index.len();
        // The kernel asks only for positions it has decided: their indices need no checks.
        if self.en_passant.is_empty() {
            self.index.unmoves(index, &self.index.decode(index), f);
            return;
        }
        // Tables with pawns on both sides have no symmetric board: one index per un-move.
        if index >= base {
            // Only the double push leads to a position with an en passant right.
            let (position, file) = self.en_passant.get(index - base);
            let p = self.index.decode(position);
            if let Some(q) = self.index.before_double_push(&p, file) {
                self.with_en_passant_versions(self.index.index(&q), &mut f);
            }
            return;
        }
        let p = self.index.decode(index);
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

    fn exit_kept(&self, index: u64) {
        if index < self.index.len() && self.captures.get(index) == DECISIVE {
            self.captures.set(index, KEPT);
        }
    }

    fn asks(&self) -> bool {
        self.children.holds_share()
    }

    /// Names every capture and promotion into a position this worker does not hold (a capture
    /// with [`Named::MARKED`]), and values the others.
    fn forward_leaving(
        &self,
        start: u64,
        out: &mut [Forward],
        marked: &mut [Option<Exit>],
        leave: &mut dyn FnMut(usize, Named),
    ) {
        let mut name = |offset, mv: Reaching| {
            let tag = if mv.captures() { Named::MARKED } else { 0 };
            let Some((layer, index)) = self.reaches(&mv) else { return Some(Exit::new(0)) };
            if let Some(entry) = self.children.held(self.reached[layer as usize].0, index) {
                return Some(exit_of(entry));
            }
            leave(offset, Named { layer, index, tag });
            None
        };
        self.forward_with(start, out, &mut name, |at, _, capture| marked[(at - start) as usize] = capture);
    }

    /// The tables of [`reached_halves`], in its order.
    fn reached(&self) -> Vec<Reached> {
        self.reached.iter().map(|(_, index)| Reached { len: index.len(), segment: index.len() / 2 }).collect()
    }

    fn exit_through(&self, leaving: Named) -> Exit {
        let (material, _) = self.reached[leaving.layer as usize];
        exit_of(self.children.entry_at(material, leaving.index))
    }

    fn exits_found(&self, index: u64, best: Option<Exit>, marked: Option<Exit>) {
        if index < self.index.len() {
            self.captures.forward(index, marked, best);
        }
    }

    fn interrupted(&self) -> bool {
        (self.interrupted)()
    }
}

/// A move that leaves the table, as the forward pass meets it.
enum Reaching<'b> {
    /// A move of a placement.
    Placed(Leaving),
    /// A move played on the board of a position with an en passant right: the board it
    /// reaches, and whether it captures.
    Played(&'b Board, bool),
}

impl Reaching<'_> {
    fn captures(&self) -> bool {
        match self {
            Reaching::Placed(mv) => mv.captured.is_some(),
            Reaching::Played(_, captures) => *captures,
        }
    }
}

impl<C: ChildTables, I> TableLayer<C, I> {
    /// The forward facts of the indices from `start`, each move that leaves the table valued by
    /// `value` (told its index's offset from `start`), which gives `None` for a move it names
    /// for another worker to value instead. `mark` is told of each table index's facts and the
    /// best capture valued there.
    fn forward_with(
        &self,
        start: u64,
        out: &mut [Forward],
        value: &mut impl FnMut(usize, Reaching) -> Option<Exit>,
        mut mark: impl FnMut(u64, Forward, Option<Exit>),
    ) {
        let base = self.index.len();
        let end = start + out.len() as u64;
        self.index.placements(start.min(base)..end.min(base), |at, p| {
            let offset = (at - start) as usize;
            out[offset] = match p {
                None => Forward::Absent,
                Some(p) => {
                    let (forward, capture) =
                        self.forward_placement(&p, &mut |mv| value(offset, Reaching::Placed(mv)));
                    mark(at, forward, capture);
                    forward
                }
            };
        });
        // The few positions with an en passant right, whose capture the placement move
        // generator does not know.
        for at in start.max(base)..end {
            let offset = (at - start) as usize;
            out[offset] = match self.board(at) {
                None => Forward::Absent,
                Some(board) => forward_one(&board, &mut |child, captures| {
                    value(offset, Reaching::Played(child, captures))
                }),
            };
        }
    }

    /// [`forward_one`] on a placement, without a board, and the best of its captures valued.
    fn forward_placement(
        &self,
        p: &Placement,
        value: &mut impl FnMut(Leaving) -> Option<Exit>,
    ) -> (Forward, Option<Exit>) {
        let mut moves = CountMoves { value, inside: 0, best: None, capture: None, any: false };
        let check = self.index.visit_moves(p, &mut moves);
        let forward = match (moves.any, check) {
            (false, false) => Forward::Moves { inside: 0, exit: Some(Exit::new(0)) },
            (false, true) => Forward::Final(1),
            (true, _) => Forward::Moves { inside: moves.inside, exit: moves.best },
        };
        (forward, moves.capture)
    }

    /// What a leaving move is worth to its mover, read in the tables the layer holds whole.
    fn exit_of(&self, mv: Reaching) -> Exit {
        exit_of(match mv {
            Reaching::Placed(mv) => self.leaving.entry(mv, &self.children),
            Reaching::Played(child, _) => self.children.entry(child),
        })
    }

    /// The table a leaving move reaches (numbered as [`DenseLayer::reached`]) and that table's
    /// index of the position; `None` for the bare kings.
    fn reaches(&self, mv: &Reaching) -> Option<(u32, u64)> {
        let number = |material| {
            let n = self.reached.iter().position(|(m, _)| *m == material);
            n.expect("every table a move reaches is in reached_halves") as u32
        };
        match mv {
            Reaching::Placed(mv) => {
                self.leaving.reach(*mv).map(|(material, index)| (number(material), index))
            }
            Reaching::Played(child, _) => {
                let material = Material::of(child).canonical();
                if material.pieces() == 2 {
                    return None;
                }
                let n = number(material);
                let index = &self.reached[n as usize].1;
                let p = index.placement_of(child).expect("the board holds the table's material");
                Some((n, index.index(&p)))
            }
        }
    }
}

/// The forward pass's tally of one position's moves.
struct CountMoves<'v, F> {
    /// Values a leaving move, or names it (`None`).
    value: &'v mut F,
    inside: u32,
    /// The best move leaving the table, of those valued.
    best: Option<Exit>,
    /// The best capture, of those valued.
    capture: Option<Exit>,
    any: bool,
}

impl<F: FnMut(Leaving) -> Option<Exit>> MoveVisitor for CountMoves<'_, F> {
    fn inside(&mut self) {
        self.any = true;
        self.inside += 1;
    }

    fn leaving(&mut self, mv: Leaving) {
        self.any = true;
        let captures = mv.captured.is_some();
        let Some(exit) = (self.value)(mv) else { return };
        if self.best.is_none_or(|b| exit.better_than(b)) {
            self.best = Some(exit);
        }
        if captures && self.capture.is_none_or(|b| exit.better_than(b)) {
            self.capture = Some(exit);
        }
    }
}

/// Counts the moves of `board` that stay in its table and finds the best of those that leave
/// it, each valued by `value` (told the board it reaches and whether it captures), which gives
/// `None` for a move it names instead. A stalemate is a position whose only "move" is a drawn
/// exit, so that it stays drawn.
fn forward_one(board: &Board, value: &mut impl FnMut(&Board, bool) -> Option<Exit>) -> Forward {
    let mut inside = 0;
    let mut best: Option<Exit> = None;
    let mut any = false;
    board.generate_moves(|moves| {
        any = true;
        for mv in moves {
            if leaves_table(board, mv) {
                let captures = board.colors(!board.side_to_move()).has(mv.to) || mv.promotion.is_none();
                let mut child = board.clone();
                child.play_unchecked(mv);
                let Some(exit) = value(&child, captures) else { continue };
                if best.is_none_or(|b| exit.better_than(b)) {
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

/// What a move into the position of `entry` (in a table built before) is worth to its mover.
pub(crate) fn exit_of(entry: Entry) -> Exit {
    entry.dtm().map_or(Exit::new(0), Dtm::exit)
}

/// Whether a move leaves its table: a capture (en passant too) or a promotion.
pub fn leaves_table(board: &Board, mv: Move) -> bool {
    let en_passant = board.piece_on(mv.from) == Some(Piece::Pawn) && mv.from.file() != mv.to.file();
    mv.promotion.is_some() || en_passant || board.colors(!board.side_to_move()).has(mv.to)
}

/// Builds the table of `material` (canonical), whose captures and promotions `children` value:
/// one entry per index, marked [`Entry::BY_CAPTURE`] where the best capture gives the value. `progress` is told of `2 * len` units of work as it is done; once
/// `interrupted` says so, the build stops with [`gamegraph::dense::DenseError::Interrupted`].
pub fn build_table(
    material: Material,
    children: &impl ChildTables,
    progress: &(dyn Fn(u64) + Sync),
    interrupted: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<Entry>, gamegraph::dense::DenseError> {
    let layer = TableLayer::new(TableIndex::new(material), children, interrupted);
    // Four-byte node numbers where they suffice: the kernel's lists of exits and rounds are
    // half the size.
    let cells = if layer.len() <= u64::from(u32::MAX) {
        solve::<u32, _, _>(&layer, progress)?
    } else {
        solve::<u64, _, _>(&layer, progress)?
    };
    // Same size: the collect reuses the cells' memory.
    Ok(cells.into_iter().map(Entry).collect())
}

/// Solves `layer` with node numbers `N` into one entry (as its `u16`) per table index; the en
/// passant positions after them are dropped.
fn solve<N: NodeId, C: ChildTables, I: Fn() -> bool + Sync>(
    layer: &TableLayer<C, I>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<u16>, gamegraph::dense::DenseError> {
    let store: OutcomeStore<N> = solve_layer(layer, progress)?;
    let mut entries = layer.entries(store, |i| i as u64);
    entries.truncate(layer.index.len() as usize);
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use gamegraph::rng::SplitMix64;

    use super::*;

    /// Made-up child tables: an entry that depends on the table and the index only, so that a
    /// move into the wrong table or index shows.
    struct Hashed;

    impl Hashed {
        fn value(material: Material, index: u64) -> Entry {
            let name = material.to_string().bytes().fold(0, |h: u64, b| h.rotate_left(7) ^ u64::from(b));
            let h = SplitMix64(index ^ name << 32).next_u64();
            match h % 4 {
                0 => Entry::NONE,
                1 => Entry::of(Dtm::Draw),
                2 => Entry::of(Dtm::Win((h >> 8) as u32 % 40 * 2 + 1)),
                _ => Entry::of(Dtm::Loss((h >> 8) as u32 % 40 * 2)),
            }
        }
    }

    impl ChildTables for Hashed {
        fn entry_at(&self, material: Material, index: u64) -> Entry {
            Hashed::value(material, index)
        }
    }

    /// The forward pass on placements gives what cozy-chess's legal moves give on the boards:
    /// every index of two 3-piece tables, random ones of larger tables (pawns, promotions,
    /// identical pieces, colours swapped by a capture).
    #[test]
    fn placement_moves_agree_with_the_boards_moves() {
        let mut rng = SplitMix64(18);
        let tables = [
            ("KQvK", None),
            ("KPvK", None),
            ("KPvKP", Some(20_000)),
            ("KQvKR", Some(20_000)),
            ("KNNvK", Some(20_000)),
            ("KRPvKR", Some(20_000)),
            ("KPPvKP", Some(20_000)),
            ("KBNvKP", Some(20_000)),
            ("KQRvKQ", Some(20_000)),
            ("KPPPvK", Some(20_000)),
            ("KRvKPP", Some(20_000)),
        ];
        for (name, samples) in tables {
            let layer = TableLayer::new(TableIndex::new(name.parse().unwrap()), &Hashed, || false);
            let index = layer.index();
            let indices: Vec<u64> = match samples {
                None => (0..index.len()).collect(),
                Some(n) => (0..n).map(|_| rng.below(index.len())).collect(),
            };
            let mut positions = 0;
            for i in indices {
                let Some(p) = index.placement(i) else { continue };
                positions += 1;
                let board = index.board(&p).expect("a position");
                let hashed =
                    |child: &Board, _| Some(Hashed.entry(child).dtm().map_or(Exit::new(0), Dtm::exit));
                let valued =
                    layer.forward_placement(&p, &mut |mv| Some(layer.exit_of(Reaching::Placed(mv)))).0;
                assert_eq!(valued, forward_one(&board, &mut { hashed }), "{name}: {board}");
            }
            assert!(positions > 1000, "{name}: {positions} positions");
        }
    }
}
