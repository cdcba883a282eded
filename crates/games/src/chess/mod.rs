//! Chess: the rules through the `cozy-chess` crate (FEN, legal moves), and endgame tablebases
//! built by retrograde analysis on the core's dense path, with the distance to mate of every
//! position of up to five pieces.
//!
//! - [`material`]: which pieces a table holds (`KQvKR`) and which tables its captures and
//!   promotions lead to;
//! - [`index`]: the dense numbering of a table's positions, symmetries folded in;
//! - [`unmove`]: the un-move generator, the predecessors the kernel walks back along;
//! - [`en_passant`]: the positions with an en passant right that pawn moves lead to;
//! - [`evaluate`]: what the alpha-beta engine needs to play: evaluation, move ordering,
//!   quiescence, check extensions, null moves;
//! - [`generate`]: one table as a layer of the core's dense solve;
//! - [`file`](mod@file): the table files (zstd blocks, probed without loading the file);
//! - [`mate`]: mate solving, every first move that forces mate in N moves, exactly;
//! - [`san`]: moves in standard algebraic notation (`Nbd7`, `O-O`, `e8=Q#`), for output;
//! - [`tablebase`]: a directory of tables with its manifest: building, probing, statistics,
//!   verification.
//!
//! Tables hold no castling rights, and values are distances to mate without the 50-move rule, as
//! in the Nalimov and Gaviota tables (see `docs/chess.md`).

pub mod bench;
pub mod digit_order;
pub mod directory;
pub mod en_passant;
pub mod evaluate;
pub mod file;
pub mod generate;
pub mod index;
pub mod leaving;
pub mod mate;
pub mod material;
pub mod moves;
pub mod present;
pub mod san;
pub mod tablebase;
pub mod unmove;

use std::fmt;
use std::sync::Arc;

use cozy_chess::{Board, Color, File, Move, Piece, Rank, Square};
use gamegraph::score::decisive;
use gamegraph::{ExactHints, Game, Notation, NotationError, PositionKey, Score};
use serde::{Deserialize, Serialize};

pub use material::Material;
pub use tablebase::{ProbeError, Tablebase, TablebaseError};

/// A table's value of a position, for the side to move: the distance to mate in plies under
/// optimal play (the winner mates fastest, the loser resists longest), or a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "outcome", content = "plies", rename_all = "lowercase")]
pub enum Dtm {
    /// The side to move mates in this many plies (odd).
    Win(u32),
    /// The side to move is mated in this many plies (even; 0: it is mated now).
    Loss(u32),
    /// Neither side can force mate.
    Draw,
}

impl Dtm {
    /// The value for the player who moves into this position, one ply further from the end.
    pub fn negated(self) -> Dtm {
        match self {
            Dtm::Win(n) => Dtm::Loss(n + 1),
            Dtm::Loss(n) => Dtm::Win(n + 1),
            Dtm::Draw => Dtm::Draw,
        }
    }

    /// The plies to mate, if someone mates.
    pub fn plies(self) -> Option<u32> {
        match self {
            Dtm::Win(n) | Dtm::Loss(n) => Some(n),
            Dtm::Draw => None,
        }
    }

    /// Moves to mate as players count them: the winner's moves (`ceil(plies / 2)`), or the
    /// loser's until he is mated (`plies / 2`).
    pub fn moves(self) -> Option<u32> {
        match self {
            Dtm::Win(n) => Some(n.div_ceil(2)),
            Dtm::Loss(n) => Some(n / 2),
            Dtm::Draw => None,
        }
    }

    /// A move into a position of this value, as an exit of the dense solve.
    fn exit(self) -> gamegraph::dense::Exit {
        let (value, remoteness) = match self {
            Dtm::Win(n) => (-1, n),
            Dtm::Loss(n) => (1, n),
            Dtm::Draw => (0, 0),
        };
        gamegraph::dense::Exit { value, remoteness }
    }

