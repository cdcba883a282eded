//! Scores: the one scale that evaluations, exact values and the engine share, what a score means
//! (win, lose or draw, and how far the end is), and how decisive scores travel between the root
//! and the transposition table. The conventions are written out in `docs/scores.md`.

use std::fmt;

use serde::Serialize;

/// A score for the player to move: larger is better.
pub type Score = i32;

/// The largest score a position can have; [`INFINITY`] stays strictly above it.
pub const MAX_SCORE: Score = i32::MAX - 1;

/// Larger than every score: the open ends of a search window, never a position's value.
pub const INFINITY: Score = i32::MAX;

/// Factor applied to the payoff `-p_f` of a final position by the default final score, so that a
/// real win or loss outweighs any heuristic evaluation.
pub const FINAL_SCALE: Score = 1_000_000;

/// Scores at least this large in magnitude are won or lost games: inside a search they lose one
/// point per ply from the root, so that a nearer win scores more.
pub const DECISIVE: Score = FINAL_SCALE / 2;

/// The search depth that means "to the end of the game".
pub const UNLIMITED: u32 = u32::MAX;

/// Win, lose or draw, for the player to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The player to move wins with perfect play.
    Win,
    /// The player to move loses with perfect play.
    Lose,
    /// Neither side can force a win.
    Draw,
}

impl Outcome {
    /// The outcome that a score means: its sign.
    pub fn of(score: Score) -> Outcome {
        match score.signum() {
            1 => Outcome::Win,
            -1 => Outcome::Lose,
            _ => Outcome::Draw,
        }
    }

    /// `win`, `lose` or `draw`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Lose => "lose",
            Outcome::Draw => "draw",
        }
    }

    /// The outcome for the other player.
    pub fn opposite(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Lose,
            Outcome::Lose => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A node-relative score as seen from the root, `ply` plies above: a decisive score loses one
/// point per ply, so nearer wins are worth more.
#[inline]
pub fn from_node(score: Score, ply: usize) -> Score {
    let ply = ply as i32;
    if score >= DECISIVE {
        score - ply
    } else if score <= -DECISIVE {
        score + ply
    } else {
        score
    }
}

/// The inverse of [`from_node`]: a root-relative score as seen from a node `ply` plies below, as
/// the table stores it.
#[inline]
pub fn to_node(score: Score, ply: usize) -> Score {
    let ply = ply as i32;
    if score >= DECISIVE {
        score.saturating_add(ply).min(MAX_SCORE)
    } else if score <= -DECISIVE {
        score.saturating_sub(ply).max(-MAX_SCORE)
    } else {
        score
    }
}

/// A decisive score read as the payoff at the end of the game and the plies to it: the engine
/// scores the end `plies` plies away, paying `payoff` to the player to move, as
/// [`decisive`]`(payoff, plies)`. `None` for a score that is not decisive.
pub fn decisive_parts(score: Score) -> Option<(Score, u32)> {
    if score.abs() < DECISIVE {
        return None;
    }
    let magnitude = score.unsigned_abs();
    let scale = FINAL_SCALE as u32;
    let units = magnitude.div_ceil(scale);
    Some((units as Score * score.signum(), units * scale - magnitude))
}

/// The score of a game that ends `plies` plies away paying `payoff` (not 0) to the player to
/// move, on the default scale of final positions: nearer wins and farther losses score higher.
pub fn decisive(payoff: Score, plies: u32) -> Score {
    debug_assert!(payoff != 0 && plies < DECISIVE as u32);
    payoff.saturating_mul(FINAL_SCALE) - payoff.signum() * plies as Score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisive_scores_round_trip_through_the_table() {
        for ply in [0usize, 1, 7, 40] {
            for s in [0, 5, -5, FINAL_SCALE, -FINAL_SCALE, FINAL_SCALE - 3, -(FINAL_SCALE - 9)] {
                assert_eq!(to_node(from_node(s, ply), ply), s, "score {s} at ply {ply}");
            }
        }
        assert_eq!(from_node(FINAL_SCALE, 3), FINAL_SCALE - 3);
        assert_eq!(from_node(-FINAL_SCALE, 3), -FINAL_SCALE + 3);
    }

    #[test]
    fn decisive_scores_split_into_payoff_and_plies() {
        for payoff in [1, -1, 3, -7] {
            for plies in [0, 1, 9, 1000] {
                assert_eq!(decisive_parts(decisive(payoff, plies)), Some((payoff, plies)));
            }
        }
        assert_eq!(decisive_parts(40), None);
        assert_eq!(decisive(1, 3), FINAL_SCALE - 3);
    }

    #[test]
    fn outcome_is_the_sign() {
        assert_eq!(Outcome::of(3), Outcome::Win);
        assert_eq!(Outcome::of(-FINAL_SCALE), Outcome::Lose);
        assert_eq!(Outcome::of(0), Outcome::Draw);
        assert_eq!(Outcome::of(-1).opposite(), Outcome::Win);
    }
}
