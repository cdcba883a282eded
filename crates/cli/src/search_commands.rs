//! Commands backed by the alpha-beta engine: `solve` and `play` for games too large to explore
//! (Connect 4 by exact search; Oware from its databases, searching beyond them), and `search`
//! for every game.

use std::io::BufRead;
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use gamegraph::engine::{Engine, Limits, Report, UNLIMITED};
use gamegraph::{Notation, Outcome};
use gamegraph_games::analysis::{analyze, analyze_with, Budget, Value};
use gamegraph_games::{BuiltinGame, GameVisitor};
use serde_json::json;

use crate::game_commands::{describe, position_or_start, read_move, with_game};
use crate::io::{print_json, read_text};
use crate::{PerftArgs, PlayArgs, SearchArgs, SolveArgs};

/// The outcome a score means for the player to move.
fn outcome(score: i32) -> Outcome {
    match score.signum() {
        1 => Outcome::Win,
        -1 => Outcome::Lose,
        _ => Outcome::Draw,
    }
}

/// The exact value of the move `mv` for the player making it (or its sign when `weak`), and the
/// engine's report when a search was needed.
fn move_value<G: BuiltinGame>(
    game: &G,
    engine: &Engine<'_, G>,
    pos: &G::Position,
    mv: G::Move,
    weak: bool,
    limits: Limits,
) -> (Option<i32>, Option<Report<G::Move>>) {
    let child = game.play(pos, mv);
    let mut moves = Vec::new();
    game.moves(&child, &mut moves);
    if moves.is_empty() {
        let v = -game.final_score(&child);
        return (Some(if weak { v.signum() } else { v }), None);
    }
    let r = if weak { engine.solve_within(&child, -1, 1, limits) } else { engine.solve(&child, limits) };
    let value = (r.complete).then_some(if weak { -r.value.signum() } else { -r.value });
    (value, Some(r))
}

pub fn solve<G: BuiltinGame>(game: &G, args: &SolveArgs) -> Result<()> {
    let engine = args.engine.engine(game)?;
    if args.position.as_deref() == Some("-") {
        let input = read_text(Path::new("-"))?;
        for (n, line) in input.lines().enumerate() {
            let text = game.record_position(line);
            if text.is_empty() {
                continue;
            }
            let pos = game.parse_position(text).with_context(|| {
                format!("standard input line {}: bad {} position '{text}'", n + 1, game.name())
            })?;
            solve_one(game, &engine, text, &pos, args)?;
        }
        return Ok(());
    }
    let pos = position_or_start(game, args.position.as_deref())?;
    solve_one(game, &engine, args.position.as_deref().unwrap_or(""), &pos, args)
}

