//! The exact solver for the last empties, which the engine hands positions of up to [`SMALL`]
//! empties to: fail-soft alpha-beta, which keeps the positions of [`HASHED_FROM`] empties and more
//! in a small table of its own (one per thread, see [`table`]), and searches the smaller ones
//! without a table, where a probe would cost more than the subtree. Moves are ordered by the
//! engine's cheap key (the table's best move first) in the levels kept in the table, fastest
//! first (fewest replies for the opponent) in the next, and by parity (empties in odd regions
//! first) in the last few.

mod table;

use super::bitboard::{flips, last_flip_count, legal_moves, neighbours, squares, stable_discs};
use crate::solver_table::Entry;
use gamegraph::SolverOwner;
use table::{Discs, Table, NO_MOVE};

/// The largest score: a disc difference of every square of the board.
const MOST_DISCS: i32 = 64;

/// Below every score: the best value before any move is searched.
const BELOW_ANY_SCORE: i32 = -MOST_DISCS - 1;

/// Positions with at most this many empties are solved by [`solve_small`] instead of the engine.
/// Measured on 2026-12-04 with the solver's own table (from `HASHED_FROM` empties), two
/// threads: FFO #50-#53 33.4 s (2809 M nodes) at 13 empties, 34.9-35.6 s at 12, 35.4 s at 11,
/// against 42.2-42.8 s (2810 M) with the engine down to 10 empties; FFO #50 on one thread 20.9 s
/// at 13, 21.2 s at 12, against 25.0 s. Before the table, 9 empties had measured best (FFO
/// #40-#44, one and two threads: 12.0-12.3 s and 5.5-5.8 s against 13.0-13.9 s and 6.0-6.3 s at
/// 7 empties).
pub const SMALL: u32 = 13;

/// From this many empties on, [`solve_small`] keeps positions in its table. Measured on FFO
/// #50-#53 (two threads, `SMALL` at 12): from 8 empties 33.5 s (2589 M nodes), from 9 34.9-35.6
/// s (2747 M), from 10 36.2 s (2905 M).
pub const HASHED_FROM: u32 = 8;

/// From this many empties on (up to [`HASHED_FROM`]), [`solve_small`] orders moves fastest
/// first. Measured on FFO #40-#44 with `SMALL` at 9 (before the table): from 6 empties 5.25-5.60 s
/// (2 threads) and 11.7-12.2 s (1 thread), from 7 5.18-5.27 s and 10.3-11.9 s, from 8 10.5-12.3
/// s, from 5 6.2-6.8 s.
const FASTEST_FIRST: u32 = 7;

/// In the sorted levels ([`FASTEST_FIRST`] empties and more), the opponent's stable discs bound
/// the score from above (64 - 2 x stable), and a bound at or below alpha cuts the node off. They
/// are counted only where that could happen with this many of the opponent's discs unstable: the
/// count costs more than it saves elsewhere. Measured on FFO #40-#49 (one thread, nodes): 1563 M
/// without, 1322 M with 12; 12 slack and counting from 8 or 9 empties, 1416 M and 1444 M; in
/// callgrind instructions on FFO #40, #42 and 3 random positions with 20 empties: -5.6%, 0%,
/// +0.1% with 12, and with 8 or 16 no better. Bounding from below by the player's own stable
/// discs as well added instructions (+2.8% on FFO #40) for no fewer nodes.
const STABILITY_SLACK: i32 = 12;

/// The four quadrants: the regions of the parity ordering.
const QUADRANTS: [u64; 4] =
    [0x0000_0000_0f0f_0f0f, 0x0000_0000_f0f0_f0f0, 0x0f0f_0f0f_0000_0000, 0xf0f0_f0f0_0000_0000];

/// Per square, the bit of its quadrant in a parity word (bit `i`: quadrant `i` has an odd number
/// of empties), which a move to the square flips.
static QUADRANT_BIT: [u32; 64] = {
    let mut table = [0u32; 64];
    let mut sq = 0;
    while sq < 64 {
        table[sq] = 1 << ((sq / 32) * 2 + (sq % 8) / 4);
        sq += 1;
    }
    table
};

/// Per parity word, the squares of the quadrants it marks odd.
static ODD_QUADRANTS: [u64; 16] = {
    let mut table = [0u64; 16];
    let mut parity = 0;
    while parity < 16 {
        let mut q = 0;
        while q < 4 {
            if parity & (1 << q) != 0 {
                table[parity] |= QUADRANTS[q];
            }
            q += 1;
        }
        parity += 1;
    }
    table
};

/// Per square, the squares around it.
static NEIGHBOURS: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        table[sq] = neighbours(1u64 << sq);
        sq += 1;
    }
    table
};

