//! Awari / Oware: twelve pits, four stones each at the start, sowing and capturing, in two rule
//! variants ([`Rules`]), with the endgame databases of the published Awari solution.
//!
//! A position is seen from the player to move: pits 0-5 are his, 6-11 the opponent's, and sowing
//! goes up from 0 to 11 and round. Notation: the twelve pit counts, pit 0 first, separated by
//! commas, optionally followed by `/` and the stones captured so far by the player to move and by
//! the opponent (`4,4,4,4,4,4,4,4,4,4,4,4/0,0`). A move is the number of the pit sown, 0 to 5.
//!
//! Values count stones: what the player to move will capture from now on minus what the opponent
//! will, so a position's payoff is the captured difference so far plus that. A repeated position
//! ends the game with the stones left shared evenly (worth 0). Under the abapa rules the game
//! also ends when a player holds 25 stones; values then still count the stones to the end of
//! play, which cannot change who wins, since captured stones are never lost.
//!
//! - [`rules`]: sowing, captures, legality, forwards and backwards;
//! - [`rank`]: the published dense index of the boards with `n` stones;
//! - [`layer`]: one stone count solved by the core retrograde kernel;
//! - [`database`]: the score files on disk, built by stone count, verified and read back;
//! - [`directory`]: the score files behind [`crate::databases::DatabaseDirectory`], built on
//!   one machine or over a cluster.

pub mod database;
pub mod directory;
pub mod layer;
pub mod rank;
pub mod rules;

use std::sync::Arc;

use gamegraph::game::{
    Evaluate, ExactHints, Game, MoveOrdering, Notation, NotationError, Payoff, PositionKey, Selectivity,
    Stake,
};
use gamegraph::SearchContext;

pub use database::Database;
pub use rank::Ranking;
pub use rules::{Ending, Rules};

/// Pits on the board.
pub const PITS: usize = 12;

/// Stones in the game.
pub const MAX_STONES: usize = 48;

/// Stones per pit at the start.
pub const START_STONES: u8 = 4;

/// A board seen from the player to move: pits 0-5 are his.
pub type Pits = [u8; PITS];

/// A position: the board and the stones captured so far, both from the player to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OwarePosition {
    /// The pits, from the player to move.
    pub pits: Pits,
    /// Stones captured by the player to move, then by the opponent.
    pub captured: [u8; 2],
}

impl OwarePosition {
    /// The captured difference so far, for the player to move.
    pub fn captured_lead(&self) -> i32 {
        i32::from(self.captured[0]) - i32::from(self.captured[1])
    }
}

/// Awari / Oware under one rule variant, with a database for exact values if one is loaded.
#[derive(Clone, Default)]
pub struct Oware {
    rules: Rules,
    database: Option<Arc<Database>>,
}

impl std::fmt::Debug for Oware {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oware")
            .field("rules", &self.rules)
            .field("database_stones", &self.database.as_ref().map(|d| d.stones()))
            .finish()
    }
}

impl Oware {
    /// The game under `rules`, without a database.
    pub fn new(rules: Rules) -> Self {
        Self { rules, database: None }
    }

    /// The game with a database, whose rules it takes: exact values at every position with at
    /// most [`Database::stones`] stones on the board.
    pub fn with_database(database: impl Into<Arc<Database>>) -> Self {
        let database = database.into();
        Self { rules: database.rules(), database: Some(database) }
    }

    /// The rule variant.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The database, if one is loaded.
    pub fn database(&self) -> Option<&Database> {
        self.database.as_deref()
    }

    /// The exact payoff of `pos` for the player to move if the database covers it: the captured
    /// difference so far plus the database value.
    pub fn exact_score(&self, pos: &OwarePosition) -> Option<i32> {
        let value = self.database.as_ref()?.value(&pos.pits)?;
        Some(pos.captured_lead() + i32::from(value))
    }
}

impl Game for Oware {
    type Position = OwarePosition;
    type Move = u8;

    fn start(&self) -> OwarePosition {
        OwarePosition { pits: [START_STONES; PITS], captured: [0, 0] }
    }

    fn moves(&self, pos: &OwarePosition, moves: &mut Vec<u8>) {
        moves.extend(self.rules.sowings(&pos.pits).as_slice().iter().map(|m| m.pit));
    }

    fn play(&self, pos: &OwarePosition, mv: u8) -> OwarePosition {
        let moves = self.rules.sowings(&pos.pits);
        let m = moves.as_slice().iter().find(|m| m.pit == mv).expect("a legal move");
        OwarePosition { pits: m.child, captured: [pos.captured[1], pos.captured[0] + m.captured] }
    }

    fn final_loss(&self, pos: &OwarePosition) -> Stake {
        let left = rules::stones(&pos.pits) as i32;
        match self.rules.ending(&pos.pits) {
            Some(Ending::MoverTakes) => -(pos.captured_lead() + left),
            _ => -(pos.captured_lead() - left),
        }
    }

