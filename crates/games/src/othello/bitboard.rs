//! Othello's board arithmetic on 64-bit boards: legal squares, turned discs, stable discs, and
//! the perft count. Square `sq` is bit `sq` (A1 = 0, H1 = 7, H8 = 63).

use rayon::prelude::*;

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
mod vector;

const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The squares next to (in any of the eight directions) a square of `b`, `b`'s own excepted
/// unless next to another.
pub const fn neighbours(b: u64) -> u64 {
    let sideways = ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    let row = b | sideways;
    sideways | (row << 8) | (row >> 8)
}

/// The squares where the player with discs `p` can move against `o`.
#[inline]
pub fn legal_moves(p: u64, o: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        vector::legal_moves(p, o)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        legal_moves_portable(p, o)
    }
}

/// [`legal_moves`] without hand-written vector instructions, for targets without AVX2 (the
/// tests check both versions against the plain walk).
///
/// Per axis, the runs of the opponent's discs that start next to one of `p`'s grow by doubling
/// (one, two, four, then six squares: the longest run that fits between two discs), both ways
/// at once, with constant shifts the processor can overlap. Runs along rows and diagonals never
/// hold a disc of the A or H file, which stops them wrapping round the board.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
#[inline]
fn legal_moves_portable(p: u64, o: u64) -> u64 {
    let inner = o & NOT_A & NOT_H;
    let moves = axis_moves::<1>(p, inner)
        | axis_moves::<8>(p, o)
        | axis_moves::<7>(p, inner)
        | axis_moves::<9>(p, inner);
    moves & !(p | o)
}

/// The squares just past a run of `runs` squares that starts next to a disc of `p`, along the
/// axis of shift `S`, in both directions.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
#[inline(always)]
fn axis_moves<const S: u32>(p: u64, runs: u64) -> u64 {
    let mut up = runs & (p << S);
    let mut down = runs & (p >> S);
    up |= runs & (up << S);
    down |= runs & (down >> S);
    // Squares whose neighbour one step back is also in a run: a run may jump two steps there.
    let (up_pairs, down_pairs) = (runs & (runs << S), runs & (runs >> S));
    up |= up_pairs & (up << (2 * S));
    down |= down_pairs & (down >> (2 * S));
    up |= up_pairs & (up << (2 * S));
    down |= down_pairs & (down >> (2 * S));
    (up << S) | (down >> S)
}

/// The opponent's discs turned by a disc of `p` put on `sq` (none: not a legal move).
#[inline]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512vl", target_feature = "avx512cd"))]
    {
        vector::flips(p, o, sq)
    }
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        not(all(target_feature = "avx512vl", target_feature = "avx512cd"))
    ))]
    {
        vector::flips_avx2(p, o, sq)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        flips_portable(p, o, sq)
    }
}

/// [`flips`] without hand-written vector instructions, for targets without AVX2 (the tests
/// check every version against the plain walk).
///
/// Along each of the eight rays from `sq`, the first square that is not the opponent's ends the
/// run of discs to turn, which turn if that square is the player's. Towards higher squares it is
/// the ray's lowest set bit, towards lower squares its highest (a leading-zero count): no loop
/// and no branch, so the compiler computes the eight rays side by side where the processor has
/// vector instructions. On FFO #40-#44 (1 thread) this took 6.6-7.4 s against 7.8-10.6 s for
/// doubling runs as in [`legal_moves_portable`] with AVX-512 (which counts leading zeros in
/// vectors), and the same time as the best earlier variant for AVX2 and x86-64-v2 builds.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
#[inline]
fn flips_portable(p: u64, o: u64, sq: u32) -> u64 {
    let rays = &SQUARE_RAYS.0[sq as usize];
    let mut flipped = [0u64; 8];
    for i in 0..4 {
        let ray = rays[i];
        let stops = ray & !o;
        let first = stops & stops.wrapping_neg();
        let closed = 0u64.wrapping_sub(u64::from(first & p != 0));
        flipped[i] = first.wrapping_sub(1) & ray & closed;
    }
    for i in 4..8 {
        let ray = rays[i];
        let stops = ray & !o;
        // With no stop the count is 64, which the wrapping shift turns into square 63: never
        // on a ray towards lower squares, so `& ray` rejects it.
        let first = (1u64 << 63).wrapping_shr(stops.leading_zeros());
        let closed = 0u64.wrapping_sub(u64::from(first & p & ray != 0));
        flipped[i] = ray & !(first << 1).wrapping_sub(1) & closed;
    }
    flipped.iter().fold(0, |all, f| all | f)
}