    /// The value, for the player who moves, of a move whose exit is `exit` ([`Dtm::exit`] of the
    /// position it reaches): that position's value [`Dtm::negated`].
    fn of_exit(exit: gamegraph::dense::Exit) -> Dtm {
        match exit.value {
            1 => Dtm::Win(exit.remoteness + 1),
            -1 => Dtm::Loss(exit.remoteness + 1),
            _ => Dtm::Draw,
        }
    }

    /// The engine's score: a win or loss at its distance, 0 for a draw.
    pub fn score(self) -> Score {
        match self {
            Dtm::Win(n) => decisive(1, n),
            Dtm::Loss(n) => decisive(-1, n),
            Dtm::Draw => 0,
        }
    }

    /// Orders values for the player to move: wins first (the fastest first), then draws, then
    /// losses (the slowest first).
    pub fn rank(self) -> i64 {
        match self {
            Dtm::Win(n) => i64::from(u32::MAX) - i64::from(n),
            Dtm::Draw => 0,
            Dtm::Loss(n) => -i64::from(u32::MAX) + i64::from(n),
        }
    }
}

impl fmt::Display for Dtm {
    /// `win 31`, `loss 12`, `draw`: the plies to mate, as one line of `solve chess -`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dtm::Win(n) => write!(f, "win {n}"),
            Dtm::Loss(n) => write!(f, "loss {n}"),
            Dtm::Draw => f.write_str("draw"),
        }
    }
}

/// One stored table entry, two bytes: no position, a draw, or the plies to mate plus one (odd
/// plies: the side to move wins; even: it loses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry(pub u16);

impl Entry {
    /// The entry of an index that is not a position.
    pub const NONE: Entry = Entry(u16::MAX);
    /// The largest distance to mate an entry holds.
    pub const MAX_PLIES: u32 = (Self::BY_CAPTURE - 2) as u32;
    /// Set by a build on an entry whose value the position's best capture gives: a table file
    /// may store any value as good or worse for the side to move there (whatever compresses
    /// best), since a probe takes the better of what is stored and of the captures.
    pub const BY_CAPTURE: u16 = 0x8000;

    /// This entry marked [`Entry::BY_CAPTURE`].
    pub fn by_capture(self) -> Entry {
        Entry(self.0 | Self::BY_CAPTURE)
    }

    /// Whether this entry is a position's, marked [`Entry::BY_CAPTURE`].
    pub fn is_by_capture(self) -> bool {
        self != Entry::NONE && self.0 & Self::BY_CAPTURE != 0
    }

    /// This entry without its [`Entry::BY_CAPTURE`] mark.
    pub fn unmarked(self) -> Entry {
        if self.is_by_capture() {
            Entry(self.0 & !Self::BY_CAPTURE)
        } else {
            self
        }
    }

    /// The entry of a value.
    ///
    /// # Panics
    /// If the distance exceeds [`Entry::MAX_PLIES`] (no table of five pieces comes near).
    pub fn of(dtm: Dtm) -> Entry {
        match dtm.plies() {
            None => Entry(0),
            Some(n) => {
                assert!(n <= Self::MAX_PLIES, "a mate in {n} plies does not fit an entry");
                Entry(n as u16 + 1)
            }
        }
    }

    /// The value, or `None` for an index that is not a position (a [`Entry::BY_CAPTURE`] mark
    /// left aside).
    pub fn dtm(self) -> Option<Dtm> {
        match self.unmarked().0 {
            u16::MAX => None,
            0 => Some(Dtm::Draw),
            n if n % 2 == 0 => Some(Dtm::Win(u32::from(n) - 1)),
            n => Some(Dtm::Loss(u32::from(n) - 1)),
        }
    }
}

/// Chess, optionally with endgame tables that give exact values where they cover a position.
#[derive(Clone, Default)]
pub struct Chess {
    tables: Option<Arc<Tablebase>>,
}

