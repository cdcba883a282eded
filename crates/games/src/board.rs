//! A drawable picture of a position for graphical front ends: a grid of cells, each with its text,
//! a kind that says how to paint it, and the move that clicking it plays. Every game gives one, so
//! the web page draws every game with the same code.

use serde::Serialize;

/// One cell of a [`BoardView`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// What is written in the cell (a count, a mark), possibly empty.
    pub text: String,
    /// How to paint it: `empty`, `first`, `second` (the players' marks or stones), `stone` (a
    /// heap's stone), `pit` or `none` (not part of the board).
    pub kind: &'static str,
    /// The move that clicking the cell plays, in the game's notation, if it is legal now.
    #[serde(rename = "move")]
    pub mv: Option<String>,
}

impl Cell {
    /// A cell with text and kind, and the move it plays.
    pub fn new(text: impl Into<String>, kind: &'static str, mv: Option<String>) -> Self {
        Self { text: text.into(), kind, mv }
    }
}

/// A position as a grid of cells, row by row from the top.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoardView {
    /// Rows of the grid.
    pub rows: usize,
    /// Columns of the grid.
    pub cols: usize,
    /// `rows * cols` cells, row by row from the top left.
    pub cells: Vec<Cell>,
    /// Who moves, in words (`X`, `first player`, ...).
    pub to_move: String,
    /// A line to show under the board (captured stones, say), if any.
    pub note: Option<String>,
}