/// Per square, the squares seen from it in each of the eight directions (the square itself
/// excluded): the first four towards higher squares, the last four towards lower. Aligned so
/// that a square's rays are one cache line.
static SQUARE_RAYS: SquareRays = SquareRays(square_rays());

/// The rays of [`SQUARE_RAYS`], on a cache line per square.
#[repr(align(64))]
struct SquareRays([[u64; 8]; 64]);

const fn square_rays() -> [[u64; 8]; 64] {
    // (file step, rank step): E, N, NE, NW, then W, S, SW, SE.
    const STEPS: [(i32, i32); 8] = [(1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1)];
    let mut rays = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (mut x, mut y) = ((sq % 8) as i32 + STEPS[d].0, (sq / 8) as i32 + STEPS[d].1);
            while x >= 0 && x < 8 && y >= 0 && y < 8 {
                rays[sq][d] |= 1u64 << (y * 8 + x);
                x += STEPS[d].0;
                y += STEPS[d].1;
            }
            d += 1;
        }
        sq += 1;
    }
    rays
}

/// How many discs the player with discs `p` turns by moving on `sq` when every other square is
/// taken (so the opponent holds all that `p` does not): the last move of a game, counted from
/// the four lines through `sq` without building the turned discs.
#[inline]
pub fn last_flip_count(p: u64, sq: u32) -> u32 {
    let (sq, file, rank) = (sq as usize, sq % 8, sq / 8);
    let row = (p >> (8 * rank)) as u8;
    let column = column_bits(p, file);
    let diagonal = (p & DIAGONALS[sq][0]).wrapping_mul(0x0101_0101_0101_0101) >> 56;
    let anti = (p & DIAGONALS[sq][1]).wrapping_mul(0x0101_0101_0101_0101) >> 56;
    let at = |x: u32, line: u64| u32::from(LINE_FLIPS[x as usize][line as usize]);
    at(file, u64::from(row))
        + at(7 - rank, column)
        + at(file, diagonal) // a diagonal's squares land on the bits of their files
        + at(file, anti)
}

/// The squares of `p` on column `file`, rank 0 on bit 7 and rank 7 on bit 0: the products of
/// the column's bits with the multiplier's never share a bit, so nothing carries.
#[inline]
fn column_bits(p: u64, file: u32) -> u64 {
    ((p >> file) & 0x0101_0101_0101_0101).wrapping_mul(0x8040_2010_0804_0201) >> 56
}

/// Per square, its diagonal (A1-H8 direction) and anti-diagonal (H1-A8 direction).
static DIAGONALS: [[u64; 2]; 64] = {
    let mut table = [[0u64; 2]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut other: usize = 0;
        while other < 64 {
            let (dx, dy) = ((other % 8) as i32 - (sq % 8) as i32, (other / 8) as i32 - (sq / 8) as i32);
            if dx == dy {
                table[sq][0] |= 1u64 << other;
            }
            if dx == -dy {
                table[sq][1] |= 1u64 << other;
            }
            other += 1;
        }
        sq += 1;
    }
    table
};

/// Per position `x` on a line of eight and pattern of the player's squares on it (the others
/// being the opponent's or off the board, at the ends), the discs a move on `x` turns.
static LINE_FLIPS: [[u8; 256]; 8] = {
    let mut table = [[0u8; 256]; 8];
    let mut x = 0;
    while x < 8 {
        let mut pattern = 0;
        while pattern < 256 {
            let mut count = 0;
            // Towards higher bits, then lower: a run of opponent squares closed by the player's.
            let mut y = x + 1;
            while y < 8 && pattern >> y & 1 == 0 {
                y += 1;
            }
            if y < 8 {
                count += y - x - 1;
            }
            let mut y = x as i32 - 1;
            while y >= 0 && pattern >> y & 1 == 0 {
                y -= 1;
            }
            if y >= 0 {
                count += x - y as usize - 1;
            }
            table[x][pattern] = count as u8;
            pattern += 1;
        }
        x += 1;
    }
    table
};

