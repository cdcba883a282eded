//! Connect 4's own exact solver for the last [`SMALL_EMPTIES`] empty cells, which the engine
//! hands such positions to: fail-soft alpha-beta over the non-losing moves, ordered by the
//! threats they make (the engine's order), with a small table of its own (one per thread, see
//! [`crate::solver_table`]) from [`HASHED_FROM`] empty cells on, whose best move is tried first
//! and whose entries for the children may settle a position before it is searched ([`ETC_FROM`]).
//! Below that, positions are searched without a table, where a probe would cost more than the
//! subtree; so are the positions with a single move (a threat to block), which pass their window
//! straight to their child, as in the engine.
//!
//! It is the engine's search without what a generic engine must carry (move lists, the shared
//! table's buckets, the parallel split): a node here costs about a third of an engine node, and
//! the nodes it adds, for want of those, cost less than the engine's it replaces (figures in
//! docs/connect4-speed.md).

use super::{insert_sorted, lines_completed_by, Board, Connect4, MAX_WIDTH};
use crate::solver_table::{Entry, SolverKey, SolverTable};
use gamegraph::SolverOwner;
use std::cell::RefCell;

/// Positions with this many empty cells or fewer are solved here instead of by the engine.
///
/// Measured on 2026-12-05 (evening), one thread, 64 MiB engine table, with the table from 9
/// empty cells: Test_L1_R2 (first 100) 64 ms from 16, 63 ms from 17, 62 ms from 18, 61 ms from
/// 19, 63 ms from 20, 66 ms from 22, against 87-91 ms for the solver from 11 without a table.
/// Without the table it had measured best from 11 (docs/connect4-speed.md). Again once the
/// solver had its own transposition cutoffs (2026-12-06, AMD EPYC, runs side by side), against
/// 18: from 20 Test_L1_R2 (first 100) -6.5%, from 21 -8%, from 22 -7%, from 24 -1%, from 26
/// +7%; the first 10 of Test_L1_R3 -10% from 20 and 21, -7% from 22; Test_L2_R2 (first 500) -6%
/// from 21; Test_L1_R1 -26% from 20, -37% from 21. Each call solves a whole subproblem without
/// looking at the engine's clock, so a search given a time limit can overrun it by one such solve
/// (milliseconds at this size: at most 2.7 ms for the 479 test positions with 20 to 22 empty
/// cells).
pub(super) const SMALL_EMPTIES: u32 = 21;

/// From this many empty cells on, positions are kept in the solver's table. Measured with the
/// solver from 18 empty cells (Test_L1_R2, first 100, one thread): from 8 63 ms (1.17 M nodes),
/// from 9 62 ms (1.23 M), from 10 62 ms (1.33 M), from 12 73 ms (1.71 M), from 14 94 ms (2.42 M).
/// Again once forced moves passed straight through and nodes cost less (2026-12-06, interleaved):
/// from 8 46.2-48.2 ms (1.28 M nodes), from 9 47.3-54.3 ms (1.34 M), from 11 51.8-54.9 ms (1.65
/// M); Test_L2_R2 1.52 ms from 8 against 1.60 ms from 9.
const HASHED_FROM: u32 = 8;

/// From more than this many empty cells, the children's table entries are looked at before
/// the moves are ordered: one whose bound proves the position fails high settles it without a
/// search (an enhanced transposition cutoff). Measured on 2026-12-06 (AMD EPYC, Test_L1_R2 first
/// 100, one thread, runs side by side on the two cores), the solver from 18 empty cells: 1.278 M
/// nodes without, 1.135 M from more than 10 and 4.4% less time; from more than 9 the same time,
/// from more than 12 within 1%, after the ordering instead of before it 4% more time (the order
/// is wasted where they cut). From 21 empty cells: from more than 8 (every level whose children
/// are kept) 3% less time than from more than 10, and 13 the same as 10. Prefetching the
/// children's slots before these probes, which had saved 2.8% alone, then saved nothing.
const ETC_FROM: u32 = 8;

/// A position in the solver's table: `current + mask`, which identifies it exactly on one board
/// size (Pons' key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key(u64);

