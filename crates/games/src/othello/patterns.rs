//! The board patterns of the evaluation: groups of squares (edges, corners, lines, diagonals)
//! whose every configuration of empty, own and other discs gets a weight of its own, as in the
//! strongest Othello programs. A pattern is listed once and applied under the board's eight
//! symmetries; all its images share the weights, so the fitted values are symmetric.
//!
//! [`indices`] turns a position into one weight index per pattern image, the input of both the
//! evaluation and the program that fits the weights.

/// The base patterns as squares (A1 = 0, H1 = 7, H8 = 63), in the order of their digits.
const BASE: [&[u8]; 11] = [
    // A corner's 3 x 3 block.
    &[0, 1, 2, 8, 9, 10, 16, 17, 18],
    // A corner's 5 x 2 block.
    &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12],
    // An edge and the two X-squares next to it.
    &[9, 0, 1, 2, 3, 4, 5, 6, 7, 14],
    // The second, third and fourth lines.
    &[8, 9, 10, 11, 12, 13, 14, 15],
    &[16, 17, 18, 19, 20, 21, 22, 23],
    &[24, 25, 26, 27, 28, 29, 30, 31],
    // The main diagonal and the diagonals of 7 down to 4 squares.
    &[0, 9, 18, 27, 36, 45, 54, 63],
    &[1, 10, 19, 28, 37, 46, 55],
    &[2, 11, 20, 29, 38, 47],
    &[3, 12, 21, 30, 39],
    &[4, 13, 22, 31],
];

/// How many pattern images a position has: the base patterns under the symmetries, each
/// distinct set of squares once.
pub const IMAGES: usize = 46;

/// Weights per evaluation stage: one per configuration of each base pattern.
pub const WEIGHTS: usize = {
    let mut total = 0;
    let mut i = 0;
    while i < BASE.len() {
        total += 3usize.pow(BASE[i].len() as u32);
        i += 1;
    }
    total
};

/// One pattern image: its squares in digit order, and where its base pattern's weights start.
#[derive(Clone, Copy)]
struct Image {
    squares: [u8; 10],
    len: usize,
    offset: u32,
}

/// The pattern images, computed once.
static TABLE: [Image; IMAGES] = images();

/// The square `sq` under symmetry `s` (bit 0: mirror files, bit 1: mirror ranks, bit 2:
/// transpose).
const fn transform(sq: u8, s: u8) -> u8 {
    let (mut x, mut y) = (sq % 8, sq / 8);
    if s & 4 != 0 {
        (x, y) = (y, x);
    }
    if s & 1 != 0 {
        x = 7 - x;
    }
    if s & 2 != 0 {
        y = 7 - y;
    }
    y * 8 + x
}

const fn images() -> [Image; IMAGES] {
    let mut table = [Image { squares: [0; 10], len: 0, offset: 0 }; IMAGES];
    let mut count = 0;
    let mut offset = 0u32;
    let mut b = 0;
    while b < BASE.len() {
        let base = BASE[b];
        let mut seen = [0u64; 8];
        let mut s = 0;
        while s < 8 {
            let mut image = Image { squares: [0; 10], len: base.len(), offset };
            let mut set = 0u64;
            let mut i = 0;
            while i < base.len() {
                image.squares[i] = transform(base[i], s);
                set |= 1u64 << image.squares[i];
                i += 1;
            }
            let mut new = true;
            let mut k = 0;
            while k < s as usize {
                if seen[k] == set {
                    new = false;
                }
                k += 1;
            }
            seen[s as usize] = set;
            if new {
                table[count] = image;
                count += 1;
            }
            s += 1;
        }
        offset += 3u32.pow(base.len() as u32);
        b += 1;
    }
    assert!(count == IMAGES);
    table
}

/// The weight index of every pattern image of the position (`p` to move against `o`): a square's
/// digit is 0 when empty, 1 for `p`'s disc, 2 for `o`'s, the first square the most significant.
pub fn indices(p: u64, o: u64) -> [u32; IMAGES] {
    let mut out = [0u32; IMAGES];
    for (slot, image) in out.iter_mut().zip(TABLE.iter()) {
        let mut index = 0u32;
        for &sq in &image.squares[..image.len] {
            let digit = (p >> sq & 1) as u32 + 2 * (o >> sq & 1) as u32;
            index = index * 3 + digit;
        }
        *slot = image.offset + index;
    }
    out
}

