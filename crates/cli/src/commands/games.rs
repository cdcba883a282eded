//! `gamegraph games`: the built-in games, from the registry (the same entries as the web page's
//! `GET /api/games`).

use anyhow::Result;
use gamegraph_games::GAMES;
use serde_json::json;

use crate::args::JsonFlag;
use crate::terminal::print_json;

#[derive(clap::Args, Debug)]
pub struct GamesArgs {
    #[command(flatten)]
    output: JsonFlag,
}

pub fn run(args: &GamesArgs) -> Result<()> {
    if args.output.json {
        return print_json(&json!({ "games": gamegraph_games::registry::listing() }));
    }
    for g in GAMES {
        say!("{}: {}\n  positions: {}\n  moves: {}", g.name, g.summary, g.positions, g.moves);
        for (name, option) in g.options {
            say!("  --{name}: {} (default {})", option.help, option.default);
        }
    }
    Ok(())
}
