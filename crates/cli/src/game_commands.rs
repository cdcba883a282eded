//! `gamegraph solve`, `build`, `play` and `games`: built-in games solved by retrograde analysis of
//! their reachable graph, or read back from a database.

use std::io::BufRead;
use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use gamegraph::database::{Database, Entry};
use gamegraph::solution::is_best_move;
use gamegraph::{ExploredGame, Game, Model, Notation, Outcome};
use gamegraph_games::{visit, BuiltinGame, GameVisitor, Solver, GAMES};
use serde_json::json;

use crate::io::{print_json, read_text, write_atomically};
use crate::{BuildArgs, GameArgs, GamesArgs, PlayArgs, SolveArgs};

/// Games are valued in the zero-sum model: a drawn final position is a draw, not a loss.
const MODEL: Model = Model::Minimax;

pub fn solve(args: &SolveArgs) -> Result<()> {
    with_game(&args.game, SolveVisitor(args))
}

pub fn build(args: &BuildArgs) -> Result<()> {
    if crate::oware_commands::is_oware(&args.game.game) {
        return crate::oware_commands::build(args);
    }
    if args.stones.is_some() {
        bail!("--stones is for Oware databases; {} is solved whole", args.game.game);
    }
    if args.game.db.is_some() {
        bail!("build writes a database with --out FILE; --db is for Oware score directories");
    }
    with_game(&args.game, BuildVisitor(args))
}

pub fn play(args: &PlayArgs) -> Result<()> {
    with_game(&args.game, PlayVisitor(args))
}

pub fn list(args: &GamesArgs) -> Result<()> {
    if args.output.json {
        let games: Vec<_> = GAMES
            .iter()
            .map(
                |g| json!({"name": g.name, "summary": g.summary, "positions": g.positions, "moves": g.moves}),
            )
            .collect();
        return print_json(&json!({ "games": games }));
    }
    for g in GAMES {
        println!("{}: {}\n  positions: {}\n  moves: {}", g.name, g.summary, g.positions, g.moves);
    }
    Ok(())
}

pub fn with_game<V: GameVisitor<Output = Result<()>>>(args: &GameArgs, visitor: V) -> Result<()> {
    visit(&args.game, &args.options(), visitor)?
}

/// The position written as `text`, or the start.
pub fn position_or_start<G: Notation>(game: &G, text: Option<&str>) -> Result<G::Position> {
    match text {
        None => Ok(game.start()),
        Some(text) => {
            let text = if text == "-" { read_text(Path::new("-"))? } else { text.to_string() };
            let text = text.trim();
            game.parse_position(text).with_context(|| format!("bad {} position '{text}'", game.name()))
        }
    }
}

/// Every position reachable from `root`, solved.
struct Solved<G: Game> {
    explored: ExploredGame<G>,
    solution: gamegraph::Solution,
}

impl<G: Notation> Solved<G> {
    fn new(game: &G, root: G::Position, limit: usize) -> Result<Self> {
        let explored = ExploredGame::new(game, root, limit)?;
        let solution = explored.solve(MODEL);
        Ok(Self { explored, solution })
    }

    fn entry(&self, pos: &G::Position) -> Option<Entry> {
        self.explored.id(pos).map(|id| Entry::from_solution(&self.solution, id))
    }
}

/// A legal move with what it leads to, from the point of view of the player making it.
struct MoveValue<M> {
    mv: M,
    notation: String,
    position: String,
    child: Entry,
    best: bool,
}

impl<M> MoveValue<M> {
    /// The move's outcome, value and remoteness for the player who makes it.
    fn for_mover(&self) -> (Outcome, Option<i32>, Option<u32>) {
        (self.child.outcome.opposite(), self.child.value.map(|v| -v), self.child.remoteness.map(|r| r + 1))
    }

    fn describe(&self) -> String {
        let (outcome, value, remoteness) = self.for_mover();
        describe(outcome, value, remoteness)
    }

    fn to_json(&self) -> serde_json::Value {
        let (outcome, value, remoteness) = self.for_mover();
        json!({
            "move": self.notation,
            "position": self.position,
            "outcome": outcome.name(),
            "value": value,
            "remoteness": remoteness,
        })
    }
}

