//! The midgame evaluation: a linear function of a few classic features, fitted by least squares
//! to exact endgame scores so that it predicts the final disc difference. Being on the scale of
//! the final score, it compares sensibly with real game ends in a depth-limited search, and its
//! shallow searches give the exact solver a first guess to probe from.
//!
//! The weights come from `cargo run --release -p gamegraph-games --example fit_othello_eval`,
//! which solves positions of random games exactly and fits these features to the scores.

use super::bitboard::{legal_moves, neighbours};

/// How many features [`features`] returns.
pub const FEATURES: usize = 7;

/// Names of the features, in order, for the fitting program's report.
pub const FEATURE_NAMES: [&str; FEATURES] =
    ["mobility", "potential mobility", "corners", "x-squares", "c-squares", "discs", "parity"];

const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Per corner: the corner, its diagonal neighbour (X-square) and its two edge neighbours
/// (C-squares).
const CORNER_REGIONS: [(u64, u64, u64); 4] = [
    (1 << 0, 1 << 9, (1 << 1) | (1 << 8)),
    (1 << 7, 1 << 14, (1 << 6) | (1 << 15)),
    (1 << 56, 1 << 49, (1 << 48) | (1 << 57)),
    (1 << 63, 1 << 54, (1 << 55) | (1 << 62)),
];

/// The features of a position with `p` to move against `o`, each as (player's - opponent's):
/// legal moves; empties next to the other side's discs (room to move later); corners; discs on
/// X-squares and on C-squares next to an empty corner (they give corners away); discs; and the
/// parity of the empties (+1 when odd: the player to move should get the last move).
pub fn features(p: u64, o: u64) -> [i32; FEATURES] {
    let empty = !(p | o);
    let count = |b: u64| b.count_ones() as i32;
    let mobility = count(legal_moves(p, o)) - count(legal_moves(o, p));
    let potential = count(neighbours(o) & empty) - count(neighbours(p) & empty);
    let (mut x, mut c) = (0, 0);
    for (corner, xs, cs) in CORNER_REGIONS {
        if corner & empty != 0 {
            x += count(p & xs) - count(o & xs);
            c += count(p & cs) - count(o & cs);
        }
    }
    let parity = if count(empty) % 2 == 1 { 1 } else { -1 };
    [mobility, potential, count(p & CORNERS) - count(o & CORNERS), x, c, count(p) - count(o), parity]
}

/// Weights of [`features`] in hundredths of a disc, by the number of empties: the first set
/// for up to [`LATE`] empties, the second above.
const WEIGHTS: [[i32; FEATURES]; 2] =
    [[319, -6, 867, -134, -350, 0, 28], [291, -75, 1140, -377, -421, -43, 178]];

/// The last number of empties that uses the first set of [`WEIGHTS`].
pub const LATE: u32 = 16;

/// The predicted final disc difference for the player to move, in discs.
pub fn evaluate(p: u64, o: u64) -> i32 {
    let empties = 64 - (p | o).count_ones();
    let weights = &WEIGHTS[usize::from(empties > LATE)];
    let sum: i32 = features(p, o).iter().zip(weights).map(|(f, w)| f * w).sum();
    ((sum + sum.signum() * 50) / 100).clamp(-64, 64)
}
