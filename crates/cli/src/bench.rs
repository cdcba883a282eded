//! `gamegraph bench`: reproducible measurements of the engines.

use std::time::{Duration, Instant};

use anyhow::Result;
use gamegraph::random_graph::random_graph;
use gamegraph::solution::solve_graph;
use gamegraph::{Model, Outcome};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::io::print_json;
use crate::BenchGraphArgs;

/// Runs `work` under a spinner (shown only on a terminal) and times it.
fn phase<T>(message: &str, work: impl FnOnce() -> T) -> (T, Duration) {
    let spinner = ProgressBar::new_spinner().with_message(message.to_string());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
        spinner.set_style(style);
    }
    spinner.enable_steady_tick(Duration::from_millis(100));
    let started = Instant::now();
    let result = work();
    let elapsed = started.elapsed();
    spinner.finish_and_clear();
    (result, elapsed)
}

/// Peak resident memory of this process in bytes (Linux), if known.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

pub fn graph(args: &BenchGraphArgs) -> Result<()> {
    if args.nodes >= u32::MAX as usize {
        anyhow::bail!("--nodes must be below 2^32 - 1 (node ids are 32-bit)");
    }
    let (graph, build) = phase("building the graph", || random_graph(args.nodes, args.edges, args.seed));
    let edges = graph.edges().max(1) as f64;
    let mut models = Vec::new();
    for model in Model::ALL {
        let (solution, time) = phase(&format!("solving ({model})"), || solve_graph(&graph, model));
        let count = |o: Outcome| (0..graph.nodes() as u32).filter(|&u| solution.outcome(u) == o).count();
        models.push((model, time, count(Outcome::Win), count(Outcome::Lose), count(Outcome::Draw)));
    }
    let peak = peak_memory();
    if args.output.json {
        let solves: Vec<_> = models
            .iter()
            .map(|(m, t, w, l, d)| {
                json!({
                    "model": m.name(),
                    "seconds": t.as_secs_f64(),
                    "ns_per_edge": t.as_secs_f64() * 1e9 / edges,
                    "win": w, "lose": l, "draw": d,
                })
            })
            .collect();
        return print_json(&json!({
            "nodes": graph.nodes(),
            "edges": graph.edges(),
            "seed": args.seed,
            "build_seconds": build.as_secs_f64(),
            "graph_bytes": graph.heap_bytes(),
            "solve": solves,
            "peak_memory_bytes": peak,
        }));
    }
    println!("random graph: {} nodes, {} edges, seed {}", graph.nodes(), graph.edges(), args.seed);
    println!(
        "build (generate + forward and reverse CSR): {:.3} s, {:.1} ns/edge, {:.0} MiB",
        build.as_secs_f64(),
        build.as_secs_f64() * 1e9 / edges,
        graph.heap_bytes() as f64 / 1048576.0
    );
    for (model, time, w, l, d) in &models {
        println!(
            "solve {:<8} {:.3} s, {:.1} ns/edge   win {w}, lose {l}, draw {d}",
            model.name(),
            time.as_secs_f64(),
            time.as_secs_f64() * 1e9 / edges,
        );
    }
    if let Some(bytes) = peak {
        println!("peak memory: {:.0} MiB", bytes as f64 / 1048576.0);
    }
    Ok(())
}
