//! `gamegraph build`: strongly solve a built-in game (every position reachable from the start)
//! and write the database; for games with a directory of endgame databases, build it through
//! the game's registry entry.

use std::time::Instant;

use anyhow::{bail, Result};
use gamegraph::database::{Database, Entry};
use gamegraph::{ExploredGame, Outcome};
use gamegraph_games::analysis::MODEL;
use gamegraph_games::databases::BuildRequest;
use gamegraph_games::{BuiltinGame, DatabaseDirectory, GameEntry, GameVisitor};
use serde_json::json;
use std::path::PathBuf;

use crate::args::{BuildOptionList, EntryOptions, GameArgs, JsonFlag};
use crate::terminal::{describe, position_or_start, print_json, print_report, Bars};

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
    /// What to build into --db DIR, for games with a database directory (a killed build
    /// resumes at the first part not complete).
    #[command(flatten)]
    pub build: EntryOptions<BuildOptionList>,
    /// Build on timely dataflow workers, or on every process of a host file sharing the --db
    /// directory (the same files as one process), where the game's databases allow it (Oware).
    #[command(flatten)]
    pub cluster: crate::args::ClusterArgs,
    #[command(flatten)]
    pub output: JsonFlag,
}

pub fn run(args: &BuildArgs) -> Result<()> {
    let entry = gamegraph_games::entry(&args.game.game)?;
    if let Some(databases) = gamegraph_games::databases(entry) {
        return build_directory(entry, databases, args);
    }
    let on_cluster = args.cluster.hostfile.is_some() || args.cluster.workers.is_some();
    if on_cluster {
        bail!("--hostfile and --workers build database directories; {} is built on one machine", entry.name);
    }
    if let Some((name, _)) = args.build.given().iter().next() {
        bail!("--{name} is for database directories; {} is solved whole", entry.name);
    }
    if args.game.db.is_some() {
        bail!("build writes a database with --out FILE; --db is for database directories");
    }
    args.game.visit(Build(args))
}

/// `build GAME --db DIR ...` for a game with a database directory.
fn build_directory(entry: &GameEntry, databases: &dyn DatabaseDirectory, args: &BuildArgs) -> Result<()> {
    let Some(dir) = &args.game.db else {
        bail!("build {} writes {}: give the directory with --db DIR", entry.name, databases.describe())
    };
    if args.out.is_some() || args.from.is_some() {
        bail!("build {} takes --db DIR, not --out or --from", entry.name);
    }
    for (name, option) in databases.build_options() {
        if option.default.is_empty() && args.build.get(name).is_none() {
            bail!("build {} needs --{name}: {}", entry.name, option.help);
        }
    }
    let mut options = args.game.options();
    for (name, value) in args.build.given().iter() {
        options.set(name, value);
    }
    entry.check(&args.game.options())?;
    databases.check_build(entry.name, &args.build.given())?;
    let cluster = args.cluster.cluster()?;
    let request = BuildRequest { options: &options, cluster: cluster.as_ref() };
    match databases.build(dir, &request, &Bars::new(false))? {
        Some(report) => print_report(&*report, args.output.json),
        // Process 0 of a cluster reports for all.
        None => Ok(()),
    }
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
            db.write_file(out).map_err(crate::terminal::storage_error)?;
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
