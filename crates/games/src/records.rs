//! Lines of the customary test files of games that have them: the Connect 4 test sets
//! (`moves score`) and Othello's `.obf` (`board side; MOVE:score; ...`). `solve GAME -` reads
//! positions from such lines and writes its answers in the same form, and the benchmarks check
//! the scores these files give. The notation of positions and moves stays in
//! [`gamegraph::Notation`]; only the line formats live here.

use std::path::Path;

use gamegraph::Notation;

use crate::{Chess, Connect4, Nim, Othello, Oware, TicTacToe};

/// How a game reads positions from, and writes solutions to, lines of its test files.
pub trait Records: Notation {
    /// The part of a line of a test file that is the position: the first whitespace-separated
    /// field by default (a Connect 4 file has `moves score`).
    fn record_position<'a>(&self, line: &'a str) -> &'a str {
        line.split_whitespace().next().unwrap_or("")
    }

    /// One line giving a solved position (`text`), its score, its best move if known, and the
    /// scores of its moves if analysed (`None`: not playable): `TEXT SCORE move:score ...` by
    /// default.
    fn format_solution(
        &self,
        text: &str,
        score: i32,
        _best: Option<&str>,
        moves: &[(String, Option<i32>)],
    ) -> String {
        let mut line = format!("{text} {score}");
        for (label, value) in moves {
            let shown = value.map_or_else(|| "full".to_string(), |v| v.to_string());
            line.push_str(&format!(" {label}:{shown}"));
        }
        line
    }
}

impl Records for Connect4 {}
impl Records for TicTacToe {}
impl Records for Nim {}
impl Records for Oware {}

impl Records for Chess {
    /// A FEN, up to a `;` that starts an answer (`FEN; win 31`), so answers read back in.
    fn record_position<'a>(&self, line: &'a str) -> &'a str {
        line.split(';').next().unwrap_or("").trim()
    }
}

/// `.obf` lines: the board and the side to move, then `MOVE:score` entries, best first.
impl Records for Othello {
    fn record_position<'a>(&self, line: &'a str) -> &'a str {
        // The board and the side to move: the first 66 characters, whatever follows.
        let end = line.char_indices().nth(66).map_or(line.len(), |(i, _)| i);
        line[..end].trim_end_matches(';').trim_end()
    }

    fn format_solution(
        &self,
        text: &str,
        score: i32,
        best: Option<&str>,
        moves: &[(String, Option<i32>)],
    ) -> String {
        let mut scored: Vec<&(String, Option<i32>)> = moves.iter().filter(|m| m.1.is_some()).collect();
        scored.sort_by_key(|m| std::cmp::Reverse(m.1));
        if scored.is_empty() {
            return match best {
                Some(best) => format!("{text}; {best}:{score:+};"),
                None => format!("{text}; {score:+};"),
            };
        }
        let listed: Vec<String> = scored.iter().map(|(m, v)| format!("{m}:{:+}", v.unwrap_or(0))).collect();
        format!("{text}; {};", listed.join("; "))
    }
}

/// A line of a test file that could not be read: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file} line {line}: {message}")]
pub struct RecordError {
    /// The file, as given.
    pub file: String,
    /// The 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// A position of a test file with its expected result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestPosition {
    /// The 1-based line it is on.
    pub line: usize,
    /// The position, in the game's notation.
    pub position: String,
    /// The expected score for the player to move.
    pub score: i32,
    /// The moves that achieve it, where the file lists them (in upper case).
    pub best_moves: Vec<String>,
}

/// The positions of a Connect 4 test file (`moves score` a line), the first `first` if given.
pub fn connect4_test_file(
    path: &Path,
    text: &str,
    first: Option<usize>,
) -> Result<Vec<TestPosition>, RecordError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut fields = line.split_whitespace();
        let Some(moves) = fields.next() else { continue };
        let score = fields.next().and_then(|s| s.parse().ok()).ok_or_else(|| RecordError {
            file: path.display().to_string(),
            line: i + 1,
            message: "expected 'moves score'".into(),
        })?;
        out.push(TestPosition { line: i + 1, position: moves.to_string(), score, best_moves: Vec::new() });
        if first.is_some_and(|n| out.len() >= n) {
            break;
        }
    }
    Ok(out)
}