impl fmt::Debug for Chess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chess").field("tables", &self.tables.as_ref().map(|t| t.dir().to_path_buf())).finish()
    }
}

impl Chess {
    /// Chess without tables.
    pub fn new() -> Self {
        Self::default()
    }

    /// Chess whose exact values come from `tables` where they cover a position.
    pub fn with_tables(tables: Arc<Tablebase>) -> Self {
        Self { tables: Some(tables) }
    }

    /// The tables, if any.
    pub fn tables(&self) -> Option<&Tablebase> {
        self.tables.as_deref()
    }

    /// The board drawn as 8 lines of text, rank 8 first, White's pieces in capitals.
    fn picture(board: &Board) -> String {
        let mut out = String::new();
        for rank in Rank::ALL.iter().rev() {
            out.push_str(&format!("{} ", *rank as usize + 1));
            for file in File::ALL {
                out.push(' ');
                out.push(piece_char(board, Square::new(file, *rank)).unwrap_or('.'));
            }
            out.push('\n');
        }
        out.push_str("   a b c d e f g h\n");
        out.push_str(if board.side_to_move() == Color::White { "White to move" } else { "Black to move" });
        out
    }
}

impl Chess {
    /// The board as an 8 x 8 grid, rank 8 first, each piece as its chess symbol; cells play no
    /// move by themselves (a chess move takes two squares: the page lists them).
    pub fn board_view(&self, pos: &Board) -> crate::BoardView {
        const WHITE: [&str; 6] = ["\u{2659}", "\u{2658}", "\u{2657}", "\u{2656}", "\u{2655}", "\u{2654}"];
        const BLACK: [&str; 6] = ["\u{265F}", "\u{265E}", "\u{265D}", "\u{265C}", "\u{265B}", "\u{265A}"];
        let mut cells = Vec::with_capacity(64);
        for rank in Rank::ALL.iter().rev() {
            for file in File::ALL {
                let square = Square::new(file, *rank);
                let cell = match (pos.piece_on(square), pos.color_on(square)) {
                    (Some(p), Some(Color::White)) => crate::Cell::new(WHITE[p as usize], "first", None),
                    (Some(p), _) => crate::Cell::new(BLACK[p as usize], "second", None),
                    _ => crate::Cell::new("", "empty", None),
                };
                cells.push(cell);
            }
        }
        let to_move = if pos.side_to_move() == Color::White { "White" } else { "Black" };
        crate::BoardView { rows: 8, cols: 8, cells, to_move: to_move.into(), note: None }
    }
}

/// The FEN letter of the piece on `square`, if any.
fn piece_char(board: &Board, square: Square) -> Option<char> {
    let piece = board.piece_on(square)?;
    let c = material::letter(piece);
    Some(if board.color_on(square) == Some(Color::White) { c } else { c.to_ascii_lowercase() })
}

/// Whether `mv` is castling, which `cozy-chess` writes as the king taking its own rook.
fn is_castling(board: &Board, mv: Move) -> bool {
    board.piece_on(mv.from) == Some(Piece::King) && board.color_on(mv.to) == Some(board.side_to_move())
}

/// Plies without a capture or a pawn move after which the game is drawn.
const FIFTY_MOVES: u8 = 100;

impl Game for Chess {
    type Position = Board;
    type Move = Move;

    fn start(&self) -> Board {
        Board::default()
    }

    /// The legal moves; none once 50 moves of each side have passed without a capture or a pawn
    /// move (the 50-move rule ends the game drawn, unless the last move mated).
    fn moves(&self, pos: &Board, moves: &mut Vec<Move>) {
        if pos.halfmove_clock() >= FIFTY_MOVES {
            return;
        }
        pos.generate_moves(|piece_moves| {
            moves.extend(piece_moves);
            false
        });
    }

    fn play(&self, pos: &Board, mv: Move) -> Board {
        let mut next = pos.clone();
        next.play_unchecked(mv);
        next
    }

