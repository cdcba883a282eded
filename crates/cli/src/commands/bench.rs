//! `gamegraph bench`: reproducible measurements of the engines.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use gamegraph::engine::Limits;
use gamegraph::graph::GraphStream;
use gamegraph::random_graph::RandomGraph;
use gamegraph::search::Algorithm;
use gamegraph::solution::solve_graph;
use gamegraph::tree::{MoveOrder, Tree};
use gamegraph::{Model, Notation, Outcome};
use gamegraph_cluster::graph::GraphPart;
use gamegraph_games::analysis::{Analyzer, Budget};
use gamegraph_games::{records, Connect4};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use gamegraph::engine::EngineSettings;
use gamegraph_games::chess::bench as chess_bench;
use gamegraph_games::chess::material::Material;
use gamegraph_games::chess::san::san;
use gamegraph_games::chess::{parse_fen, Chess, Tablebase};
use gamegraph_games::oware::directory::build as oware_build;
use gamegraph_games::oware::{Database as OwareDatabase, Rules, MAX_STONES};

use crate::args::{EngineArgs, JsonFlag};
use crate::terminal::{print_json, read_text, Bars};

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    /// Build a reproducible random graph with cycles and solve it in every model.
    Graph(BenchGraphArgs),
    /// Solve Connect 4 test files ('moves score' per line), checking every score.
    Connect4(BenchConnect4Args),
    /// Leaves evaluated by minimax and alpha-beta under each move ordering, on random trees.
    Ordering(BenchOrderingArgs),
    /// Build the Oware databases from scratch in a temporary directory: time and positions per
    /// second of each stone count, peak memory.
    Oware(BenchOwareArgs),
    /// Solve Othello endgames of .obf files exactly, checking each score and best move.
    Othello(BenchOthelloArgs),
    /// Chess: perft on the six standard positions, then every endgame table of up to --pieces
    /// pieces built from scratch in a temporary directory (files written), then random probes.
    Chess(BenchChessArgs),
}

#[derive(clap::Args, Debug)]
pub struct BenchChessArgs {
    /// Build every table of 3 to this many pieces (3 to 5).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(3..=5))]
    pub pieces: u8,
    /// Perft depth on the standard positions (0: none).
    #[arg(long, default_value_t = 5)]
    pub perft: u32,
    /// Depth of a one-thread engine search of each standard position, for the search's nodes
    /// per second (0: none).
    #[arg(long, default_value_t = 7, value_name = "PLIES")]
    pub search: u32,
    /// Random positions probed from the files.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub probes: u64,
    /// Probe the tables of this directory instead of building any (with `--epd`: the tables
    /// the search probes).
    #[arg(long, value_name = "DIR")]
    pub db: Option<std::path::PathBuf>,
    /// Run the test suite of this EPD file instead (such as `tests/data/chess/wac.epd`, Win At
    /// Chess): search each position for `--movetime` and count those whose best move is found.
    #[arg(long, value_name = "FILE")]
    pub epd: Option<PathBuf>,
    /// Search time per position of `--epd`.
    #[arg(long, default_value_t = 1000, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub movetime: u64,
    /// Search threads for `--epd`.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// With --hostfile: the tables to build on the cluster into --db (a directory every process
    /// shares, holding no tables yet), as `build chess --tables` takes them.
    #[arg(long, value_name = "SPEC", requires = "hostfile")]
    pub tables: Option<String>,
    /// Build --tables on timely dataflow workers: every process reports its time, the kernel
    /// messages and the questions and answers about exits it sent, and its peak memory, process
    /// 0 also the entries built.
    #[command(flatten)]
    pub cluster: crate::args::ClusterArgs,
    #[command(flatten)]
    pub output: JsonFlag,
}

#[derive(clap::Args, Debug)]
pub struct BenchGraphArgs {
    /// Solve on timely dataflow workers (every process generates the graph from --seed and keeps
    /// only its workers' part).
    #[command(flatten)]
    pub cluster: crate::args::ClusterArgs,
    /// Number of positions.
    #[arg(long, default_value_t = 1_000_000)]
    pub nodes: usize,
    /// Number of moves.
    #[arg(long, default_value_t = 10_000_000)]
    pub edges: usize,
    /// Random seed: the same seed gives the same graph.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub output: JsonFlag,
}

#[derive(clap::Args, Debug)]
pub struct BenchConnect4Args {
    /// Test files: one position per line, its columns then its expected score.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Only the first N positions of each file.
    #[arg(long, value_name = "N")]
    pub first: Option<usize>,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub output: JsonFlag,
}

#[derive(clap::Args, Debug)]
pub struct BenchOrderingArgs {
    /// Children per inner node.
    #[arg(long, default_value_t = 4)]
    pub branching: u32,
    /// Depth of the leaves.
    #[arg(long, default_value_t = 8)]
    pub depth: u32,
    /// Random trees averaged over.
    #[arg(long, default_value_t = 20)]
    pub trees: u32,
    /// Seed of the first tree.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub output: JsonFlag,
}