pub fn describe(outcome: Outcome, value: Option<i32>, remoteness: Option<u32>) -> String {
    if outcome == Outcome::Draw {
        return "draw".into();
    }
    let value = value.map_or(String::new(), |v| format!(" {v:+}"));
    match remoteness {
        Some(r) => format!("{}{value} in {r}", outcome.name()),
        None => format!("{}{value}", outcome.name()),
    }
}

/// The entry of `pos` and the value of each of its moves, from `lookup`.
fn analyze<G: Notation>(
    game: &G,
    pos: &G::Position,
    lookup: impl Fn(&G::Position) -> Option<Entry>,
) -> Result<(Entry, Vec<MoveValue<G::Move>>)> {
    let missing = |p: &G::Position| anyhow!("position {} is not in the database", game.format_position(p));
    let entry = lookup(pos).ok_or_else(|| missing(pos))?;
    let mut moves = Vec::new();
    game.moves(pos, &mut moves);
    let values = moves
        .into_iter()
        .map(|mv| {
            let next = game.play(pos, mv);
            let child = lookup(&next).ok_or_else(|| missing(&next))?;
            Ok(MoveValue {
                mv,
                notation: game.format_move(pos, mv),
                position: game.format_position(&next),
                best: is_best_move(entry.label(MODEL), child.label(MODEL)),
                child,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((entry, values))
}

struct SolveVisitor<'a>(&'a SolveArgs);

impl GameVisitor for SolveVisitor<'_> {
    type Output = Result<()>;

    fn visit<G: BuiltinGame>(self, game: G) -> Result<()> {
        let args = self.0;
        match G::SOLVER {
            Solver::Search if args.game.db.is_some() => {
                bail!("{} is solved by search; it has no database (--db)", game.name())
            }
            Solver::Search => return crate::search_commands::solve(&game, args),
            Solver::Database => return crate::search_commands::solve_with_database(&game, args),
            Solver::Retrograde => {}
        }
        if args.analyze || args.weak || args.stats {
            bail!("--analyze, --weak and --stats are for games solved by search; {} shows every move's value anyway", game.name());
        }
        let pos = position_or_start(&game, args.position.as_deref())?;
        let (entry, moves) = match &args.game.db {
            Some(path) => {
                let file =
                    std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
                let db = Database::read_from(std::io::BufReader::new(file))
                    .with_context(|| format!("{}", path.display()))?;
                if db.game != game.name() {
                    bail!("{} is a database of {}, not of {}", path.display(), db.game, game.name());
                }
                analyze(&game, &pos, |p| db.get(&game.format_position(p)).copied())?
            }
            None => {
                let solved = Solved::new(&game, pos.clone(), args.game.limit)?;
                analyze(&game, &pos, |p| solved.entry(p))?
            }
        };
        let best: Vec<&str> = moves.iter().filter(|m| m.best).map(|m| m.notation.as_str()).collect();
        if args.output.json {
            return print_json(&json!({
                "game": game.name(),
                "position": game.format_position(&pos),
                "outcome": entry.outcome.name(),
                "value": entry.value,
                "remoteness": entry.remoteness,
                "moves": moves.iter().map(MoveValue::to_json).collect::<Vec<_>>(),
                "best": best,
            }));
        }
        println!("{}", game.render(&pos));
        println!(
            "position {}: {}",
            game.format_position(&pos),
            describe(entry.outcome, entry.value, entry.remoteness)
        );
        for m in &moves {
            println!("  {:>6}  {}{}", m.notation, m.describe(), if m.best { "  (best)" } else { "" });
        }
        Ok(())
    }
}

struct BuildVisitor<'a>(&'a BuildArgs);

impl GameVisitor for BuildVisitor<'_> {
    type Output = Result<()>;

    fn visit<G: BuiltinGame>(self, game: G) -> Result<()> {
        let args = self.0;
        let root = position_or_start(&game, args.from.as_deref())?;
        let started = Instant::now();
        let solved = Solved::new(&game, root, args.game.limit)?;
        let seconds = started.elapsed().as_secs_f64();
        let (graph, solution) = (&solved.explored.graph, &solved.solution);
        let count = |o: Outcome| (0..graph.nodes() as u32).filter(|&u| solution.outcome(u) == o).count();
        let (win, lose, draw) = (count(Outcome::Win), count(Outcome::Lose), count(Outcome::Draw));
        let terminal = (0..graph.nodes() as u32).filter(|&u| graph.is_final(u)).count();
        if let Some(out) = &args.out {
            let mut db = Database::new(game.name(), MODEL);
            for (id, pos) in solved.explored.positions.iter().enumerate() {
                db.insert(game.format_position(pos), Entry::from_solution(solution, id as u32));
            }
            write_atomically(out, |w| db.write_to(w))?;
        }
        let start = Entry::from_solution(solution, 0);
        if args.output.json {
            return print_json(&json!({
                "game": game.name(),
                "positions": graph.nodes(),
                "terminal": terminal,
                "win": win,
                "lose": lose,
                "draw": draw,
                "start": {
                    "position": game.format_position(&solved.explored.positions[0]),
                    "outcome": start.outcome.name(),
                    "value": start.value,
                    "remoteness": start.remoteness,
                },
                "seconds": seconds,
                "out": args.out.as_ref().map(|p| p.display().to_string()),
            }));
        }
        println!(
            "{}: {} positions ({} terminal), {} moves",
            game.name(),
            graph.nodes(),
            terminal,
            graph.edges()
        );
        println!("for the player to move: {win} win, {lose} lose, {draw} draw");
        println!("start: {}", describe(start.outcome, start.value, start.remoteness));
        println!("solved in {:.1} ms", seconds * 1e3);
        if let Some(out) = &args.out {
            println!("database written to {}", out.display());
        }
        Ok(())
    }
}

