//! `gamegraph stats`: the won, drawn and lost positions of a game's database directory, part by
//! part, whatever the game: it is found through the game's registry entry.

use std::path::PathBuf;

use anyhow::Result;

use crate::args::JsonFlag;
use crate::terminal::{database_directory, print_report};

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// The game: one with a database directory (see 'gamegraph games').
    pub game: String,
    /// The database directory.
    #[arg(long, value_name = "DIR")]
    pub db: PathBuf,
    #[command(flatten)]
    pub output: JsonFlag,
}

pub fn run(args: &StatsArgs) -> Result<()> {
    let databases = database_directory(&args.game, "stats")?;
    let report = databases.stats(&args.db)?;
    print_report(&*report, args.output.json)
}