#[derive(clap::Args, Debug)]
pub struct BenchOthelloArgs {
    /// .obf files: one position per line, then '; MOVE:SCORE' entries, best first.
    #[arg(required_unless_present = "random")]
    pub files: Vec<PathBuf>,
    /// Solve N positions reached by random play from the start instead of files (unlike the FFO
    /// sets, which come from expert games), the same N positions for the same --seed.
    #[arg(long, value_name = "N", conflicts_with = "files",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub random: Option<u32>,
    /// Empty squares of the --random positions.
    #[arg(long, default_value_t = 22, requires = "random",
          value_parser = clap::value_parser!(u32).range(1..=60))]
    pub empties: u32,
    /// Seed of the --random positions.
    #[arg(long, default_value_t = 1, requires = "random")]
    pub seed: u64,
    /// Also write the --random positions to FILE as .obf lines, every move with its exact score
    /// (solved after the timing), to bench again as a file.
    #[arg(long, value_name = "FILE", requires = "random")]
    pub write: Option<PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub output: JsonFlag,
}

#[derive(clap::Args, Debug)]
pub struct BenchOwareArgs {
    /// Build every stone count up to this one.
    #[arg(long, default_value_t = 16)]
    pub stones: usize,
    /// Rule variant: vu or abapa.
    #[arg(long, default_value = "vu")]
    pub rules: String,
    /// Build in this directory, which must not hold a database yet (default: a temporary one;
    /// with --hostfile, required: a directory every process shares).
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Build on timely dataflow workers: every process reports its time, the kernel messages and
    /// the questions and answers about exits it sent, and its peak memory.
    #[command(flatten)]
    pub cluster: crate::args::ClusterArgs,
    #[command(flatten)]
    pub output: JsonFlag,
}

/// Runs the benchmark asked for.
pub fn run(args: &BenchArgs) -> Result<()> {
    match &args.what {
        BenchCommand::Graph(args) => graph(args),
        BenchCommand::Connect4(args) => connect4(args),
        BenchCommand::Ordering(args) => ordering(args),
        BenchCommand::Oware(args) => oware(args),
        BenchCommand::Othello(args) => othello(args),
        BenchCommand::Chess(args) => chess(args),
    }
}

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
pub(crate) fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// What `bench graph` holds of its graph.
enum HeldGraph {
    /// One machine: the whole graph, both directions.
    Whole(gamegraph::GameGraph),
    /// A process of a cluster: its workers' part, and the cluster it was read for.
    Part(std::sync::Arc<GraphPart>, gamegraph_cluster::Cluster),
}

impl HeldGraph {
    fn heap_bytes(&self) -> usize {
        match self {
            HeldGraph::Whole(graph) => graph.heap_bytes(),
            HeldGraph::Part(part, _) => part.heap_bytes(),
        }
    }
}

/// About how many bytes this process needs for a random graph of `nodes` and `edges`: on one
/// machine both directions (8 bytes a move) and 40 bytes a node with its solution; in a cluster
/// its share of the predecessors (4 bytes a move, 16 a node), plus the gathered solution on
/// process 0.
fn graph_memory(nodes: u64, edges: u64, cluster: Option<&gamegraph_cluster::Cluster>) -> u64 {
    let Some(c) = cluster else {
        return edges.saturating_mul(8).saturating_add(nodes.saturating_mul(40));
    };
    let processes = c.hosts.len().max(1) as u64;
    let share = edges.saturating_mul(4).saturating_add(nodes.saturating_mul(16)) / processes;
    share.saturating_add(if c.process == 0 { nodes.saturating_mul(40) } else { 0 })
}

