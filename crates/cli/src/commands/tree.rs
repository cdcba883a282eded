//! `gamegraph tree`: minimax and alpha-beta on a game tree, as in the seed document.

use std::path::Path;

use anyhow::{Context, Result};
use gamegraph::report::TreeReport;
use gamegraph::search::Algorithm;
use gamegraph::tree::{MoveOrder, Tree};

use crate::args::JsonFlag;
use crate::terminal::{print_json, read_text};

#[derive(clap::Args, Debug)]
pub struct TreeArgs {
    /// The tree: leaves are integers (MAX's point of view), inner nodes an optional label and
    /// children in parentheses. '-' reads it from standard input.
    tree: String,
    /// Search algorithm: minimax or alphabeta.
    #[arg(long, default_value_t = Algorithm::AlphaBeta)]
    algo: Algorithm,
    /// Order in which children are searched: natural, best or worst.
    #[arg(long, default_value_t = MoveOrder::Natural)]
    order: MoveOrder,
    /// Print Graphviz (values on nodes, pruned edges dashed) instead of a report.
    #[arg(long, conflicts_with = "json")]
    dot: bool,
    /// With --json, include every step of the search (window on entry, value on exit, prunes).
    #[arg(long, requires = "json")]
    trace: bool,
    #[command(flatten)]
    output: JsonFlag,
}

pub fn run(args: &TreeArgs) -> Result<()> {
    let text = if args.tree == "-" { read_text(Path::new("-"))? } else { args.tree.clone() };
    let tree = Tree::parse(&text).context("bad tree")?;
    let algorithm = args.algo;
    let order = args.order;
    let r = tree.analyze(algorithm, order);
    if args.dot {
        say!("{}", r.to_dot(&tree).trim_end_matches('\n'));
        return Ok(());
    }
    if args.output.json {
        return print_json(&TreeReport::new(&tree, &r, args.trace, false));
    }
    say!("value: {}", r.value);
    say!("best: {}", r.best.as_deref().unwrap_or("(the root is a leaf)"));
    say!("leaves evaluated: {} of {}", r.leaves, tree.leaf_count());
    say!("nodes visited: {}", r.nodes);
    if r.pruned.is_empty() {
        say!("pruned: none");
    } else {
        say!("pruned: {}", r.pruned.join(" "));
    }
    Ok(())
}
