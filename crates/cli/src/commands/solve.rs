//! `gamegraph solve`: the value of a position of a built-in game, with every move's, printed the
//! way each kind of game is customarily shown. The values all come from the library's
//! [`Analyzer`]; this file only reads arguments and prints.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use gamegraph::database::Database;
use gamegraph::Outcome;
use gamegraph_games::analysis::{Analysis, Analyzer, Budget, ForcedWinLimits, Value};
use gamegraph_games::{excerpt, BuiltinGame, GameVisitor, Solver};
use serde_json::json;

use crate::args::{EngineArgs, GameArgs, JsonFlag};
use crate::terminal::{position_or_start, print_json};
use gamegraph_games::analysis::describe;

#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// The position in the game's notation (the start if omitted); '-' reads one position a line
    /// from standard input (games solved by search).
    #[arg(allow_hyphen_values = true)]
    position: Option<String>,
    /// Search games: print the exact score of every move (a full column is marked 'full').
    #[arg(long)]
    analyze: bool,
    /// Search games: only win (1), draw (0) or loss (-1), which is faster.
    #[arg(long)]
    weak: bool,
    /// Search games: print nodes and time for each position, and the null-window probes of an
    /// exact solve (each threshold asked, the answer and its nodes).
    #[arg(long)]
    stats: bool,
    /// Prove or refute a forced mate in at most this many moves (1 to 16), and list every first
    /// move that forces one, in SAN (chess; exact: every move is searched, whatever the time).
    #[arg(long, value_name = "MOVES", value_parser = clap::value_parser!(u32).range(1..=16))]
    mate: Option<u32>,
    /// Database games, beyond the database: search this many plies (within --time).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    depth: Option<u32>,
    /// Database games, beyond the database: seconds of search in all, shared by the moves (5 by
    /// default). With --mate: seconds before the search gives up (default: none).
    #[arg(long, value_name = "SECONDS", value_parser = crate::args::seconds)]
    time: Option<Duration>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    output: JsonFlag,
}

pub fn run(args: &SolveArgs) -> Result<()> {
    args.game.visit(Solve(args))
}

struct Solve<'a>(&'a SolveArgs);

impl GameVisitor for Solve<'_> {
    type Output = Result<()>;

    fn visit<G: BuiltinGame>(self, game: G) -> Result<()> {
        let args = self.0;
        if let Some(moves) = args.mate {
            return forced_wins(&game, args, moves);
        }
        match G::ENTRY.solver {
            Solver::Retrograde => retrograde(&game, args),
            Solver::Search => searched(&game, args),
            Solver::Database => database(&game, args),
        }
    }
}

/// Games solved whole: the board, the value with its distance, and every move's, optimal ones
/// marked.
fn retrograde<G: BuiltinGame>(game: &G, args: &SolveArgs) -> Result<()> {
    if args.analyze || args.weak || args.stats {
        bail!(
            "--analyze, --weak and --stats are for games solved by search; {} shows every move's value anyway",
            game.name()
        );
    }
    let pos = position_or_start(game, args.position.as_deref())?;
    let budget = Budget { time: None, positions: args.game.limit, ..Budget::default() };
    let mut analyzer = Analyzer::new(game, budget, args.engine.settings()?);
    if let Some(path) = &args.game.db {
        analyzer =
            analyzer.with_database(Database::read_file(path)?).with_context(|| path.display().to_string())?;
    }
    let a = analyzer.analyze(&pos)?;
    let is_best = |m: &str| a.best.iter().any(|b| b == m);
    let words = |v: &Value| describe(v.outcome.unwrap_or(Outcome::Draw), v.value, v.remoteness);
    if args.output.json {
        let moves: Vec<_> = a
            .moves
            .iter()
            .map(|m| {
                json!({
                    "move": m.notation,
                    "position": m.position,
                    "outcome": m.value.outcome,
                    "value": m.value.value,
                    "remoteness": m.value.remoteness,
                })
            })
            .collect();
        return print_json(&json!({
            "game": a.game,
            "position": a.position,
            "outcome": a.value.outcome,
            "value": a.value.value,
            "remoteness": a.value.remoteness,
            "moves": moves,
            "best": a.best,
        }));
    }
    say!("{}", game.render(&pos));
    say!("position {}: {}", a.position, words(&a.value));
    for m in &a.moves {
        say!(
            "  {:>6}  {}{}",
            m.notation,
            words(&m.value),
            if is_best(&m.notation) { "  (best)" } else { "" }
        );
    }
    Ok(())
}

