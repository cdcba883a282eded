//! `gamegraph uci` end to end, through pipes as a chess GUI drives it: the handshake, searches by
//! depth, nodes and clock, `stop` at once, mates, tablebase values, and bad commands (ignored,
//! reported on standard error, never a panic or a hang). Complete games against a real client
//! (python-chess) and Stockfish are played by `scripts/test` (`uci_games.py`).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use cozy_chess::Board;

/// How long any answer may take.
const PATIENCE: Duration = Duration::from_secs(30);

/// A running `gamegraph uci`.
struct Uci {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
}

impl Uci {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gamegraph"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let input = child.stdin.take().unwrap();
        let output = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                if sender.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        Uci { child, input, lines }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
    }

    /// The lines up to the first that starts with `prefix`, which comes last.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line =
                self.lines.recv_timeout(PATIENCE).unwrap_or_else(|_| panic!("no '{prefix}' after {seen:?}"));
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// The move of the next `bestmove` line, checked legal in `board`; the lines before it too.
    fn best_move(&mut self, board: &Board) -> (String, Vec<String>) {
        let lines = self.until("bestmove");
        let mv = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
        let mut legal = Vec::new();
        board.generate_moves(|moves| {
            legal.extend(moves.into_iter().map(|m| {
                // UCI writes castling as the king's two-square move; cozy-chess as king takes rook.
                let castling = board.color_on(m.to) == Some(board.side_to_move());
                let to = if castling {
                    let rank = m.from.rank();
                    if m.to.file() > m.from.file() {
                        cozy_chess::Square::new(cozy_chess::File::G, rank)
                    } else {
                        cozy_chess::Square::new(cozy_chess::File::C, rank)
                    }
                } else {
                    m.to
                };
                cozy_chess::Move { to, ..m }.to_string()
            }));
            false
        });
        assert!(legal.contains(&mv), "bestmove {mv} is not legal in {board}");
        (mv, lines)
    }

    /// Quits and returns standard error, checking a clean exit.
    fn quit(mut self) -> String {
        self.send("quit");
        let out = self.child.wait_with_output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "exit status {:?}: {stderr}", out.status);
        assert!(!stderr.contains("panicked"), "{stderr}");
        stderr
    }
}

#[test]
fn the_handshake_and_searches_by_depth_nodes_and_clock() {
    let mut uci = Uci::start();
    uci.send("uci");
    let hello = uci.until("uciok");
    for option in ["Hash", "Threads", "TablebasePath"] {
        assert!(hello.iter().any(|l| l.starts_with(&format!("option name {option} "))), "{hello:?}");
    }
    uci.send("isready");
    uci.until("readyok");
    // `go` before any `position` searches the start.
    uci.send("go depth 3");
    let (_, lines) = uci.best_move(&Board::default());
    assert!(lines.iter().any(|l| l.starts_with("info depth 3 ") && l.contains(" pv ")), "{lines:?}");
    uci.send("ucinewgame");
    uci.send("position startpos moves e2e4 e7e5 g1f3");
    let after: Board = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2".parse().unwrap();
    uci.send("go nodes 5000");
    uci.best_move(&after);
    uci.send("go wtime 1000 btime 1000 winc 10 binc 10");
    uci.best_move(&after);
    uci.send("setoption name Threads value 2");
    uci.send("setoption name Hash value 8");
    uci.send("go movetime 100");
    uci.best_move(&after);
    uci.quit();
}

#[test]
fn stop_answers_at_once_with_a_legal_move() {
    let mut uci = Uci::start();
    uci.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    uci.send("go infinite");
    uci.send("isready");
    uci.until("readyok");
    uci.send("stop");
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1".parse().unwrap();
    uci.best_move(&kiwipete);
    // Commands sent during a search wait for its end; quit during one ends it.
    uci.send("go infinite");
    uci.quit();
}

#[test]
fn mates_are_found_and_scored_in_moves() {
    let mut uci = Uci::start();
    uci.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    uci.send("go depth 5");
    let board = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1".parse().unwrap();
    let (mv, lines) = uci.best_move(&board);
    assert_eq!(mv, "d1d8");
    assert!(lines.iter().any(|l| l.contains("score mate 1 ")), "{lines:?}");
    // The side to move is mated: no move to play.
    uci.send("position fen 3R2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1");
    uci.send("go depth 2");
    assert_eq!(uci.until("bestmove").last().unwrap(), "bestmove 0000");
    uci.quit();
}

