//! [`legal_moves`] and [`flips`] written with x86-64 vector instructions: the four axes of
//! `legal_moves` and the eight rays of `flips` are computed four at a time in 256-bit registers,
//! where the compiler, left to itself, packs the eight rays into one 512-bit register and pays
//! for it in cross-lane shuffles. `legal_moves` needs AVX2, `flips` AVX-512 F, VL and CD (which
//! counts leading zeros in vectors), or AVX2 alone in [`flips_avx2`]; each is compiled only for
//! targets that have them (as `-C target-cpu=native` gives on such a machine, the setting of
//! `.cargo/config.toml`), and elsewhere the portable version in [`super`] takes its place.
//!
//! Measured on 2026-12-04 (AMD EPYC, Zen 4, one thread), against the portable versions built for
//! the same processor, runs interleaved: FFO #40-#44 2.72-2.77 s against 3.48-3.79 s (the same
//! 111.1 M nodes); `perft othello 11` on one core 0.23 s against 0.42-0.44 s. `flips` alone
//! brought FFO #40-#44 to 2.89-3.28 s and perft to 0.33 s. [`flips_avx2`], in a build for
//! x86-64-v3 (AVX2) on the same machine: FFO #40-#44 2.62-2.67 s against 2.95-3.01 s with the
//! portable `flips` (docs/othello-speed.md).

use std::arch::x86_64::*;

use super::{NOT_A, NOT_H};

/// The squares where the player with discs `p` can move against `o`: the doubling runs of
/// [`super::legal_moves_portable`], the four axes (shifts 1, 8, 7 and 9) in the four lanes.
#[inline]
pub fn legal_moves(p: u64, o: u64) -> u64 {
    // SAFETY: this module is compiled only when the target has AVX2 (see `super`), which
    // promises that the processor running the program has it.
    unsafe { legal_moves_avx2(p, o) }
}

/// [`legal_moves`], where the instructions may be used.
#[inline]
#[target_feature(enable = "avx2")]
fn legal_moves_avx2(p: u64, o: u64) -> u64 {
    let inner = (o & NOT_A & NOT_H) as i64;
    let runs = _mm256_set_epi64x(inner, inner, o as i64, inner);
    let shift = _mm256_set_epi64x(9, 7, 8, 1);
    let double = _mm256_add_epi64(shift, shift);
    let player = _mm256_set1_epi64x(p as i64);
    let (left, right) = (|b, s| _mm256_sllv_epi64(b, s), |b, s| _mm256_srlv_epi64(b, s));
    let and = |a, b| _mm256_and_si256(a, b);
    let or = |a, b| _mm256_or_si256(a, b);
    let mut up = and(runs, left(player, shift));
    let mut down = and(runs, right(player, shift));
    up = or(up, and(runs, left(up, shift)));
    down = or(down, and(runs, right(down, shift)));
    let (up_pairs, down_pairs) = (and(runs, left(runs, shift)), and(runs, right(runs, shift)));
    for _ in 0..2 {
        up = or(up, and(up_pairs, left(up, double)));
        down = or(down, and(down_pairs, right(down, double)));
    }
    fold_lanes(or(left(up, shift), right(down, shift))) & !(p | o)
}

/// The opponent's discs turned by a disc of `p` put on `sq`: the ray scans of
/// [`super::flips_portable`], the four rays towards higher squares in one register and the four
/// towards lower squares in another.
#[cfg(all(target_feature = "avx512vl", target_feature = "avx512cd"))]
#[inline]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    // SAFETY: this function is compiled only when the target has AVX-512 VL and CD (the
    // attribute above), which imply F and AVX2, and so promises that the processor running the
    // program has them.
    unsafe { flips_avx512(p, o, sq) }
}

/// [`flips`], where the instructions may be used.
#[cfg(all(target_feature = "avx512vl", target_feature = "avx512cd"))]
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl,avx512cd")]
fn flips_avx512(p: u64, o: u64, sq: u32) -> u64 {
    let Rays { up_rays, down_rays, player, opponent } = Rays::new(p, o, sq);
    let zero = _mm256_setzero_si256();
    // Towards higher squares, the run below the first stop turns if the stop is the player's.
    let first = first_stops_up(up_rays, opponent);
    let closed = _mm256_test_epi64_mask(first, player);
    let below = _mm256_add_epi64(first, _mm256_set1_epi64x(-1));
    let up = _mm256_maskz_and_epi64(closed, below, up_rays);
    // Towards lower squares, the highest set bit; with no stop the count is 64 and a vector
    // shift by 64 gives no bit at all.
    let stops = _mm256_andnot_si256(opponent, down_rays);
    let first = _mm256_srlv_epi64(_mm256_set1_epi64x(i64::MIN), _mm256_lzcnt_epi64(stops));
    let closed = _mm256_test_epi64_mask(first, player);
    let above = _mm256_sub_epi64(zero, _mm256_add_epi64(first, first));
    let down = _mm256_maskz_and_epi64(closed, above, down_rays);
    fold_lanes(_mm256_or_si256(up, down))
}