/// The lanes of [`Indices`]: one per pattern image, padded to 64 (128 bytes, two AVX-512 or
/// four AVX2 registers) so that the compiler updates them all with a few vector instructions.
/// Padded to 48 only, the two halves of a move's update went through the stack and the
/// evaluation searches ran no faster than with the scalar updates before.
pub const LANES: usize = 64;

/// Where each image's base pattern starts among the weights, per lane (0 for the padding).
pub static OFFSETS: [u32; LANES] = {
    let mut offsets = [0u32; LANES];
    let mut image = 0;
    while image < IMAGES {
        offsets[image] = TABLE[image].offset;
        image += 1;
    }
    offsets
};

/// Per square, the digit weight (power of 3) of the square in each image, 0 in the images that
/// do not hold it: a disc on the square adds its digit times this to every index at once.
static SQUARE_POWERS: [[u16; LANES]; 64] = {
    let mut table = [[0u16; LANES]; 64];
    let mut image = 0;
    while image < IMAGES {
        let squares = &TABLE[image].squares;
        let len = TABLE[image].len;
        let mut i = 0;
        while i < len {
            table[squares[i] as usize][image] = 3u16.pow((len - 1 - i) as u32);
            i += 1;
        }
        image += 1;
    }
    table
};

/// Adds `times` times `delta` to every lane of `lanes` (the indices stay below 3^10, so no lane
/// overflows a u16 once a move is complete; wrapping keeps the steps in between well defined).
#[inline(always)]
fn add_lanes(lanes: &mut [u16; LANES], delta: &[u16; LANES], times: u16) {
    for (l, d) in lanes.iter_mut().zip(delta) {
        *l = l.wrapping_add(d.wrapping_mul(times));
    }
}

/// The weight indices of a position from both players' points of view, within each image's
/// base pattern (add [`OFFSETS`] for the weight's place), kept up to date move by move: a move
/// changes a few squares, so this is much cheaper than [`indices`] in a search.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Indices {
    /// As [`indices`] gives them for the player to move, less the offsets; padding lanes 0.
    pub mover: [u16; LANES],
    /// The same for the other player.
    pub other: [u16; LANES],
}

impl Indices {
    /// The indices of the position with `p` to move against `o`.
    pub fn new(p: u64, o: u64) -> Indices {
        let (mut own, mut theirs) = ([0u16; LANES], [0u16; LANES]);
        for sq in super::bitboard::squares(p) {
            add_lanes(&mut own, &SQUARE_POWERS[sq as usize], 1);
        }
        for sq in super::bitboard::squares(o) {
            add_lanes(&mut theirs, &SQUARE_POWERS[sq as usize], 1);
        }
        // A square's digit is 1 for the player the indices are for, 2 for the other.
        let (mut mover, mut other) = (own, theirs);
        add_lanes(&mut mover, &theirs, 2);
        add_lanes(&mut other, &own, 2);
        Indices { mover, other }
    }

    /// The indices after the player to move puts a disc on `sq` and turns `flipped`: the
    /// other player is then to move.
    #[inline]
    pub fn play(&self, sq: u32, flipped: u64) -> Indices {
        // Seen by the next player to move, the new disc is an other's (digit 2) and the turned
        // discs go from 1 to 2; seen by the player who moved, 0 to 1 and 2 to 1.
        let mut turned = [0u16; LANES];
        let mut f = flipped;
        while f != 0 {
            add_lanes(&mut turned, &SQUARE_POWERS[f.trailing_zeros() as usize], 1);
            f &= f - 1;
        }
        let mut next = Indices { mover: self.other, other: self.mover };
        let placed = &SQUARE_POWERS[sq as usize];
        add_lanes(&mut next.mover, placed, 2);
        add_lanes(&mut next.mover, &turned, 1);
        add_lanes(&mut next.other, placed, 1);
        add_lanes(&mut next.other, &turned, u16::MAX);
        next
    }

