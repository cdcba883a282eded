//! The order in which a table file stores a table's indices.
//!
//! A table index is a number written in digits: the side to move, the king pair, then each other
//! piece's square ([`TableIndex::digits`]). Which digit counts fastest decides which positions
//! sit side by side in a compressed block, and so how long the runs of equal values are that the
//! compressor finds there: KRBvKR, with its defending rook's square the most significant digit
//! after the side to move and the white rook's the least, takes half the bytes it takes in the
//! table's own order. No one order is best for every table, so a file stores its entries in the
//! order that compressed best on a sample of its blocks, and its header says which.
//!
//! [`TableIndex::digits`]: super::index::TableIndex::digits

use std::ops::Range;

/// The most digits an index has: the side to move, the king pair and three other pieces.
pub const MAX_DIGITS: usize = 5;

/// The order a file writes a table's digits in, most significant first: the side to move first,
/// so that each half of a file is one side to move as in the table, then the other digits in an
/// order of their own for each side to move (the best order for White to move is seldom Black's:
/// KRPvKR takes 0.93 of the bytes of its best single order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigitOrder {
    /// How many values each digit takes, in the table's order.
    radix: [u64; MAX_DIGITS],
    /// How many digits the table has.
    len: usize,
    /// Indices per side to move.
    half: u64,
    /// What one more of each digit (in the table's order) adds to the table's index.
    table_weight: [u64; MAX_DIGITS],
    /// For each side to move (White, Black), the table's digits in the file's order, the side
    /// to move first.
    order: [[u8; MAX_DIGITS]; 2],
    /// For each side to move, what one more of each digit (in the table's order) adds to the
    /// file's index within that side's half.
    file_weight: [[u64; MAX_DIGITS]; 2],
}

impl DigitOrder {
    /// The table's own order, the one files of versions 1 and 2 store.
    pub fn identity(digits: &[u64]) -> Self {
        let order: Vec<u8> = (1..digits.len() as u8).collect();
        Self::new(digits, [&order, &order]).expect("the identity is a permutation")
    }

    /// The order of a table whose digits take `digits` values each (the side to move's 2 first)
    /// that stores the other digits, for each side to move, in the order `orders` gives (the
    /// table's digit numbers, from 1, most significant first); `None` if one is no permutation
    /// of them.
    pub fn new(digits: &[u64], orders: [&[u8]; 2]) -> Option<Self> {
        let len = digits.len();
        if !(2..=MAX_DIGITS).contains(&len) || digits[0] != 2 {
            return None;
        }
        let mut radix = [1; MAX_DIGITS];
        radix[..len].copy_from_slice(digits);
        let weights = |order: &mut dyn Iterator<Item = usize>| {
            let mut weight = [0; MAX_DIGITS];
            let mut w = 1;
            for d in order {
                weight[d] = w;
                w *= radix[d];
            }
            weight
        };
        let table_weight = weights(&mut (0..len).rev());
        let mut order = [[0; MAX_DIGITS]; 2];
        let mut file_weight = [[0; MAX_DIGITS]; 2];
        for (side, given) in orders.into_iter().enumerate() {
            let mut seen = [false; MAX_DIGITS];
            if given.len() != len - 1 {
                return None;
            }
            for &d in given {
                let d = usize::from(d);
                if d == 0 || d >= len || std::mem::replace(&mut seen[d], true) {
                    return None;
                }
            }
            order[side][1..len].copy_from_slice(given);
            file_weight[side] = weights(&mut given.iter().rev().map(|&d| usize::from(d)));
        }
        Some(Self { radix, len, half: table_weight[0], table_weight, order, file_weight })
    }

    /// Every order a file may take for one side to move: the digits after the side to move in
    /// any order, the table's own first, then the others in lexicographic order.
    pub fn candidates(digits: &[u64]) -> Vec<Vec<u8>> {
        let mut orders = vec![Vec::new()];
        for _ in 1..digits.len() {
            orders = orders
                .into_iter()
                .flat_map(|order: Vec<u8>| {
                    (1..digits.len() as u8)
                        .filter(|d| !order.contains(d))
                        .map(|d| [order.as_slice(), &[d]].concat())
                        .collect::<Vec<_>>()
                })
                .collect();
        }
        orders
    }

    /// The table's digits after the side to move in the file's order for `side` (0: White to
    /// move, 1: Black), most significant first, as a header stores them.
    pub fn order(&self, side: usize) -> &[u8] {
        &self.order[side][1..self.len]
    }

    /// Whether the file's order is the table's.
    pub fn is_identity(&self) -> bool {
        (0..2).all(|side| self.order(side).iter().enumerate().all(|(i, &d)| usize::from(d) == i + 1))
    }

    /// Where the file stores the table's index `index`.
    pub fn file_index(&self, index: u64) -> u64 {
        let side = usize::from(index >= self.half);
        let mut rest = index;
        let mut at = 0;
        for d in (1..self.len).rev() {
            at += rest % self.radix[d] * self.file_weight[side][d];
            rest /= self.radix[d];
        }
        at + side as u64 * self.half
    }