pub fn graph(args: &BenchGraphArgs) -> Result<()> {
    if args.nodes >= u32::MAX as usize {
        bail!("--nodes must be below 2^32 - 1 (node ids are 32-bit)");
    }
    let job = format!("bench graph --nodes {} --edges {} --seed {}", args.nodes, args.edges, args.seed);
    let cluster = args.cluster.cluster()?.map(|c| c.with_job(job));
    let stream = RandomGraph::new(args.nodes, args.edges, args.seed);
    let needed = graph_memory(args.nodes as u64, args.edges as u64, cluster.as_ref());
    if let Some(total) = crate::terminal::memory_bytes().filter(|&t| needed > t / 4 * 3) {
        bail!(
            "a graph of {} nodes and {} edges needs about {} MiB in this process, more than this machine's {} MiB allow",
            args.nodes,
            args.edges,
            needed >> 20,
            total >> 20
        );
    }
    // One machine holds the whole graph; a process of a cluster only its workers' part.
    let (held, build) = match &cluster {
        None => phase("building the graph", || HeldGraph::Whole(stream.build())),
        Some(c) => phase("reading this process's part of the graph", || {
            HeldGraph::Part(std::sync::Arc::new(GraphPart::read(&stream, c)), c.clone())
        }),
    };
    let (nodes, edges) = (stream.nodes(), stream.edges());
    let per_edge = edges.max(1) as f64;
    let mut models = Vec::new();
    for model in Model::ALL {
        let solve = || -> Result<Option<gamegraph::Solution>> {
            Ok(match &held {
                HeldGraph::Whole(graph) => Some(solve_graph(graph, model)),
                HeldGraph::Part(part, c) => gamegraph_cluster::graph::solve_graph(part, model, c)?,
            })
        };
        let (solution, time) = phase(&format!("solving ({model})"), solve);
        // The other processes of a cluster leave the report to process 0.
        let Some(solution) = solution? else { continue };
        let count = |o: Outcome| (0..nodes as u32).filter(|&u| solution.outcome(u) == o).count();
        models.push((model, time, count(Outcome::Win), count(Outcome::Lose), count(Outcome::Draw)));
    }
    if cluster.as_ref().is_some_and(|c| c.process != 0) {
        return Ok(());
    }
    let peak = peak_memory();
    if args.output.json {
        let solves: Vec<_> = models
            .iter()
            .map(|(m, t, w, l, d)| {
                json!({
                    "model": m.name(),
                    "seconds": t.as_secs_f64(),
                    "ns_per_edge": t.as_secs_f64() * 1e9 / per_edge,
                    "win": w, "lose": l, "draw": d,
                })
            })
            .collect();
        return print_json(&json!({
            "nodes": nodes,
            "edges": edges,
            "seed": args.seed,
            "build_seconds": build.as_secs_f64(),
            "graph_bytes": held.heap_bytes(),
            "solve": solves,
            "peak_memory_bytes": peak,
        }));
    }
    say!("random graph: {nodes} nodes, {edges} edges, seed {}", args.seed);
    let built = match held {
        HeldGraph::Whole(_) => "build (generate + forward and reverse CSR)",
        HeldGraph::Part(..) => "read this process's part (generate twice + its predecessors)",
    };
    say!(
        "{built}: {:.3} s, {:.1} ns/edge, {:.0} MiB",
        build.as_secs_f64(),
        build.as_secs_f64() * 1e9 / per_edge,
        held.heap_bytes() as f64 / 1048576.0
    );
    for (model, time, w, l, d) in &models {
        say!(
            "solve {:<8} {:.3} s, {:.1} ns/edge   win {w}, lose {l}, draw {d}",
            model.name(),
            time.as_secs_f64(),
            time.as_secs_f64() * 1e9 / per_edge,
        );
    }
    if let Some(bytes) = peak {
        say!("peak memory: {:.0} MiB", mib(bytes));
    }
    Ok(())
}

pub fn connect4(args: &BenchConnect4Args) -> Result<()> {
    let game = Connect4::default();
    let settings = args.engine.settings()?;
    let engine = args.engine.engine(&game)?;
    let mut files = Vec::new();
    for path in &args.files {
        let positions = records::connect4_test_file(path, &read_text(path)?, args.first)?;
        let bar = ProgressBar::new(positions.len() as u64).with_message(path.display().to_string());
        if let Ok(style) = ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} {elapsed} (eta {eta})") {
            bar.set_style(style);
        }
        let mut run =
            FileRun { name: path.display().to_string(), total: positions.len(), ..FileRun::default() };
        for p in &positions {
            let pos = game.parse_position(&p.position).with_context(|| {
                format!("{} line {}: bad position '{}'", path.display(), p.line, p.position)
            })?;
            engine.clear();
            let r = engine.solve(&pos, Limits::default());
            run.nodes += r.stats.nodes;
            run.probes += r.probes.len();
            run.time += r.elapsed;
            run.worst = run.worst.max(r.elapsed);
            if r.value == p.score {
                run.correct += 1;
            } else {
                run.wrong.push(format!(
                    "line {}: {} scored {} instead of {}",
                    p.line, p.position, r.value, p.score
                ));
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        files.push(run);
    }
    if args.output.json {
        let out: Vec<_> = files
            .iter()
            .map(|f| {
                json!({
                    "file": f.name, "correct": f.correct, "total": f.total,
                    "mean_seconds": f.mean_seconds(), "max_seconds": f.worst.as_secs_f64(),
                    "mean_nodes": f.mean_nodes(), "mean_probes": f.probes as f64 / f.count(),
                    "nodes_per_second": f.nodes_per_second(),
                    "wrong": f.wrong,
                })
            })
            .collect();
        return print_json(
            &json!({ "threads": settings.threads, "hash_mib": settings.tt_mib, "files": out }),
        );
    }
    say!("threads {}, table {} MiB, table cleared before each position", settings.threads, settings.tt_mib);
    say!(
        "{:<28} {:>11} {:>13} {:>13} {:>14} {:>10}",
        "file",
        "correct",
        "mean time",
        "max time",
        "mean nodes",
        "Mnodes/s"
    );
    for f in &files {
        let short = std::path::Path::new(&f.name)
            .file_name()
            .map_or(f.name.clone(), |base| base.to_string_lossy().into_owned());
        say!(
            "{:<28} {:>11} {:>13} {:>13} {:>14.1} {:>10.2}",
            short,
            format!("{}/{}", f.correct, f.total),
            human_time(f.mean_seconds()),
            human_time(f.worst.as_secs_f64()),
            f.mean_nodes(),
            f.nodes_per_second() / 1e6
        );
        for w in &f.wrong {
            say!("  wrong: {w}");
        }
    }
    if files.iter().any(|f| f.correct != f.total) {
        bail!("some scores are wrong");
    }
    Ok(())
}

