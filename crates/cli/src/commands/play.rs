//! `gamegraph play`: a game in the terminal against the engine, for every built-in game, with
//! every legal move's value shown before each turn. One loop: the values and the engine's moves
//! come from the library's [`Analyzer`] (perfect play where the game is solved, a limited search
//! elsewhere).

use std::io::BufRead;

use anyhow::Result;
use gamegraph_games::analysis::{Analyzer, Budget, Value};
use gamegraph_games::session::{Session, Turn};
use gamegraph_games::{BuiltinGame, GameVisitor, Solver};
use serde_json::json;

use crate::args::{EngineArgs, GameArgs, Seat};
use crate::terminal::{position_or_start, read_move};
use gamegraph_games::analysis::describe;

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The position to play from (the start if omitted).
    #[arg(allow_hyphen_values = true)]
    position: Option<String>,
    /// Which moves you make; the engine makes the others.
    #[arg(long, value_enum, default_value_t = Seat::First)]
    you: Seat,
    /// Search games: seconds the engine may think per position (move values shown as bounds
    /// when it runs out).
    #[arg(long, default_value = "5", value_name = "SECONDS", value_parser = crate::args::seconds)]
    time: std::time::Duration,
    #[command(flatten)]
    engine: EngineArgs,
    /// One JSON object per line for each position (its value, every move's value, the move
    /// played), for programs that play through a pipe.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &PlayArgs) -> Result<()> {
    args.game.visit(Play(args))
}

struct Play<'a>(&'a PlayArgs);

impl GameVisitor for Play<'_> {
    type Output = Result<()>;

    fn visit<G: BuiltinGame>(self, game: G) -> Result<()> {
        let args = self.0;
        let budget = Budget { time: Some(args.time), positions: args.game.limit, ..Budget::default() };
        let analyzer = Analyzer::new(&game, budget, args.engine.settings()?);
        let mut session = Session::new(&game, analyzer, position_or_start(&game, args.position.as_deref())?);
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        loop {
            let turn = session.turn()?;
            let human = args.you.moves_at(session.ply());
            if args.json {
                say!("{}", turn_json(&game, session.position(), &turn, human));
            } else {
                say!("\n{}", game.render(session.position()));
                if let Some(a) = turn.analysis.as_ref().filter(|a| !a.over) {
                    if a.value.exact && G::ENTRY.solver == Solver::Retrograde {
                        say!("value for the player to move: {}", in_words(&a.value));
                    }
                    for m in &a.moves {
                        say!("  {:>6}  {}", m.notation, in_words(&m.value));
                    }
                }
            }
            if let Some(ending) = turn.ending {
                if !args.json {
                    say!("game over: {ending}");
                }
                return Ok(());
            }
            let mv = if human {
                match read_move(&game, session.position(), &mut lines, args.json)? {
                    Some(mv) => mv,
                    None => return Ok(()),
                }
            } else {
                let mv = session.engine_move(&turn).expect("a position that is not over has moves");
                if !args.json {
                    say!("engine plays {}", game.format_move(session.position(), mv));
                }
                mv
            };
            session.play(mv);
        }
    }
}

/// One turn as a JSON line: the position, its value, every move's, and who moves.
fn turn_json<G: BuiltinGame>(game: &G, pos: &G::Position, turn: &Turn, human: bool) -> serde_json::Value {
    let to_move = match (&turn.ending, human) {
        (Some(_), _) => "nobody",
        (None, true) => "you",
        (None, false) => "engine",
    };
    let (value, moves) = match &turn.analysis {
        Some(a) => (
            a.value,
            a.moves
                .iter()
                .map(|m| {
                    json!({
                        "move": m.notation,
                        "position": m.position,
                        "value": m.value.value,
                        "exact": m.value.exact,
                        "outcome": m.value.outcome,
                        "remoteness": m.value.remoteness,
                    })
                })
                .collect(),
        ),
        None => (Value::UNKNOWN, Vec::new()),
    };
    json!({
        "position": game.format_position(pos),
        "outcome": value.outcome,
        "value": value.value,
        "remoteness": value.remoteness,
        "moves": moves,
        "to_move": to_move,
        "repeated": turn.ending.is_some_and(|e| e.repeated),
    })
}

/// A move's or position's value in words: exact values with their distance, searched ones with
/// their depth.
fn in_words(v: &Value) -> String {
    match v {
        Value { value: Some(x), exact: true, outcome, remoteness, .. } => {
            describe(outcome.unwrap_or(gamegraph::Outcome::of(*x)), Some(*x), *remoteness)
        }
        Value { depth: Some(d), .. } => format!("{} (searched {d} plies)", v.shown()),
        _ => "not solved in time".to_string(),
    }
}
