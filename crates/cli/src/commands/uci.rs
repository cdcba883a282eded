//! `gamegraph uci`: the Universal Chess Interface on standard input and output, so that chess
//! programs (GUIs, python-chess, match runners) can use the engine.
//!
//! A thread reads the commands; the main thread answers them, and each `go` searches on a
//! thread of its own, so that `stop`, `isready` and `quit` are answered while the engine thinks.
//! Commands other than those that arrive during a search are taken once it ends. Unknown or
//! malformed commands are ignored, as the protocol asks, and reported on standard error; so are
//! lines that are not UTF-8 text or longer than [`MAX_LINE_BYTES`]. What can be read of a command
//! is used: `go` ignores the words it cannot read and searches with the rest (it always ends with
//! `bestmove`); `position` takes the start position when its FEN is malformed and plays its moves
//! up to the first illegal one, so that it never leaves the previous position in place.
//!
//! The 50-move rule: a draw there must be claimed, so a position whose halfmove clock reached
//! 100 (or more: read as 100) is still played on. The engine then searches it as if the clock
//! stood at 99: every move that keeps the count is a draw, a capture or pawn move is valued as
//! usual.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use cozy_chess::{Board, Color, Move};
use gamegraph::engine::{clock, Engine, EngineSettings, Iteration, Limits, Report, SearchControl};
use gamegraph::score::decisive_parts;
use gamegraph::{Game, Notation, PositionKey, Score};
use gamegraph_games::chess::{parse_fen, Chess, Tablebase};
use gamegraph_games::excerpt;

/// The largest table, in MiB, that `setoption name Hash` accepts.
pub const MAX_HASH_MIB: usize = 65_536;
/// The most search threads `setoption name Threads` accepts.
pub const MAX_THREADS: usize = 256;
/// The time a malformed `go` that keeps no limit searches, in milliseconds.
pub const DEFAULT_MOVETIME_MS: u64 = 1000;
/// The longest command line read, in bytes; a longer one is skipped and reported.
pub const MAX_LINE_BYTES: usize = 1 << 20;

#[derive(clap::Args, Debug)]
pub struct UciArgs {}

/// What the reader thread and the search threads tell the main thread.
enum Event {
    /// A line of standard input.
    Line(String),
    /// Standard input is closed.
    Closed,
    /// A search ended, with its report (none if it failed: a bug, reported on standard error).
    Searched(Option<Report<Move>>),
}

/// The options a GUI sets.
struct Options {
    hash_mib: usize,
    threads: usize,
    tables: Option<Arc<Tablebase>>,
}

/// The position to search, and the keys of the positions before it (for repetitions).
struct Position {
    board: Board,
    history: Vec<u64>,
}

/// Why a session (one game and engine) ends.
enum Next {
    Quit,
    /// An option changed: a new engine is needed.
    Reconfigure,
}

pub fn run(_: &UciArgs) -> Result<()> {
    let (sender, events) = channel();
    let reader = sender.clone();
    std::thread::spawn(move || read_commands(&mut std::io::stdin().lock(), &reader));
    let mut options = Options { hash_mib: EngineSettings::default().tt_mib, threads: 1, tables: None };
    let mut position = Position { board: Board::default(), history: Vec::new() };
    let mut pending = VecDeque::new();
    loop {
        let game = match &options.tables {
            Some(tables) => Chess::with_tables(Arc::clone(tables)),
            None => Chess::new(),
        };
        let settings =
            EngineSettings { tt_mib: options.hash_mib, threads: options.threads, ..Default::default() };
        let engine = match Engine::try_new(&game, settings) {
            Ok(engine) => engine,
            Err(e) => {
                log(&format!("cannot allocate a {} MiB table ({e}): 16 MiB instead", options.hash_mib));
                options.hash_mib = 16;
                continue;
            }
        };
        let mut session = Session { game: &game, engine: &engine, events: &events, sender: &sender };
        match session.run(&mut options, &mut position, &mut pending) {
            Next::Quit => return Ok(()),
            Next::Reconfigure => {}
        }
    }
}

