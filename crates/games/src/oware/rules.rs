//! The rules of Awari / Oware on a bare board: sowing, captures, which moves are legal and when
//! the game ends, forwards and backwards, for both rule variants.

use std::fmt;
use std::str::FromStr;

use super::{Pits, PITS};

/// A rule variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rules {
    /// The rules of the published Awari solution (Romein and Bal): a move that leaves the
    /// opponent without stones is legal only if every move does so; a player without stones
    /// cannot move and the opponent takes the rest.
    #[default]
    Vu,
    /// Tournament Oware: a grand slam is legal but captures nothing; the opponent must be fed
    /// when possible, and a player who cannot feed takes the stones on his side.
    Abapa,
}

impl Rules {
    /// Every variant.
    pub const ALL: [Rules; 2] = [Rules::Vu, Rules::Abapa];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Vu => "vu",
            Rules::Abapa => "abapa",
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rules {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Rules::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown rules '{s}' (expected vu or abapa)"))
    }
}

/// One legal move and where it leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sowing {
    /// The pit sown, 0-5.
    pub pit: u8,
    /// Stones captured by the move.
    pub captured: u8,
    /// The board after the move, seen from the opponent, who moves next.
    pub child: Pits,
}

/// The legal moves of a board, at most six, without allocating.
#[derive(Debug, Clone, Copy)]
pub struct Sowings {
    moves: [Sowing; 6],
    len: usize,
}

impl Sowings {
    /// The moves, by increasing pit.
    pub fn as_slice(&self) -> &[Sowing] {
        &self.moves[..self.len]
    }
}

/// How a board without legal moves ends: who takes the stones left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The player to move has no stones: the opponent takes them all.
    OpponentTakes,
    /// (abapa) The player to move cannot feed the opponent: he takes them all.
    MoverTakes,
}

/// The board from the other side: pits 6-11 become 0-5 and the other way round.
#[inline]
pub fn rotate(pits: &Pits) -> Pits {
    std::array::from_fn(|i| pits[(i + 6) % PITS])
}

/// The stones on the board.
#[inline]
pub fn stones(pits: &Pits) -> usize {
    pits.iter().map(|&p| usize::from(p)).sum()
}

/// Sows `pit` (non-empty): returns the board before any capture and the pit of the last stone.
#[inline]
fn sow(pits: &Pits, pit: usize) -> (Pits, usize) {
    let mut board = *pits;
    let count = usize::from(board[pit]);
    board[pit] = 0;
    let (laps, rest) = (count / (PITS - 1), count % (PITS - 1));
    if laps > 0 {
        for (i, p) in board.iter_mut().enumerate() {
            if i != pit {
                *p += laps as u8;
            }
        }
    }
    for step in 1..=rest {
        board[(pit + step) % PITS] += 1;
    }
    let last = (pit + if rest == 0 { PITS - 1 } else { rest }) % PITS;
    (board, last)
}

/// The stones a last stone in `last` would capture on `board` (pits 6-11 are the opponent's).
#[inline]
fn capture_run(board: &Pits, last: usize) -> (u8, usize) {
    let mut captured = 0;
    let mut pit = last;
    while pit >= 6 && (board[pit] == 2 || board[pit] == 3) {
        captured += board[pit];
        pit -= 1;
    }
    (captured, pit)
}

impl Rules {
    /// The legal moves of `pits` (the player to move owns pits 0-5). None when the game is over.
    pub fn sowings(self, pits: &Pits) -> Sowings {
        let empty = Sowing { pit: 0, captured: 0, child: [0; PITS] };
        let mut all = Sowings { moves: [empty; 6], len: 0 };
        let mut feeding = 0;
        for pit in 0..6 {
            if pits[pit] == 0 {
                continue;
            }
            let (mut board, last) = sow(pits, pit);
            let (captured, stop) = capture_run(&board, last);
            let opponent_left: u8 = board[6..].iter().sum::<u8>() - captured;
            let mut captured_now = 0;
            if captured > 0 && !(self == Rules::Abapa && opponent_left == 0) {
                board[stop + 1..=last].fill(0);
                captured_now = captured;
            }
            let feeds = board[6..].iter().any(|&p| p > 0);
            // Feeding moves first, so that the legal ones form a prefix when some feed.
            let sowing = Sowing { pit: pit as u8, captured: captured_now, child: rotate(&board) };
            if feeds {
                all.moves.copy_within(feeding..all.len, feeding + 1);
                all.moves[feeding] = sowing;
                feeding += 1;
            } else {
                all.moves[all.len] = sowing;
            }
            all.len += 1;
        }
        if feeding > 0 {
            all.len = feeding;
        } else if self == Rules::Abapa {
            all.len = 0;
        }
        all
    }

