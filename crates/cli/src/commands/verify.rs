//! `gamegraph verify`: a game's database directory checked (checksums, and stored values
//! against their moves), whatever the game: it is found through the game's registry entry.

use std::path::PathBuf;

use anyhow::{bail, Result};
use gamegraph_games::databases::VerifyRequest;

use crate::args::JsonFlag;
use crate::terminal::{database_directory, print_report, Bars};

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The game: one with a database directory (see 'gamegraph games').
    pub game: String,
    /// The database directory.
    #[arg(long, value_name = "DIR")]
    pub db: PathBuf,
    /// Check every position instead of a sample, where the database is checked by samples
    /// (Oware; chess tables are always checked whole).
    #[arg(long)]
    pub full: bool,
    /// Positions checked per part of the database without --full (Oware: per stone count).
    #[arg(long, default_value_t = 100_000, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,
    /// Keep each part's result (a chess table, an Oware stone count) in FILE as it is found, and
    /// skip the parts FILE holds from an earlier check of the same files: a long check that was
    /// stopped (Ctrl-C, a killed process) goes on where it stopped.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub output: JsonFlag,
}

pub fn run(args: &VerifyArgs) -> Result<()> {
    let databases = database_directory(&args.game, "verify")?;
    let request = VerifyRequest { sample: (!args.full).then_some(args.sample), record: args.record.clone() };
    let report = databases.verify(&args.db, &request, &Bars::bars_only())?;
    print_report(&*report, args.output.json)?;
    if let Some(failure) = report.failure() {
        bail!("{failure}");
    }
    Ok(())
}