    /// The indices after a pass.
    #[inline]
    pub fn pass(&self) -> Indices {
        Indices { mover: self.other, other: self.mover }
    }
}

/// The smaller of `index` and the index of the same configuration mirrored onto itself, for the
/// patterns that a symmetry maps onto their own squares (a line read backwards, a corner block
/// transposed): two indices that must share a weight for the evaluation to be symmetric.
pub fn canonical(index: u32) -> u32 {
    let mut offset = 0;
    for base in BASE {
        let size = 3u32.pow(base.len() as u32);
        if index < offset + size {
            let Some(perm) = self_symmetry(base) else { return index };
            let digits: Vec<u32> = (0..base.len())
                .map(|i| (index - offset) / 3u32.pow((base.len() - 1 - i) as u32) % 3)
                .collect();
            let mirrored = perm.iter().fold(0, |acc, &j| acc * 3 + digits[j]);
            return offset + (index - offset).min(mirrored);
        }
        offset += size;
    }
    index
}

/// For a base pattern that a symmetry other than the identity maps onto its own squares: the
/// position in the pattern of each of its squares' images.
fn self_symmetry(base: &[u8]) -> Option<Vec<usize>> {
    (1..8).find_map(|s| {
        base.iter().map(|&sq| base.iter().position(|&t| t == transform(sq, s))).collect::<Option<Vec<_>>>()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_kept_move_by_move_equal_fresh_ones() {
        let mut rng = gamegraph::rng::SplitMix64(11);
        for _ in 0..200 {
            let (mut p, mut o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
            let mut kept = Indices::new(p, o);
            loop {
                let moves = super::super::legal_moves(p, o);
                if moves == 0 {
                    if super::super::legal_moves(o, p) == 0 {
                        break;
                    }
                    (p, o, kept) = (o, p, kept.pass());
                    continue;
                }
                let pick = rng.below(u64::from(moves.count_ones())) as usize;
                let sq = super::super::bitboard::squares(moves).nth(pick).unwrap();
                let f = super::super::flips(p, o, sq);
                kept = kept.play(sq, f);
                (p, o) = (o & !f, p | f | (1u64 << sq));
                assert_eq!(kept, Indices::new(p, o));
                // Both against the digit-by-digit definition, from either side.
                for (lanes, (a, b)) in [(kept.mover, (p, o)), (kept.other, (o, p))] {
                    let full: Vec<u32> = (0..IMAGES).map(|i| OFFSETS[i] + u32::from(lanes[i])).collect();
                    assert_eq!(full, indices(a, b));
                    assert!(lanes[IMAGES..].iter().all(|&l| l == 0));
                }
            }
        }
    }

    #[test]
    fn images_cover_each_pattern_under_every_symmetry() {
        // Edge squares are covered by the edge pattern four times over (once per edge) ...
        let mut edge_cover = [0u32; 64];
        let edge_offset = 3u32.pow(9) + 3u32.pow(10);
        for image in TABLE.iter().filter(|i| i.offset == edge_offset) {
            for &sq in &image.squares[..image.len] {
                edge_cover[sq as usize] += 1;
            }
        }
        assert_eq!(edge_cover[0], 2, "A1 is on two edges");
        assert_eq!(edge_cover[3], 1);
        assert_eq!(edge_cover[9], 2, "B2 is an X-square of both edges through A1");
        assert_eq!(edge_cover.iter().sum::<u32>(), 40);
        // ... and the same position seen under a symmetry has the same multiset of indices.
        let (p, o) = (0x0000_1c38_1000_0301u64, 0x0102_2040_0810_0c00u64);
        let mirror =
            |b: u64| (0..64).filter(|&sq| b >> sq & 1 == 1).fold(0u64, |m, sq| m | 1 << transform(sq, 5));
        let mut a = indices(p, o).map(canonical);
        let mut b = indices(mirror(p), mirror(o)).map(canonical);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        assert!(indices(p, o).iter().all(|&i| (i as usize) < WEIGHTS));
    }
}