/// The solves of one Connect 4 test file: what was right, and what it took.
#[derive(Default)]
struct FileRun {
    name: String,
    correct: usize,
    total: usize,
    time: Duration,
    nodes: u64,
    /// The slowest position's time.
    worst: Duration,
    /// The null-window probes of all the solves.
    probes: usize,
    /// One line per wrong score.
    wrong: Vec<String>,
}

impl FileRun {
    /// The positions, as a divisor for the means (at least one).
    fn count(&self) -> f64 {
        self.total.max(1) as f64
    }

    /// The mean time of a solve, in seconds.
    fn mean_seconds(&self) -> f64 {
        self.time.as_secs_f64() / self.count()
    }

    /// The mean nodes of a solve.
    fn mean_nodes(&self) -> f64 {
        self.nodes as f64 / self.count()
    }

    /// Nodes searched per second of solving.
    fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.time.as_secs_f64().max(1e-9)
    }
}

fn human_time(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.3} s")
    } else if seconds >= 1e-3 {
        format!("{:.3} ms", seconds * 1e3)
    } else {
        format!("{:.2} us", seconds * 1e6)
    }
}

pub fn ordering(args: &BenchOrderingArgs) -> Result<()> {
    if args.branching < 1 || args.depth > 24 || (args.branching as f64).powi(args.depth as i32) > 5e7 {
        bail!("--branching at least 1 and branching^depth at most 50,000,000 leaves");
    }
    let (b, d) = (args.branching as u64, args.depth);
    let full = b.pow(d);
    let minimal = b.pow(d.div_ceil(2)) + b.pow(d / 2) - 1;
    let runs = [
        ("minimax", Algorithm::Minimax, MoveOrder::Natural),
        ("alphabeta worst-first", Algorithm::AlphaBeta, MoveOrder::Worst),
        ("alphabeta random order", Algorithm::AlphaBeta, MoveOrder::Natural),
        ("alphabeta best-first", Algorithm::AlphaBeta, MoveOrder::Best),
    ];
    let mut totals = [0u64; 4];
    for t in 0..args.trees {
        let tree = Tree::random(args.branching, args.depth, -1000, 1000, args.seed + u64::from(t));
        for (i, &(_, algo, order)) in runs.iter().enumerate() {
            totals[i] += tree.analyze_counts(algo, order);
        }
    }
    let mean = |i: usize| totals[i] as f64 / f64::from(args.trees.max(1));
    if args.output.json {
        let rows: Vec<_> =
            runs.iter().enumerate().map(|(i, r)| json!({"search": r.0, "mean_leaves": mean(i)})).collect();
        return print_json(&json!({
            "branching": b, "depth": d, "trees": args.trees, "b_to_the_d": full, "minimal_tree": minimal, "runs": rows,
        }));
    }
    say!("uniform trees, branching {b}, depth {d}, {} random trees (leaves in -1000..=1000)", args.trees);
    say!("b^d = {full}, minimal tree b^ceil(d/2) + b^floor(d/2) - 1 = {minimal}");
    for (i, r) in runs.iter().enumerate() {
        say!(
            "{:<24} {:>14.1} leaves  ({:.3} of b^d, {:.2} x minimal)",
            r.0,
            mean(i),
            mean(i) / full as f64,
            mean(i) / minimal as f64
        );
    }
    Ok(())
}

/// One position of `bench othello`, and what a file says its score and best moves are.
struct OthelloCase {
    name: String,
    board: gamegraph_games::othello::Board,
    expected: Option<records::TestPosition>,
}

