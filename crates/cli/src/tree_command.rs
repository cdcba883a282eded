//! `gamegraph tree`: minimax and alpha-beta on a game tree, as in the seed document.

use std::path::Path;

use anyhow::{Context, Result};
use gamegraph::report::TreeReport;
use gamegraph::search::Algorithm;
use gamegraph::tree::{MoveOrder, Tree};

use crate::io::{print_json, read_text};
use crate::{AlgoArg, OrderArg, TreeArgs};

pub fn run(args: &TreeArgs) -> Result<()> {
    let text = if args.tree == "-" { read_text(Path::new("-"))? } else { args.tree.clone() };
    let tree = Tree::parse(&text).context("bad tree")?;
    let algorithm = match args.algo {
        AlgoArg::Minimax => Algorithm::Minimax,
        AlgoArg::Alphabeta => Algorithm::AlphaBeta,
    };
    let order = match args.order {
        OrderArg::Natural => MoveOrder::Natural,
        OrderArg::Best => MoveOrder::Best,
        OrderArg::Worst => MoveOrder::Worst,
    };
    let r = tree.analyze(algorithm, order);
    if args.dot {
        print!("{}", r.to_dot(&tree));
        return Ok(());
    }
    if args.output.json {
        return print_json(&TreeReport::new(&tree, &r, args.trace, false));
    }
    println!("value: {}", r.value);
    println!("best: {}", r.best.as_deref().unwrap_or("(the root is a leaf)"));
    println!("leaves evaluated: {} of {}", r.leaves, tree.leaf_count());
    println!("nodes visited: {}", r.nodes);
    if r.pruned.is_empty() {
        println!("pruned: none");
    } else {
        println!("pruned: {}", r.pruned.join(" "));
    }
    Ok(())
}
