//! `gamegraph build`: strongly solve a built-in game (every position reachable from the start)
//! and write the database; for games with endgame databases, build them by stone count.

use std::time::Instant;

use anyhow::{bail, Result};
use gamegraph::database::{Database, Entry};
use gamegraph::{ExploredGame, Outcome};
use gamegraph_games::analysis::MODEL;
use gamegraph_games::{BuiltinGame, DatabaseKind, GameVisitor};
use serde_json::json;
use std::path::PathBuf;

use crate::args::{GameArgs, JsonFlag};
use crate::terminal::{describe, position_or_start, print_json, with_game, write_atomically};

#[derive(clap::Args, Debug)]
pub struct BuildArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Solve everything reachable from this position instead of the start.
    #[arg(long, value_name = "POSITION")]
    pub from: Option<String>,
    /// Write the database here (atomically: a complete file or none).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Oware: build every stone count from 0 to this one (into --db DIR, resuming a killed build).
    #[arg(long, value_name = "N")]
    pub stones: Option<usize>,
    /// Chess: the endgame tables to build into --db DIR, with those their captures and
    /// promotions lead to: a material (KQvKR), a comma-separated list, or 3, 4 or 5 for every
    /// table of up to that many pieces. A killed build resumes at the first table not complete.
    #[arg(long, value_name = "SPEC")]
    pub tables: Option<String>,
    /// Oware: build on timely dataflow workers, or on every process of a host file sharing
    /// the --db directory (the same files as one process).
    #[command(flatten)]
    pub cluster: crate::args::ClusterArgs,
    #[command(flatten)]
    pub output: JsonFlag,
}

pub fn run(args: &BuildArgs) -> Result<()> {
    let entry = gamegraph_games::entry(&args.game.game)?;
    let on_cluster = args.cluster.hostfile.is_some() || args.cluster.workers.is_some();
    if on_cluster
        && (entry.database != DatabaseKind::Directory || crate::commands::chess::is_chess(&args.game.game))
    {
        bail!("--hostfile and --workers build Oware databases; {} is built on one machine", args.game.game);
    }
    if crate::commands::chess::is_chess(&args.game.game) {
        if args.out.is_some() || args.from.is_some() || args.stones.is_some() {
            bail!("build chess takes --tables and --db, not --out, --from or --stones");
        }
        return crate::commands::chess::build(
            args.tables.as_deref(),
            args.game.db.as_deref(),
            args.output.json,
        );
    }
    if args.tables.is_some() {
        bail!("--tables is for chess endgame tables; {} has none", args.game.game);
    }
    if entry.database == DatabaseKind::Directory {
        return crate::commands::oware::build(args);
    }
    if args.stones.is_some() {
        bail!("--stones is for Oware databases; {} is solved whole", args.game.game);
    }
    if args.game.db.is_some() {
        bail!("build writes a database with --out FILE; --db is for Oware score directories");
    }
    with_game(&args.game, Build(args))
}

struct Build<'a>(&'a BuildArgs);

impl GameVisitor for Build<'_> {
    type Output = Result<()>;

    fn visit<G: BuiltinGame>(self, game: G) -> Result<()> {
        let args = self.0;
        let root = position_or_start(&game, args.from.as_deref())?;
        let started = Instant::now();
        let explored = ExploredGame::new(&game, root, args.game.limit)?;
        let solution = &explored.solve(MODEL);
        let seconds = started.elapsed().as_secs_f64();
        let graph = &explored.graph;
        let count = |o: Outcome| (0..graph.nodes() as u32).filter(|&u| solution.outcome(u) == o).count();
        let (win, lose, draw) = (count(Outcome::Win), count(Outcome::Lose), count(Outcome::Draw));
        let terminal = (0..graph.nodes() as u32).filter(|&u| graph.is_final(u)).count();
        if let Some(out) = &args.out {
            let mut db = Database::new(game.name(), MODEL);
            for (id, pos) in explored.positions.iter().enumerate() {
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
                    "position": game.format_position(&explored.positions[0]),
                    "outcome": start.outcome.name(),
                    "value": start.value,
                    "remoteness": start.remoteness,
                },
                "seconds": seconds,
                "out": args.out.as_ref().map(|p| p.display().to_string()),
            }));
        }
        say!("{}: {} positions ({} terminal), {} moves", game.name(), graph.nodes(), terminal, graph.edges());
        say!("for the player to move: {win} win, {lose} lose, {draw} draw");
        say!("start: {}", describe(start.outcome, start.value, start.remoteness));
        say!("solved in {:.1} ms", seconds * 1e3);
        if let Some(out) = &args.out {
            say!("database written to {}", out.display());
        }
        Ok(())
    }
}
