//! Tic-tac-toe: X moves first, three in a row wins, a full board without a line is a draw.
//!
//! Positions are two 9-bit masks; the side to move follows from the counts. Notation: nine
//! characters row by row, `X`, `O` and `.` (`X...O....`); moves are the cells 1 to 9 row by row.
//! Implements every opt-in trait, so it is also the test bed for the un-move path of the
//! retrograde kernel.

use gamegraph::game::{
    DenseIndex, Evaluate, ExactHints, Game, MoveOrdering, Notation, NotationError, Payoff, PositionKey,
    Selectivity, Stake, Unmoves,
};
use gamegraph::SearchContext;

/// The eight lines, as cell masks.
const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

/// Cell permutations of the square's eight symmetries: `image[c]` is where cell `c` goes.
const SYMMETRIES: [[u8; 9]; 8] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8],
    [2, 5, 8, 1, 4, 7, 0, 3, 6],
    [8, 7, 6, 5, 4, 3, 2, 1, 0],
    [6, 3, 0, 7, 4, 1, 8, 5, 2],
    [2, 1, 0, 5, 4, 3, 8, 7, 6],
    [6, 7, 8, 3, 4, 5, 0, 1, 2],
    [0, 3, 6, 1, 4, 7, 2, 5, 8],
    [8, 5, 2, 7, 4, 1, 6, 3, 0],
];

/// The rules of tic-tac-toe.
#[derive(Debug, Clone, Copy, Default)]
pub struct TicTacToe;

/// A board: the cells of X and of O (bit `c` is cell `c`, row by row from the top left).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Board {
    x: u16,
    o: u16,
}

impl Board {
    /// Whether X is to move (X moves first).
    pub fn x_to_move(self) -> bool {
        self.x.count_ones() == self.o.count_ones()
    }

    /// The stones of the player to move and of the other player.
    fn sides(self) -> (u16, u16) {
        if self.x_to_move() {
            (self.x, self.o)
        } else {
            (self.o, self.x)
        }
    }

    fn empty(self) -> u16 {
        !(self.x | self.o) & 0o777
    }

    /// Whether the player who just moved has three in a row.
    pub fn last_mover_won(self) -> bool {
        has_line(self.sides().1)
    }

    fn map(self, image: &[u8; 9]) -> Board {
        let permute = |m: u16| (0..9).filter(|&c| m >> c & 1 == 1).fold(0u16, |acc, c| acc | 1 << image[c]);
        Board { x: permute(self.x), o: permute(self.o) }
    }
}

fn has_line(stones: u16) -> bool {
    LINES.iter().any(|&line| line & !stones == 0)
}

impl Game for TicTacToe {
    type Position = Board;
    type Move = u8;

    fn start(&self) -> Board {
        Board { x: 0, o: 0 }
    }

    fn moves(&self, pos: &Board, moves: &mut Vec<u8>) {
        if pos.last_mover_won() {
            return;
        }
        let empty = pos.empty();
        moves.extend((0..9).filter(|&c| empty >> c & 1 == 1));
    }

    fn play(&self, pos: &Board, mv: u8) -> Board {
        let bit = 1 << mv;
        if pos.x_to_move() {
            Board { x: pos.x | bit, ..*pos }
        } else {
            Board { o: pos.o | bit, ..*pos }
        }
    }

    fn final_loss(&self, pos: &Board) -> Stake {
        Stake::from(pos.last_mover_won())
    }
}

impl Notation for TicTacToe {
    fn name(&self) -> String {
        "tictactoe".into()
    }

    fn parse_position(&self, text: &str) -> Result<Board, NotationError> {
        let mut board = Board { x: 0, o: 0 };
        let mut cells = 0;
        for (i, ch) in text.trim_end().chars().enumerate() {
            if cells == 9 {
                return Err(NotationError::new(i + 1, "a board has 9 cells; remove the extra characters"));
            }
            match ch {
                'X' | 'x' => board.x |= 1 << cells,
                'O' | 'o' => board.o |= 1 << cells,
                '.' | '-' | '_' => {}
                other => {
                    return Err(NotationError::new(
                        i + 1,
                        format!("'{other}' is not a cell (use X, O or .)"),
                    ));
                }
            }
            cells += 1;
        }
        if cells < 9 {
            return Err(NotationError::new(cells + 1, format!("a board has 9 cells, found {cells}")));
        }
        let (nx, no) = (board.x.count_ones(), board.o.count_ones());
        if nx != no && nx != no + 1 {
            return Err(NotationError::new(
                1,
                format!("X moves first, so X has as many stones as O or one more (X {nx}, O {no})"),
            ));
        }
        if has_line(board.sides().0) {
            return Err(NotationError::new(
                1,
                "the player to move already has three in a row: the game ended earlier",
            ));
        }
        Ok(board)
    }

    fn format_position(&self, pos: &Board) -> String {
        (0..9)
            .map(|c| match (pos.x >> c & 1, pos.o >> c & 1) {
                (1, _) => 'X',
                (_, 1) => 'O',
                _ => '.',
            })
            .collect()
    }

