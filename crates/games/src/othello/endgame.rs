//! The exact solver for the last few empties, which the engine hands small positions to: plain
//! fail-soft alpha-beta without a table, where a table probe would cost more than the subtree.
//! Moves are ordered fastest first (fewest replies for the opponent) while the subtree is large
//! enough to repay the sort, and by parity (empties in odd regions first) below.

use super::bitboard::{flips, last_flip_count, legal_moves, neighbours, squares};

/// Positions with at most this many empties are solved by [`solve_small`] instead of the engine.
pub const SMALL: u32 = 7;

/// From this many empties on, [`solve_small`] orders moves fastest first.
const FASTEST_FIRST: u32 = 6;

/// The four quadrants: the regions of the parity ordering.
const QUADRANTS: [u64; 4] =
    [0x0000_0000_0f0f_0f0f, 0x0000_0000_f0f0_f0f0, 0x0f0f_0f0f_0000_0000, 0xf0f0_f0f0_0000_0000];

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
/// counting the positions visited below it in `nodes`.
pub fn solve_small(p: u64, o: u64, alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
    let empty = !(p | o);
    let empties = empty.count_ones();
    if empties == 1 {
        return last_empty(p, o, empty.trailing_zeros());
    }
    if empties == 2 {
        return two_empties(p, o, alpha, beta, empty, nodes);
    }
    if empties >= FASTEST_FIRST {
        return solve_sorted(p, o, alpha, beta, nodes);
    }
    let mut best = -65;
    let mut alpha = alpha;
    let mut any = false;
    let mut order = [0u64; 2];
    for q in QUADRANTS {
        let quadrant = empty & q;
        order[usize::from(quadrant.count_ones() % 2 == 0)] |= quadrant;
    }
    for group in order {
        for sq in squares(group) {
            // A square can only turn discs next to one of the opponent's.
            if NEIGHBOURS[sq as usize] & o == 0 {
                continue;
            }
            let f = flips(p, o, sq);
            if f == 0 {
                continue;
            }
            any = true;
            *nodes += 1;
            let v = -solve_small(o & !f, p | f | (1u64 << sq), -beta, -alpha, nodes);
            if raise(v, &mut best, &mut alpha, beta) {
                return best;
            }
        }
    }
    if any {
        return best;
    }
    no_move(p, o, alpha, beta, nodes)
}

/// [`solve_small`] with two empties: each square in turn, then the last one straight away.
fn two_empties(p: u64, o: u64, mut alpha: i32, beta: i32, empty: u64, nodes: &mut u64) -> i32 {
    let (first, second) = (empty.trailing_zeros(), 63 - empty.leading_zeros());
    let mut best = -65;
    for (sq, last) in [(first, second), (second, first)] {
        if NEIGHBOURS[sq as usize] & o == 0 {
            continue;
        }
        let f = flips(p, o, sq);
        if f == 0 {
            continue;
        }
        *nodes += 1;
        let v = -last_empty(o & !f, p | f | (1u64 << sq), last);
        if raise(v, &mut best, &mut alpha, beta) {
            return best;
        }
    }
    if best > -65 {
        return best;
    }
    no_move(p, o, alpha, beta, nodes)
}

/// [`solve_small`] with the moves sorted by the opponent's number of replies.
fn solve_sorted(p: u64, o: u64, mut alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
    let mut moves = [(0i32, 0u32, 0u64); 32];
    let mut n = 0;
    for sq in squares(legal_moves(p, o)) {
        let f = flips(p, o, sq);
        let (np, no) = (o & !f, p | f | (1u64 << sq));
        moves[n] = (fastest_first(np, no, sq), sq, f);
        n += 1;
    }
    if n == 0 {
        return no_move(p, o, alpha, beta, nodes);
    }
    let moves = &mut moves[..n];
    moves.sort_unstable_by_key(|m| m.0);
    let mut best = -65;
    for &(_, sq, f) in moves.iter() {
        *nodes += 1;
        let v = -solve_small(o & !f, p | f | (1u64 << sq), -beta, -alpha, nodes);
        if raise(v, &mut best, &mut alpha, beta) {
            return best;
        }
    }
    best
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

/// Takes a move's value `v` into a fail-soft node's best value and window; true on a cutoff.
#[inline]
fn raise(v: i32, best: &mut i32, alpha: &mut i32, beta: i32) -> bool {
    if v > *best {
        *best = v;
        *alpha = (*alpha).max(v);
    }
    v >= beta
}

/// The player to move has no move: pass, or the game is over.
fn no_move(p: u64, o: u64, alpha: i32, beta: i32, nodes: &mut u64) -> i32 {
    if legal_moves(o, p) == 0 {
        return final_score(p, o);
    }
    *nodes += 1;
    -solve_small(o, p, -beta, -alpha, nodes)
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
        return 64 - 2 * (o.count_ones() as i32 + turned + 1);
    }
    // Nobody can play the last square: it goes to the winner.
    let diff = 2 * discs - 63;
    match diff.signum() {
        1 => diff + 1,
        -1 => diff - 1,
        _ => 0,
    }
}
