//! A game being played, move after move, by people, the engine or both: the position, the moves
//! played (with undo), when the game ends (no move left, or a position repeated in games where
//! that ends it), each turn's values and the engine's choice. `gamegraph play` in the terminal is
//! this loop with input and output around it; other front ends drive the same one.

use std::fmt;

use serde::Serialize;

use crate::analysis::{Analysis, AnalysisError, Analyzer};
use crate::BuiltinGame;

/// A game in progress.
pub struct Session<'g, G: BuiltinGame> {
    game: &'g G,
    /// One analyzer for the whole game: its table and its solved graph serve every turn.
    analyzer: Analyzer<'g, G>,
    /// The positions from the first, the current one last.
    positions: Vec<G::Position>,
}

/// What a turn is: the position's values and its moves', or how the game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// The analysis of the position (none where the position repeats: the game is over).
    pub analysis: Option<Analysis>,
    /// How the game ended, if it has.
    pub ending: Option<Ending>,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Ending {
    /// The result for the player to move at the end, in the game's units.
    pub value: i32,
    /// Whether it ended because a position repeated (games with cycles).
    pub repeated: bool,
}

impl fmt::Display for Ending {
    /// `draw`, `the player to move has won (+3)`, `the player to move has lost (-1)`, after
    /// `the position is repeated, ` where it is.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.repeated {
            f.write_str("the position is repeated, ")?;
        }
        match self.value.signum() {
            0 => f.write_str("draw"),
            1 => write!(f, "the player to move has won ({:+})", self.value),
            _ => write!(f, "the player to move has lost ({:+})", self.value),
        }
    }
}

impl<'g, G: BuiltinGame> Session<'g, G> {
    /// A game of `game` from `start`, valued and played by `analyzer`.
    pub fn new(game: &'g G, analyzer: Analyzer<'g, G>, start: G::Position) -> Self {
        Self { game, analyzer, positions: vec![start] }
    }

    /// The position to move from.
    pub fn position(&self) -> &G::Position {
        self.positions.last().expect("a session has a position")
    }

    /// Moves played so far.
    pub fn ply(&self) -> usize {
        self.positions.len() - 1
    }

    /// Whether the position to move from was reached before in this game, in a game where that
    /// ends it.
    pub fn repeated(&self) -> bool {
        let (now, before) = self.positions.split_last().expect("a session has a position");
        G::CYCLES && before.contains(now)
    }

    /// The turn at the position to move from: its analysis, and the ending if the game is over.
    pub fn turn(&mut self) -> Result<Turn, AnalysisError> {
        if self.repeated() {
            let value = self.game.repetition_score(self.position());
            return Ok(Turn { analysis: None, ending: Some(Ending { value, repeated: true }) });
        }
        let analysis = self.analyzer.analyze(self.positions.last().expect("a session has a position"))?;
        let ending =
            analysis.over.then(|| Ending { value: analysis.value.value.unwrap_or(0), repeated: false });
        Ok(Turn { analysis: Some(analysis), ending })
    }

    /// The move the engine plays in `turn` (perfect play where the values are exact: the fastest
    /// win, the slowest loss), `None` when the game is over.
    pub fn engine_move(&mut self, turn: &Turn) -> Option<G::Move> {
        if turn.ending.is_some() {
            return None;
        }
        let position = self.positions.last().expect("a session has a position").clone();
        self.analyzer.best_move(&position, turn.analysis.as_ref()?)
    }

    /// Plays `mv`, a legal move of the position to move from.
    pub fn play(&mut self, mv: G::Move) {
        let next = self.game.play(self.position(), mv);
        self.positions.push(next);
    }

    /// Takes the last move back; false at the first position.
    pub fn undo(&mut self) -> bool {
        if self.positions.len() == 1 {
            return false;
        }
        self.positions.pop();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Budget;
    use crate::{Nim, TicTacToe};
    use gamegraph::engine::EngineSettings;
    use gamegraph::{Game, Notation};

    fn analyzer<G: BuiltinGame>(game: &G) -> Analyzer<'_, G> {
        Analyzer::new(game, Budget::default(), EngineSettings { threads: 1, tt_mib: 1, ..Default::default() })
    }

    #[test]
    fn the_engine_plays_tictactoe_to_a_draw_against_itself_and_undo_goes_back() {
        let game = TicTacToe;
        let mut session = Session::new(&game, analyzer(&game), game.start());
        let ending = loop {
            let turn = session.turn().unwrap();
            if let Some(ending) = turn.ending {
                break ending;
            }
            let mv = session.engine_move(&turn).expect("a move while the game goes on");
            session.play(mv);
        };
        assert_eq!(ending, Ending { value: 0, repeated: false });
        assert_eq!(ending.to_string(), "draw");
        assert_eq!(session.ply(), 9);
        assert!(session.undo());
        assert_eq!(session.ply(), 8);
        while session.undo() {}
        assert_eq!(session.position(), &game.start());
    }

    #[test]
    fn perfect_play_wins_a_won_nim_position() {
        let game = Nim::default();
        let start = game.parse_position("1,2").unwrap();
        let mut session = Session::new(&game, analyzer(&game), start);
        let mut plies = 0;
        let ending = loop {
            let turn = session.turn().unwrap();
            if let Some(ending) = turn.ending {
                break ending;
            }
            let mv = session.engine_move(&turn).unwrap();
            session.play(mv);
            plies += 1;
        };
        // The first player wins: the last stone is his, the opponent is left without a move.
        assert_eq!(plies % 2, 1);
        assert!(ending.value < 0, "the player to move at the end has lost: {ending}");
    }
}