struct PlayVisitor<'a>(&'a PlayArgs);

impl GameVisitor for PlayVisitor<'_> {
    type Output = Result<()>;

    fn visit<G: BuiltinGame>(self, game: G) -> Result<()> {
        let args = self.0;
        if G::SOLVER != Solver::Retrograde {
            return crate::search_commands::play(&game, args);
        }
        let mut pos = position_or_start(&game, args.position.as_deref())?;
        let solved = Solved::new(&game, pos.clone(), args.game.limit)?;
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        for ply in 0.. {
            let (entry, moves) = analyze(&game, &pos, |p| solved.entry(p))?;
            let human = args.you.moves_at(ply);
            let over = moves.is_empty();
            if args.json {
                println!(
                    "{}",
                    json!({
                        "position": game.format_position(&pos),
                        "outcome": entry.outcome.name(),
                        "value": entry.value,
                        "remoteness": entry.remoteness,
                        "moves": moves.iter().map(MoveValue::to_json).collect::<Vec<_>>(),
                        "to_move": if over { "nobody" } else if human { "you" } else { "engine" },
                    })
                );
            } else {
                println!("\n{}", game.render(&pos));
                if over {
                    let end = match entry.value {
                        Some(0) => "draw".to_string(),
                        _ => format!(
                            "the player to move has lost ({})",
                            describe(entry.outcome, entry.value, None)
                        ),
                    };
                    println!("game over: {end}");
                } else {
                    println!(
                        "value for the player to move: {}",
                        describe(entry.outcome, entry.value, entry.remoteness)
                    );
                    for m in &moves {
                        println!("  {:>6}  {}", m.notation, m.describe());
                    }
                }
            }
            if over {
                return Ok(());
            }
            let mv = if human {
                match read_move(&game, &pos, &mut lines, args.json)? {
                    Some(mv) => mv,
                    None => return Ok(()),
                }
            } else {
                // Perfect play: the first optimal move (fastest win, slowest loss, or a draw).
                let chosen = moves.iter().find(|m| m.best).unwrap_or(&moves[0]);
                if !args.json {
                    println!("engine plays {}", chosen.notation);
                }
                chosen.mv
            };
            pos = game.play(&pos, mv);
        }
        Ok(())
    }
}

/// Asks until a legal move is typed; `None` at end of input or on `quit`.
pub fn read_move<G: Notation>(
    game: &G,
    pos: &G::Position,
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    json: bool,
) -> Result<Option<G::Move>> {
    loop {
        if !json {
            println!("your move (or 'quit'):");
        }
        let Some(line) = lines.next() else { return Ok(None) };
        let line = line.context("cannot read standard input")?;
        let text = line.trim();
        if text == "quit" || text == "q" {
            return Ok(None);
        }
        match game.parse_move(pos, text) {
            Ok(mv) => return Ok(Some(mv)),
            Err(e) if json => {
                println!("{}", json!({ "error": format!("'{text}' is not a legal move: {}", e.message) }))
            }
            Err(e) => println!("'{text}' is not a legal move: {}", e.message),
        }
    }
}
