//! Every text and file parser of the core run on generated and mutated inputs: none panics, and
//! every error names a line and column inside the input. The test command runs a few thousand
//! cases of each; a longer run: `PROPTEST_CASES=1000000 cargo test --release -p gamegraph --test
//! parsers`.

use gamegraph::database::{Database, Entry};
use gamegraph::graph_text::{parse_edges, parse_text, ParseError};
use gamegraph::tree::Tree;
use gamegraph::{Model, Outcome};
use proptest::prelude::*;

/// Cases per property: `PROPTEST_CASES` if set, else enough to run in a few seconds.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(3_000)
}

/// Text made of the characters the formats care about, and a few they do not.
fn texts() -> impl Strategy<Value = String> {
    let alphabet = prop::sample::select(vec![
        '(', ')', ' ', '\n', '\t', '-', '>', '=', '#', '0', '1', '9', 'A', 'b', '_', '\u{0}', '\u{feff}',
        'é', '\r', ',', '7', '8',
    ]);
    prop::collection::vec(alphabet, 0..120).prop_map(|cs| cs.into_iter().collect())
}

/// `base` with one slice replaced by generated text: inputs close to valid ones.
fn mutated(base: &'static str) -> impl Strategy<Value = String> {
    (0..=base.len(), 0..=8usize, texts()).prop_map(move |(at, cut, insert)| {
        let at = (0..=at).rev().find(|&i| base.is_char_boundary(i)).unwrap_or(0);
        let end = (at + cut).min(base.len());
        let end = (end..=base.len()).find(|&i| base.is_char_boundary(i)).unwrap_or(base.len());
        format!("{}{}{}", &base[..at], insert, &base[end..])
    })
}

/// An error's position lies inside the input (a column may point just past a line's end).
fn inside(text: &str, e: &ParseError) -> bool {
    // Lines as the parsers count them: the end of the input after a newline is on the next one.
    let lines: Vec<&str> = text.split('\n').collect();
    e.line >= 1 && e.column >= 1 && e.line <= lines.len() && e.column <= lines[e.line - 1].chars().count() + 2
}

fn database_bytes() -> Vec<u8> {
    let mut db = Database::new("tictactoe", Model::Minimax);
    db.insert("X........".into(), Entry { outcome: Outcome::Draw, value: Some(0), remoteness: None });
    db.insert("XX.OO....".into(), Entry { outcome: Outcome::Win, value: Some(1), remoteness: Some(1) });
    let mut bytes = Vec::new();
    db.write_to(&mut bytes).unwrap();
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn trees_parse_or_fail_at_a_place(text in prop_oneof![texts(), mutated("A(B(4 9 6) C(3 7 5) D(8 2 10))")]) {
        if let Err(e) = Tree::parse(&text) {
            prop_assert!(inside(&text, &e), "{e} for {text:?}");
        }
    }

    #[test]
    fn graph_texts_parse_or_fail_at_a_place(text in prop_oneof![texts(), mutated("A -> B F\nB -> A\nF = 1\n")]) {
        if let Err(e) = parse_text(&text) {
            prop_assert!(inside(&text, &e), "{e} for {text:?}");
        }
    }

    #[test]
    fn edge_lists_parse_or_fail_at_a_place(text in prop_oneof![texts(), mutated("0 1\n1 2\n2 = 3\n2 0\n")]) {
        if let Err(e) = parse_edges(&text) {
            prop_assert!(inside(&text, &e), "{e} for {text:?}");
        }
    }

    /// A database file with bytes changed, cut or added is refused or read, never misread into a
    /// panic: the checksum catches what the parser would not.
    #[test]
    fn damaged_database_files_are_refused(at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in 0..4usize, extra in prop::collection::vec(any::<u8>(), 0..8)) {
        let mut bytes = database_bytes();
        let i = at.index(bytes.len());
        let changed = bytes[i] != byte;
        bytes[i] = byte;
        bytes.truncate(bytes.len() - cut);
        bytes.extend(&extra);
        let read = Database::read_from(&bytes[..]);
        if changed || cut > 0 || !extra.is_empty() {
            prop_assert!(read.is_err());
        } else {
            prop_assert!(read.is_ok());
        }
    }

    #[test]
    fn arbitrary_bytes_are_not_a_database(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        // Refused, without a panic: the magic, the structure or the checksum gives them away.
        prop_assert!(Database::read_from(&bytes[..]).is_err());
    }
}