/// The exact fail-soft score of the position (`p` to move against `o`) within `alpha`, `beta`,
/// counting the positions visited below it in `nodes`; its table is this thread's, for `owner`.
pub fn solve_small(p: u64, o: u64, alpha: i32, beta: i32, owner: SolverOwner, nodes: &mut u64) -> i32 {
    let empty = !(p | o);
    let parity = QUADRANTS
        .iter()
        .enumerate()
        .fold(0, |parity, (q, &quadrant)| parity | ((empty & quadrant).count_ones() & 1) << q);
    table::with_table(owner, |table| {
        Small { nodes, table }.solve(p, o, alpha, beta, empty.count_ones(), parity)
    })
}

/// The small solver's state: the count of positions visited, and the thread's table. Each
/// position also carries its number of empties and its parity word down the recursion, updated
/// by each move instead of counted again.
struct Small<'n> {
    nodes: &'n mut u64,
    table: &'n mut Table,
}

/// The moves of a position, each as its sort key (lower first), square and discs turned.
type KeyedMoves = [(i32, u32, u64); 32];

impl Small<'_> {
    /// [`solve_small`] of a position with `empties` empties and quadrant parities `parity`.
    fn solve(&mut self, p: u64, o: u64, alpha: i32, beta: i32, empties: u32, parity: u32) -> i32 {
        match empties {
            0 => final_score(p, o),
            1 => last_empty(p, o, (!(p | o)).trailing_zeros()),
            2 => self.two_empties(p, o, alpha, beta, !(p | o)),
            3 => self.three_empties(p, o, alpha, beta, parity),
            4 => self.four_empties(p, o, alpha, beta, parity),
            HASHED_FROM.. => self.solve_stored(p, o, alpha, beta, empties, parity),
            FASTEST_FIRST.. => self.solve_sorted(p, o, alpha, beta, empties, parity),
            _ => match self.parity_moves(p, o, alpha, beta, parity, |s, p, o, a, b, parity| {
                s.solve(p, o, a, b, empties - 1, parity)
            }) {
                Some(best) => best,
                None => self.no_move(p, o, alpha, beta, empties, parity),
            },
        }
    }

    /// Four empties, handing each child to [`Self::three_empties`] directly: the last levels
    /// hold most of the nodes, and a call that goes through [`Self::solve`]'s dispatch costs
    /// a measurable share of them.
    fn four_empties(&mut self, p: u64, o: u64, alpha: i32, beta: i32, parity: u32) -> i32 {
        self.parity_moves(p, o, alpha, beta, parity, |s, p, o, a, b, parity| {
            s.three_empties(p, o, a, b, parity)
        })
        .unwrap_or_else(|| self.no_move(p, o, alpha, beta, 4, parity))
    }

    /// Three empties, each child handed to [`Self::two_empties`].
    fn three_empties(&mut self, p: u64, o: u64, alpha: i32, beta: i32, parity: u32) -> i32 {
        self.parity_moves(p, o, alpha, beta, parity, |s, p, o, a, b, _| s.two_empties(p, o, a, b, !(p | o)))
            .unwrap_or_else(|| self.no_move(p, o, alpha, beta, 3, parity))
    }

    /// The moves on the empty squares, those in odd quadrants first, each child (`p` to move
    /// against `o` in a window, with its parity word) valued by `child`: the best value, or
    /// `None` if there is no move.
    #[inline(always)]
    fn parity_moves(
        &mut self,
        p: u64,
        o: u64,
        mut alpha: i32,
        beta: i32,
        parity: u32,
        child: impl Fn(&mut Self, u64, u64, i32, i32, u32) -> i32,
    ) -> Option<i32> {
        let empty = !(p | o);
        let mut best = BELOW_ANY_SCORE;
        let odd = empty & ODD_QUADRANTS[parity as usize];
        for group in [odd, empty & !odd] {
            for sq in squares(group) {
                // A square can only turn discs next to one of the opponent's.
                if NEIGHBOURS[sq as usize] & o == 0 {
                    continue;
                }
                let f = flips(p, o, sq);
                if f == 0 {
                    continue;
                }
                *self.nodes += 1;
                let v = -child(
                    self,
                    o & !f,
                    p | f | (1u64 << sq),
                    -beta,
                    -alpha,
                    parity ^ QUADRANT_BIT[sq as usize],
                );
                if raise(v, &mut best, &mut alpha, beta) {
                    return Some(best);
                }
            }
        }
        (best > BELOW_ANY_SCORE).then_some(best)
    }

    /// Two empties: each square in turn, then the last one straight away.
    fn two_empties(&mut self, p: u64, o: u64, mut alpha: i32, beta: i32, empty: u64) -> i32 {
        let (first, second) = (empty.trailing_zeros(), 63 - empty.leading_zeros());
        let mut best = BELOW_ANY_SCORE;
        for (sq, last) in [(first, second), (second, first)] {
            if NEIGHBOURS[sq as usize] & o == 0 {
                continue;
            }
            let f = flips(p, o, sq);
            if f == 0 {
                continue;
            }
            *self.nodes += 1;
            let v = -last_empty(o & !f, p | f | (1u64 << sq), last);
            if raise(v, &mut best, &mut alpha, beta) {
                return best;
            }
        }
        if best > BELOW_ANY_SCORE {
            return best;
        }
        let parity = QUADRANT_BIT[first as usize] ^ QUADRANT_BIT[second as usize];
        self.no_move(p, o, alpha, beta, 2, parity)
    }

    /// The moves sorted by the opponent's number of replies, after a stability cutoff where one
    /// may be (see [`STABILITY_SLACK`]).
    fn solve_sorted(&mut self, p: u64, o: u64, alpha: i32, beta: i32, empties: u32, parity: u32) -> i32 {
        if let Some(high) = stability_cutoff(p, o, alpha) {
            return high;
        }
        let (mut moves, n) = keyed_moves(p, o, fastest_first);
        if n == 0 {
            return self.no_move(p, o, alpha, beta, empties, parity);
        }
        self.search_sorted(Discs { player: p, opponent: o }, alpha, beta, empties, parity, &mut moves[..n]).0
    }

    /// As [`Self::solve_sorted`], with the moves sorted by the engine's finer key, and the
    /// position looked up in the table first and kept there after: its bounds may settle it or
    /// narrow the window, and its best move is tried first.
    fn solve_stored(
        &mut self,
        p: u64,
        o: u64,
        mut alpha: i32,
        mut beta: i32,
        empties: u32,
        parity: u32,
    ) -> i32 {
        if let Some(high) = stability_cutoff(p, o, alpha) {
            return high;
        }
        let discs = Discs { player: p, opponent: o };
        let (mut lower, mut upper, mut first) = (-MOST_DISCS, MOST_DISCS, NO_MOVE);
        if let Some(e) = self.table.probe(discs) {
            ((lower, upper), first) = (e.bounds(), e.best);
            if lower >= beta || lower == upper {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
        }
        // The table's best move first, then the engine's order.
        let key = |np, no, sq| if sq == u32::from(first) { i32::MIN } else { engine_order(np, no, sq) };
        let (mut moves, n) = keyed_moves(p, o, key);
        if n == 0 {
            return self.no_move(p, o, alpha, beta, empties, parity);
        }
        let (best, best_move) = self.search_sorted(discs, alpha, beta, empties, parity, &mut moves[..n]);
        self.table.store(Entry::after_search(discs, best, (alpha, beta), (lower, upper), best_move as u8));
        best
    }

    /// Searches `moves` of the position (`p` to move against `o`) in the order of their keys:
    /// the best value,
    /// and the move that reached it.
    #[inline(always)]
    fn search_sorted(
        &mut self,
        Discs { player: p, opponent: o }: Discs,
        mut alpha: i32,
        beta: i32,
        empties: u32,
        parity: u32,
        moves: &mut [(i32, u32, u64)],
    ) -> (i32, u32) {
        let (mut best, mut best_move) = (BELOW_ANY_SCORE, 0);
        for i in 0..moves.len() {
            // The best of the rest, picked when needed: most nodes cut off after one or two
            // moves, before a full sort would pay.
            let next = (i..moves.len()).min_by_key(|&j| moves[j].0).unwrap_or(i);
            moves.swap(i, next);
            let (_, sq, f) = moves[i];
            *self.nodes += 1;
            let (np, no) = (o & !f, p | f | (1u64 << sq));
            let v = -self.solve(np, no, -beta, -alpha, empties - 1, parity ^ QUADRANT_BIT[sq as usize]);
            if v > best {
                best_move = sq;
            }
            if raise(v, &mut best, &mut alpha, beta) {
                break;
            }
        }
        (best, best_move)
    }

    /// The player to move has no move: pass, or the game is over.
    fn no_move(&mut self, p: u64, o: u64, alpha: i32, beta: i32, empties: u32, parity: u32) -> i32 {
        if legal_moves(o, p) == 0 {
            return final_score(p, o);
        }
        *self.nodes += 1;
        -self.solve(o, p, -beta, -alpha, empties, parity)
    }
}