/// The positions of `bench othello`: those of the files, or `--random` ones.
fn othello_cases(args: &BenchOthelloArgs) -> Result<Vec<OthelloCase>> {
    let game = gamegraph_games::Othello;
    let Some(n) = args.random else {
        let mut cases = Vec::new();
        for path in &args.files {
            let file = path.file_name().map_or(String::new(), |f| f.to_string_lossy().into_owned());
            for p in records::obf_file(path, &read_text(path)?)? {
                let board = game
                    .parse_position(&p.position)
                    .with_context(|| format!("{} line {}: bad position", path.display(), p.line))?;
                cases.push(OthelloCase { name: format!("{file}:{}", p.line), board, expected: Some(p) });
            }
        }
        return Ok(cases);
    };
    let mut rng = gamegraph::rng::SplitMix64(args.seed);
    (1..=n)
        .map(|i| {
            let board = gamegraph_games::othello::random_position(args.empties, &mut rng)
                .with_context(|| format!("random games never reached {} empties", args.empties))?;
            Ok(OthelloCase { name: format!("random:{i}"), board, expected: None })
        })
        .collect()
}

/// `bench othello`: exact endgame solving of `.obf` files or of random positions, checking
/// scores and best moves where a file gives them.
pub fn othello(args: &BenchOthelloArgs) -> Result<()> {
    let game = gamegraph_games::Othello;
    if let Some(path) = &args.write {
        // Refused now rather than after the solving.
        crate::terminal::regular_target(path)?;
    }
    let settings = args.engine.settings()?;
    let engine = args.engine.engine(&game)?;
    let (mut total_time, mut total_nodes, mut failures, mut rows) =
        (Duration::ZERO, 0u64, 0usize, Vec::new());
    let mut solved = Vec::new();
    for case in othello_cases(args)? {
        let pos = case.board;
        engine.clear();
        let r = engine.solve(&pos, Limits::default());
        let best = r.best.map(|m| game.format_move(&pos, m)).unwrap_or_default();
        let ok = case.expected.as_ref().map(|p| r.value == p.score && p.best_moves.contains(&best));
        failures += usize::from(ok == Some(false));
        total_time += r.elapsed;
        total_nodes += r.stats.nodes;
        if !args.output.json {
            say!(
                "{:<24} {:>2} empties  {:>+4} {:<3} {}  {:>10}  {:>14} nodes  {:>6.2} Mn/s",
                case.name,
                pos.empties(),
                r.value,
                best,
                match ok {
                    Some(true) => "ok   ",
                    Some(false) => "WRONG",
                    None => "     ",
                },
                human_time(r.elapsed.as_secs_f64()),
                r.stats.nodes,
                r.nodes_per_second() / 1e6
            );
            if let (Some(false), Some(p)) = (ok, &case.expected) {
                say!("    expected {:+} by {}", p.score, p.best_moves.join(" or "));
            }
        }
        rows.push(json!({
            "position": case.name, "board": game.format_position(&pos), "empties": pos.empties(),
            "score": r.value, "best": best,
            "expected": case.expected.as_ref().map(|p| p.score),
            "expected_best": case.expected.as_ref().map(|p| &p.best_moves), "correct": ok,
            "seconds": r.elapsed.as_secs_f64(), "nodes": r.stats.nodes,
            "probes": r.probes.iter().map(probe_json).collect::<Vec<_>>(),
        }));
        solved.push((pos, r.value));
    }
    if let Some(path) = &args.write {
        drop(engine); // its table, before the analysis makes its own
        write_scored_obf(settings.clone(), &solved, path)?;
    }
    let n = rows.len().max(1) as f64;
    if args.output.json {
        return print_json(&json!({
            "threads": settings.threads, "hash_mib": settings.tt_mib, "positions": rows,
            "seconds": total_time.as_secs_f64(), "nodes": total_nodes, "failures": failures,
        }));
    }
    say!(
        "{} positions, {} wrong, threads {}, table {} MiB: {} in all, {} per position, {:.1} M nodes in all ({:.2} M nodes/s)",
        rows.len(),
        failures,
        settings.threads,
        settings.tt_mib,
        human_time(total_time.as_secs_f64()),
        human_time(total_time.as_secs_f64() / n),
        total_nodes as f64 / 1e6,
        total_nodes as f64 / total_time.as_secs_f64().max(1e-9) / 1e6
    );
    if failures > 0 {
        bail!("{failures} positions solved wrong");
    }
    Ok(())
}

/// Writes `solved` to `path` as .obf lines, every move with its exact score, best first (as
/// `solve othello --analyze` prints them): each move analysed on its own, whose best must equal
/// the position's value found by the bench.
fn write_scored_obf(
    settings: gamegraph::engine::EngineSettings,
    solved: &[(gamegraph_games::othello::Board, i32)],
    path: &std::path::Path,
) -> Result<()> {
    use gamegraph_games::records::Records;
    let game = gamegraph_games::Othello;
    let budget = Budget { time: None, ..Budget::default() };
    let mut analyzer = Analyzer::new(&game, budget, settings);
    let bar = ProgressBar::new(solved.len() as u64).with_message("scoring every move");
    bar.set_style(
        ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} {elapsed}").expect("valid template"),
    );
    let mut lines = Vec::new();
    for &(pos, value) in solved {
        let a = analyzer.analyze(&pos)?;
        if a.value.value != Some(value) {
            bail!("{}: the moves' scores disagree with the position's value {value:+}", a.position);
        }
        let moves: Vec<(String, Option<i32>)> =
            a.moves.iter().map(|m| (m.notation.clone(), m.value.value)).collect();
        lines.push(game.format_solution(&a.position, value, None, &moves));
        bar.inc(1);
    }
    bar.finish_and_clear();
    crate::terminal::write_atomically(path, |out| lines.iter().try_for_each(|l| writeln!(out, "{l}")))
}