    /// Checkmate loses; stalemate and the 50-move rule draw.
    fn final_loss(&self, pos: &Board) -> gamegraph::Stake {
        let mated = !pos.checkers().is_empty() && !pos.generate_moves(|_| true);
        i32::from(mated)
    }

    const CYCLES: bool = true;
}

impl Notation for Chess {
    fn name(&self) -> String {
        "chess".into()
    }

    /// Standard algebraic notation (`Nf3`, `O-O`, `e8=Q#`), as players and books write moves.
    fn display_move(&self, pos: &Board, mv: Move) -> Option<String> {
        Some(san::san(pos, mv))
    }

    /// Reads a FEN; the error names the field that is wrong.
    fn parse_position(&self, text: &str) -> Result<Board, NotationError> {
        parse_fen(text)
    }

    fn format_position(&self, pos: &Board) -> String {
        pos.to_string()
    }

    /// Reads a move in UCI notation (`e2e4`, `e7e8q`, castling as the king's move `e1g1`).
    fn parse_move(&self, pos: &Board, text: &str) -> Result<Move, NotationError> {
        let mut moves = Vec::new();
        self.moves(pos, &mut moves);
        let wanted = text.trim();
        moves.into_iter().find(|&mv| self.format_move(pos, mv) == wanted.to_ascii_lowercase()).ok_or_else(
            || {
                NotationError::new(
                    1,
                    format!("'{wanted}' is not a legal move here (moves are written like e2e4 or e7e8q)"),
                )
            },
        )
    }

    /// Writes a move in UCI notation, castling as the king's two-square move.
    fn format_move(&self, pos: &Board, mv: Move) -> String {
        if is_castling(pos, mv) {
            let file = if mv.to.file() > mv.from.file() { File::G } else { File::C };
            return format!("{}{}", mv.from, Square::new(file, mv.from.rank()));
        }
        mv.to_string()
    }

    fn render(&self, pos: &Board) -> String {
        Self::picture(pos)
    }
}

/// `text` with a halfmove clock above 100 (a whole number) written as 100: the 50-move rule
/// only asks whether the count reached 100, and a game that went on unclaimed is still a legal
/// position; the board the parser keeps holds at most 100.
fn clamped_halfmove_clock(text: &str) -> std::borrow::Cow<'_, str> {
    let fields: Vec<&str> = text.split(' ').collect();
    match fields.get(4).map(|f| f.parse::<u64>()) {
        Some(Ok(clock)) if clock > u64::from(FIFTY_MOVES) => {
            let mut fields = fields;
            fields[4] = "100";
            std::borrow::Cow::Owned(fields.join(" "))
        }
        _ => std::borrow::Cow::Borrowed(text),
    }
}

/// Checks the pieces field `board` of a FEN: eight ranks separated by `/`, each of eight squares
/// (pieces `KQRBNP`, `kqrbnp`, and runs of 1 to 8 empty squares). The error names the column.
fn check_board_field(board: &str) -> Result<(), NotationError> {
    let ranks: Vec<&str> = board.split('/').collect();
    let mut column = 1;
    for (i, rank) in ranks.iter().enumerate() {
        let mut squares = 0;
        for c in rank.chars() {
            squares += match c {
                '1'..='8' => c.to_digit(10).unwrap_or(0),
                'K' | 'Q' | 'R' | 'B' | 'N' | 'P' | 'k' | 'q' | 'r' | 'b' | 'n' | 'p' => 1,
                '0' | '9' => {
                    return Err(NotationError::new(
                        column,
                        "bad FEN: a rank counts empty squares from 1 to 8",
                    ))
                }
                other => {
                    return Err(NotationError::new(column, format!("bad FEN: '{other}' is not a piece")))
                }
            };
            column += 1;
        }
        if squares != 8 {
            return Err(NotationError::new(
                column,
                format!("bad FEN: rank {} has {squares} squares, not 8", 8 - i.min(8)),
            ));
        }
        column += 1;
    }
    if ranks.len() != 8 {
        return Err(NotationError::new(1, format!("bad FEN: {} ranks, not 8", ranks.len())));
    }
    Ok(())
}