/// Sends each line of `input` to `events` as it comes, then [`Event::Closed`]: a line that is
/// not UTF-8 text or is longer than [`MAX_LINE_BYTES`] is skipped and reported, and a byte order
/// mark before the first is dropped.
fn read_commands(input: &mut impl std::io::BufRead, events: &Sender<Event>) {
    let mut number = 0;
    loop {
        number += 1;
        let line = match read_line(input, MAX_LINE_BYTES) {
            Ok(Some(Ok(bytes))) => bytes,
            Ok(Some(Err(length))) => {
                log(&format!("line {number}: {length} bytes, more than the {MAX_LINE_BYTES} a command may have: skipped"));
                continue;
            }
            Ok(None) => break,
            Err(e) => {
                log(&format!("cannot read standard input: {e}"));
                break;
            }
        };
        match String::from_utf8(line) {
            Ok(text) => {
                let text = if number == 1 { text.trim_start_matches('\u{feff}').to_string() } else { text };
                if events.send(Event::Line(text)).is_err() {
                    return;
                }
            }
            Err(e) => log(&format!(
                "line {number}: byte {} is not UTF-8 text: skipped",
                e.utf8_error().valid_up_to() + 1
            )),
        }
    }
    let _ = events.send(Event::Closed);
}

/// The next line of `input` without its end (`\n` or `\r\n`): its bytes, or `Err(length)` for a
/// line longer than `cap` (read to its end and dropped); `None` at the end of the input.
fn read_line(
    input: &mut impl std::io::BufRead,
    cap: usize,
) -> std::io::Result<Option<Result<Vec<u8>, usize>>> {
    let mut line = Vec::new();
    let mut length = 0;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok((length > 0).then(|| finish(line, length, cap)));
        }
        let (chunk, ended) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], true),
            None => (buffer, false),
        };
        length += chunk.len();
        if length <= cap {
            line.extend_from_slice(chunk);
        }
        let used = chunk.len() + usize::from(ended);
        input.consume(used);
        if ended {
            return Ok(Some(finish(line, length, cap)));
        }
    }
}

/// A line read whole (its `\r` dropped), or its length when it was too long to keep.
fn finish(mut line: Vec<u8>, length: usize, cap: usize) -> Result<Vec<u8>, usize> {
    if length > cap {
        return Err(length);
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(line)
}

/// One engine answering commands until quit or an option change.
struct Session<'a> {
    game: &'a Chess,
    engine: &'a Engine<'a, Chess>,
    events: &'a Receiver<Event>,
    sender: &'a Sender<Event>,
}