fn solve_one<G: BuiltinGame>(
    game: &G,
    engine: &Engine<'_, G>,
    text: &str,
    pos: &G::Position,
    args: &SolveArgs,
) -> Result<()> {
    let started = std::time::Instant::now();
    let mut nodes = 0;
    let mut slots = Vec::new();
    if args.analyze {
        for (label, mv) in game.move_slots(pos) {
            let value = match mv {
                Some(mv) => {
                    let (value, report) = move_value(game, engine, pos, mv, args.weak, Limits::default());
                    nodes += report.map_or(0, |r| r.stats.nodes);
                    value
                }
                None => None,
            };
            slots.push((label, mv.is_some(), value));
        }
    }
    let mut legal = Vec::new();
    game.moves(pos, &mut legal);
    let mut best = None;
    let score = if legal.is_empty() {
        let v = game.final_score(pos);
        if args.weak {
            v.signum()
        } else {
            v
        }
    } else if args.analyze {
        slots.iter().filter_map(|s| s.2).max().unwrap_or(0)
    } else {
        let r = if args.weak {
            engine.solve_within(pos, -1, 1, Limits::default())
        } else {
            engine.solve(pos, Limits::default())
        };
        nodes += r.stats.nodes;
        best = r.best.map(|m| game.format_move(pos, m));
        if args.weak {
            r.value.signum()
        } else {
            r.value
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    if args.output.json {
        let mut out = json!({
            "position": text,
            "score": score,
            "outcome": outcome(score).name(),
            "nodes": nodes,
            "seconds": seconds,
        });
        if let Some(best) = &best {
            out["best"] = json!(best);
        }
        if args.analyze {
            out["moves"] = slots
                .iter()
                .map(|(label, playable, value)| json!({"move": label, "playable": playable, "score": value}))
                .collect();
        }
        println!("{out}");
        return Ok(());
    }
    let moves: Vec<(String, Option<i32>)> =
        slots.into_iter().map(|(label, _, value)| (label, value)).collect();
    let mut line = game.format_solution(text, score, best.as_deref(), &moves);
    if args.stats {
        line.push_str(&format!("  ({nodes} nodes, {:.3} ms)", seconds * 1e3));
    }
    println!("{line}");
    Ok(())
}

/// How a value shows in text: `~` before a value that is not exact, `?` for none.
fn shown(v: &Value) -> String {
    match (v.value, v.exact) {
        (None, _) => "?".into(),
        (Some(x), true) => x.to_string(),
        (Some(x), false) => format!("~{x}"),
    }
}

/// The search budget of `solve` and `play` for games solved by search or databases.
fn budget(engine: &crate::EngineArgs, time: f64, depth: Option<u32>) -> Result<Budget> {
    if !(time > 0.0 && time.is_finite()) {
        bail!("--time must be a positive number of seconds");
    }
    let settings = engine.settings();
    Ok(Budget {
        time: Duration::from_secs_f64(time),
        depth,
        hash_mib: settings.tt_mib,
        threads: settings.threads,
        ..Budget::default()
    })
}

/// `solve` for games with endgame databases: the position's value and every move's, exact where
/// the database covers them, else from a search limited by `--depth` or `--time`.
pub fn solve_with_database<G: BuiltinGame>(game: &G, args: &SolveArgs) -> Result<()> {
    if args.weak || args.analyze {
        bail!("{} always shows every move's value; --weak and --analyze are for Connect 4", game.name());
    }
    let budget = budget(&args.engine, args.time, args.depth)?;
    let pos = position_or_start(game, args.position.as_deref())?;
    let started = std::time::Instant::now();
    let a = analyze(game, &pos, &budget)?;
    if args.output.json {
        let mut out = serde_json::to_value(&a)?;
        out["seconds"] = json!(started.elapsed().as_secs_f64());
        return print_json(&out);
    }
    let mut line = format!("{} {}", a.position, shown(&a.value));
    for m in &a.moves {
        line.push_str(&format!(" {}:{}", m.notation, shown(&m.value)));
    }
    println!("{line}");
    if let Some(depth) = a.moves.iter().map(|m| &m.value).chain([&a.value]).find_map(|v| v.depth) {
        println!("(~: searched {depth} plies, beyond the database: not exact)");
    }
    if args.stats {
        println!("{:.3} s", started.elapsed().as_secs_f64());
    }
    Ok(())
}

pub fn search(args: &SearchArgs) -> Result<()> {
    with_game(&args.game, SearchVisitor(args))
}

struct SearchVisitor<'a>(&'a SearchArgs);

impl GameVisitor for SearchVisitor<'_> {
    type Output = Result<()>;

    fn visit<G: BuiltinGame>(self, game: G) -> Result<()> {
        let args = self.0;
        if args.time.is_some_and(|t| !(t > 0.0 && t.is_finite())) {
            bail!("--time must be a positive number of seconds");
        }
        let pos = position_or_start(&game, args.position.as_deref())?;
        let engine = args.engine.engine(&game)?;
        let limits =
            Limits { depth: args.depth, nodes: args.nodes, time: args.time.map(Duration::from_secs_f64) };
        let r = engine.search(&pos, limits);
        let best = r.best.map(|m| game.format_move(&pos, m));
        let pv = variation(&game, &pos, &r.pv);
        let depth = (r.depth != UNLIMITED).then_some(r.depth);
        if args.output.json {
            return print_json(&json!({
                "position": game.format_position(&pos),
                "value": r.value,
                "best": best,
                "pv": pv,
                "depth": depth,
                "to_the_end": r.depth == UNLIMITED,
                "complete": r.complete,
                "nodes": r.stats.nodes,
                "seconds": r.elapsed.as_secs_f64(),
                "nodes_per_second": r.nodes_per_second(),
                "branching_factor": depth.map(|_| r.branching_factor()),
                "tt_hits": r.stats.tt_hits,
                "tt_cutoffs": r.stats.tt_cutoffs,
                "beta_cutoffs": r.stats.beta_cutoffs,
                "first_move_cutoffs": r.stats.first_move_cutoffs,
            }));
        }
        let reached = depth.map_or("the end of the game".to_string(), |d| format!("depth {d}"));
        println!("value {} at {reached}{}", r.value, if r.complete { "" } else { " (stopped by a limit)" });
        println!("best {}  pv {}", best.as_deref().unwrap_or("-"), pv.join(" "));
        let cut_rate = r.stats.first_move_cutoffs as f64 / r.stats.beta_cutoffs.max(1) as f64;
        println!(
            "{} nodes in {:.3} s ({:.2} M nodes/s), table hits {}, cutoffs {} ({:.0}% on the first move){}",
            r.stats.nodes,
            r.elapsed.as_secs_f64(),
            r.nodes_per_second() / 1e6,
            r.stats.tt_hits,
            r.stats.beta_cutoffs,
            cut_rate * 100.0,
            depth.map_or(String::new(), |_| format!(", branching factor {:.2}", r.branching_factor()))
        );
        Ok(())
    }
}