    /// How a board without legal moves ends, or `None` if it has some. (Under the VU rules a
    /// player with stones always has a move.)
    pub fn ending(self, pits: &Pits) -> Option<Ending> {
        if pits[..6].iter().all(|&p| p == 0) {
            Some(Ending::OpponentTakes)
        } else if self == Rules::Abapa && self.sowings(pits).len == 0 {
            Some(Ending::MoverTakes)
        } else {
            None
        }
    }

    /// Calls `f` with every board that has a legal move without capture leading to `pits` (seen,
    /// like `pits`, from its own player to move), once per such move, and only boards of the
    /// published index (an empty pit among 6-11).
    pub fn unsowings(self, pits: &Pits, mut f: impl FnMut(&Pits)) {
        // The board just after the move, from the side of the player who made it.
        let after = rotate(pits);
        let starved = after[6..].iter().all(|&p| p == 0);
        let opponent_total: u8 = after[6..].iter().sum();
        for origin in (0..6).filter(|&o| after[o] == 0) {
            let mut before = after;
            let mut pit = origin;
            for count in 1u8.. {
                pit = (pit + 1) % PITS;
                if pit == origin {
                    pit = (pit + 1) % PITS;
                }
                if before[pit] == 0 {
                    break;
                }
                before[pit] -= 1;
                before[origin] = count;
                if !before[6..].contains(&0) {
                    continue;
                }
                let (captured, _) = capture_run(&after, pit);
                let grand_slam = captured > 0 && captured == opponent_total;
                if captured > 0 && !(self == Rules::Abapa && grand_slam) {
                    continue; // a capture: that move leaves this stone count
                }
                if starved && !self.starves_whatever(&before) {
                    continue; // starving the opponent was not legal there
                }
                f(&before);
            }
        }
    }

    /// Whether every move of `pits` leaves the opponent without stones (so such moves are
    /// legal under the VU rules).
    fn starves_whatever(self, pits: &Pits) -> bool {
        self == Rules::Vu && {
            let moves = self.sowings(pits);
            moves.as_slice().iter().all(|m| m.child[..6].iter().all(|&p| p == 0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(s: &str) -> Pits {
        let v: Vec<u8> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
        v.try_into().unwrap()
    }

    #[test]
    fn sowing_skips_the_origin_and_captures_backwards() {
        // 12 stones from pit 0: one lap over the 11 other pits, the twelfth lands in pit 1.
        let (b, last) = sow(&board("12 0 0 0 0 0 0 0 0 0 0 0"), 0);
        assert_eq!(b, board("0 2 1 1 1 1 1 1 1 1 1 1"));
        assert_eq!(last, 1);
        // Pit 5 with 3 stones ends in pit 8 (holding 2 after), pit 7 holds 3, pit 6 holds 1.
        let moves = Rules::Vu.sowings(&board("0 0 0 0 0 3 0 2 1 0 0 1"));
        let m = moves.as_slice()[0];
        assert_eq!((m.pit, m.captured), (5, 5));
        assert_eq!(m.child, board("1 0 0 0 0 1 0 0 0 0 0 0"));
    }

    #[test]
    fn grand_slam_is_illegal_under_vu_and_captures_nothing_under_abapa() {
        // Pit 5 (2 stones) would capture both opponent pits that hold stones; pit 0 does not.
        let b = board("1 0 0 0 0 2 1 2 0 0 0 0");
        let vu: Vec<u8> = Rules::Vu.sowings(&b).as_slice().iter().map(|m| m.pit).collect();
        assert_eq!(vu, vec![0]);
        let abapa = Rules::Abapa.sowings(&b);
        let slam = abapa.as_slice().iter().find(|m| m.pit == 5).unwrap();
        assert_eq!(slam.captured, 0);
        assert_eq!(slam.child, board("2 3 0 0 0 0 1 0 0 0 0 0"));
    }

    #[test]
    fn a_player_who_cannot_feed() {
        let b = board("1 0 0 0 0 0 0 0 0 0 0 0");
        assert_eq!(Rules::Vu.sowings(&b).as_slice().len(), 1, "VU: the starving move is legal");
        assert_eq!(Rules::Vu.ending(&b), None);
        assert_eq!(Rules::Abapa.ending(&b), Some(Ending::MoverTakes));
        assert_eq!(Rules::Vu.ending(&rotate(&b)), Some(Ending::OpponentTakes));
    }
}