/// One probe of an exact solve as JSON: its threshold, its fail-soft result, its nodes, and
/// whether the selective pass made it.
pub(crate) fn probe_json(p: &gamegraph::engine::Probe) -> serde_json::Value {
    json!({ "threshold": p.threshold, "result": p.result, "nodes": p.nodes, "selective": p.selective })
}

/// `bench chess`: perft on the standard positions, then every table of up to `pieces` pieces
/// built from scratch in a temporary directory, then random probes of the files; with `db`,
/// only probes of that directory's tables.
fn chess(args: &BenchChessArgs) -> Result<()> {
    let (pieces, perft_depth, probes, json) =
        (usize::from(args.pieces), args.perft, args.probes, args.output.json);
    if let Some(file) = args.epd.as_deref() {
        return chess_suite(file, args);
    }
    if let Some(cluster) = args.cluster.cluster()? {
        return chess_on_cluster(args, &cluster);
    }
    if let Some(dir) = args.db.as_deref() {
        let probe = chess_bench::probes(&Tablebase::open(dir)?, probes)?;
        if json {
            return print_json(&json!({ "probe_microseconds": probe }));
        }
        say!("probe: {probe:.2} us per position on average ({probes} random positions, warm cache)");
        return Ok(());
    }
    let perft = chess_bench::perft(perft_depth);
    let search = chess_bench::search(args.search).map_err(anyhow::Error::msg)?;
    let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
    let targets = Material::all_up_to(pieces);
    let built = gamegraph_games::chess::directory::build(dir.path(), &targets, &Bars::new(json))?;
    let seconds = built.seconds;
    let peak = peak_memory();
    let tables = Tablebase::open(dir.path())?;
    let bytes = tables.bytes_by_pieces();
    let probe = chess_bench::probes(&tables, probes)?;
    if json {
        return print_json(&json!({
            "perft": perft.iter().map(|(name, n, s)| json!({"position": name, "depth": perft_depth, "leaves": n, "seconds": s})).collect::<Vec<_>>(),
            "search": search.iter().map(|(name, n, s)| json!({"position": name, "depth": args.search, "nodes": n, "seconds": s})).collect::<Vec<_>>(),
            "tables": targets.len(),
            "build_seconds": seconds,
            "peak_memory_bytes": peak,
            "bytes_by_pieces": {"3": bytes[3], "4": bytes[4], "5": bytes[5]},
            "probe_microseconds": probe,
        }));
    }
    for (name, leaves, s) in &perft {
        say!(
            "perft {perft_depth} {name:<10} {leaves:>12} leaves in {s:>6.2} s ({:.1} M leaves/s)",
            *leaves as f64 / s / 1e6
        );
    }
    for (name, nodes, s) in &search {
        say!(
            "search depth {} {name:<10} {nodes:>12} nodes in {s:>6.2} s ({:.2} M nodes/s, one thread)",
            args.search,
            *nodes as f64 / s / 1e6
        );
    }
    say!("built the {} tables of 3 to {pieces} pieces in {seconds:.1} s (files written)", targets.len());
    for (n, b) in bytes.iter().enumerate().filter(|(_, &b)| b > 0) {
        say!("  {n} pieces: {b} bytes ({:.2} MiB)", mib(*b));
    }
    if let Some(bytes) = peak {
        say!("peak memory: {:.0} MiB", mib(bytes));
    }
    say!("probe: {probe:.2} us per position on average ({probes} random positions, warm cache)");
    Ok(())
}

/// What a process of a cluster bench says of itself: which it is, what it did (`did`) in how
/// long, what it `sent` to other workers and its peak memory.
fn process_line(
    cluster: &gamegraph_cluster::Cluster,
    did: &str,
    seconds: f64,
    sent: &str,
    peak: Option<u64>,
) -> String {
    format!(
        "process {} of {} ({} workers): {did} in {seconds:.1} s, {sent} sent to other workers, peak memory {}",
        cluster.process,
        cluster.hosts.len().max(1),
        cluster.workers,
        peak.map_or_else(|| "unknown".to_string(), |b| format!("{:.0} MiB", mib(b)))
    )
}

/// `bytes` in MiB.
fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1048576.0
}