    const CYCLES: bool = true;

    /// A repetition ends the game with the stones left shared evenly: what was captured so far
    /// decides.
    fn repetition_loss(&self, pos: &OwarePosition) -> Stake {
        -pos.captured_lead()
    }
}

impl Payoff for Oware {
    /// Scores are stones, as the stakes of final positions are.
    fn payoff_score(&self, loss: Stake) -> i32 {
        -loss
    }
}

impl Evaluate for Oware {
    /// The captured difference: stones are the whole score.
    fn evaluate(&self, pos: &OwarePosition) -> i32 {
        pos.captured_lead()
    }
}

impl MoveOrdering for Oware {
    /// Captures first, the largest first.
    fn order_moves(
        &self,
        pos: &OwarePosition,
        moves: &mut [u8],
        _depth: u32,
        _context: &mut SearchContext<'_>,
    ) {
        let sowings = self.rules.sowings(&pos.pits);
        let captured = |mv: u8| sowings.as_slice().iter().find(|m| m.pit == mv).map_or(0, |m| m.captured);
        moves.sort_by_key(|&mv| std::cmp::Reverse(captured(mv)));
    }

    fn move_id(&self, mv: u8) -> Option<u16> {
        Some(u16::from(mv))
    }
}

impl Selectivity for Oware {}

impl ExactHints for Oware {
    /// The database's value, where it covers the position.
    fn immediate_score(&self, pos: &OwarePosition) -> Option<i32> {
        self.exact_score(pos)
    }

    fn score_bounds(&self, pos: &OwarePosition, _alpha: i32, _beta: i32) -> (i32, i32) {
        let left = rules::stones(&pos.pits) as i32;
        (pos.captured_lead() - left, pos.captured_lead() + left)
    }
}

