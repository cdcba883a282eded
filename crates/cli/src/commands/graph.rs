//! `gamegraph graph`: retrograde analysis of a game graph file.

use std::fmt::Write as _;

use anyhow::{Context, Result};
use gamegraph::graph_text::{parse_edges, parse_text, NamedGraph};
use gamegraph::report::GraphReport;
use gamegraph::solution::solve_graph;
use gamegraph::{Model, Outcome, Solution};

use gamegraph_cluster::graph::GraphPart;

use crate::args::{ClusterArgs, JsonFlag};
use crate::terminal::{print_json, read_text};

#[derive(clap::Args, Debug)]
pub struct GraphArgs {
    /// The graph file; '-' reads standard input.
    file: std::path::PathBuf,
    /// Value model: outcome (win/lose/draw), stakes (the seed's p) or minimax (zero-sum payoff).
    #[arg(long, default_value_t = Model::Stakes)]
    model: Model,
    /// File format: 'text' (a -> b c / b = 3 / a) or 'edges' (u v / u = p, numeric ids).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Print CSV: name,outcome,value,remoteness,best.
    #[arg(long, conflicts_with_all = ["json", "dot"])]
    csv: bool,
    /// Print Graphviz with positions coloured by outcome.
    #[arg(long, conflicts_with = "json")]
    dot: bool,
    #[command(flatten)]
    cluster: ClusterArgs,
    #[command(flatten)]
    output: JsonFlag,
}

/// The formats of graph files.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum FormatArg {
    Text,
    Edges,
}

pub fn run(args: &GraphArgs) -> Result<()> {
    let text = read_text(&args.file)?;
    let parsed = match args.format {
        FormatArg::Text => parse_text(&text),
        FormatArg::Edges => parse_edges(&text),
    }
    .with_context(|| format!("{}", args.file.display()))?;
    // Processes of a cluster given other files or options would solve other graphs together.
    let job = format!(
        "graph --model {} --format {:?}, input SHA-256 {}",
        args.model.name(),
        args.format,
        gamegraph::storage::sha256_hex(text.as_bytes())
    );
    drop(text);
    let model = args.model;
    let solution = match args.cluster.cluster()?.map(|c| c.with_job(job)) {
        None => solve_graph(&parsed.graph, model),
        Some(cluster) => {
            // Every process reads the file (bounded by the text limit) and keeps its workers'
            // part; only process 0, which prints, keeps the whole graph while solving.
            let part = std::sync::Arc::new(GraphPart::read(&parsed.graph, &cluster));
            if cluster.process != 0 {
                // The other processes leave the printing to process 0.
                drop(parsed);
                gamegraph_cluster::graph::solve_graph(&part, model, &cluster)?;
                return Ok(());
            }
            match gamegraph_cluster::graph::solve_graph(&part, model, &cluster)? {
                Some(solution) => solution,
                None => return Ok(()),
            }
        }
    };
    if args.output.json {
        return print_json(&GraphReport::new(&parsed, &solution, false));
    }
    let rows = (0..parsed.graph.nodes() as u32).map(|u| row(&parsed, &solution, u));
    if args.dot {
        say!("{}", dot(&parsed, &solution).trim_end_matches('\n'));
        return Ok(());
    }
    let show = |v: Option<i64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    if args.csv {
        say!("name,outcome,value,remoteness,best");
        for r in rows {
            let value = r.value.map_or(String::new(), |v| v.to_string());
            let remoteness = r.remoteness.map_or(String::new(), |v| v.to_string());
            say!(
                "{},{},{value},{remoteness},{}",
                csv_field(&r.name),
                r.outcome,
                csv_field(&r.best.join(" "))
            );
        }
        return Ok(());
    }
    let rows: Vec<Row> = rows.collect();
    let width = rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(4).max(4);
    say!("{}  outcome  value  remoteness  best", padded("name", width));
    for r in rows {
        say!(
            "{}  {:<7}  {:>5}  {:>10}  {}",
            padded(&r.name, width),
            r.outcome.name(),
            show(r.value.map(i64::from)),
            show(r.remoteness.map(i64::from)),
            r.best.join(" ")
        );
    }
    Ok(())
}

/// `name` padded with spaces to `width` characters (format widths stop at 65,535, names do not).
fn padded(name: &str, width: usize) -> String {
    let mut out = String::with_capacity(width);
    out.push_str(name);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(name.chars().count())));
    out
}

struct Row {
    name: String,
    outcome: Outcome,
    value: Option<i32>,
    remoteness: Option<u32>,
    best: Vec<String>,
}

fn row(g: &NamedGraph, solution: &Solution, u: u32) -> Row {
    let report = GraphReport::position(g, solution, u);
    Row {
        name: g.names[u as usize].clone(),
        outcome: solution.outcome(u),
        value: report.value,
        remoteness: report.remoteness,
        best: report.best,
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn dot(g: &NamedGraph, solution: &Solution) -> String {
    let mut out = String::from("digraph game {\n  node [style=filled, fontname=\"Helvetica\"];\n");
    let quote = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    for u in 0..g.graph.nodes() as u32 {
        let color = match solution.outcome(u) {
            Outcome::Win => "palegreen",
            Outcome::Lose => "lightpink",
            Outcome::Draw => "lightgrey",
        };
        let mut label = quote(&g.names[u as usize]);
        if let Some(v) = solution.value(u) {
            let _ = write!(label, "\\n{v}");
        }
        let _ = writeln!(out, "  n{u} [label=\"{label}\", fillcolor={color}];");
        for &v in g.graph.successors(u) {
            let style = if solution.is_best_move(u, v) { " [penwidth=2.5]" } else { "" };
            let _ = writeln!(out, "  n{u} -> n{v}{style};");
        }
    }
    out.push_str("}\n");
    out
}