/// Why the well-formed pieces field `board` of a FEN that was refused is no legal position: a
/// missing or second king, a pawn on the first or last rank, or else the side not to move in
/// check.
fn illegal_board(board: &str) -> &'static str {
    let count = |piece: char| board.chars().filter(|&c| c == piece).count();
    let edge_pawn = |rank: Option<&str>| rank.is_some_and(|r| r.contains(['P', 'p']));
    match (count('K'), count('k')) {
        (0, _) => "illegal position: White has no king",
        (_, 0) => "illegal position: Black has no king",
        (1, 1) if edge_pawn(board.split('/').next()) || edge_pawn(board.split('/').nth(7)) => {
            "illegal position: a pawn stands on the first or last rank"
        }
        (1, 1) => "illegal position: the side not to move is in check",
        _ => "illegal position: a side has more than one king",
    }
}

/// Reads a FEN, naming the field that is wrong and its column. The four fields of an EPD
/// position (without the clocks) are read too, with the clocks at 0 and 1.
pub fn parse_fen(text: &str) -> Result<Board, NotationError> {
    use cozy_chess::FenParseError as E;
    let text = text.trim_start_matches('\u{feff}').trim();
    check_board_field(text.split(' ').next().unwrap_or(""))?;
    let full;
    let text = if text.split(' ').count() == 4 {
        full = format!("{text} 0 1");
        full.as_str()
    } else {
        text
    };
    let board = clamped_halfmove_clock(text).parse::<Board>().map_err(|e| {
        let field = match e {
            E::InvalidBoard => 0,
            E::InvalidSideToMove => 1,
            E::InvalidCastlingRights => 2,
            E::InvalidEnPassant => 3,
            E::InvalidHalfMoveClock => 4,
            E::InvalidFullmoveNumber => 5,
            E::MissingField | E::TooManyFields => 6,
        };
        let column = text
            .split(' ')
            .take(field)
            .map(|f| f.chars().count() + 1)
            .sum::<usize>()
            .min(text.chars().count())
            + 1;
        let what = match e {
            E::InvalidBoard => illegal_board(text.split(' ').next().unwrap_or("")),
            E::InvalidSideToMove => "the side to move (w or b)",
            E::InvalidCastlingRights => "the castling rights (KQkq or -)",
            E::InvalidEnPassant => "the en passant square",
            E::InvalidHalfMoveClock => "the halfmove clock",
            E::InvalidFullmoveNumber => "the fullmove number",
            E::MissingField => "a FEN has six fields; some are missing",
            E::TooManyFields => "a FEN has six fields; there are more",
        };
        NotationError::new(column, format!("bad FEN: {what}"))
    })?;
    if kings_touch(&board) {
        return Err(NotationError::new(1, "illegal position: the kings stand side by side"));
    }
    Ok(board)
}

/// Whether the kings stand side by side: cozy-chess accepts such a board, chess does not.
pub fn kings_touch(board: &Board) -> bool {
    cozy_chess::get_king_moves(board.king(Color::White)).has(board.king(Color::Black))
}

impl PositionKey for Chess {
    fn key(&self, pos: &Board) -> u64 {
        pos.hash()
    }
}

impl ExactHints for Chess {
    /// The table's value, where the tables cover the position.
    fn immediate_score(&self, pos: &Board) -> Option<Score> {
        self.tables.as_ref()?.probe(pos).ok().map(Dtm::score)
    }
}

/// Leaves of the move tree `depth` plies below `board`, counting the last ply's moves in bulk.
pub fn perft(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut count = 0;
    if depth == 1 {
        board.generate_moves(|moves| {
            count += moves.len() as u64;
            false
        });
        return count;
    }
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            count += perft(&child, depth - 1);
        }
        false
    });
    count
}
