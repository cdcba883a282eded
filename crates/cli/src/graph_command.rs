//! `gamegraph graph`: retrograde analysis of a game graph file.

use std::fmt::Write as _;

use anyhow::{Context, Result};
use gamegraph::graph_text::{parse_edges, parse_text, NamedGraph};
use gamegraph::report::GraphReport;
use gamegraph::solution::solve_graph;
use gamegraph::{Model, Outcome, Solution};

use crate::io::{print_json, read_text};
use crate::{FormatArg, GraphArgs, ModelArg};

pub fn run(args: &GraphArgs) -> Result<()> {
    let text = read_text(&args.file)?;
    let parsed = match args.format {
        FormatArg::Text => parse_text(&text),
        FormatArg::Edges => parse_edges(&text),
    }
    .with_context(|| format!("{}", args.file.display()))?;
    let model = match args.model {
        ModelArg::Outcome => Model::Outcome,
        ModelArg::Stakes => Model::Stakes,
        ModelArg::Minimax => Model::Minimax,
    };
    let solution = solve_graph(&parsed.graph, model);
    if args.output.json {
        return print_json(&GraphReport::new(&parsed, &solution, false));
    }
    let rows = (0..parsed.graph.nodes() as u32).map(|u| row(&parsed, &solution, u));
    if args.dot {
        print!("{}", dot(&parsed, &solution));
        return Ok(());
    }
    let show = |v: Option<i64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    if args.csv {
        println!("name,outcome,value,remoteness,best");
        for r in rows {
            let value = r.value.map_or(String::new(), |v| v.to_string());
            let remoteness = r.remoteness.map_or(String::new(), |v| v.to_string());
            println!(
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
    println!("{:<width$}  outcome  value  remoteness  best", "name");
    for r in rows {
        println!(
            "{:<width$}  {:<7}  {:>5}  {:>10}  {}",
            r.name,
            r.outcome.name(),
            show(r.value.map(i64::from)),
            show(r.remoteness.map(i64::from)),
            r.best.join(" ")
        );
    }
    Ok(())
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
