//! `gamegraph build oware`, `verify oware`, `stats oware` and `bench oware`: the Awari endgame
//! databases.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use gamegraph::dense::ByteStore;
use gamegraph_games::oware::database::{build as build_database, BuildReport, Builder, Database};
use gamegraph_games::oware::layer::Progress;
use gamegraph_games::oware::{Rules, MAX_STONES};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::args::JsonFlag;
use crate::commands::bench::BenchOwareArgs;
use crate::commands::build::BuildArgs;
use crate::terminal::print_json;

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The game: oware (score files) or chess (endgame tables, every entry checked).
    pub game: String,
    /// The database directory.
    #[arg(long, value_name = "DIR")]
    pub db: PathBuf,
    /// Oware: check every position instead of a sample.
    #[arg(long)]
    pub full: bool,
    /// Oware: positions checked per stone count without --full.
    #[arg(long, default_value_t = 100_000, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,
}

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// The game: oware (score files) or chess (endgame tables).
    pub game: String,
    /// The database directory.
    #[arg(long, value_name = "DIR")]
    pub db: PathBuf,
    #[command(flatten)]
    pub output: JsonFlag,
}

/// Refuses games other than Oware, the one whose registry entry has a directory of score files.
fn require_oware(name: &str, command: &str) -> Result<()> {
    let oware = <gamegraph_games::Oware as gamegraph_games::BuiltinGame>::ENTRY;
    if !oware.is_called(name) {
        bail!("{command} works on Oware score databases; '{name}' has none (try: gamegraph {command} oware --db DIR)");
    }
    Ok(())
}

/// `build oware --hostfile`: every stone count solved by the workers of every process, each
/// writing its range of the score file (in the shared directory); process 0's first worker
/// completes each file and the manifest. Process 0 gets the report, the others `None`.
fn build_on_cluster(
    dir: &std::path::Path,
    rules: Rules,
    stones: usize,
    cluster: &gamegraph_cluster::Cluster,
) -> Result<Option<BuildReport>> {
    use gamegraph_cluster::kernel::barrier;
    let dir = dir.to_path_buf();
    let first_process = cluster.process == 0;
    let results = cluster.run(move |worker| {
        // A worker that cannot go on would leave the others waiting for it: it ends its process,
        // and the other processes then stop on the broken connection.
        let fail = |e: &dyn std::fmt::Display| -> ! {
            eprintln!("error: {e}");
            std::process::exit(1)
        };
        let leader = first_process && worker.index() == 0;
        // The leader clears what an interrupted run left before the others look.
        let opened = leader.then(|| Builder::open(&dir, rules, stones, true));
        barrier(worker);
        let mut builder =
            opened.unwrap_or_else(|| Builder::open(&dir, rules, stones, false)).unwrap_or_else(|e| fail(&e));
        let resumed = builder.next().min(stones + 1);
        let mut built = Vec::new();
        for n in builder.next()..=stones {
            let started = Instant::now();
            let layer = std::sync::Arc::new(builder.layer());
            let positions = gamegraph::dense::DenseLayer::len(&*layer);
            let solved = gamegraph_cluster::dense::solve_layer::<_, ByteStore<u64>>(worker, layer);
            let (start, store) = solved.unwrap_or_else(|e| fail(&e));
            let values = store.into_values();
            let path = builder.partial_path();
            let written =
                std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(&path).and_then(
                    |file| {
                        file.set_len(positions)?;
                        std::os::unix::fs::FileExt::write_all_at(&file, &values, start)
                    },
                );
            written.unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
            barrier(worker);
            if leader {
                builder.finish(n).unwrap_or_else(|e| fail(&e));
                eprintln!("scores.{n}: {positions} positions in {:.2} s", started.elapsed().as_secs_f64());
            }
            barrier(worker);
            if !leader {
                builder.reload(n).unwrap_or_else(|e| fail(&e));
            }
            built.push(n);
        }
        leader.then_some(BuildReport { resumed, built })
    })?;
    let sent = gamegraph_cluster::kernel::messages_sent_elsewhere();
    eprintln!(
        "process {}: {sent} kernel messages ({:.1} MB) sent to other workers",
        cluster.process,
        sent as f64 * 8.0 / 1e6
    );
    Ok(results.into_iter().flatten().next())
}

/// One progress bar per stone count, on standard error, with positions per second and time left.
#[derive(Default)]
struct Bars {
    bar: Mutex<Option<(ProgressBar, Instant, u64)>>,
    /// Stones, positions and seconds of each layer built.
    built: Mutex<Vec<(usize, u64, f64)>>,
}

impl Progress for Bars {
    fn start(&self, stones: usize, positions: u64) {
        let style = ProgressStyle::with_template(
            "{msg:>10} [{bar:30}] {percent:>3}%  {per_sec:>16}  {elapsed_precise} elapsed, {eta} left",
        )
        .expect("a valid template")
        .progress_chars("=> ");
        let bar = ProgressBar::new(2 * positions).with_style(style).with_message(format!("{stones} stones"));
        *self.bar.lock().expect("not poisoned") = Some((bar, Instant::now(), positions));
    }

    fn advance(&self, units: u64) {
        if let Some((bar, ..)) = &*self.bar.lock().expect("not poisoned") {
            bar.inc(units);
        }
    }

    fn finish(&self, stones: usize) {
        if let Some((bar, started, positions)) = self.bar.lock().expect("not poisoned").take() {
            bar.finish_and_clear();
            let seconds = started.elapsed().as_secs_f64();
            self.built.lock().expect("not poisoned").push((stones, positions, seconds));
            eprintln!(
                "{stones:>2} stones: {positions:>11} positions in {seconds:>7.2} s ({:.2} M positions/s)",
                positions as f64 / seconds.max(1e-9) / 1e6
            );
        }
    }
}

