//! `gamegraph search`: iterative deepening on a position of any built-in game, with the value,
//! the principal variation and the engine's statistics.

use anyhow::Result;
use gamegraph::engine::{Limits, UNLIMITED};
use gamegraph::Notation;
use gamegraph_games::analysis::{Analyzer, Budget};
use gamegraph_games::{BuiltinGame, GameVisitor};
use serde_json::json;

use crate::args::{EngineArgs, GameArgs, JsonFlag};
use crate::terminal::{position_or_start, print_json};
use gamegraph_games::analysis::describe;

#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// The position (the start if omitted).
    #[arg(allow_hyphen_values = true)]
    pub position: Option<String>,
    /// Deepest iteration in plies (default: until the end of the game or another limit).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: Option<u32>,
    /// Stop after this many seconds (the last completed iteration is reported).
    #[arg(long, value_name = "SECONDS", value_parser = crate::args::seconds)]
    pub time: Option<std::time::Duration>,
    /// Stop after this many nodes (checked every 1,024 nodes; the first iteration always
    /// completes).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub output: JsonFlag,
}

pub fn run(args: &SearchArgs) -> Result<()> {
    // The search reads the database at its leaves, where a damaged file would only make it fall
    // back to search: every file is checked first, as solve checks those it reads.
    if let (Some(dir), Ok(entry)) = (&args.game.db, gamegraph_games::entry(&args.game.game)) {
        if let Some(databases) = gamegraph_games::databases(entry) {
            databases.check(dir)?;
        }
    }
    args.game.visit(Search(args))
}

struct Search<'a>(&'a SearchArgs);

impl GameVisitor for Search<'_> {
    type Output = Result<()>;

    fn visit<G: BuiltinGame>(self, game: G) -> Result<()> {
        let args = self.0;
        let time = args.time;
        let pos = position_or_start(&game, args.position.as_deref())?;
        let mut analyzer = Analyzer::new(&game, Budget::default(), args.engine.settings()?);
        let r = analyzer.search(&pos, Limits { depth: args.depth, nodes: args.nodes, time })?;
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
                "etc_cutoffs": r.stats.etc_cutoffs,
                "probable_cutoffs": r.stats.probable_cutoffs,
            }));
        }
        let reached = depth.map_or("the end of the game".to_string(), |d| format!("depth {d}"));
        // A decisive score in words, as `solve` shows values: the payoff and the plies to the end.
        let value = match gamegraph::score::decisive_parts(r.value) {
            Some((payoff, plies)) => describe(gamegraph::Outcome::of(payoff), Some(payoff), Some(plies)),
            None => r.value.to_string(),
        };
        say!("value {value} at {reached}{}", if r.complete { "" } else { " (stopped by a limit)" });
        say!("best {}  pv {}", best.as_deref().unwrap_or("-"), pv.join(" "));
        let cut_rate = r.stats.first_move_cutoffs as f64 / r.stats.beta_cutoffs.max(1) as f64;
        say!(
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