    fn parse_move(&self, pos: &Board, text: &str) -> Result<u8, NotationError> {
        let cell: u8 = match text.trim().parse() {
            Ok(c @ 1..=9) => c - 1,
            _ => {
                return Err(NotationError::new(
                    1,
                    format!("'{}' is not a cell number from 1 to 9", text.trim()),
                ))
            }
        };
        let mut legal = Vec::new();
        self.moves(pos, &mut legal);
        if legal.contains(&cell) {
            Ok(cell)
        } else if legal.is_empty() {
            Err(NotationError::new(1, "the game is over"))
        } else {
            Err(NotationError::new(1, format!("cell {} is taken", cell + 1)))
        }
    }

    fn format_move(&self, _pos: &Board, mv: u8) -> String {
        (mv + 1).to_string()
    }

    fn render(&self, pos: &Board) -> String {
        let s: Vec<char> = self.format_position(pos).chars().collect();
        let cell = |c: usize| {
            if s[c] == '.' {
                char::from(b'1' + c as u8)
            } else {
                s[c]
            }
        };
        let row = |r: usize| format!(" {} | {} | {}", cell(3 * r), cell(3 * r + 1), cell(3 * r + 2));
        let to_move = if pos.x_to_move() { 'X' } else { 'O' };
        format!("{}\n---+---+---\n{}\n---+---+---\n{}\n({to_move} to move)", row(0), row(1), row(2))
    }
}

impl DenseIndex for TicTacToe {
    fn index_len(&self) -> u64 {
        3u64.pow(9)
    }

    fn index(&self, pos: &Board) -> u64 {
        (0..9).rev().fold(0, |acc, c| acc * 3 + u64::from(pos.x >> c & 1) + 2 * u64::from(pos.o >> c & 1))
    }

    fn position(&self, index: u64) -> Option<Board> {
        let mut board = Board { x: 0, o: 0 };
        let mut rest = index;
        for c in 0..9 {
            match rest % 3 {
                1 => board.x |= 1 << c,
                2 => board.o |= 1 << c,
                _ => {}
            }
            rest /= 3;
        }
        let (nx, no) = (board.x.count_ones(), board.o.count_ones());
        let counts_ok = nx == no || nx == no + 1;
        (rest == 0 && counts_ok && !has_line(board.sides().0)).then_some(board)
    }
}

impl Unmoves for TicTacToe {
    fn unmoves(&self, pos: &Board, out: &mut Vec<Board>) {
        let last_mover = pos.sides().1;
        for c in (0..9).filter(|&c| last_mover >> c & 1 == 1) {
            let bit = !(1u16 << c);
            let before = if pos.x_to_move() {
                Board { o: pos.o & bit, ..*pos }
            } else {
                Board { x: pos.x & bit, ..*pos }
            };
            if !has_line(before.x) && !has_line(before.o) {
                out.push(before);
            }
        }
    }
}

impl PositionKey for TicTacToe {
    fn key(&self, pos: &Board) -> u64 {
        self.index(pos)
    }
}

impl TicTacToe {
    /// One representative of the position's class under the board's eight symmetries, equal for
    /// all its images (the published count of classes is checked with it).
    pub fn canonical(&self, pos: &Board) -> Board {
        SYMMETRIES.iter().map(|s| pos.map(s)).min().expect("eight symmetries")
    }
}

impl ExactHints for TicTacToe {}

impl Payoff for TicTacToe {}

impl Evaluate for TicTacToe {
    /// Lines still open to the player to move minus lines open to the other.
    fn evaluate(&self, pos: &Board) -> i32 {
        let (me, them) = pos.sides();
        let open = |blocker: u16| LINES.iter().filter(|&&l| l & blocker == 0).count() as i32;
        open(them) - open(me)
    }
}

impl MoveOrdering for TicTacToe {
    /// Centre, then corners, then edges.
    fn order_moves(&self, _pos: &Board, moves: &mut [u8], _depth: u32, _context: &mut SearchContext<'_>) {
        const RANK: [u8; 9] = [1, 2, 1, 2, 0, 2, 1, 2, 1];
        moves.sort_by_key(|&c| RANK[c as usize]);
    }
}

impl Selectivity for TicTacToe {}

impl TicTacToe {
    /// The board as a 3 x 3 grid; an empty cell plays there.
    pub fn board_view(&self, pos: &Board) -> crate::BoardView {
        let mut legal = Vec::new();
        self.moves(pos, &mut legal);
        let cells = self
            .format_position(pos)
            .chars()
            .enumerate()
            .map(|(c, mark)| {
                let mv = legal.contains(&(c as u8)).then(|| (c + 1).to_string());
                match mark {
                    'X' => crate::Cell::new("X", "first", None),
                    'O' => crate::Cell::new("O", "second", None),
                    _ => crate::Cell::new("", "empty", mv),
                }
            })
            .collect();
        let to_move = if pos.x_to_move() { "X" } else { "O" };
        crate::BoardView { rows: 3, cols: 3, cells, to_move: to_move.into(), note: None }
    }
}