/// The upper bound that the opponent's stable discs put on the score of `p` to move against
/// `o`, if it is at most `alpha` (a cutoff); counted only where one is likely (see
/// [`STABILITY_SLACK`]).
#[inline]
pub(super) fn stability_cutoff(p: u64, o: u64, alpha: i32) -> Option<i32> {
    if MOST_DISCS - 2 * (o.count_ones() as i32 - STABILITY_SLACK) > alpha {
        return None;
    }
    let high = stable_ceiling(p, o);
    (high <= alpha).then_some(high)
}

/// The best score `p` to move against `o` can reach: the opponent keeps its stable discs.
#[inline]
pub(super) fn stable_ceiling(p: u64, o: u64) -> i32 {
    MOST_DISCS - 2 * stable_discs(o, p).count_ones() as i32
}

/// The sort key of the move to `sq` that leads to `p` to move against `o`: the fewer replies
/// it leaves, the earlier it is tried; among moves with as many replies, the better square
/// first (corners, and not next to an empty corner).
#[inline]
pub(super) fn fastest_first(p: u64, o: u64, sq: u32) -> i32 {
    16 * legal_moves(p, o).count_ones() as i32 - SQUARE_VALUES[sq as usize]
}

/// The sort key for the engine's nodes, which repay a finer key than [`fastest_first`] (lower
/// first): the opponent's replies (corners counting twice), then the mover's discs made stable
/// at the corners, then the opponent's potential mobility (empties next to the mover's discs),
/// then the square's value. `p` is to move after the move to `sq` by `o`.
#[inline]
pub(super) fn engine_order(p: u64, o: u64, sq: u32) -> i32 {
    let replies = legal_moves(p, o);
    let mobility = replies.count_ones() + (replies & CORNERS).count_ones();
    let potential = (neighbours(o) & !(p | o)).count_ones();
    ((mobility as i32) << 15) - ((corner_stability(o) as i32) << 11) + ((potential as i32) << 9)
        - SQUARE_VALUES[sq as usize]
}