impl SolverKey for Key {
    /// The empty board's key.
    const EMPTY: Self = Key(0);

    #[inline]
    fn hash(self) -> u64 {
        self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

/// 2^16 entries of 16 bytes: 1 MiB, within a core's second-level cache. Measured (Test_L1_R2,
/// first 100, one thread, from 18 and 12 empty cells): 2^14 entries 78 ms, 2^16 73 ms, 2^18 82
/// ms; from 9 empty cells, 2^17 entries took the same time as 2^16.
type Table = SolverTable<Key, 16>;

/// The `best` of an entry without a best move: no column has this number.
const NO_MOVE: u8 = u8::MAX;

thread_local! {
    /// This thread's table, allocated the first time the thread solves a position.
    static TABLE: RefCell<Table> = RefCell::new(Table::unallocated());
}

impl Connect4 {
    /// The exact fail-soft score within `(alpha, beta)` of the position with the stones
    /// `current` of the player to move among `mask` (`moves` of them), who cannot win with his
    /// next stone. Counts in `nodes` the positions it plays into, as the engine counted this one;
    /// keeps its table on this thread for `owner`.
    pub(super) fn solve_small(
        &self,
        &Board { current, mask, moves, .. }: &Board,
        alpha: i32,
        beta: i32,
        owner: SolverOwner,
        nodes: &mut u64,
    ) -> i32 {
        // Boards of other sizes give other scores to the same keys.
        let size = u64::from(self.width) << 32 | u64::from(self.height);
        Table::with_local(&TABLE, owner, size, |table| {
            let threats = self.winning_cells(current ^ mask, mask);
            macro_rules! solve_on {
                ($h:literal) => {
                    Small::<$h> { game: self, table, nodes }.solve(current, mask, moves, alpha, beta, threats)
                };
            }
            match self.height {
                6 => solve_on!(6),
                5 => solve_on!(5),
                7 => solve_on!(7),
                4 => solve_on!(4),
                _ => solve_on!(0),
            }
        })
    }
}

/// The solver's state: the rules, this thread's table and the count of positions visited.
struct Small<'a, const H: u32> {
    game: &'a Connect4,
    table: &'a mut Table,
    nodes: &'a mut u64,
}

impl<const H: u32> Small<'_, H> {
    /// [`Connect4::completions`], with the height a constant where it is not 0.
    #[inline(always)]
    fn completions(&self, stones: u64) -> u64 {
        if H == 0 {
            self.game.completions(stones)
        } else {
            lines_completed_by(stones, H)
        }
    }

    /// [`Connect4::solve_small`] of the position `current` among `mask` (`moves` stones), where
    /// the opponent would win by a stone on one of the empty cells `threats`.
    fn solve(
        &mut self,
        current: u64,
        mask: u64,
        moves: u32,
        mut alpha: i32,
        mut beta: i32,
        threats: u64,
    ) -> i32 {
        let game = self.game;
        let cells = game.cells();
        let allowed = game.non_losing_against(mask, threats);
        if allowed == 0 {
            return -(((cells - moves) / 2) as i32);
        }
        if moves + 2 >= cells {
            return 0;
        }
        // No win with our next stone; our move leaves none to the opponent.
        let mut known = (-(((cells - 2 - moves) / 2) as i32), ((cells - 1 - moves) / 2) as i32);
        if allowed & (allowed - 1) == 0 {
            // A single move (a threat to block): nothing to order, nothing worth a table entry.
            *self.nodes += 1;
            let (alpha, beta) = match narrow(known, alpha, beta) {
                Ok(window) => window,
                Err(settled) => return settled,
            };
            let child = mask | allowed;
            let ours = self.completions(current | allowed) & (game.board ^ child);
            return -self.solve(current ^ mask, child, moves + 1, -beta, -alpha, ours);
        }
        let stored = cells - moves >= HASHED_FROM;
        let key = Key(current + mask);
        let mut first = NO_MOVE;
        if stored {
            if let Some(e) = self.table.probe(key) {
                let (lower, upper) = e.bounds();
                known = (known.0.max(lower), known.1.min(upper));
                first = e.best;
            }
        }
        (alpha, beta) = match narrow(known, alpha, beta) {
            Ok(window) => window,
            Err(settled) => return settled,
        };
        if cells - moves > ETC_FROM {
            if let Some(cutoff) = self.transposition_cutoff(current, mask, allowed, beta) {
                return cutoff;
            }
        }
        // Filled in place: returned by value, the arrays were copied at a cost of 7% of the time.
        let (mut keyed, mut completions) = ([0u32; MAX_WIDTH], [0u64; MAX_WIDTH]);
        let n = self.order_moves(current, mask, allowed, first, &mut keyed, &mut completions);
        let (mut best, mut best_move) = (-i32::MAX, NO_MOVE);
        let mut a = alpha;
        for &k in &keyed[..n] {
            let column = k as u8;
            let child = mask | game.drop_cell(mask, u32::from(column));
            // Our threats after the move: the child's opponent's.
            let ours = completions[usize::from(column)] & (game.board ^ child);
            *self.nodes += 1;
            let score = -self.solve(current ^ mask, child, moves + 1, -beta, -a, ours);
            if score > best {
                (best, best_move) = (score, column);
                if score >= beta {
                    break;
                }
                a = a.max(score);
            }
        }
        if stored {
            let best_move = if best > alpha { best_move } else { NO_MOVE };
            self.table.store(Entry::after_search(key, best, (alpha, beta), known, best_move));
        }
        best
    }

