//! Your own game solved over a cluster: [`refill::Refill`] (rules, dense index, un-moves) is all
//! the cluster needs. Every process runs the same command but for its index:
//!
//! ```text
//! cargo run --release -p gamegraph-cluster --example own_game -- PILE BANK [--workers W]
//!     [--hostfile FILE --process I]
//! ```
//!
//! Without a host file it runs on one process of W workers. Process 0 prints every position's
//! outcome, value and remoteness.

mod refill;

use std::path::PathBuf;
use std::sync::Arc;

use gamegraph::game::DenseIndex;
use gamegraph_cluster::dense::solve_game;
use gamegraph_cluster::Cluster;
use refill::Refill;

/// The command line, or what is wrong with it.
fn cluster_and_game() -> Result<(Cluster, Refill), String> {
    let (mut numbers, mut hostfile, mut process, mut workers) = (Vec::new(), None, 0, 1);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        let number = |text: String| text.parse::<usize>().map_err(|e| format!("{text}: {e}"));
        match arg.as_str() {
            "--hostfile" => hostfile = Some(PathBuf::from(value()?)),
            "--process" => process = number(value()?)?,
            "--workers" => workers = number(value()?)?,
            _ => numbers.push(arg.parse::<u32>().map_err(|e| format!("{arg}: {e}"))?),
        }
    }
    let [pile, bank] = numbers[..] else { return Err("give PILE and BANK".into()) };
    let cluster = match hostfile {
        Some(file) => Cluster::from_hostfile(&file, process, workers),
        None => Cluster::new(Vec::new(), 0, workers),
    }
    .map_err(|e| e.to_string())?;
    Ok((cluster, Refill { pile, bank }))
}

fn main() {
    let (cluster, game) = cluster_and_game().unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let solution = match solve_game(Arc::new(game), &cluster) {
        Ok(Some(solution)) => solution,
        Ok(None) => return,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1)
        }
    };
    println!("pile  bank  outcome  value  moves-to-end");
    for index in 0..game.index_len() {
        let Some((pile, bank)) = game.position(index) else { continue };
        let value = solution.value(index).map_or("-".into(), |v| v.to_string());
        let remoteness = solution.remoteness(index).map_or("-".into(), |r| r.to_string());
        let outcome = solution.outcome(index).name();
        println!("{pile:>4}  {bank:>4}  {outcome:<7}  {value:>5}  {remoteness:>12}");
    }
}