/// Discs of `p` that are corners or edge squares next to an owned corner: stable for sure.
#[inline]
fn corner_stability(p: u64) -> u32 {
    let stable = ((0x0100_0000_0000_0001 & p) << 1)
        | ((0x8000_0000_0000_0080 & p) >> 1)
        | ((0x0000_0000_0000_0081 & p) << 8)
        | ((0x8100_0000_0000_0000 & p) >> 8)
        | CORNERS;
    (stable & p).count_ones()
}

/// The four corners.
const CORNERS: u64 = 0x8100_0000_0000_0081;

/// How good a square usually is to play, from -5 to 10: corners best, their neighbours worst.
#[rustfmt::skip]
const SQUARE_VALUES: [i32; 64] = [
    10, -2,  1,  0,  0,  1, -2, 10,
    -2, -5,  0,  0,  0,  0, -5, -2,
     1,  0,  0,  0,  0,  0,  0,  1,
     0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,
     1,  0,  0,  0,  0,  0,  0,  1,
    -2, -5,  0,  0,  0,  0, -5, -2,
    10, -2,  1,  0,  0,  1, -2, 10,
];

/// The moves of `p` against `o`, each with its key `key(child's player, child's opponent,
/// square)`, and how many there are.
#[inline(always)]
fn keyed_moves(p: u64, o: u64, key: impl Fn(u64, u64, u32) -> i32) -> (KeyedMoves, usize) {
    let mut moves = [(0, 0, 0); 32];
    let mut n = 0;
    for sq in squares(legal_moves(p, o)) {
        let f = flips(p, o, sq);
        moves[n] = (key(o & !f, p | f | (1u64 << sq), sq), sq, f);
        n += 1;
    }
    (moves, n)
}

/// Takes a move's value `v` into a fail-soft node's best value and window; true on a cutoff.
#[inline]
fn raise(v: i32, best: &mut i32, alpha: &mut i32, beta: i32) -> bool {
    if v > *best {
        *best = v;
        *alpha = (*alpha).max(v);
    }
    v >= beta
}

/// The final score for the player with discs `p`: disc difference, empties to the winner.
pub fn final_score(p: u64, o: u64) -> i32 {
    let (p, o) = (p.count_ones() as i32, o.count_ones() as i32);
    let empties = 64 - p - o;
    match p.cmp(&o) {
        std::cmp::Ordering::Greater => p - o + empties,
        std::cmp::Ordering::Less => p - o - empties,
        std::cmp::Ordering::Equal => 0,
    }
}

/// The exact score with one empty square left.
#[inline]
fn last_empty(p: u64, o: u64, sq: u32) -> i32 {
    let discs = p.count_ones() as i32;
    let turned = last_flip_count(p, sq) as i32;
    if turned != 0 {
        // The player ends with its discs, the turned ones and the new one; the rest are the other's.
        return 2 * (discs + turned + 1) - 64;
    }
    let turned = last_flip_count(o, sq) as i32;
    if turned != 0 {
        // The opponent ends with its 63 - `discs` discs, the turned ones and the new one.
        return 2 * (discs - turned) - 64;
    }
    // Nobody can play the last square: it goes to the winner (63 discs: never a tie).
    if 2 * discs > 63 {
        2 * discs - 62
    } else {
        2 * discs - 64
    }
}

#[cfg(test)]
mod tests;