impl PositionKey for Oware {
    fn key(&self, pos: &OwarePosition) -> u64 {
        let mut key = 0xcbf2_9ce4_8422_2325u64;
        for &b in pos.pits.iter().chain(&pos.captured) {
            key = (key ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        key ^ (key >> 29)
    }
}

impl Notation for Oware {
    fn name(&self) -> String {
        "oware".into()
    }

    fn parse_position(&self, text: &str) -> Result<OwarePosition, NotationError> {
        let (board, captured) = match text.find('/') {
            Some(slash) => (&text[..slash], Some((&text[slash + 1..], slash + 2))),
            None => (text, None),
        };
        let pits = parse_counts(board, 1, PITS, "pit")?;
        let captured = match captured {
            Some((text, column)) => parse_counts(text, column, 2, "captured total")?,
            None => vec![0, 0],
        };
        let on_board: usize = pits.iter().map(|&p| usize::from(p)).sum();
        let total = on_board + captured.iter().map(|&c| usize::from(c)).sum::<usize>();
        if total > MAX_STONES {
            return Err(NotationError::new(1, format!("{total} stones in all, the game has {MAX_STONES}")));
        }
        Ok(OwarePosition { pits: pits.try_into().expect("counted"), captured: [captured[0], captured[1]] })
    }

    fn format_position(&self, pos: &OwarePosition) -> String {
        let pits: Vec<String> = pos.pits.iter().map(u8::to_string).collect();
        let mut text = pits.join(",");
        if pos.captured != [0, 0] {
            text += &format!("/{},{}", pos.captured[0], pos.captured[1]);
        }
        text
    }

    fn parse_move(&self, pos: &OwarePosition, text: &str) -> Result<u8, NotationError> {
        let pit = match text.trim().parse::<u8>() {
            Ok(p) if p < 6 => p,
            _ => {
                return Err(NotationError::new(
                    1,
                    format!("'{}' is not a pit of yours (0 to 5)", text.trim()),
                ))
            }
        };
        let mut moves = Vec::new();
        self.moves(pos, &mut moves);
        if moves.contains(&pit) {
            Ok(pit)
        } else if pos.pits[usize::from(pit)] == 0 {
            Err(NotationError::new(1, format!("pit {pit} is empty")))
        } else if moves.is_empty() {
            Err(NotationError::new(1, "the game is over"))
        } else {
            Err(NotationError::new(1, format!("pit {pit} would leave the opponent without stones")))
        }
    }

    fn format_move(&self, _pos: &OwarePosition, mv: u8) -> String {
        mv.to_string()
    }

    fn render(&self, pos: &OwarePosition) -> String {
        let row = |pits: &mut dyn Iterator<Item = usize>| {
            pits.map(|i| format!("{:>3}", pos.pits[i])).collect::<Vec<_>>().join(" ")
        };
        format!(
            "  pit {}\n      {}   captured {}  (opponent)\n      {}   captured {}  (to move)\n  pit {}",
            (6..12).rev().map(|i| format!("{i:>3}")).collect::<Vec<_>>().join(" "),
            row(&mut (6..12).rev()),
            pos.captured[1],
            row(&mut (0..6)),
            pos.captured[0],
            (0..6).map(|i| format!("{i:>3}")).collect::<Vec<_>>().join(" "),
        )
    }
}

impl Oware {
    /// The opponent's pits 11 to 6 on top, the mover's pits 0 to 5 below; a pit of the mover plays
    /// when its move is legal.
    pub fn board_view(&self, pos: &OwarePosition) -> crate::BoardView {
        let mut legal = Vec::new();
        self.moves(pos, &mut legal);
        let pit = |i: usize| {
            let mv = (i < 6 && legal.contains(&(i as u8))).then(|| i.to_string());
            crate::Cell::new(pos.pits[i].to_string(), "pit", mv)
        };
        let cells = (6..12).rev().chain(0..6).map(pit).collect();
        let mut note = format!(
            "captured: {} by the player to move, {} by the opponent",
            pos.captured[0], pos.captured[1]
        );
        // A pit with stones that cannot be played would leave the opponent without stones while
        // another move leaves them some (both rule variants forbid it).
        if (0..6).any(|i| pos.pits[i] > 0 && !legal.contains(&(i as u8))) {
            note.push_str(
                "; a pit with stones that cannot be played would leave the opponent without stones, \
                 which is not allowed while another move leaves them some",
            );
        }
        crate::BoardView { rows: 2, cols: 6, cells, to_move: "bottom row".into(), note: Some(note) }
    }
}

/// Reads `count` comma-separated stone counts starting at 1-based `column`.
fn parse_counts(text: &str, column: usize, count: usize, what: &str) -> Result<Vec<u8>, NotationError> {
    let mut values = Vec::with_capacity(count);
    let mut at = column;
    for field in text.split(',') {
        let start = at + (field.len() - field.trim_start().len());
        if values.len() == count {
            return Err(NotationError::new(start, format!("more than {count} {what} counts")));
        }
        match field.trim().parse::<u8>() {
            Ok(v) if usize::from(v) <= MAX_STONES => values.push(v),
            _ => {
                return Err(NotationError::new(
                    start,
                    format!("'{}' is not a stone count (0 to 48)", field.trim()),
                ))
            }
        }
        at += field.len() + 1;
    }
    if values.len() < count {
        return Err(NotationError::new(at - 1, format!("{} {what} counts, expected {count}", values.len())));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pit with stones that the feeding rule forbids is explained under the board, in both
    /// variants; a position where every pit with stones plays says nothing of it.
    #[test]
    fn the_board_says_why_a_pit_with_stones_cannot_be_played() {
        for rules in Rules::ALL {
            let game = Oware::new(rules);
            // The opponent has nothing: pit 0 (one stone, to pit 1) would leave them nothing;
            // pit 5 feeds them.
            let pos = game.parse_position("1,0,0,0,0,1,0,0,0,0,0,0/20,26").unwrap();
            let view = game.board_view(&pos);
            let note = view.note.unwrap();
            assert!(note.contains("would leave the opponent without stones"), "{rules}: {note}");
            assert!(view.cells[6].mv.is_none() && view.cells[11].mv.is_some(), "{rules}");
            let start = game.board_view(&game.start()).note.unwrap();
            assert!(!start.contains("cannot be played"), "{start}");
        }
    }

    #[test]
    fn notation_round_trips_and_reports_columns() {
        let game = Oware::new(Rules::Vu);
        let pos = game.parse_position("1,1,1,1,1,2,4,2,3,0,0,0/10,6").unwrap();
        assert_eq!(pos.pits, [1, 1, 1, 1, 1, 2, 4, 2, 3, 0, 0, 0]);
        assert_eq!(pos.captured, [10, 6]);
        assert_eq!(game.format_position(&pos), "1,1,1,1,1,2,4,2,3,0,0,0/10,6");
        assert_eq!(game.parse_position("4,4,4,4,x,4,4,4,4,4,4,4").unwrap_err().column, 9);
        assert_eq!(game.parse_position("4,4,4").unwrap_err().column, 6);
        assert_eq!(game.parse_position("4,4,4,4,4,4,4,4,4,4,4,4/1,1").unwrap_err().column, 1);
        assert_eq!(game.parse_position("0,0,0,0,0,0,0,0,0,0,0,0/1,y").unwrap_err().column, 27);
        assert!(game.parse_move(&game.start(), "6").is_err());
    }

    #[test]
    fn captures_move_to_the_mover_and_sides_swap() {
        let game = Oware::new(Rules::Vu);
        let pos = game.parse_position("0,0,0,0,0,3,0,2,1,0,0,1/2,1").unwrap();
        let next = game.play(&pos, 5);
        assert_eq!(next.captured, [1, 7]);
        assert_eq!(next.pits, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    }
}
