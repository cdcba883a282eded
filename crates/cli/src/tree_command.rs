//! `gamegraph tree`: minimax and alpha-beta on a game tree, as in the seed document.

use std::path::Path;

use anyhow::{Context, Result};
use gamegraph::search::{Algorithm, StepKind};
use gamegraph::tree::{MoveOrder, Tree};
use serde_json::json;

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
        let mut out = json!({
            "algo": algorithm.name(),
            "order": order.name(),
            "value": r.value,
            "best": r.best,
            "leaves": r.leaves,
            "total_leaves": tree.leaf_count(),
            "nodes": r.nodes,
            "pruned": r.pruned,
        });
        if args.trace {
            out["trace"] = r
                .trace
                .iter()
                .map(|s| {
                    json!({
                        "step": step_name(s.kind),
                        "node": s.node,
                        "alpha": s.alpha,
                        "beta": s.beta,
                        "value": s.value,
                    })
                })
                .collect();
        }
        return print_json(&out);
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

/// The JSON name of a step.
pub fn step_name(kind: StepKind) -> &'static str {
    match kind {
        StepKind::Enter => "enter",
        StepKind::Leaf => "leaf",
        StepKind::Exit => "exit",
        StepKind::Prune => "prune",
    }
}
