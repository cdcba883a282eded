//! `gamegraph build`: strongly solve a built-in game (every position reachable from the start)
//! and write the database; for games with a directory of endgame databases, build it through
//! the game's registry entry.

use anyhow::{bail, Result};
use gamegraph_games::databases::BuildRequest;
use gamegraph_games::whole::{solve_whole, WholeError, WholeRequest};
use gamegraph_games::{DatabaseDirectory, GameEntry};
use std::path::PathBuf;

use crate::args::{BuildOptionList, EntryOptions, GameArgs, JsonFlag};
use crate::terminal::{print_report, read_text, Bars};

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
    /// directory (the same files as one process): Oware and chess tables.
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
    let options = args.game.options();
    let from = match args.from.as_deref() {
        Some("-") => Some(read_text(std::path::Path::new("-"))?),
        from => from.map(String::from),
    };
    let request = WholeRequest {
        game: &args.game.game,
        options: &options,
        from: from.as_deref(),
        limit: args.game.limit,
        out: args.out.as_deref(),
    };
    let report = solve_whole(&request).map_err(|e| match e {
        WholeError::Storage(e) => crate::terminal::storage_error(e),
        e => e.into(),
    })?;
    print_report(&report, args.output.json)
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
    databases.check_build(entry, &options)?;
    let cluster = args.cluster.cluster()?;
    let request = BuildRequest { options: &options, cluster: cluster.as_ref() };
    match databases.build(dir, &request, &Bars::new(false))? {
        Some(report) => print_report(&*report, args.output.json),
        // Process 0 of a cluster reports for all.
        None => Ok(()),
    }
}
