//! The dense index of the published Awari databases: every board with `n` stones in which at
//! least one of pits 6-11 is empty (the side that just moved emptied the pit it sowed), ranked
//! from 0 in ascending lexicographic order of (pit 11, pit 10, ..., pit 0).
//!
//! Rank takes twelve lookups in a table of partial sums of binomial coefficients built once;
//! unrank scans the same table, one entry per stone.

use super::{Pits, MAX_STONES, PITS};

/// Ranks and unranks boards of up to [`MAX_STONES`] stones in the published index order.
#[derive(Debug, Clone)]
pub struct Ranking {
    /// `prefix[pit][seen][remaining][v]`: how many indexed boards with the higher pits fixed put
    /// fewer than `v` stones in `pit`, `remaining` stones being left for pits `pit..=0` and
    /// `seen` telling whether an empty pit among 6-11 is already fixed.
    prefix: Vec<u64>,
}

const SUMS: usize = MAX_STONES + 1;
const VALUES: usize = MAX_STONES + 2;

fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    (0..k).fold(1u64, |acc, i| acc * (n - i) / (i + 1))
}

/// Ways to put `stones` stones into `pits` pits.
fn compositions(stones: usize, pits: usize) -> u64 {
    match pits {
        0 => u64::from(stones == 0),
        _ => binomial((stones + pits - 1) as u64, (pits - 1) as u64),
    }
}

/// Indexed ways to fill the lowest `pits` pits with `stones` stones, given whether an empty pit
/// among 6-11 is already fixed above them.
fn completions(pits: usize, stones: usize, seen_empty: bool) -> u64 {
    if seen_empty {
        return compositions(stones, pits);
    }
    // Boards whose remaining opponent pits (6..pits) are all non-empty are not indexed.
    let opponent_pits = pits.saturating_sub(6);
    if opponent_pits == 0 {
        return 0;
    }
    let all_full = if stones >= opponent_pits { compositions(stones - opponent_pits, pits) } else { 0 };
    compositions(stones, pits) - all_full
}

impl Default for Ranking {
    fn default() -> Self {
        Self::new()
    }
}

impl Ranking {
    /// Builds the tables (about half a megabyte).
    pub fn new() -> Self {
        let mut prefix = vec![0u64; PITS * 2 * SUMS * VALUES];
        for pit in 0..PITS {
            for seen in [false, true] {
                for remaining in 0..SUMS {
                    let mut sum = 0;
                    for v in 0..=remaining {
                        prefix[Self::slot(pit, seen, remaining, v)] = sum;
                        let seen_below = seen || (pit >= 6 && v == 0);
                        sum += completions(pit, remaining - v, seen_below);
                    }
                    prefix[Self::slot(pit, seen, remaining, remaining + 1)] = sum;
                }
            }
        }
        Self { prefix }
    }

    #[inline]
    fn slot(pit: usize, seen: bool, remaining: usize, v: usize) -> usize {
        ((pit * 2 + usize::from(seen)) * SUMS + remaining) * VALUES + v
    }

    /// Number of indexed boards with `stones` stones: C(n+11, 11) - C(n+5, 11).
    pub fn len(&self, stones: usize) -> u64 {
        completions(PITS, stones, false)
    }

    /// Whether a board is in the index: at most [`MAX_STONES`] stones and an empty pit among 6-11.
    pub fn is_indexed(pits: &Pits) -> bool {
        pits[6..].contains(&0) && pits.iter().map(|&p| usize::from(p)).sum::<usize>() <= MAX_STONES
    }

    /// The rank of an indexed board among the boards with as many stones.
    #[inline]
    pub fn rank(&self, pits: &Pits) -> u64 {
        debug_assert!(Self::is_indexed(pits), "{pits:?} is not indexed");
        let mut remaining: usize = pits.iter().map(|&p| usize::from(p)).sum();
        let mut seen = false;
        let mut rank = 0;
        for pit in (0..PITS).rev() {
            let v = usize::from(pits[pit]);
            rank += self.prefix[Self::slot(pit, seen, remaining, v)];
            remaining -= v;
            seen |= pit >= 6 && v == 0;
        }
        rank
    }

    /// The board of rank `rank` among the indexed boards with `stones` stones.
    #[inline]
    pub fn unrank(&self, stones: usize, mut rank: u64) -> Pits {
        debug_assert!(rank < self.len(stones));
        let mut pits = [0u8; PITS];
        let mut remaining = stones;
        let mut seen = false;
        for pit in (0..PITS).rev() {
            let start = Self::slot(pit, seen, remaining, 0);
            let sums = &self.prefix[start..=start + remaining];
            // A linear scan: pits hold few stones on average, so it stops after a step or two.
            let mut v = 0;
            while v < remaining && sums[v + 1] <= rank {
                v += 1;
            }
            rank -= sums[v];
            pits[pit] = v as u8;
            remaining -= v;
            seen |= pit >= 6 && v == 0;
        }
        pits
    }

    /// The next indexed board after `pits` in index order, with as many stones; `None` after the
    /// last. Cheaper than unranking each rank when walking a range.
    #[inline]
    pub fn next(pits: &Pits) -> Option<Pits> {
        let mut next = *pits;
        loop {
            // Move one stone up into the lowest pit that has stones below it, and put the rest of
            // those stones into pit 0: the smallest arrangement after the prefix grows.
            let mut below = 0u8;
            let pit = (1..PITS).find(|&i| {
                below += next[i - 1];
                below > 0
            })?;
            next[..pit].fill(0);
            next[pit] += 1;
            next[0] = below - 1;
            if next[6..].contains(&0) {
                return Some(next);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every board with `stones` stones, in ascending lexicographic order of (pit 11, ..., pit 0).
    fn all_boards(stones: u8) -> Vec<Pits> {
        fn fill(pit: usize, left: u8, board: &mut Pits, out: &mut Vec<Pits>) {
            if pit == 0 {
                board[0] = left;
                out.push(*board);
                return;
            }
            for v in 0..=left {
                board[pit] = v;
                fill(pit - 1, left - v, board, out);
            }
            board[pit] = 0;
        }
        let mut out = Vec::new();
        fill(PITS - 1, stones, &mut [0; PITS], &mut out);
        out
    }

    #[test]
    fn rank_is_the_position_in_lexicographic_order_of_indexed_boards_up_to_12_stones() {
        let ranking = Ranking::new();
        for stones in 0..=12u8 {
            let indexed: Vec<Pits> = all_boards(stones).into_iter().filter(|b| b[6..].contains(&0)).collect();
            assert_eq!(indexed.len() as u64, ranking.len(stones as usize), "{stones} stones");
            let mut walked = Some(indexed[0]);
            for (i, board) in indexed.iter().enumerate() {
                assert_eq!(ranking.rank(board), i as u64, "{board:?}");
                assert_eq!(&ranking.unrank(stones as usize, i as u64), board);
                assert_eq!(walked.as_ref(), Some(board), "next() walks the index in order");
                walked = Ranking::next(board);
            }
            assert_eq!(walked, None, "next() stops after the last board");
        }
    }

    #[test]
    fn counts_are_the_published_ones() {
        let ranking = Ranking::new();
        for n in 0..=MAX_STONES as u64 {
            assert_eq!(ranking.len(n as usize), binomial(n + 11, 11) - binomial(n + 5, 11));
        }
        assert_eq!(ranking.len(24), 417_225_900 - 34_597_290);
        let last = ranking.unrank(48, ranking.len(48) - 1);
        assert_eq!(ranking.rank(&last), ranking.len(48) - 1);
        assert_eq!(last, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 48]);
    }
}