    /// Calls `f` with the table's index of each of the file's indices in `range`, in order.
    pub fn table_indices(&self, range: Range<u64>, mut f: impl FnMut(u64)) {
        for (side, local, base) in self.by_side(range) {
            let digits = self.order(side).iter().map(|&d| usize::from(d));
            let radix: Vec<u64> = digits.clone().map(|d| self.radix[d]).collect();
            let weight: Vec<u64> = digits.map(|d| self.table_weight[d]).collect();
            count(&radix, &weight, local, |i| f(base + i));
        }
    }

    /// Calls `f` with the file's index of each of the table's indices in `range`, in order.
    pub fn file_indices(&self, range: Range<u64>, mut f: impl FnMut(u64)) {
        for (side, local, base) in self.by_side(range) {
            let weight = &self.file_weight[side][1..self.len];
            count(&self.radix[1..self.len], weight, local, |at| f(base + at));
        }
    }

    /// `range` cut at the halves: each part's side to move, range within its half and the
    /// half's first index.
    fn by_side(&self, range: Range<u64>) -> impl Iterator<Item = (usize, Range<u64>, u64)> {
        let half = self.half;
        (0..2).filter_map(move |side| {
            let base = side as u64 * half;
            let (start, end) = (range.start.max(base), range.end.min(base + half));
            (start < end).then(|| (side, start - base..end - base, base))
        })
    }
}

/// Counts through `range` in the digits `radix` (most significant first) and calls `f` with each
/// number's value under the digit weights `weight`: an odometer, one addition a number for the
/// most part, where converting each number alone takes a division a digit.
fn count(radix: &[u64], weight: &[u64], range: Range<u64>, mut f: impl FnMut(u64)) {
    let mut digit = [0u64; MAX_DIGITS];
    let mut rest = range.start;
    let mut value = 0;
    for i in (0..radix.len()).rev() {
        digit[i] = rest % radix[i];
        rest /= radix[i];
        value += digit[i] * weight[i];
    }
    for _ in range {
        f(value);
        for i in (0..radix.len()).rev() {
            digit[i] += 1;
            value += weight[i];
            if digit[i] < radix[i] {
                break;
            }
            value -= radix[i] * weight[i];
            digit[i] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGITS: [u64; 5] = [2, 7, 3, 48, 5];

    /// Every pair of candidates is a bijection between the table's indices and the file's, and
    /// its two walks agree with the index-by-index conversion, across the halves too.
    #[test]
    fn every_candidate_maps_indices_one_to_one() {
        let len: u64 = DIGITS.iter().product();
        let candidates = DigitOrder::candidates(&DIGITS);
        assert_eq!(candidates.len(), 24);
        let identity = DigitOrder::identity(&DIGITS);
        assert!(identity.is_identity() && identity == DigitOrder::new(&DIGITS, [&candidates[0]; 2]).unwrap());
        for (white, black) in candidates.iter().zip(candidates.iter().rev()).step_by(5) {
            let order = DigitOrder::new(&DIGITS, [white, black]).unwrap();
            assert!(!order.is_identity());
            let mut file = Vec::new();
            order.file_indices(0..len, |at| file.push(at));
            assert_eq!(file, (0..len).map(|i| order.file_index(i)).collect::<Vec<_>>(), "{order:?}");
            let mut back = Vec::new();
            order.table_indices(0..len, |i| back.push(i));
            let mut seen = vec![false; len as usize];
            for (at, &i) in back.iter().enumerate() {
                assert_eq!(order.file_index(i), at as u64, "{order:?}");
                assert!(!std::mem::replace(&mut seen[i as usize], true));
            }
            // Walks from inside the range, and across the halves, continue the whole walks.
            let mut part = Vec::new();
            order.table_indices(len / 2 - 3..len / 2 + 4, |i| part.push(i));
            assert_eq!(part, back[len as usize / 2 - 3..len as usize / 2 + 4]);
            part.clear();
            order.file_indices(1000..1010, |at| part.push(at));
            assert_eq!(part, file[1000..1010]);
        }
    }

    /// A header's order is checked: a repeated digit, the side to move's, a digit out of range
    /// or the wrong count is refused.
    #[test]
    fn only_permutations_are_orders() {
        assert!(DigitOrder::new(&DIGITS, [&[2, 1, 4, 3], &[4, 3, 2, 1]]).is_some());
        assert!(DigitOrder::new(&DIGITS, [&[2, 1, 4, 3], &[1, 1, 3, 4]]).is_none());
        assert!(DigitOrder::new(&DIGITS, [&[0, 1, 2, 3], &[1, 2, 3, 4]]).is_none());
        assert!(DigitOrder::new(&DIGITS, [&[1, 2, 3, 5], &[1, 2, 3, 4]]).is_none());
        assert!(DigitOrder::new(&DIGITS, [&[1, 2, 3], &[1, 2, 3, 4]]).is_none());
        assert!(DigitOrder::new(&[2, 3, 4, 5, 6, 7], [&[1, 2, 3, 4, 5]; 2]).is_none());
    }
}
