//! `gamegraph uci`: the Universal Chess Interface on standard input and output, so that chess
//! programs (GUIs, python-chess, match runners) can use the engine.
//!
//! A thread reads the commands; the main thread answers them, and each `go` searches on a
//! thread of its own, so that `stop`, `isready` and `quit` are answered while the engine thinks.
//! Commands other than those that arrive during a search are taken once it ends. Unknown or
//! malformed commands are ignored, as the protocol asks, and reported on standard error.

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

/// The largest table, in MiB, that `setoption name Hash` accepts.
pub const MAX_HASH_MIB: usize = 65_536;
/// The most search threads `setoption name Threads` accepts.
pub const MAX_THREADS: usize = 256;

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
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            if reader.send(Event::Line(line)).is_err() {
                return;
            }
        }
        let _ = reader.send(Event::Closed);
    });
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
                Some("position") => match parse_position(self.game, &words[1..]) {
                    Ok(p) => *position = p,
                    Err(e) => log(&format!("{e} in '{line}'")),
                },
                Some("go") => match parse_go(&words[1..]) {
                    Ok(go) => {
                        if self.go(&go, position, pending) {
                            return Next::Quit;
                        }
                    }
                    Err(e) => log(&format!("{e} in '{line}'")),
                },
                Some("quit") => return Next::Quit,
                Some("stop" | "ponderhit" | "debug" | "register") => {}
                Some(other) => log(&format!("unknown command '{other}'")),
            }
        }
    }

    /// Searches `position` as `go` asks, answering `stop`, `isready` and `quit` meanwhile and
    /// keeping the other commands for later; prints `bestmove`. Returns true on `quit`.
    fn go(&self, go: &Go, position: &Position, pending: &mut VecDeque<String>) -> bool {
        let board = &position.board;
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

/// The move to play: the search's best, else any legal move, else the null move `0000`.
fn best_move(game: &Chess, board: &Board, report: Option<&Report<Move>>) -> String {
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
                match Tablebase::open(&PathBuf::from(&value)) {
                    Ok(tables) => options.tables = Some(Arc::new(tables)),
                    Err(e) => {
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

/// `startpos` or `fen F1 .. F6`, then optionally `moves M1 M2 ...`.
fn parse_position(game: &Chess, words: &[&str]) -> Result<Position, String> {
    let moves_at = words.iter().position(|&w| w == "moves").unwrap_or(words.len());
    let mut board = match words.first() {
        Some(&"startpos") if moves_at == 1 => Board::default(),
        Some(&"fen") if moves_at > 1 => {
            parse_fen(&words[1..moves_at].join(" ")).map_err(|e| e.to_string())?
        }
        _ => return Err("expected 'startpos' or 'fen' and a FEN".into()),
    };
    let mut history = Vec::new();
    for text in words.get(moves_at + 1..).unwrap_or_default() {
        let mv = game.parse_move(&board, text).map_err(|e| format!("move '{text}': {e}"))?;
        history.push(game.key(&board));
        board = game.play(&board, mv);
    }
    Ok(Position { board, history })
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

fn parse_go(words: &[&str]) -> Result<Go, String> {
    let mut go = Go::default();
    let mut words = words.iter();
    while let Some(&word) = words.next() {
        let mut number = || -> Result<u64, String> {
            let text = words.next().ok_or_else(|| format!("'{word}' needs a number"))?;
            // Some GUIs send negative times when a clock runs out.
            text.parse::<i64>()
                .map(|n| n.max(0) as u64)
                .map_err(|_| format!("'{word}' needs a number, not '{text}'"))
        };
        match word {
            "depth" => go.depth = Some(number()?.clamp(1, 250) as u32),
            "nodes" => go.nodes = Some(number()?.max(1)),
            "movetime" => go.movetime = Some(number()?),
            "mate" => go.mate = Some(number()?.clamp(1, 125) as u32),
            "wtime" => go.clock[0].0 = Some(number()?),
            "btime" => go.clock[1].0 = Some(number()?),
            "winc" => go.clock[0].1 = number()?,
            "binc" => go.clock[1].1 = number()?,
            "movestogo" => go.movestogo = Some(number()?.max(1)),
            "infinite" => go.infinite = true,
            "ponder" => {}
            // The moves to restrict the search to: not supported, the whole position is searched.
            "searchmoves" => break,
            other => return Err(format!("unknown 'go' parameter '{other}'")),
        }
    }
    Ok(go)
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
        let go = parse_go(&["wtime", "60000", "btime", "-5", "winc", "1000", "movestogo", "10"]).unwrap();
        assert_eq!(go.clock, [(Some(60_000), 1000), (Some(0), 0)]);
        let white = go.limits(Color::White).time.unwrap().as_millis();
        assert_eq!(white, (6000 + 750 - clock::MOVE_OVERHEAD_MS) as u128);
        assert_eq!(go.limits(Color::Black).time.unwrap().as_millis(), 1, "a flagged clock still moves");
        assert!(parse_go(&["depth"]).is_err());
        assert!(parse_go(&["depth", "x"]).is_err());
        assert!(parse_go(&["sideways"]).is_err());
        assert_eq!(parse_go(&["mate", "2"]).unwrap().limits(Color::White).depth, Some(3));
        assert_eq!(parse_go(&["infinite"]).unwrap().limits(Color::White).time, None);
    }

    #[test]
    fn positions_with_moves_keep_their_history() {
        let chess = Chess::new();
        let p = parse_position(&chess, &["startpos", "moves", "g1f3", "g8f6", "f3g1", "f6g8"]).unwrap();
        assert_eq!(p.board.hash(), Board::default().hash());
        assert_eq!(p.history.len(), 4);
        assert_eq!(p.history[0], p.board.hash(), "the start was seen before");
        assert!(parse_position(&chess, &["startpos", "moves", "e2e5"]).is_err());
        assert!(parse_position(&chess, &["fen", "8/8/8/8", "w"]).is_err());
        assert!(parse_position(&chess, &["sideways"]).is_err());
        let fen = parse_position(
            &chess,
            &["fen", "4k3/8/8/8/8/8/8/4K2R", "w", "K", "-", "0", "1", "moves", "e1g1"],
        );
        assert_eq!(fen.unwrap().board.king(Color::White), cozy_chess::Square::G1);
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