pub fn build(args: &BuildArgs) -> Result<()> {
    let Some(dir) = &args.game.db else {
        bail!("build oware writes score files: give the directory with --db DIR")
    };
    let Some(stones) = args.stones else { bail!("build oware needs --stones N (0 to {MAX_STONES})") };
    if args.out.is_some() || args.from.is_some() {
        bail!("build oware takes --stones and --db, not --out or --from");
    }
    let rules: Rules = args
        .game
        .rules
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(anyhow::Error::msg)?
        .unwrap_or_default();
    let started = Instant::now();
    let report = match args.cluster.cluster()? {
        None => build_database(dir, rules, stones, &Bars::default())?,
        Some(cluster) => match build_on_cluster(dir, rules, stones, &cluster)? {
            Some(report) => report,
            // Process 0 reports for all.
            None => return Ok(()),
        },
    };
    let seconds = started.elapsed().as_secs_f64();
    if args.output.json {
        return print_json(&json!({
            "rules": rules.name(),
            "stones": stones,
            "db": dir.display().to_string(),
            "resumed": report.resumed,
            "built": report.built,
            "seconds": seconds,
        }));
    }
    if report.resumed > 0 {
        say!(
            "kept the {} complete stone counts 0 to {} already in {}",
            report.resumed,
            report.resumed - 1,
            dir.display()
        );
    }
    say!(
        "{} rules, 0 to {stones} stones in {}: built {} stone counts in {seconds:.1} s",
        rules,
        dir.display(),
        report.built.len()
    );
    Ok(())
}

fn open(game: &str, command: &str, dir: &std::path::Path) -> Result<Database> {
    require_oware(game, command)?;
    Database::open(dir).with_context(|| format!("cannot open the Oware database in {}", dir.display()))
}

pub fn verify(args: &VerifyArgs) -> Result<()> {
    let db = open(&args.game, "verify", &args.db)?;
    let started = Instant::now();
    db.verify_checksums()?;
    say!("checksums: {} files match the manifest", db.stones() + 1);
    let mut wrong_total = 0;
    for n in 0..=db.stones() {
        let sample = (!args.full).then_some(args.sample);
        let (checked, wrong, examples) = db.verify_values(n, sample);
        say!("{n:>2} stones: {checked} positions checked, {wrong} inconsistent");
        for e in examples {
            let pits: Vec<String> = e.pits.iter().map(u8::to_string).collect();
            say!("    {}: stored {}, best move {}", pits.join(","), e.stored, e.computed);
        }
        wrong_total += wrong;
    }
    say!("verified in {:.1} s", started.elapsed().as_secs_f64());
    if wrong_total > 0 {
        bail!("{wrong_total} stored values differ from their best move's value");
    }
    Ok(())
}

pub fn stats(args: &StatsArgs) -> Result<()> {
    let db = open(&args.game, "stats", &args.db)?;
    let stats = db.stats();
    if args.output.json {
        return print_json(&json!({ "rules": db.rules().name(), "stones": stats }));
    }
    say!("{:>6} {:>12} {:>12} {:>12} {:>12} {:>12}", "stones", "positions", "wins", "draws", "losses", "sum");
    for s in stats {
        say!(
            "{:>6} {:>12} {:>12} {:>12} {:>12} {:>12}",
            s.stones,
            s.positions,
            s.wins,
            s.draws,
            s.losses,
            s.sum
        );
    }
    Ok(())
}

/// `bench oware`: builds a database from scratch in a temporary directory and reports the
/// throughput of each stone count.
pub fn bench(args: &BenchOwareArgs) -> Result<()> {
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
        return bench_on_cluster(dir, rules, args, &cluster);
    }
    let bars = Bars::default();
    let started = Instant::now();
    build_database(dir, rules, args.stones, &bars)?;
    let seconds = started.elapsed().as_secs_f64();
    let built = bars.built.into_inner().expect("not poisoned");
    let positions: u64 = built.iter().map(|b| b.1).sum();
    let peak = crate::commands::bench::peak_memory();
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
        say!("peak memory: {:.0} MiB", bytes as f64 / 1048576.0);
    }
    Ok(())
}

/// `bench oware` on the workers of `cluster`: every process prints its wall time, the kernel
/// messages it sent to other workers and its peak memory; process 0 also the positions solved.
fn bench_on_cluster(
    dir: &std::path::Path,
    rules: Rules,
    args: &BenchOwareArgs,
    cluster: &gamegraph_cluster::Cluster,
) -> Result<()> {
    let started = Instant::now();
    let report = build_on_cluster(dir, rules, args.stones, cluster)?;
    let seconds = started.elapsed().as_secs_f64();
    let sent = gamegraph_cluster::kernel::messages_sent_elsewhere() * 8;
    let peak = crate::commands::bench::peak_memory();
    // Only process 0 has the report, once every stone count is in the directory.
    let positions: Option<u64> = match report {
        Some(_) => Some(open("oware", "bench", dir)?.stats().iter().map(|s| s.positions).sum()),
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
            "bytes_sent": sent,
            "peak_memory_bytes": peak,
        }));
    }
    let of = |bytes: u64| bytes as f64 / 1048576.0;
    say!(
        "process {} of {} ({} workers): 0 to {} stones in {seconds:.1} s, {:.1} MiB of kernel messages sent to other workers, peak memory {}",
        cluster.process,
        cluster.hosts.len().max(1),
        cluster.workers,
        args.stones,
        of(sent),
        peak.map_or_else(|| "unknown".to_string(), |b| format!("{:.0} MiB", of(b)))
    );
    if let Some(positions) = positions {
        say!("{positions} positions, {:.2} M positions/s", positions as f64 / seconds / 1e6);
    }
    Ok(())
}
