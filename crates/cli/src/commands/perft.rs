//! `gamegraph perft`: the leaves of the game tree to a depth, the standard check of a move
//! generator.

use anyhow::Result;
use gamegraph_games::{BuiltinGame, GameOptions, GameVisitor};

use crate::terminal::position_or_start;

#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// The game: see 'gamegraph games'.
    pub game: String,
    /// Plies (a pass counts as one; a finished game is one leaf at every deeper depth).
    pub depth: u32,
    /// The position (the start if omitted).
    #[arg(allow_hyphen_values = true)]
    pub position: Option<String>,
}

pub fn run(args: &PerftArgs) -> Result<()> {
    gamegraph_games::visit(&args.game, &GameOptions::default(), Perft(args))?
}

struct Perft<'a>(&'a PerftArgs);

impl GameVisitor for Perft<'_> {
    type Output = Result<()>;

    fn visit<G: BuiltinGame>(self, game: G) -> Result<()> {
        let args = self.0;
        let pos = position_or_start(&game, args.position.as_deref())?;
        let started = std::time::Instant::now();
        let count = counted_with_progress(&game, &pos, args.depth);
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "perft {} of {}: {count} leaves in {seconds:.3} s ({:.1} M leaves/s)",
            args.depth,
            game.name(),
            count as f64 / seconds.max(1e-9) / 1e6
        );
        say!("{count}");
        Ok(())
    }
}

/// The perft count of `pos`, split into the subtrees two plies down so that a long count shows
/// its progress (a bar on standard error, drawn only on a terminal).
fn counted_with_progress<G: BuiltinGame>(game: &G, pos: &G::Position, depth: u32) -> u64 {
    let mut units = vec![(pos.clone(), depth)];
    for _ in 0..2 {
        units = units
            .into_iter()
            .flat_map(|(p, d)| {
                let mut moves = Vec::new();
                game.moves(&p, &mut moves);
                if d < 2 || moves.is_empty() {
                    return vec![(p, d)];
                }
                moves.into_iter().map(|mv| (game.play(&p, mv), d - 1)).collect()
            })
            .collect();
    }
    let bar = indicatif::ProgressBar::new(units.len() as u64);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("perft {bar:30} {pos}/{len} subtrees, {elapsed} (eta {eta})")
    {
        bar.set_style(style);
    }
    let count = units
        .iter()
        .map(|(p, d)| {
            let n = game.perft(p, *d);
            bar.inc(1);
            n
        })
        .sum();
    bar.finish_and_clear();
    count
}