/// Every line of the board (rows, columns and both kinds of diagonals), by axis: a disc on a
/// full line cannot be turned along it, since no disc can be put there any more.
static LINES: [[u64; 15]; 4] = lines();

const fn lines() -> [[u64; 15]; 4] {
    let mut lines = [[0u64; 15]; 4];
    let mut sq = 0;
    while sq < 64 {
        let (x, y) = (sq % 8, sq / 8);
        lines[0][y] |= 1u64 << sq;
        lines[1][x] |= 1u64 << sq;
        lines[2][x + 7 - y] |= 1u64 << sq;
        lines[3][x + y] |= 1u64 << sq;
        sq += 1;
    }
    lines
}

const EDGES: u64 = 0xff81_8181_8181_81ff;

/// Discs of `p` that can never be turned, whatever is played (a lower bound: not every such
/// disc is found). A disc is stable when, along each of the four axes, its line is full or one
/// of its two neighbours is off the board or a stable disc of the same player: a turn along an
/// axis brackets a run that would have to include that neighbour.
pub fn stable_discs(p: u64, o: u64) -> u64 {
    let filled = p | o;
    let mut full = [0u64; 4];
    for (axis, lines) in LINES.iter().enumerate() {
        for &line in lines {
            if filled & line == line {
                full[axis] |= line;
            }
        }
    }
    let mut stable = 0;
    loop {
        let horizontal = ((stable << 1) & NOT_A) | ((stable >> 1) & NOT_H) | !NOT_A | !NOT_H | full[0];
        let vertical = (stable << 8) | (stable >> 8) | 0xff | (0xff << 56) | full[1];
        let diagonal = ((stable << 9) & NOT_A) | ((stable >> 9) & NOT_H) | EDGES | full[2];
        let anti = ((stable << 7) & NOT_H) | ((stable >> 7) & NOT_A) | EDGES | full[3];
        let next = p & horizontal & vertical & diagonal & anti;
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

/// The squares of a bitboard, lowest first.
#[inline]
pub fn squares(mut b: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let sq = b.trailing_zeros();
            b &= b - 1;
            sq
        })
    })
}

/// Leaves of the game tree `depth` plies below the position (`p` to move against `o`), a pass
/// counting as a ply and a finished game as one leaf at every deeper depth; the first plies are
/// spread over the cores.
pub fn perft(p: u64, o: u64, depth: u32) -> u64 {
    let moves = legal_moves(p, o);
    if depth <= 6 || moves == 0 {
        return perft_serial(p, o, depth, false);
    }
    let children: Vec<(u64, u64)> = squares(moves)
        .map(|sq| {
            let f = flips(p, o, sq);
            (o & !f, p | f | (1u64 << sq))
        })
        .collect();
    children.par_iter().map(|&(p, o)| perft(p, o, depth - 1)).sum()
}