/// `bench chess --tables SPEC --db DIR --hostfile ...`: builds the tables on the workers of
/// `cluster`; every process prints its wall time, the kernel messages and the bytes of exits
/// asked and answered it sent to other workers (per entry built) and its peak memory, process 0
/// also the entries built and their rate.
fn chess_on_cluster(args: &BenchChessArgs, cluster: &gamegraph_cluster::Cluster) -> Result<()> {
    let (Some(dir), Some(spec)) = (args.db.as_deref(), args.tables.as_deref()) else {
        bail!("bench chess --hostfile needs --tables SPEC and --db DIR, a directory every process shares")
    };
    if dir.join("manifest.json").exists() {
        bail!("{} already holds tables: bench chess --hostfile builds from scratch", dir.display());
    }
    let targets =
        gamegraph_games::chess::material::parse_tables(spec).map_err(|e| anyhow::anyhow!("--tables: {e}"))?;
    let started = Instant::now();
    let built = gamegraph_games::chess::directory::build_on_cluster(
        dir,
        &targets,
        cluster,
        &Bars::new(args.output.json),
    )?;
    let seconds = started.elapsed().as_secs_f64();
    let messages = gamegraph_cluster::kernel::messages_sent_elsewhere();
    let exits = gamegraph_cluster::exits::bytes_sent_elsewhere();
    let blocks = gamegraph_cluster::blocks::bytes_sent_elsewhere();
    let peak = peak_memory();
    let workers = cluster.hosts.len().max(1) * cluster.workers;
    // Only process 0 has the report, once every table is in the directory.
    let entries: Option<u64> = built
        .map(|_| Tablebase::open(dir).map(|t| t.entries().iter().map(|e| e.entries).sum()))
        .transpose()?;
    if args.output.json {
        return print_json(&json!({
            "tables": spec,
            "process": cluster.process,
            "processes": cluster.hosts.len().max(1),
            "workers": cluster.workers,
            "seconds": seconds,
            "entries": entries,
            "messages_sent": messages,
            "bytes_sent": messages * 8 + exits + blocks,
            "kernel_bytes_sent": messages * 8,
            "exit_bytes_sent": exits,
            "block_bytes_sent": blocks,
            "peak_memory_bytes": peak,
        }));
    }
    let sent = format!(
        "{messages} kernel messages ({:.1} MiB), {:.1} MiB of exits asked and answered, {:.1} MiB of entries for their blocks",
        mib(messages * 8),
        mib(exits),
        mib(blocks)
    );
    say!("{}", process_line(cluster, "built", seconds, &sent, peak));
    if let Some(entries) = entries {
        say!(
            "{entries} entries: {:.2} M entries/s, {:.2} M entries/s per worker, {:.3} kernel messages, {:.2} bytes of exits and {:.2} bytes of entries for their blocks sent by this process per entry",
            entries as f64 / seconds / 1e6,
            entries as f64 / seconds / 1e6 / workers as f64,
            messages as f64 / entries.max(1) as f64,
            exits as f64 / entries.max(1) as f64,
            blocks as f64 / entries.max(1) as f64
        );
    }
    Ok(())
}