/// The positions of an `.obf` file, with the best score and the moves that reach it.
pub fn obf_file(path: &Path, text: &str) -> Result<Vec<TestPosition>, RecordError> {
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |what: String| RecordError { file: path.display().to_string(), line: i + 1, message: what };
        let mut fields = line.split(';').map(str::trim).filter(|f| !f.is_empty());
        let position = fields.next().ok_or_else(|| bad("no board".into()))?.to_string();
        let mut scored = Vec::new();
        for entry in fields {
            let (mv, score) =
                entry.split_once(':').ok_or_else(|| bad(format!("'{entry}' is not MOVE:SCORE")))?;
            let score: i32 = score.trim().parse().map_err(|_| bad(format!("'{score}' is not a score")))?;
            scored.push((mv.trim().to_ascii_uppercase(), score));
        }
        let score =
            scored.iter().map(|s| s.1).max().ok_or_else(|| bad("no MOVE:SCORE after the board".into()))?;
        let best_moves = scored.iter().filter(|s| s.1 == score).map(|s| s.0.clone()).collect();
        positions.push(TestPosition { line: i + 1, position, score, best_moves });
    }
    Ok(positions)
}

/// A position of an EPD test suite (Win At Chess and its like): the moves a solver should find
/// (`bm`) or must not play (`am`), in SAN as the file writes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpdPosition {
    /// The 1-based line it is on.
    pub line: usize,
    /// The position as a complete FEN (EPD has no move counters: `0 1` is added).
    pub fen: String,
    /// The best moves (`bm`): finding any of them solves the position.
    pub best: Vec<String>,
    /// The moves to avoid (`am`): playing one fails the position.
    pub avoid: Vec<String>,
    /// The position's name (`id`), if given.
    pub id: Option<String>,
}

impl EpdPosition {
    /// Whether a move written in SAN (`san`) solves the position: one of `bm` if any are
    /// given, and none of `am`. Check and mate marks and the `=` of promotions are ignored, as
    /// suites write them inconsistently.
    pub fn is_solved_by(&self, san: &str) -> bool {
        let played = normalise_san(san);
        let listed = |moves: &[String]| moves.iter().any(|m| normalise_san(m) == played);
        (self.best.is_empty() || listed(&self.best)) && !listed(&self.avoid)
    }
}

fn normalise_san(san: &str) -> String {
    san.chars().filter(|c| !matches!(c, '+' | '#' | '=' | '!' | '?')).collect()
}

/// The positions of an EPD file: four FEN fields, then operations `opcode operands;` of which
/// `bm`, `am` and `id` are read and the others skipped. Every position needs `bm` or `am`.
pub fn epd_file(path: &Path, text: &str) -> Result<Vec<EpdPosition>, RecordError> {
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        // `at` is a byte offset into the line; the column counts characters from 1.
        let bad = |at: usize, what: String| RecordError {
            file: path.display().to_string(),
            line: i + 1,
            message: format!("column {}: {what}", line[..at].chars().count() + 1),
        };
        let fields: Vec<(usize, &str)> = words_with_offsets(line).take(4).collect();
        let Some(&(last_at, last)) = fields.get(3) else {
            return Err(bad(
                line.len(),
                "expected four FEN fields (board, side, castling, en passant)".into(),
            ));
        };
        let fen: Vec<&str> = fields.iter().map(|f| f.1).collect();
        let fen = format!("{} 0 1", fen.join(" "));
        crate::chess::parse_fen(&fen).map_err(|e| bad(fields[0].0, e.to_string()))?;
        let mut position = EpdPosition { line: i + 1, fen, best: Vec::new(), avoid: Vec::new(), id: None };
        let operations_at = last_at + last.len();
        let mut at = operations_at;
        for operation in line[operations_at..].split(';') {
            let here = at + operation.len() - operation.trim_start().len();
            at += operation.len() + 1;
            let mut words = operation.split_whitespace();
            let Some(opcode) = words.next() else { continue };
            let operands: Vec<String> = words.map(|w| w.trim_matches('"').to_string()).collect();
            match opcode {
                "bm" | "am" if operands.is_empty() => {
                    return Err(bad(here, format!("'{opcode}' without a move")))
                }
                "bm" => position.best = operands,
                "am" => position.avoid = operands,
                "id" => position.id = Some(operands.join(" ")),
                _ => {}
            }
        }
        if position.best.is_empty() && position.avoid.is_empty() {
            return Err(bad(operations_at, "no 'bm' or 'am' operation".into()));
        }
        positions.push(position);
    }
    Ok(positions)
}

/// The whitespace-separated words of `line` with their byte offsets.
fn words_with_offsets(line: &str) -> impl Iterator<Item = (usize, &str)> {
    line.split_whitespace().map(move |w| (w.as_ptr() as usize - line.as_ptr() as usize, w))
}