fn perft_serial(p: u64, o: u64, depth: u32, passed: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = legal_moves(p, o);
    if moves == 0 {
        if passed {
            return 1; // the game is over: one leaf at every depth
        }
        return perft_serial(o, p, depth - 1, true);
    }
    if depth == 1 {
        return u64::from(moves.count_ones());
    }
    squares(moves)
        .map(|sq| {
            let f = flips(p, o, sq);
            perft_serial(o & !f, p | f | (1u64 << sq), depth - 1, false)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The eight directions as (shift, mask applied after shifting to stop wrapping round the
    /// board).
    const DIRECTIONS: [(i32, u64); 8] =
        [(1, NOT_A), (-1, NOT_H), (8, !0), (-8, !0), (9, NOT_A), (7, NOT_H), (-7, NOT_A), (-9, NOT_H)];

    fn shift(b: u64, s: i32) -> u64 {
        if s > 0 {
            b << s
        } else {
            b >> -s
        }
    }

    /// The turned discs of the plain walk along each direction, the definition of the rules.
    fn flips_by_walking(p: u64, o: u64, sq: u32) -> u64 {
        let mut flipped = 0;
        for (s, mask) in DIRECTIONS {
            let mut run = 0;
            let mut b = shift(1u64 << sq, s) & mask;
            while b & o != 0 {
                run |= b;
                b = shift(b, s) & mask;
            }
            if b & p != 0 {
                flipped |= run;
            }
        }
        flipped
    }

    /// A reproducible stream of random 64-bit words (xorshift).
    fn random_words(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// On boards from sparse to nearly full, the version in use, the portable one and the one
    /// for AVX2 alone (the same where the target lacks the vector instructions).
    #[test]
    fn flips_equal_the_walk_on_random_boards() {
        let mut next = random_words(0x9e37_79b9_7f4a_7c15);
        for i in 0..20_000 {
            let filled = if i % 2 == 0 { next() | next() } else { next() & next() };
            let a = next();
            let (p, o) = (a & filled, !a & filled);
            for sq in squares(!(p | o)) {
                let walked = flips_by_walking(p, o, sq);
                assert_eq!(flips(p, o, sq), walked, "p {p:#x} o {o:#x} sq {sq}");
                assert_eq!(flips_portable(p, o, sq), walked, "p {p:#x} o {o:#x} sq {sq}");
                #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
                assert_eq!(vector::flips_avx2(p, o, sq), walked, "p {p:#x} o {o:#x} sq {sq}");
            }
        }
    }

    /// On nearly full boards, with the player's squares drawn at random.
    #[test]
    fn last_flip_counts_equal_the_turned_discs() {
        let mut next = random_words(0x0123_4567_89ab_cdef);
        for _ in 0..20_000 {
            let p = next();
            for sq in squares(p | next()) {
                let (p, o) = (p & !(1u64 << sq), !p & !(1u64 << sq));
                assert_eq!(last_flip_count(p, sq), flips(p, o, sq).count_ones(), "p {p:#x} sq {sq}");
            }
        }
    }

    /// Stable discs stay with their owner to the end of random games, and corners are stable.
    #[test]
    fn stable_discs_are_never_turned() {
        let mut next = random_words(0x2545_f491_4f6c_dd1d);
        let mut found = 0;
        for _ in 0..3000 {
            let (mut p, mut o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
            let mut stable = [0u64; 2]; // of the player to move, of the opponent
            let mut passes = 0;
            while passes < 2 {
                let mine = stable_discs(p, o);
                let theirs = stable_discs(o, p);
                assert_eq!(mine & theirs, 0);
                assert_eq!(p & 0x8100_0000_0000_0081 & !mine, 0, "a corner is stable");
                // What was stable is still there, and more may be.
                assert_eq!(stable[0] & !mine, 0, "p {p:#x} o {o:#x}");
                assert_eq!(stable[1] & !theirs, 0, "p {p:#x} o {o:#x}");
                found += mine.count_ones();
                let moves = legal_moves(p, o);
                if moves == 0 {
                    passes += 1;
                    (p, o) = (o, p);
                    stable = [theirs, mine];
                    continue;
                }
                passes = 0;
                let pick = next() % u64::from(moves.count_ones());
                let sq = squares(moves).nth(pick as usize).unwrap();
                let f = flips(p, o, sq);
                (p, o) = (o & !f, p | f | (1u64 << sq));
                stable = [theirs, mine];
            }
        }
        assert!(found > 10_000, "the test finds stable discs ({found})");
    }

    /// At the start, and on random boards from sparse to nearly full, both versions as for
    /// [`flips`].
    #[test]
    fn legal_squares_are_those_that_turn_discs() {
        let (p, o) = (0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        assert_eq!(legal_moves(p, o), 0x0000_1020_0408_0000);
        let mut next = random_words(0x5851_f42d_4c95_7f2d);
        for i in 0..50_000 {
            let filled = match i % 3 {
                0 => next() | next(),
                1 => next() & next(),
                _ => next(),
            };
            let a = next();
            let (p, o) = (a & filled, !a & filled);
            let walked =
                squares(!(p | o)).filter(|&sq| flips_by_walking(p, o, sq) != 0).fold(0, |m, sq| m | 1 << sq);
            assert_eq!(legal_moves(p, o), walked, "p {p:#x} o {o:#x}");
            assert_eq!(legal_moves_portable(p, o), walked, "p {p:#x} o {o:#x}");
        }
    }
}