/// `bench chess --epd FILE`: a timed search of every position of a test suite, counting those
/// where the engine's move is one the suite names (`bm`) and none it warns against (`am`).
fn chess_suite(file: &std::path::Path, args: &BenchChessArgs) -> Result<()> {
    let positions = gamegraph_games::records::epd_file(file, &read_text(file)?)?;
    let game = match args.db.as_deref() {
        Some(dir) => Chess::with_tables(Tablebase::shared(dir)?),
        None => Chess::new(),
    };
    let settings = EngineSettings { threads: args.threads as usize, ..EngineSettings::default() };
    let engine = gamegraph::engine::Engine::try_new(&game, settings)?;
    let limits = gamegraph::engine::Limits {
        time: Some(std::time::Duration::from_millis(args.movetime)),
        ..Default::default()
    };
    let bar = if args.output.json { ProgressBar::hidden() } else { ProgressBar::new(positions.len() as u64) };
    let (mut solved, mut nodes, mut seconds, mut failed) = (0, 0u64, 0.0, Vec::new());
    for position in &positions {
        let board = parse_fen(&position.fen)?;
        engine.clear();
        let report = engine.search(&board, limits);
        let played = report.best.map_or_else(|| "(none)".to_string(), |m| san(&board, m));
        nodes += report.stats.nodes;
        seconds += report.elapsed.as_secs_f64();
        if position.is_solved_by(&played) {
            solved += 1;
        } else {
            let name = position.id.clone().unwrap_or_else(|| format!("line {}", position.line));
            failed.push((name, played, position.best.join(" ")));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let total = positions.len();
    if args.output.json {
        return print_json(&json!({
            "file": file.display().to_string(), "positions": total, "solved": solved,
            "movetime_ms": args.movetime, "threads": args.threads, "nodes": nodes, "seconds": seconds,
            "failed": failed.iter().map(|(id, played, best)| json!({"id": id, "played": played, "best": best})).collect::<Vec<_>>(),
        }));
    }
    for (id, played, best) in &failed {
        say!("{id}: played {played}, expected {best}");
    }
    say!(
        "{}: solved {solved} of {total} at {} ms a position, {} thread(s) ({:.2} M nodes/s)",
        file.display(),
        args.movetime,
        args.threads,
        nodes as f64 / seconds.max(1e-9) / 1e6
    );
    Ok(())
}

/// `bench oware`: builds a database from scratch in a temporary directory and reports the
/// throughput of each stone count.
fn oware(args: &BenchOwareArgs) -> Result<()> {
    let rules: Rules = args.rules.parse().map_err(anyhow::Error::msg)?;
    if args.stones > MAX_STONES {
        bail!("--stones {}: the databases go up to {MAX_STONES}", args.stones);
    }
    let cluster = args.cluster.cluster()?;
    let temporary;
    let dir = match (&args.db, &cluster) {
        (Some(dir), _) => {
            if dir.join("manifest.json").exists() {
                bail!("{} already holds a database: bench oware builds from scratch", dir.display());
            }
            dir.as_path()
        }
        (None, Some(c)) if !c.hosts.is_empty() => {
            bail!("bench oware --hostfile needs --db DIR, a directory every process shares")
        }
        (None, _) => {
            temporary = tempfile::tempdir().context("cannot create a temporary directory")?;
            temporary.path()
        }
    };
    if let Some(cluster) = cluster {
        return oware_on_cluster(dir, rules, args, &cluster);
    }
    let report = oware_build(dir, rules, args.stones, None, &Bars::new(false))?.expect("one machine reports");
    let seconds = report.seconds;
    let built: Vec<(usize, u64, f64)> =
        report.layers.iter().map(|l| (l.stones, l.positions, l.seconds)).collect();
    let positions: u64 = built.iter().map(|b| b.1).sum();
    let peak = peak_memory();
    if args.output.json {
        let layers: Vec<_> = built
            .iter()
            .map(|&(n, p, s)| json!({"stones": n, "positions": p, "seconds": s, "positions_per_second": p as f64 / s.max(1e-9)}))
            .collect();
        return print_json(&json!({
            "rules": rules.name(),
            "layers": layers,
            "positions": positions,
            "seconds": seconds,
            "positions_per_second": positions as f64 / seconds,
            "peak_memory_bytes": peak,
        }));
    }
    say!("{:>6} {:>12} {:>9} {:>14}", "stones", "positions", "seconds", "M positions/s");
    for (n, p, s) in built {
        say!("{n:>6} {p:>12} {s:>9.2} {:>14.2}", p as f64 / s.max(1e-9) / 1e6);
    }
    say!(
        "{} rules, 0 to {} stones: {positions} positions in {seconds:.1} s ({:.2} M positions/s), files written included",
        rules,
        args.stones,
        positions as f64 / seconds / 1e6
    );
    if let Some(bytes) = peak {
        say!("peak memory: {:.0} MiB", mib(bytes));
    }
    Ok(())
}

/// `bench oware` on the workers of `cluster`: every process prints its wall time, the kernel
/// messages it sent to other workers and its peak memory; process 0 also the positions solved.
fn oware_on_cluster(
    dir: &std::path::Path,
    rules: Rules,
    args: &BenchOwareArgs,
    cluster: &gamegraph_cluster::Cluster,
) -> Result<()> {
    let started = Instant::now();
    let report = oware_build(dir, rules, args.stones, Some(cluster), &Bars::new(false))?;
    let seconds = started.elapsed().as_secs_f64();
    let kernel = gamegraph_cluster::kernel::messages_sent_elsewhere() * 8;
    let exits = gamegraph_cluster::exits::bytes_sent_elsewhere();
    let peak = peak_memory();
    // Only process 0 has the report, once every stone count is in the directory.
    let positions: Option<u64> = match report {
        Some(_) => Some(OwareDatabase::open(dir)?.stats().iter().map(|s| s.positions).sum()),
        None => None,
    };
    if args.output.json {
        return print_json(&json!({
            "rules": rules.name(),
            "stones": args.stones,
            "process": cluster.process,
            "processes": cluster.hosts.len().max(1),
            "workers": cluster.workers,
            "seconds": seconds,
            "positions": positions,
            "bytes_sent": kernel + exits,
            "kernel_bytes_sent": kernel,
            "exit_bytes_sent": exits,
            "peak_memory_bytes": peak,
        }));
    }
    let did = format!("0 to {} stones", args.stones);
    let sent = format!(
        "{:.1} MiB of kernel messages, {:.1} MiB of exits asked and answered",
        mib(kernel),
        mib(exits)
    );
    say!("{}", process_line(cluster, &did, seconds, &sent, peak));
    if let Some(positions) = positions {
        say!("{positions} positions, {:.2} M positions/s", positions as f64 / seconds / 1e6);
    }
    Ok(())
}