/// A database file written by `build --out`, checked.
/// Games solved by search: `POSITION SCORE` lines (or the game's customary test-file lines),
/// exact whatever the time, for one position or one a line of standard input.
fn searched<G: BuiltinGame>(game: &G, args: &SolveArgs) -> Result<()> {
    let budget = Budget { time: None, weak: args.weak, ..Budget::default() };
    let mut analyzer = Analyzer::new(game, budget, args.engine.settings()?);
    analyzer.engine()?;
    if args.position.as_deref() == Some("-") {
        return each_position(game, |text, pos| solve_one(game, &mut analyzer, text, pos, args));
    }
    let pos = position_or_start(game, args.position.as_deref())?;
    solve_one(game, &mut analyzer, args.position.as_deref().unwrap_or(""), &pos, args)
}

fn solve_one<G: BuiltinGame>(
    game: &G,
    analyzer: &mut Analyzer<'_, G>,
    text: &str,
    pos: &G::Position,
    args: &SolveArgs,
) -> Result<()> {
    let started = Instant::now();
    let (score, best, nodes, slots, probes) = if args.analyze {
        let a = analyzer.analyze(pos)?;
        // A finished game has no move to show, not a row of full columns.
        let slots_shown = if a.over { Vec::new() } else { game.move_slots(pos) };
        let slots: Vec<(String, bool, Option<i32>)> = slots_shown
            .into_iter()
            .map(|(label, mv)| {
                let value = mv.and_then(|mv| {
                    let notation = game.format_move(pos, mv);
                    a.moves.iter().find(|m| m.notation == notation).and_then(|m| m.value.value)
                });
                (label, mv.is_some(), value)
            })
            .collect();
        (a.value.value.unwrap_or(0), None, a.nodes, slots, Vec::new())
    } else {
        let v = analyzer.value(pos)?;
        let best = v.best.map(|m| game.format_move(pos, m));
        (v.value.value.unwrap_or(0), best, v.nodes, Vec::new(), v.probes)
    };
    let seconds = started.elapsed().as_secs_f64();
    if args.output.json {
        let mut out = json!({
            "position": text,
            "score": score,
            "outcome": Outcome::of(score).name(),
            "nodes": nodes,
            "seconds": seconds,
        });
        if let Some(best) = &best {
            out["best"] = json!(best);
        }
        if args.stats {
            out["probes"] = probes.iter().map(super::bench::probe_json).collect();
        }
        if args.analyze {
            out["moves"] = slots
                .iter()
                .map(|(label, playable, value)| json!({"move": label, "playable": playable, "score": value}))
                .collect();
        }
        say!("{out}");
        return Ok(());
    }
    let moves: Vec<(String, Option<i32>)> =
        slots.into_iter().map(|(label, _, value)| (label, value)).collect();
    let mut line = game.format_solution(text, score, best.as_deref(), &moves);
    if args.stats {
        line.push_str(&format!("  ({nodes} nodes, {:.3} ms", seconds * 1e3));
        // The selective pass was a guess only if exact probes followed it.
        let guessed = probes.iter().any(|p| !p.selective);
        let shown: Vec<String> = probes.iter().map(|p| probe_text(p, guessed)).collect();
        if !shown.is_empty() {
            line.push_str(&format!("; probes {}", shown.join(", ")));
        }
        line.push(')');
    }
    say!("{line}");
    Ok(())
}

