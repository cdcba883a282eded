//! How much of a game clock one move may take: the allotment of tournament time controls
//! (time left, increment, moves to the next time control), as chess programs make it. Front
//! ends that play under a clock (UCI, later others) ask here, so that they all spend time alike.

/// Time kept back from every move for the front end and its pipes, in milliseconds.
pub const MOVE_OVERHEAD_MS: u64 = 30;

/// Moves the time left is shared over when the time control does not say (and at most, when it
/// gives more): a game is assumed to last this many more moves.
pub const HORIZON_MOVES: u64 = 30;

/// Share of the increment spent on the move it comes with, in quarters: three quarters, the
/// rest kept against a slow move later.
pub const INCREMENT_QUARTERS: u64 = 3;

/// No single move takes more than the time left divided by this.
pub const MAX_SHARE_OF_LEFT: u64 = 2;

/// The longest time a move is given, whatever a front end asks: a year, in milliseconds (the
/// clock of a machine cannot count much further ahead).
pub const LONGEST_MOVE_MS: u64 = 365 * 24 * 3600 * 1000;

/// Milliseconds to search one move with `left` milliseconds on the clock, `increment` added
/// after each move and `moves_to_go` moves to the next time control (if the control has one):
/// the time left shared over the moves to come, plus most of the increment, never more than
/// half the time left, less the overhead, at least 1.
pub fn move_time(left: u64, increment: u64, moves_to_go: Option<u64>) -> u64 {
    let moves = moves_to_go.unwrap_or(HORIZON_MOVES).clamp(1, HORIZON_MOVES);
    let share = (left / moves).saturating_add(increment / 4 * INCREMENT_QUARTERS);
    share.min(left / MAX_SHARE_OF_LEFT).saturating_sub(MOVE_OVERHEAD_MS).clamp(1, LONGEST_MOVE_MS)
}

/// Milliseconds to search a move given a fixed time for it: the time less the overhead, at
/// least 1.
pub fn fixed_move_time(movetime: u64) -> u64 {
    movetime.saturating_sub(MOVE_OVERHEAD_MS).clamp(1, LONGEST_MOVE_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_the_clock_and_keeps_the_overhead() {
        // 60 s over 30 moves plus three quarters of a 1 s increment, less the overhead.
        assert_eq!(move_time(60_000, 1_000, None), 2_000 + 750 - 30);
        // Moves to go below the horizon share over fewer moves.
        assert_eq!(move_time(60_000, 0, Some(10)), 6_000 - 30);
        // Never more than half the time left.
        assert_eq!(move_time(1_000, 10_000, Some(1)), 500 - 30);
        // An empty clock still searches.
        assert_eq!(move_time(0, 0, None), 1);
        assert_eq!(fixed_move_time(10), 1);
        assert_eq!(fixed_move_time(1_000), 970);
        // A time no clock can count to is a year.
        assert_eq!(fixed_move_time(u64::MAX), LONGEST_MOVE_MS);
        assert_eq!(move_time(u64::MAX, u64::MAX, Some(1)), LONGEST_MOVE_MS);
    }
}