/// [`flips`] for processors with AVX2 but not AVX-512: the same ray scans, except that towards
/// lower squares, where no vector instruction counts leading zeros, the first stop is found by
/// smearing the stops down each ray (a shift by the ray's step, then by two and four steps): the
/// highest stop is the one that no other stop's smear covers. Compiled where the target has no
/// AVX-512 VL and CD, and for the tests everywhere.
#[cfg(any(test, not(all(target_feature = "avx512vl", target_feature = "avx512cd"))))]
#[inline]
pub fn flips_avx2(p: u64, o: u64, sq: u32) -> u64 {
    // SAFETY: this module is compiled only when the target has AVX2 (see `super`), which
    // promises that the processor running the program has it.
    unsafe { flips_avx2_inner(p, o, sq) }
}

/// [`flips_avx2`], where the instructions may be used.
#[cfg(any(test, not(all(target_feature = "avx512vl", target_feature = "avx512cd"))))]
#[inline]
#[target_feature(enable = "avx2")]
fn flips_avx2_inner(p: u64, o: u64, sq: u32) -> u64 {
    let Rays { up_rays, down_rays, player, opponent } = Rays::new(p, o, sq);
    let zero = _mm256_setzero_si256();
    let (and, or) = (|a, b| _mm256_and_si256(a, b), |a, b| _mm256_or_si256(a, b));
    // All ones in the lanes whose first stop is not the player's.
    let open = |first| _mm256_cmpeq_epi64(and(first, player), zero);
    let first = first_stops_up(up_rays, opponent);
    let below = _mm256_add_epi64(first, _mm256_set1_epi64x(-1));
    let up = _mm256_andnot_si256(open(first), and(below, up_rays));
    // Towards lower squares (W, S, SW, SE: steps 1, 8, 9, 7), every ray square below a stop,
    // up to eight steps down (a ray has at most seven squares).
    let step = _mm256_set_epi64x(7, 9, 8, 1);
    let stops = _mm256_andnot_si256(opponent, down_rays);
    let mut covered = _mm256_srlv_epi64(stops, step);
    covered = or(covered, _mm256_srlv_epi64(covered, step));
    covered = or(covered, _mm256_srlv_epi64(covered, _mm256_add_epi64(step, step)));
    covered = or(covered, _mm256_srlv_epi64(covered, _mm256_slli_epi64::<2>(step)));
    let first = _mm256_andnot_si256(covered, stops);
    // The ray's squares above the first stop are the opponent's: they turn if it is the player's.
    let above = _mm256_andnot_si256(or(covered, first), down_rays);
    let down = _mm256_andnot_si256(open(first), above);
    fold_lanes(or(up, down))
}

/// The rays of a square, four to a register (towards higher squares: E, N, NE, NW; towards lower:
/// W, S, SW, SE), and each player's discs in every lane.
struct Rays {
    up_rays: __m256i,
    down_rays: __m256i,
    player: __m256i,
    opponent: __m256i,
}

impl Rays {
    /// The rays of `sq` with the discs `p` of the player who moves there and `o` of the opponent.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(p: u64, o: u64, sq: u32) -> Self {
        let rays = &super::SQUARE_RAYS.0[sq as usize & 63];
        let load = |r: &[u64]| _mm256_set_epi64x(r[3] as i64, r[2] as i64, r[1] as i64, r[0] as i64);
        Rays {
            up_rays: load(&rays[..4]),
            down_rays: load(&rays[4..]),
            player: _mm256_set1_epi64x(p as i64),
            opponent: _mm256_set1_epi64x(o as i64),
        }
    }
}

/// Along rays towards higher squares, the first square that is not the opponent's: the lowest
/// set bit of the stops.
#[inline]
#[target_feature(enable = "avx2")]
fn first_stops_up(up_rays: __m256i, opponent: __m256i) -> __m256i {
    let stops = _mm256_andnot_si256(opponent, up_rays);
    _mm256_and_si256(stops, _mm256_sub_epi64(_mm256_setzero_si256(), stops))
}

/// The OR of a register's four 64-bit lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn fold_lanes(lanes: __m256i) -> u64 {
    let half = _mm_or_si128(_mm256_castsi256_si128(lanes), _mm256_extracti128_si256::<1>(lanes));
    _mm_cvtsi128_si64(_mm_or_si128(half, _mm_unpackhi_epi64(half, half))) as u64
}
