//! Connect 4 as text and as a grid: the columns played (`4453`), a column as a move, the board
//! drawn for the terminal and for graphical front ends.

use super::*;

impl Notation for Connect4 {
    fn name(&self) -> String {
        "connect4".into()
    }

    fn parse_position(&self, text: &str) -> Result<Board, NotationError> {
        let mut b = self.start();
        for (i, ch) in text.trim_end().chars().enumerate() {
            let column = i + 1;
            let c = ch.to_digit(36).filter(|&d| d >= 1).ok_or_else(|| {
                NotationError::new(column, format!("'{ch}' is not a column (1 to {})", self.width))
            })? - 1;
            if c >= self.width {
                return Err(NotationError::new(
                    column,
                    format!("column {} does not exist on a board {} wide", c + 1, self.width),
                ));
            }
            if self.last_mover_won(&b) {
                return Err(NotationError::new(column, format!("the game is over: move {i} already won")));
            }
            if !self.can_play(&b, c) {
                return Err(NotationError::new(column, format!("column {} is full", c + 1)));
            }
            b = self.play(&b, c as u8);
        }
        Ok(b)
    }

    fn format_position(&self, b: &Board) -> String {
        let columns = self.sequence(b).unwrap_or_default();
        columns.iter().map(|&c| char::from_digit(c + 1, 36).unwrap_or('?')).collect()
    }

    /// The columns as the user gave them, when they read as `b` (a board has many sequences).
    fn format_given(&self, text: &str, b: &Board) -> Option<String> {
        let text = text.trim_start_matches('\u{feff}').trim();
        (self.parse_position(text).ok() == Some(*b)).then(|| text.to_string())
    }

    fn format_after(&self, text: &str, b: &Board, mv: u8) -> Option<String> {
        let column = char::from_digit(u32::from(mv) + 1, 36).unwrap_or('?');
        Some(format!("{}{column}", self.format_given(text, b).unwrap_or_else(|| self.format_position(b))))
    }

    fn parse_move(&self, b: &Board, text: &str) -> Result<u8, NotationError> {
        let text = text.trim();
        let c = match text.parse::<u32>() {
            Ok(c) if (1..=self.width).contains(&c) => c - 1,
            _ => {
                return Err(NotationError::new(
                    1,
                    format!("'{text}' is not a column from 1 to {}", self.width),
                ))
            }
        };
        if self.is_final(b) {
            return Err(NotationError::new(1, "the game is over"));
        }
        if !self.can_play(b, c) {
            return Err(NotationError::new(1, format!("column {} is full", c + 1)));
        }
        Ok(c as u8)
    }

    fn format_move(&self, _b: &Board, mv: u8) -> String {
        (u32::from(mv) + 1).to_string()
    }

    /// Every column, `None` where it is full (or the game is over).
    fn move_slots(&self, b: &Board) -> Vec<(String, Option<u8>)> {
        let over = self.is_final(b);
        (0..self.width)
            .map(|c| ((c + 1).to_string(), (!over && self.can_play(b, c)).then_some(c as u8)))
            .collect()
    }

    fn render(&self, b: &Board) -> String {
        let mut out = String::new();
        for r in (0..self.height).rev() {
            for c in 0..self.width {
                out.push(match self.stone(b, c, r) {
                    Some(true) => 'X',
                    Some(false) => 'O',
                    None => '.',
                });
                out.push(' ');
            }
            out.pop();
            out.push('\n');
        }
        out.push_str(
            &(1..=self.width)
                .map(|c| char::from_digit(c, 36).unwrap_or('?').to_string())
                .collect::<Vec<_>>()
                .join(" "),
        );
        let side = if self.first_player_to_move(b) { 'X' } else { 'O' };
        out.push_str(&format!("\n({side} to move)"));
        out
    }
}

impl Connect4 {
    /// Whose stone is in column `c`, row `r` (0 at the bottom): `Some(true)` for the first player.
    pub(super) fn stone(&self, b: &Board, c: u32, r: u32) -> Option<bool> {
        let (first, second) = if self.first_player_to_move(b) {
            (b.current, b.current ^ b.mask)
        } else {
            (b.current ^ b.mask, b.current)
        };
        let bit = 1u64 << (c * (self.height + 1) + r);
        match (first & bit != 0, second & bit != 0) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }

    /// The board as a grid, top row first; every cell of a playable column plays there.
    pub fn board_view(&self, b: &Board) -> crate::BoardView {
        let over = self.is_final(b);
        let mut cells = Vec::new();
        for r in (0..self.height).rev() {
            for c in 0..self.width {
                let mv = (!over && self.can_play(b, c)).then(|| (c + 1).to_string());
                cells.push(match self.stone(b, c, r) {
                    Some(true) => crate::Cell::new("", "first", mv),
                    Some(false) => crate::Cell::new("", "second", mv),
                    None => crate::Cell::new("", "empty", mv),
                });
            }
        }
        let to_move =
            if self.first_player_to_move(b) { "first player (red)" } else { "second player (yellow)" };
        crate::BoardView {
            rows: self.height as usize,
            cols: self.width as usize,
            cells,
            to_move: to_move.into(),
            note: None,
        }
    }
}
