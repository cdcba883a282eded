//! Refill, a game made up to show what a game needs to be solved on a cluster: the rules
//! ([`Game`]), a dense index of its positions ([`DenseIndex`]) and its un-moves ([`Unmoves`]).
//!
//! A pile of stones, and a bank beside it that holds at most [`Refill::bank`] stones. A move
//! takes one stone from the pile into the bank, or takes two or three stones from the pile out
//! of the game, or puts one stone back from the bank onto the pile. The player who faces an
//! empty pile loses as many points as the bank holds, plus one. Since a stone can go to the
//! bank and come back, play can go on forever: some positions are draws.

use gamegraph::game::{DenseIndex, Game, Stake, Unmoves};

/// The rules, for piles of at most `pile` stones (the start) and a bank of at most `bank`.
#[derive(Debug, Clone, Copy)]
pub struct Refill {
    /// The stones in the pile at the start: no position holds more stones in all.
    pub pile: u32,
    /// The most stones the bank holds.
    pub bank: u32,
}

/// Stones in the pile, stones in the bank.
pub type Position = (u32, u32);

/// A move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// One stone from the pile into the bank.
    Bank,
    /// Two or three stones from the pile, out of the game.
    Take(u32),
    /// One stone from the bank back onto the pile.
    Refill,
}

impl Game for Refill {
    type Position = Position;
    type Move = Move;

    fn start(&self) -> Position {
        (self.pile, 0)
    }

    fn moves(&self, &(pile, bank): &Position, moves: &mut Vec<Move>) {
        if pile == 0 {
            return;
        }
        if bank < self.bank {
            moves.push(Move::Bank);
        }
        moves.extend((2..=3).filter(|&t| t <= pile).map(Move::Take));
        if bank > 0 {
            moves.push(Move::Refill);
        }
    }

    fn play(&self, &(pile, bank): &Position, mv: Move) -> Position {
        match mv {
            Move::Bank => (pile - 1, bank + 1),
            Move::Take(t) => (pile - t, bank),
            Move::Refill => (pile + 1, bank - 1),
        }
    }

    fn final_loss(&self, &(_, bank): &Position) -> Stake {
        bank as Stake + 1
    }
}

impl DenseIndex for Refill {
    fn index_len(&self) -> u64 {
        u64::from(self.pile + 1) * u64::from(self.bank + 1)
    }

    fn index(&self, &(pile, bank): &Position) -> u64 {
        u64::from(pile) * u64::from(self.bank + 1) + u64::from(bank)
    }

    /// Pairs that hold more stones than the start are no positions: play never adds stones.
    fn position(&self, index: u64) -> Option<Position> {
        let columns = u64::from(self.bank + 1);
        let (pile, bank) = ((index / columns) as u32, (index % columns) as u32);
        (index < self.index_len() && pile + bank <= self.pile).then_some((pile, bank))
    }
}

impl Unmoves for Refill {
    fn unmoves(&self, &(pile, bank): &Position, out: &mut Vec<Position>) {
        let fits = |(p, b): Position| p + b <= self.pile && b <= self.bank;
        // Banked a stone: the bank had one less, the pile one more.
        if bank > 0 {
            out.push((pile + 1, bank - 1));
        }
        // Took two or three stones out.
        out.extend((2..=3).map(|t| (pile + t, bank)).filter(|&q| fits(q)));
        // Put a stone back: the pile had one less, and was not empty.
        if pile >= 2 && fits((pile - 1, bank + 1)) {
            out.push((pile - 1, bank + 1));
        }
    }
}