    /// The least score of the position (stones `current` among `mask`) that a child's entry
    /// proves, if it reaches `beta`: the moves are to the cells `allowed`.
    #[inline]
    fn transposition_cutoff(&self, current: u64, mask: u64, allowed: u64, beta: i32) -> Option<i32> {
        child_keys(current, mask, allowed)
            .filter_map(|k| self.table.probe(k))
            // A child worth at most `upper` to the opponent is worth at least its opposite to us.
            .map(|e| -i32::from(e.upper))
            .find(|&score| score >= beta)
    }

    /// Puts in `keyed` the moves to the cells `allowed`, as sort keys in the order to search them
    /// (the column in the low byte): `first` first, then those making the most threats, ties from
    /// the centre; and in `completions`, by column, the cells that would complete a four of ours
    /// after each move. Returns how many moves there are.
    #[inline]
    fn order_moves(
        &self,
        current: u64,
        mask: u64,
        allowed: u64,
        first: u8,
        keyed: &mut [u32; MAX_WIDTH],
        completions: &mut [u64; MAX_WIDTH],
    ) -> usize {
        let game = self.game;
        let mut n = 0;
        let mut left = allowed;
        while left != 0 {
            let cell = left & left.wrapping_neg();
            left ^= cell;
            let column = game.column_of_cell[cell.trailing_zeros() as usize];
            let lines = self.completions(current | cell);
            completions[usize::from(column)] = lines;
            // Every threat key is above the plain column number.
            let k = if column == first { u32::from(column) } else { game.order_key_of(lines, mask, column) };
            insert_sorted(keyed, n, k);
            n += 1;
        }
        n
    }
}

/// The keys of the children of the position (stones `current` among `mask`) after moves to the
/// cells `allowed`. Its own loop rather than a map over `each_cell`, which measured 2-3% slower
/// on Test_L1_R2 (2026-12-06, the same nodes).
#[inline(always)]
fn child_keys(current: u64, mask: u64, allowed: u64) -> impl Iterator<Item = Key> {
    let theirs = current ^ mask;
    let mut left = allowed;
    std::iter::from_fn(move || {
        (left != 0).then(|| {
            let cell = left & left.wrapping_neg();
            left ^= cell;
            Key(theirs + (mask | cell))
        })
    })
}

/// The window `(alpha, beta)` narrowed to the bounds `(low, high)` known of the score, or the
/// fail-soft value to return at once when those bounds settle the window.
#[inline(always)]
fn narrow((low, high): (i32, i32), alpha: i32, beta: i32) -> Result<(i32, i32), i32> {
    if low >= beta || low >= high {
        return Err(low);
    }
    if high <= alpha {
        return Err(high);
    }
    Ok((alpha.max(low), beta.min(high)))
}