/// One probe of an exact solve in words: the question, the fail-soft answer and its nodes, e.g.
/// `>=1: <=0 in 9030 nodes`; `guessed` marks the probes of a selective pass that exact probes
/// had to check (they trusted probable bounds).
fn probe_text(p: &gamegraph::engine::Probe, guessed: bool) -> String {
    let answer = if p.result >= p.threshold { ">=" } else { "<=" };
    let selective = if p.selective && guessed { " selective" } else { "" };
    format!(">={}: {answer}{} in {} nodes{selective}", p.threshold, p.result, p.nodes)
}

/// Games with endgame databases: the position's value and every move's, exact where the
/// database covers them, else from a search limited by `--depth` or `--time`, shown as the
/// game shows them; with `-`, one position a line of standard input, each answered on one line.
fn database<G: BuiltinGame>(game: &G, args: &SolveArgs) -> Result<()> {
    if args.weak || args.analyze {
        bail!("{} always shows every move's value; --weak and --analyze are for Connect 4", game.name());
    }
    let time = args.time.unwrap_or(Duration::from_secs(5));
    let budget = Budget { time: Some(time), depth: args.depth, ..Budget::default() };
    let mut analyzer = Analyzer::new(game, budget, args.engine.settings()?);
    if args.position.as_deref() == Some("-") {
        return each_position(game, |text, pos| {
            let value = analyzer.value(pos)?;
            say!("{}", game.value_record(text, &value.value));
            Ok(())
        });
    }
    let pos = position_or_start(game, args.position.as_deref())?;
    let started = Instant::now();
    let a: Analysis = analyzer.analyze(&pos)?;
    if args.output.json {
        let mut out = game.analysis_json(&a);
        out["seconds"] = json!(started.elapsed().as_secs_f64());
        return print_json(&out);
    }
    say!("{}", game.describe_analysis(&pos, &a));
    if args.stats {
        say!("{:.3} s", started.elapsed().as_secs_f64());
    }
    Ok(())
}

/// `--mate N`: every first move that forces a win within N moves, for games with such a
/// solver; with `-`, one position a line of standard input, each answered on one line.
fn forced_wins<G: BuiltinGame>(game: &G, args: &SolveArgs, moves: u32) -> Result<()> {
    let limits = ForcedWinLimits { table_mib: args.engine.hash as usize, time: args.time };
    let solve = |pos: &G::Position| {
        game.forced_wins(pos, moves, limits).ok_or_else(|| {
            anyhow::anyhow!("--mate solves forced mates: {} has no solver of them", game.name())
        })
    };
    if args.position.as_deref() == Some("-") {
        return each_position(game, |_, pos| {
            say!("{}", solve(pos)?.line());
            Ok(())
        });
    }
    let pos = position_or_start(game, args.position.as_deref())?;
    let found = solve(&pos)?;
    if args.output.json {
        return print_json(&found);
    }
    say!("{}", game.render(&pos));
    say!("{found}");
    Ok(())
}

/// Calls `answer` with each position of standard input, one a line as the game's test files
/// write them (empty lines skipped, a byte order mark dropped), as each line arrives; an error
/// names the line.
fn each_position<G: BuiltinGame>(
    game: &G,
    mut answer: impl FnMut(&str, &G::Position) -> Result<()>,
) -> Result<()> {
    let stdin = std::io::stdin();
    for (n, line) in std::io::BufRead::lines(stdin.lock()).enumerate() {
        let line = line.with_context(|| format!("cannot read standard input line {}", n + 1))?;
        // A file saved with a byte order mark starts with one.
        let text = game.record_position(if n == 0 { line.trim_start_matches('\u{feff}') } else { &line });
        if text.is_empty() {
            continue;
        }
        let at =
            || format!("standard input line {}: bad {} position '{}'", n + 1, game.name(), excerpt(text));
        let pos = game.parse_position(text).with_context(at)?;
        answer(text, &pos).with_context(|| format!("standard input line {}", n + 1))?;
    }
    Ok(())
}
