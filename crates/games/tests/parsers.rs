//! Every game's position and move notation (chess FENs and UCI moves included), and the Oware
//! and chess manifests, on generated and mutated inputs: no panic, and every notation error
//! names a column inside the input. A longer run:
//! `PROPTEST_CASES=1000000 cargo test --release -p gamegraph-games --test parsers`.

use gamegraph::{Game, Notation};
use gamegraph_games::{Chess, Connect4, Nim, Othello, Oware, TicTacToe};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2_000)
}

/// Text made of the characters the notations care about, and a few they do not.
fn texts() -> impl Strategy<Value = String> {
    let alphabet = prop::sample::select(vec![
        'X', 'O', '.', '-', ' ', ',', '/', ':', '0', '1', '4', '7', '9', 'a', 'h', 'p', 's', 'é', '\u{0}',
        '\n',
    ]);
    prop::collection::vec(alphabet, 0..90).prop_map(|cs| cs.into_iter().collect())
}

/// Text made of the characters of FENs and UCI moves, and a few others.
fn chess_texts() -> impl Strategy<Value = String> {
    let alphabet = prop::sample::select(vec![
        'K', 'Q', 'R', 'B', 'N', 'P', 'k', 'q', 'r', 'b', 'n', 'p', 'w', '/', ' ', '-', '0', '1', '2', '7',
        '8', '9', 'a', 'e', 'h', 'x', '\u{feff}', 'é',
    ]);
    prop::collection::vec(alphabet, 0..90).prop_map(|cs| cs.into_iter().collect())
}

/// `base` with one slice replaced by generated text.
fn mutated(base: String) -> impl Strategy<Value = String> {
    let len = base.len();
    (0..=len, 0..=6usize, texts()).prop_map(move |(at, cut, insert)| {
        let at = (0..=at).rev().find(|&i| base.is_char_boundary(i)).unwrap_or(0);
        let end = ((at + cut).min(base.len())..=base.len())
            .find(|&i| base.is_char_boundary(i))
            .unwrap_or(base.len());
        format!("{}{}{}", &base[..at], insert, &base[end..])
    })
}

/// Reads `text` as a position of `game` and, whatever it gives, as a move of the start: an error
/// names a column of the text.
fn check<G: Notation>(game: &G, text: &str) -> Result<(), TestCaseError> {
    let width = text.chars().count() + 1;
    match game.parse_position(text) {
        Ok(pos) => {
            let again = game.format_position(&pos);
            prop_assert!(game.parse_position(&again).is_ok(), "{again:?} does not read back");
        }
        Err(e) => prop_assert!(e.column >= 1 && e.column <= width, "{e} for {text:?}"),
    }
    if let Err(e) = game.parse_move(&game.start(), text) {
        prop_assert!(e.column >= 1 && e.column <= width, "{e} for the move {text:?}");
    }
    Ok(())
}

fn start_of<G: Notation>(game: &G) -> String {
    game.format_position(&game.start())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn tictactoe_notation(text in prop_oneof![texts(), mutated("XX.OO....".into())]) {
        check(&TicTacToe, &text)?;
    }

    #[test]
    fn nim_notation(text in prop_oneof![texts(), mutated("3,4,5".into())]) {
        check(&Nim::default(), &text)?;
    }

    #[test]
    fn connect4_notation(text in prop_oneof![texts(), mutated("4453123".into())]) {
        check(&Connect4::default(), &text)?;
        check(&Connect4::new(4, 4).unwrap(), &text)?;
    }

    #[test]
    fn othello_notation(text in prop_oneof![texts(), mutated(start_of(&Othello))]) {
        check(&Othello, &text)?;
    }

    #[test]
    fn oware_notation(text in prop_oneof![texts(), mutated("4,4,4,4,4,4,4,4,4,4,4,4/0,0".into())]) {
        check(&Oware::new(gamegraph_games::oware::Rules::default()), &text)?;
    }

    #[test]
    fn chess_notation(text in prop_oneof![
        chess_texts(),
        mutated("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into()),
        mutated("8/8/8/8/8/2k5/1R6/K7 w - - 130 90".into()),
        mutated("e2e4".into()),
    ]) {
        check(&Chess::new(), &text)?;
    }

    /// A chess table manifest of any content is refused with an error or read, never a panic.
    #[test]
    fn chess_manifests(text in prop_oneof![texts(), mutated(r#"{"format":"gamegraph-chess-dtm-1","tables":[{"material":"KRvK","file":"KRvK.dtm","entries":59136,"bytes":19900,"sha256":"00"}]}"#.into())]) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("manifest.json"), &text).unwrap();
        if let Ok(tables) = gamegraph_games::chess::Tablebase::open(dir.path()) {
            let _ = tables.check_all();
        }
    }

    /// A manifest of any content is refused with an error or read, never a panic.
    #[test]
    fn oware_manifests(text in prop_oneof![texts(), mutated(r#"{"format":"gamegraph-oware-scores-1","rules":"vu","layers":[{"stones":0,"file":"scores.0","positions":1,"sha256":"00"}]}"#.into())]) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("manifest.json"), &text).unwrap();
        std::fs::write(dir.path().join("scores.0"), [0u8]).unwrap();
        let _ = gamegraph_games::oware::Database::open(dir.path());
    }
}

#[test]
fn the_start_positions_read_back() {
    assert!(Othello.parse_position(&start_of(&Othello)).is_ok());
    let _ = Game::start(&Oware::new(gamegraph_games::oware::Rules::default()));
}
