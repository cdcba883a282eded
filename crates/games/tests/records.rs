//! The EPD reader on the Win At Chess suite (a file nobody here wrote) and on broken lines:
//! every best move the suite names is the SAN of exactly one legal move, and every error names
//! its line and a column inside it.

use std::path::Path;

use gamegraph_games::chess::{parse_fen, san::san};
use gamegraph_games::records::epd_file;
use proptest::prelude::*;

const WAC: &str = include_str!("../../../tests/data/chess/wac.epd");

/// `san` without the marks suites write inconsistently.
fn plain(san: &str) -> String {
    san.chars().filter(|c| !matches!(c, '+' | '#' | '=')).collect()
}

#[test]
fn every_best_move_of_win_at_chess_is_one_legal_move() {
    let positions = epd_file(Path::new("wac.epd"), WAC).unwrap();
    assert_eq!(positions.len(), 299, "WAC.001 to WAC.300 but WAC.274");
    assert_eq!(positions[0].id.as_deref(), Some("WAC.001"));
    assert_eq!(positions[104].best, ["Bxg3", "Qxh4"], "WAC.105 names two moves");
    for p in &positions {
        let board = parse_fen(&p.fen).unwrap();
        let mut legal = Vec::new();
        board.generate_moves(|moves| {
            legal.extend(moves.into_iter().map(|m| san(&board, m)));
            false
        });
        for best in &p.best {
            let matching = legal.iter().filter(|m| plain(m) == plain(best)).count();
            assert_eq!(matching, 1, "{}: {best} among {legal:?}", p.id.as_deref().unwrap_or("?"));
            assert!(p.is_solved_by(legal.iter().find(|m| plain(m) == plain(best)).unwrap()));
        }
        for other in legal.iter().filter(|m| !p.best.iter().any(|b| plain(b) == plain(m))) {
            assert!(!p.is_solved_by(other), "{other}");
        }
    }
}

#[test]
fn moves_to_avoid_fail_and_others_pass() {
    let text = "4k3/8/8/8/8/8/4P3/4K3 w - - am e4; id \"avoid\";\n";
    let p = &epd_file(Path::new("t.epd"), text).unwrap()[0];
    assert!(!p.is_solved_by("e4"));
    assert!(p.is_solved_by("e3"));
    assert_eq!(p.fen, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
}

#[test]
fn broken_lines_are_refused_with_their_line_and_column() {
    let cases = [
        ("4k3/8/8/8/8/8/4P3/4K3 w -", "line 2: column 26: expected four FEN fields"),
        ("4k3/8/8/8/8/8/4P3/4K3 w - - id \"x\";", "line 2: column 28: no 'bm' or 'am'"),
        ("4k3/8/8/8/8/8/4P3/4K3 w - - id \"x\"; bm ;", "line 2: column 37: 'bm' without a move"),
        ("4k3/8/8/8/8/9/4P3/4K3 w - - bm e4;", "line 2: column 1:"),
    ];
    for (line, expected) in cases {
        let text = format!("# a comment\n{line}\n");
        let error = epd_file(Path::new("t.epd"), &text).unwrap_err().to_string();
        assert!(error.starts_with(&format!("t.epd {expected}")), "{line}: {error}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// A WAC line with a slice replaced: read or refused, never a panic, and a refusal names a
    /// column of the line (or the one just past its end).
    #[test]
    fn mutated_lines_never_panic(index in 0..299usize, at in 0..120usize, cut in 0..8usize,
                                 insert in "[ -~é;\"]{0,12}") {
        let line = WAC.lines().nth(index).unwrap();
        let at = (0..=at.min(line.len())).rev().find(|&i| line.is_char_boundary(i)).unwrap();
        let end = ((at + cut).min(line.len())..=line.len()).find(|&i| line.is_char_boundary(i)).unwrap();
        let mutated = format!("{}{}{}", &line[..at], insert, &line[end..]);
        if let Err(e) = epd_file(Path::new("m.epd"), &mutated) {
            let message = e.to_string();
            let column: usize = message
                .split("column ").nth(1).and_then(|r| r.split(':').next()).and_then(|c| c.parse().ok())
                .unwrap_or_else(|| panic!("no column in {message}"));
            prop_assert!(column >= 1 && column <= mutated.chars().count() + 1, "{message}");
        }
    }
}