/// Move notations along `moves` from `pos`.
fn variation<G: Notation>(game: &G, pos: &G::Position, moves: &[G::Move]) -> Vec<String> {
    let mut pos = pos.clone();
    moves
        .iter()
        .map(|&m| {
            let s = game.format_move(&pos, m);
            pos = game.play(&pos, m);
            s
        })
        .collect()
}

/// `play` for games solved by search: every move's value is solved within the time budget.
pub fn play<G: BuiltinGame>(game: &G, args: &PlayArgs) -> Result<()> {
    let budget = budget(&args.engine, args.time, None)?;
    let engine = args.engine.engine(game)?;
    let mut pos = position_or_start(game, args.position.as_deref())?;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut seen = std::collections::HashSet::new();
    for ply in 0.. {
        let mut moves = Vec::new();
        // In games with cycles a repeated position ends the game.
        let repeated = G::CYCLES && !seen.insert(pos.clone());
        if !repeated {
            game.moves(&pos, &mut moves);
        }
        let human = args.you.moves_at(ply);
        let values: Vec<(G::Move, Value)> = if repeated {
            Vec::new()
        } else {
            // One engine for the whole game: its table serves every turn.
            let a = analyze_with(game, &pos, &budget, Some(&engine))?;
            moves.iter().copied().zip(a.moves.into_iter().map(|m| m.value)).collect()
        };
        let value = values.iter().filter_map(|v| v.1.value).max();
        if args.json {
            let listed: Vec<_> = values
                .iter()
                .map(|&(mv, v)| {
                    json!({
                        "move": game.format_move(&pos, mv),
                        "value": v.value,
                        "exact": v.exact,
                        "outcome": v.outcome,
                    })
                })
                .collect();
            let to_move = if moves.is_empty() {
                "nobody"
            } else if human {
                "you"
            } else {
                "engine"
            };
            let shown = json!({
                "position": game.format_position(&pos),
                "moves": listed,
                "to_move": to_move,
                "repeated": repeated,
            });
            println!("{shown}");
        } else {
            println!("\n{}", game.render(&pos));
            for &(mv, v) in &values {
                let shown = match v {
                    Value { value: Some(x), exact: true, remoteness, .. } => {
                        describe(outcome(x), Some(x), remoteness)
                    }
                    Value { depth: Some(d), .. } => format!("{} (searched {d} plies)", shown(&v)),
                    _ => "not solved in time".to_string(),
                };
                println!("  {:>6}  {shown}", game.format_move(&pos, mv));
            }
        }
        if moves.is_empty() {
            if !args.json {
                let (v, why) = match repeated {
                    true => (game.repetition_score(&pos), "the position is repeated, "),
                    false => (game.final_score(&pos), ""),
                };
                let end = match v.signum() {
                    0 => "draw".to_string(),
                    1 => format!("the player to move has won ({v:+})"),
                    _ => format!("the player to move has lost ({v:+})"),
                };
                println!("game over: {why}{end}");
            }
            return Ok(());
        }
        let mv = if human {
            match read_move(game, &pos, &mut lines, args.json)? {
                Some(mv) => mv,
                None => return Ok(()),
            }
        } else {
            let chosen = match value {
                Some(v) => values.iter().find(|x| x.1.value == Some(v)).map(|x| x.0),
                None => None,
            };
            let mv = chosen.unwrap_or_else(|| {
                // Nothing solved in time: the engine's own choice at the depth it reached.
                engine.clear();
                let r = engine.search(
                    &pos,
                    Limits { time: Some(Duration::from_secs_f64(args.time)), ..Limits::default() },
                );
                r.best.unwrap_or(moves[0])
            });
            if !args.json {
                println!("engine plays {}", game.format_move(&pos, mv));
            }
            mv
        };
        pos = game.play(&pos, mv);
    }
    Ok(())
}

pub fn perft(args: &PerftArgs) -> Result<()> {
    gamegraph_games::visit(&args.game, &gamegraph_games::GameOptions::default(), PerftVisitor(args))?
}

struct PerftVisitor<'a>(&'a PerftArgs);

impl GameVisitor for PerftVisitor<'_> {
    type Output = Result<()>;

    fn visit<G: BuiltinGame>(self, game: G) -> Result<()> {
        let args = self.0;
        let pos = position_or_start(&game, args.position.as_deref())?;
        let started = std::time::Instant::now();
        let count = game.perft(&pos, args.depth);
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "perft {} of {}: {count} leaves in {seconds:.3} s ({:.1} M leaves/s)",
            args.depth,
            game.name(),
            count as f64 / seconds.max(1e-9) / 1e6
        );
        println!("{count}");
        Ok(())
    }
}