#[test]
fn tablebase_positions_score_their_distance_to_mate() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().to_str().unwrap();
    common::ok(&["build", "chess", "--tables", "KRvK", "--db", db]);
    let fen = "8/8/8/8/8/2k5/1R6/K7 w - - 0 1";
    let line =
        String::from_utf8(common::run(&["solve", "chess", "-", "--db", db], &format!("{fen}\n")).stdout)
            .unwrap();
    let plies: u32 = line.trim().rsplit(' ').next().unwrap().parse().unwrap();
    let mut uci = Uci::start();
    uci.send(&format!("setoption name TablebasePath value {db}"));
    uci.send(&format!("position fen {fen}"));
    uci.send("go depth 1");
    let (_, lines) = uci.best_move(&fen.parse().unwrap());
    let expected = format!("score mate {} ", plies.div_ceil(2));
    assert!(lines.iter().any(|l| l.contains(&expected)), "{expected} in {lines:?}");
    uci.quit();

    // A damaged table: the option is refused, told to the GUI and on standard error.
    let table = dir.path().join("KRvK.dtm");
    let mut bytes = std::fs::read(&table).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&table, &bytes).unwrap();
    let mut uci = Uci::start();
    uci.send(&format!("setoption name TablebasePath value {db}"));
    uci.send("isready");
    let lines = uci.until("readyok");
    assert!(
        lines.iter().any(|l| l.starts_with("info string TablebasePath refused") && l.contains("KRvK.dtm")),
        "{lines:?}"
    );
    let stderr = uci.quit();
    assert!(stderr.contains("SHA-256"), "{stderr}");
    // So does a search that reads the tables.
    let err = common::fails(&["search", "chess", fen, "--db", db, "--depth", "2"], "");
    assert!(err.contains("KRvK.dtm") && err.contains("SHA-256"), "{err}");
    let err = common::fails(&["serve", "--db", db, "--port", "0"], "");
    assert!(err.contains("KRvK.dtm"), "{err}");
}

#[test]
fn bad_commands_are_reported_and_ignored() {
    let mut uci = Uci::start();
    for bad in [
        "sideways",
        "position fen 8/8/8 w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1 moves e1e3",
        "position",
        "setoption name Hash value 0",
        "setoption name Threads value lots",
        "setoption name TablebasePath value /no/such/dir",
        "setoption name Colour value blue",
    ] {
        uci.send(bad);
    }
    uci.send("isready");
    uci.until("readyok");
    uci.send("go depth 2");
    uci.best_move(&Board::default());
    let stderr = uci.quit();
    assert_eq!(stderr.lines().count(), 8, "one line per bad command: {stderr}");
}

#[test]
fn a_malformed_go_still_answers_with_a_legal_move() {
    let mut uci = Uci::start();
    for go in [
        "go foo",
        "go depth",
        "go depth x movetime 200",
        "go movetime 1.5",
        "go movetime 99999999999999999999 depth 2",
    ] {
        uci.send(go);
        uci.best_move(&Board::default());
    }
    let stderr = uci.quit();
    assert!(
        stderr.contains("unknown 'go' parameter 'foo'") && stderr.contains("'depth' needs a number"),
        "{stderr}"
    );
}

#[test]
fn the_fifty_move_rule_and_bad_positions_never_leave_the_engine_without_a_legal_move() {
    let mut uci = Uci::start();
    // 500 knight moves: the halfmove clock reached 100, the game goes on until a draw is claimed.
    let shuffle: Vec<&str> = ["g1f3", "g8f6", "f3g1", "f6g8"].iter().copied().cycle().take(500).collect();
    uci.send(&format!("position startpos moves {}", shuffle.join(" ")));
    uci.send("go depth 3");
    uci.best_move(&Board::default());
    // A FEN whose clock is past 100, then a move.
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 130 90";
    uci.send(&format!("position fen {fen} moves a1a2"));
    uci.send("go depth 3");
    uci.best_move(&"4k3/8/8/8/8/8/R7/4K3 b - - 100 90".parse().unwrap());
    // A move list applied up to its first illegal move (reported), not refused whole: the
    // previous position (here, the rook endgame) is never searched instead.
    uci.send("position startpos moves e2e4 e7e5 e2e5 d2d4");
    uci.send("go depth 2");
    uci.best_move(&"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2".parse().unwrap());
    // A malformed FEN: the start position.
    uci.send("position fen 8/8/8 w - - 0 1");
    uci.send("go depth 2");
    uci.best_move(&Board::default());
    let stderr = uci.quit();
    assert!(stderr.contains("e2e5") && stderr.contains("start position"), "{stderr}");
}

#[test]
fn a_line_that_is_not_text_is_skipped_and_the_session_goes_on() {
    let mut uci = Uci::start();
    uci.input.write_all(b"\xef\xbb\xbfisready\n").unwrap();
    uci.until("readyok");
    uci.input.write_all(b"is\xffready\n").unwrap();
    uci.send("isready");
    uci.until("readyok");
    uci.send("go depth 1");
    uci.best_move(&Board::default());
    let stderr = uci.quit();
    assert!(stderr.contains("not UTF-8"), "{stderr}");
}