impl Session<'_> {
    fn run(
        &mut self,
        options: &mut Options,
        position: &mut Position,
        pending: &mut VecDeque<String>,
    ) -> Next {
        loop {
            let line = match pending.pop_front() {
                Some(line) => line,
                None => match self.events.recv() {
                    Ok(Event::Line(line)) => line,
                    Ok(Event::Searched(_)) => continue,
                    Ok(Event::Closed) | Err(_) => return Next::Quit,
                },
            };
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.first().copied() {
                None => {}
                Some("uci") => {
                    say(&format!("id name gamegraph {}", env!("CARGO_PKG_VERSION")));
                    say("id author the gamegraph developers");
                    say(&format!(
                        "option name Hash type spin default {} min 1 max {MAX_HASH_MIB}",
                        EngineSettings::default().tt_mib
                    ));
                    say(&format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"));
                    say("option name TablebasePath type string default <empty>");
                    say("uciok");
                }
                Some("isready") => say("readyok"),
                Some("ucinewgame") => self.engine.clear(),
                Some("setoption") if set_option(options, &words[1..]) => return Next::Reconfigure,
                // Refused, and reported.
                Some("setoption") => {}
                Some("position") => {
                    let (p, problems) = parse_position(self.game, &words[1..]);
                    for problem in problems {
                        log(&format!("{problem} in '{}'", excerpt(&line)));
                    }
                    *position = p;
                }
                Some("go") => {
                    let (mut go, problems) = parse_go(&words[1..]);
                    for problem in &problems {
                        log(&format!("{problem} in '{}'", excerpt(&line)));
                    }
                    if !problems.is_empty() && go.limits(position.board.side_to_move()) == Limits::default() {
                        // Nothing readable was left to stop the search: it would run until `stop`,
                        // which a GUI that sent a malformed `go` will not send.
                        log(&format!(
                            "no limit left in '{}': searching {DEFAULT_MOVETIME_MS} ms",
                            excerpt(&line)
                        ));
                        go.movetime = Some(DEFAULT_MOVETIME_MS);
                    }
                    if self.go(&go, position, pending) {
                        return Next::Quit;
                    }
                }
                Some("quit") => return Next::Quit,
                Some("stop" | "ponderhit" | "debug" | "register") => {}
                Some(other) => log(&format!("unknown command '{other}'")),
            }
        }
    }

    /// Searches `position` as `go` asks, answering `stop`, `isready` and `quit` meanwhile and
    /// keeping the other commands for later; prints `bestmove`. Returns true on `quit`.
    fn go(&self, go: &Go, position: &Position, pending: &mut VecDeque<String>) -> bool {
        let board = &playable(&position.board);
        let limits = go.limits(board.side_to_move());
        let stop = Arc::new(AtomicBool::new(false));
        let tell = |it: &Iteration<Move>| say(&info_line(self.game, board, it));
        let control = SearchControl {
            stop: Some(Arc::clone(&stop)),
            history: position.history.clone(),
            on_iteration: Some(&tell),
        };
        let mut quit = false;
        let mut stopped = false;
        let (engine, control) = (self.engine, &control);
        std::thread::scope(|scope| {
            let sender = self.sender.clone();
            scope.spawn(move || {
                // A search that panics must still get an answer out, not leave the GUI waiting.
                let search = std::panic::AssertUnwindSafe(|| engine.search_with(board, limits, control));
                let report = std::panic::catch_unwind(search).ok();
                let _ = sender.send(Event::Searched(report));
            });
            let mut report = None;
            // An infinite search only answers once told to stop, even if it ended before.
            while report.is_none() || (go.infinite && !stopped && !quit) {
                match self.events.recv() {
                    Ok(Event::Searched(r)) => report = Some(r),
                    Ok(Event::Line(line)) => match line.split_whitespace().next() {
                        Some("stop") => stopped = true,
                        Some("quit") => quit = true,
                        Some("isready") => say("readyok"),
                        Some("ponderhit") | None => {}
                        Some(_) => pending.push_back(line),
                    },
                    Ok(Event::Closed) | Err(_) => quit = true,
                }
                if stopped || quit {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            let report = report.expect("the loop waits for the report");
            if report.is_none() {
                log("the search failed; playing the first legal move");
            }
            say(&format!("bestmove {}", best_move(self.game, board, report.as_ref())));
        });
        quit
    }
}

/// `board` as the engine searches it: with a halfmove clock of 100 (the 50-move rule reached,
/// where a draw may be claimed but the game goes on until it is), as if it stood at 99, so that
/// the position still has its moves.
fn playable(board: &Board) -> Board {
    let mut board = board.clone();
    if board.halfmove_clock() >= 100 {
        board.set_halfmove_clock(99);
    }
    board
}

/// The move to play: the search's best, else any legal move, else the null move `0000`.
fn best_move(game: &Chess, board: &Board, report: Option<&Report<Move>>) -> String {
    let board = &playable(board);
    let mut moves = Vec::new();
    game.moves(board, &mut moves);
    match report.and_then(|r| r.best).filter(|m| moves.contains(m)).or(moves.first().copied()) {
        Some(mv) => game.format_move(board, mv),
        None => "0000".into(),
    }
}

/// A UCI `info` line for a completed iteration.
fn info_line(game: &Chess, board: &Board, it: &Iteration<Move>) -> String {
    let millis = it.elapsed.as_millis().max(1);
    let nps = u128::from(it.nodes) * 1000 / millis;
    let mut pv = Vec::new();
    let mut pos = board.clone();
    for &mv in &it.pv {
        pv.push(game.format_move(&pos, mv));
        pos = game.play(&pos, mv);
    }
    let depth = if it.depth == gamegraph::engine::UNLIMITED { it.seldepth.max(1) } else { it.depth };
    format!(
        "info depth {depth} seldepth {} score {} nodes {} nps {nps} time {millis} pv {}",
        it.seldepth.max(depth),
        uci_score(it.value),
        it.nodes,
        pv.join(" ")
    )
}

/// `cp N`, or `mate N` in moves (negative when the side to move is mated).
fn uci_score(value: Score) -> String {
    match decisive_parts(value) {
        Some((payoff, plies)) if payoff > 0 => format!("mate {}", plies.div_ceil(2)),
        Some((_, plies)) => format!("mate -{}", plies / 2),
        None => format!("cp {value}"),
    }
}

/// Applies `setoption name NAME value VALUE`; true when the engine must be made again.
fn set_option(options: &mut Options, words: &[&str]) -> bool {
    let value_at = words.iter().position(|w| w.eq_ignore_ascii_case("value"));
    let name = words.get(1..value_at.unwrap_or(words.len())).unwrap_or_default().join(" ");
    let value = value_at.map(|i| words[i + 1..].join(" ")).unwrap_or_default();
    let number = |max: usize| value.parse::<usize>().ok().filter(|n| (1..=max).contains(n));
    match name.to_ascii_lowercase().as_str() {
        "hash" => match number(MAX_HASH_MIB) {
            Some(mib) => options.hash_mib = mib,
            None => {
                log(&format!("Hash must be 1 to {MAX_HASH_MIB} MiB, not '{value}'"));
                return false;
            }
        },
        "threads" => match number(MAX_THREADS) {
            Some(threads) => options.threads = threads,
            None => {
                log(&format!("Threads must be 1 to {MAX_THREADS}, not '{value}'"));
                return false;
            }
        },
        "tablebasepath" => {
            if value.is_empty() || value == "<empty>" {
                options.tables = None;
            } else {
                let opened = Tablebase::open(&PathBuf::from(&value)).map_err(|e| e.to_string());
                match opened.and_then(|t| t.check_all().map(|()| t).map_err(|e| e.to_string())) {
                    Ok(tables) => options.tables = Some(Arc::new(tables)),
                    Err(e) => {
                        // Told to the GUI too, which shows `info string` to its user.
                        say(&format!("info string TablebasePath refused: {e}"));
                        log(&format!("TablebasePath: {e}"));
                        return false;
                    }
                }
            }
        }
        _ => {
            log(&format!("unknown option '{name}'"));
            return false;
        }
    }
    true
}

/// `startpos` or `fen F1 .. F6`, then optionally `moves M1 M2 ...`: the position, and what
/// could not be read. A malformed FEN gives the start position; the moves are played up to the
/// first that is not legal.
fn parse_position(game: &Chess, words: &[&str]) -> (Position, Vec<String>) {
    let mut problems = Vec::new();
    let moves_at = words.iter().position(|&w| w == "moves").unwrap_or(words.len());
    let mut board = match words.first() {
        Some(&"startpos") if moves_at == 1 => Board::default(),
        Some(&"fen") if moves_at > 1 => match parse_fen(&words[1..moves_at].join(" ")) {
            Ok(board) => board,
            Err(e) => {
                problems.push(format!("{e}; the start position is taken instead"));
                Board::default()
            }
        },
        _ => {
            problems
                .push("expected 'startpos' or 'fen' and a FEN; the start position is taken instead".into());
            Board::default()
        }
    };
    let mut history = Vec::new();
    for text in words.get(moves_at + 1..).unwrap_or_default() {
        // Whether a move is legal does not depend on the halfmove clock.
        match game.parse_move(&playable(&board), text) {
            Ok(mv) => {
                history.push(game.key(&board));
                board.play(mv);
            }
            Err(e) => {
                problems.push(format!("move '{}': {e}; the moves before it are played", excerpt(text)));
                break;
            }
        }
    }
    (Position { board, history }, problems)
}

/// The parameters of a `go` command.
#[derive(Debug, Default, PartialEq)]
struct Go {
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    mate: Option<u32>,
    infinite: bool,
    /// Time left and increment per move, in milliseconds, for White and Black.
    clock: [(Option<u64>, u64); 2],
    movestogo: Option<u64>,
}

/// The parameters of `go`, and the words that could not be read (ignored: the search goes on
/// with the rest). A number is read leniently: a fraction is cut, a value beyond the range is
/// the largest, a negative one (a flagged clock) is 0.
fn parse_go(words: &[&str]) -> (Go, Vec<String>) {
    let mut go = Go::default();
    let mut problems = Vec::new();
    let mut words = words.iter().peekable();
    while let Some(&word) = words.next() {
        let takes_number = matches!(
            word,
            "depth" | "nodes" | "movetime" | "mate" | "wtime" | "btime" | "winc" | "binc" | "movestogo"
        );
        if !takes_number {
            match word {
                "infinite" => go.infinite = true,
                "ponder" => {}
                // The moves to restrict the search to: not supported, the whole position is searched.
                "searchmoves" => break,
                other => problems.push(format!("unknown 'go' parameter '{}' ignored", excerpt(other))),
            }
            continue;
        }
        let Some(number) = words.peek().and_then(|text| lenient_number(text)) else {
            problems.push(format!("'{word}' needs a number: ignored"));
            continue;
        };
        words.next();
        match word {
            "depth" => go.depth = Some(number.clamp(1, 250) as u32),
            "nodes" => go.nodes = Some(number.max(1)),
            "movetime" => go.movetime = Some(number),
            "mate" => go.mate = Some(number.clamp(1, 125) as u32),
            "wtime" => go.clock[0].0 = Some(number),
            "btime" => go.clock[1].0 = Some(number),
            "winc" => go.clock[0].1 = number,
            "binc" => go.clock[1].1 = number,
            _ => go.movestogo = Some(number.max(1)),
        }
    }
    (go, problems)
}

/// A number of a `go` command: a whole number, or a decimal one cut to its whole part; beyond
/// the range, the largest; negative, 0. `None` for what is not a number.
fn lenient_number(text: &str) -> Option<u64> {
    let value: f64 = text.parse().ok().filter(|v: &f64| !v.is_nan())?;
    Some(if value <= 0.0 {
        0
    } else if value >= u64::MAX as f64 {
        u64::MAX
    } else {
        value as u64
    })
}

impl Go {
    /// The engine's limits for the side to move.
    fn limits(&self, side: Color) -> Limits {
        let depth = self.depth.or(self.mate.map(|n| 2 * n - 1));
        let time = if self.infinite {
            None
        } else if let Some(ms) = self.movetime {
            Some(clock::fixed_move_time(ms))
        } else {
            let (left, increment) = self.clock[side as usize];
            left.map(|left| clock::move_time(left, increment, self.movestogo))
        };
        Limits { depth, nodes: self.nodes, time: time.map(Duration::from_millis) }
    }
}

/// One line to the GUI.
fn say(line: &str) {
    println!("{line}");
}

/// A problem with a command, on standard error (the protocol has no error reply).
fn log(message: &str) {
    eprintln!("gamegraph uci: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_parameters_and_clocks() {
        let go = parse_go(&["wtime", "60000", "btime", "-5", "winc", "1000", "movestogo", "10"]).0;
        assert_eq!(go.clock, [(Some(60_000), 1000), (Some(0), 0)]);
        let white = go.limits(Color::White).time.unwrap().as_millis();
        assert_eq!(white, (6000 + 750 - clock::MOVE_OVERHEAD_MS) as u128);
        assert_eq!(go.limits(Color::Black).time.unwrap().as_millis(), 1, "a flagged clock still moves");
        // What cannot be read is ignored, the rest kept.
        let (go, problems) = parse_go(&["depth"]);
        assert_eq!((go, problems.len()), (Go::default(), 1));
        let (go, problems) = parse_go(&["sideways", "depth", "x", "movetime", "500"]);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert_eq!((go.depth, go.movetime), (None, Some(500)));
        assert_eq!(parse_go(&["movetime", "1.5"]).0.movetime, Some(1));
        let huge = parse_go(&["movetime", "99999999999999999999"]).0;
        assert_eq!(huge.limits(Color::White).time.unwrap().as_millis(), u128::from(clock::LONGEST_MOVE_MS));
        assert_eq!(parse_go(&["mate", "2"]).0.limits(Color::White).depth, Some(3));
        assert_eq!(parse_go(&["infinite"]).0.limits(Color::White).time, None);
    }

    #[test]
    fn positions_with_moves_keep_their_history() {
        let chess = Chess::new();
        let (p, problems) = parse_position(&chess, &["startpos", "moves", "g1f3", "g8f6", "f3g1", "f6g8"]);
        assert!(problems.is_empty());
        assert_eq!(p.board.hash(), Board::default().hash());
        assert_eq!(p.history.len(), 4);
        assert_eq!(p.history[0], p.board.hash(), "the start was seen before");
        // The moves up to the first illegal one; the start for what is not a position.
        let (p, problems) = parse_position(&chess, &["startpos", "moves", "e2e4", "e7e5", "e2e5", "d2d4"]);
        assert_eq!((p.history.len(), problems.len()), (2, 1));
        assert!(problems[0].contains("e2e5"), "{problems:?}");
        for words in [&["fen", "8/8/8/8", "w"][..], &["sideways"]] {
            let (p, problems) = parse_position(&chess, words);
            assert_eq!((p.board.hash(), problems.len()), (Board::default().hash(), 1), "{words:?}");
        }
        let fen = parse_position(
            &chess,
            &["fen", "4k3/8/8/8/8/8/8/4K2R", "w", "K", "-", "0", "1", "moves", "e1g1"],
        );
        assert_eq!(fen.0.board.king(Color::White), cozy_chess::Square::G1);
    }

    #[test]
    fn the_fifty_move_rule_leaves_the_moves_playable() {
        let chess = Chess::new();
        // A knight shuffle of 500 moves: every one is played.
        let shuffle: Vec<&str> = ["g1f3", "g8f6", "f3g1", "f6g8"].iter().copied().cycle().take(500).collect();
        let mut words = vec!["startpos", "moves"];
        words.extend(&shuffle);
        let (p, problems) = parse_position(&chess, &words);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!((p.history.len(), p.board.halfmove_clock()), (500, 100));
        // The position still has its moves, and the engine one of them.
        let mut moves = Vec::new();
        chess.moves(&playable(&p.board), &mut moves);
        assert_eq!(moves.len(), 20);
        assert_ne!(best_move(&chess, &p.board, None), "0000");
        // A FEN with a clock past 100 is read.
        let (p, problems) =
            parse_position(&chess, &["fen", "4k3/8/8/8/8/8/8/4K2R", "w", "-", "-", "130", "90"]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(p.board.halfmove_clock(), 100);
    }

    #[test]
    fn lines_that_are_too_long_or_not_text_are_skipped() {
        let input =
            b"\xef\xbb\xbfuci\r\nis\xffready\n".iter().copied().chain(vec![b'x'; 40]).chain(*b"\nisready");
        let bytes: Vec<u8> = input.collect();
        let mut reader = std::io::BufReader::with_capacity(7, &bytes[..]);
        assert_eq!(read_line(&mut reader, 32).unwrap(), Some(Ok(b"\xef\xbb\xbfuci".to_vec())));
        assert_eq!(read_line(&mut reader, 32).unwrap(), Some(Ok(b"is\xffready".to_vec())));
        assert_eq!(read_line(&mut reader, 32).unwrap(), Some(Err(40)));
        assert_eq!(read_line(&mut reader, 32).unwrap(), Some(Ok(b"isready".to_vec())));
        assert_eq!(read_line(&mut reader, 32).unwrap(), None);
        let (sender, events) = channel();
        read_commands(&mut &bytes[..], &sender);
        let lines: Vec<String> = events
            .try_iter()
            .filter_map(|e| match e {
                Event::Line(line) => Some(line),
                _ => None,
            })
            .collect();
        assert_eq!(
            lines,
            ["uci".to_string(), "x".repeat(40), "isready".into()],
            "the byte order mark dropped, the bad line skipped"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2_000),
            ..Default::default()
        })]

        /// Any words after `position` and `go`: a position always (the start for a bad FEN, the
        /// moves played up to the first illegal one), limits always, never a panic.
        #[test]
        fn any_position_or_go_words_are_read_without_panic(
            words in proptest::collection::vec(proptest::sample::select(vec![
                "startpos", "fen", "moves", "e2e4", "e7e5", "g1f3", "e1g1", "e7e8q", "a1a8",
                "8/8/8/8/8/2k5/1R6/K7", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "w", "b",
                "KQkq", "-", "0", "1", "130", "-5", "1.5", "99999999999999999999", "nan", "depth",
                "nodes", "movetime", "mate", "wtime", "btime", "winc", "binc", "movestogo",
                "infinite", "ponder", "searchmoves", "x",
            ]), 0..24)
        ) {
            let chess = Chess::new();
            let (p, _) = parse_position(&chess, &words);
            let mut moves = Vec::new();
            chess.moves(&playable(&p.board), &mut moves);
            let (go, _) = parse_go(&words);
            let limits = go.limits(p.board.side_to_move());
            proptest::prop_assert!(limits.time.is_none_or(|t| t.as_millis() <= u128::from(clock::LONGEST_MOVE_MS)));
        }
    }

    #[test]
    fn scores_in_centipawns_or_mates() {
        use gamegraph::score::decisive;
        assert_eq!(uci_score(35), "cp 35");
        assert_eq!(uci_score(decisive(1, 1)), "mate 1");
        assert_eq!(uci_score(decisive(1, 5)), "mate 3");
        assert_eq!(uci_score(decisive(-1, 4)), "mate -2");
    }
}
