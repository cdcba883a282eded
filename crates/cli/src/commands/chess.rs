//! `gamegraph build chess`, `solve chess`, `stats chess`, `verify chess` and `bench chess`: the
//! chess endgame tables, built by retrograde analysis, and the values they give.

use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use gamegraph::engine::EngineSettings;
use gamegraph::{Notation, Outcome};
use gamegraph_games::analysis::{Analyzer, Budget, Value};
use gamegraph_games::chess::mate::MateSearch;
use gamegraph_games::chess::material::{parse_tables, Material};
use gamegraph_games::chess::san::san;
use gamegraph_games::chess::tablebase::{
    build as build_tables, table_stats, verify_table, BuildObserver, LoadedTables, TableEntry,
};
use gamegraph_games::chess::{parse_fen, Chess, Dtm, Tablebase};
use gamegraph_games::{excerpt, Records};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::terminal::{print_json, read_text};

/// One progress bar per table, on standard error; one line per table built.
#[derive(Default)]
struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    /// Material, entries, seconds and bytes of each table built.
    built: Mutex<Vec<(Material, u64, f64, u64)>>,
    quiet: bool,
}

impl BuildObserver for Bars {
    fn skipped(&self, material: Material) {
        if !self.quiet {
            eprintln!("{material:>8}: already built");
        }
    }

    fn started(&self, material: Material, units: u64) {
        let style = ProgressStyle::with_template(
            "{msg:>8} [{bar:30}] {percent:>3}%  {elapsed_precise} elapsed, {eta} left",
        )
        .expect("a valid template")
        .progress_chars("=> ");
        let bar = if self.quiet { ProgressBar::hidden() } else { ProgressBar::new(units) };
        *self.bar.lock().expect("not poisoned") =
            Some(bar.with_style(style).with_message(material.to_string()));
    }

    fn advanced(&self, units: u64) {
        if let Some(bar) = &*self.bar.lock().expect("not poisoned") {
            bar.inc(units);
        }
    }

    fn finished(&self, material: Material, seconds: f64, entry: &TableEntry) {
        if let Some(bar) = self.bar.lock().expect("not poisoned").take() {
            bar.finish_and_clear();
        }
        self.built.lock().expect("not poisoned").push((material, entry.entries, seconds, entry.bytes));
        if !self.quiet {
            eprintln!(
                "{material:>8}: {:>11} entries in {seconds:>7.2} s, {:>10} bytes",
                entry.entries, entry.bytes
            );
        }
    }
}

/// `build chess --tables SPEC --db DIR`.
pub fn build(spec: Option<&str>, dir: Option<&Path>, json: bool) -> Result<()> {
    let Some(dir) = dir else { bail!("build chess writes table files: give the directory with --db DIR") };
    let Some(spec) = spec else {
        bail!("build chess needs --tables SPEC: a material like KQvKR, a comma-separated list, or 3, 4 or 5 for every table of up to that many pieces")
    };
    let targets = parse_tables(spec)?;
    let started = Instant::now();
    let bars = Bars::default();
    let manifest = build_tables(dir, &targets, &bars)?;
    let seconds = started.elapsed().as_secs_f64();
    let built = bars.built.into_inner().expect("not poisoned");
    let tables = Tablebase::open(dir)?;
    let bytes = tables.bytes_by_pieces();
    if json {
        let built: Vec<_> = built
            .iter()
            .map(|(m, e, s, b)| json!({"material": m.to_string(), "entries": e, "seconds": s, "bytes": b}))
            .collect();
        return print_json(&json!({
            "db": dir.display().to_string(),
            "built": built,
            "tables": manifest.tables.len(),
            "seconds": seconds,
            "bytes_by_pieces": {"3": bytes[3], "4": bytes[4], "5": bytes[5]},
        }));
    }
    say!(
        "{}: built {} tables in {seconds:.1} s; the directory holds {} tables ({} bytes)",
        dir.display(),
        built.len(),
        manifest.tables.len(),
        bytes.iter().sum::<u64>()
    );
    Ok(())
}

/// The chess game with the tables of `dir`.
fn chess_with(dir: Option<&Path>, command: &str) -> Result<Chess> {
    let Some(dir) = dir else {
        bail!("{command} chess reads endgame tables: give their directory with --db DIR")
    };
    let tables = Tablebase::open(dir)?;
    Ok(Chess::with_tables(std::sync::Arc::new(tables)))
}

/// A value as a player says it: `win in 16`, `loss in 12`, `draw` (moves), with the plies.
fn words(dtm: Dtm) -> String {
    match (dtm, dtm.moves(), dtm.plies()) {
        (Dtm::Win(_), Some(m), Some(p)) => format!("win in {m} ({p} plies)"),
        (Dtm::Loss(0), ..) => "loss: checkmated".into(),
        (Dtm::Loss(_), Some(m), Some(p)) => format!("loss in {m} ({p} plies)"),
        _ => "draw".into(),
    }
}

/// The distance to mate that the analysis gives.
fn dtm_of(value: &Value) -> Dtm {
    match (value.outcome, value.remoteness) {
        (Some(Outcome::Win), Some(n)) => Dtm::Win(n),
        (Some(Outcome::Lose), Some(n)) => Dtm::Loss(n),
        _ => Dtm::Draw,
    }
}

/// `solve chess FEN --db DIR` (or `-`: one FEN a line).
pub fn solve(position: Option<&str>, dir: Option<&Path>, json: bool) -> Result<()> {
    let chess = chess_with(dir, "solve")?;
    let tables = chess.tables().expect("opened with tables");
    let mut analyzer = Analyzer::new(&chess, Budget::default(), EngineSettings::default());
    let Some(text) = position else { bail!("solve chess needs a position: a FEN, or - to read one a line") };
    if text == "-" {
        return for_each_fen(&chess, |fen, board| Ok(format!("{fen}; {}", tables.probe(board)?)));
    }
    let board = parse_fen(text).with_context(|| format!("bad chess position '{}'", excerpt(text)))?;
    tables.probe(&board)?;
    let analysis = analyzer.analyze(&board)?;
    let mut moves: Vec<(String, String, Dtm)> =
        analysis.moves.iter().map(|m| (m.notation.clone(), m.position.clone(), dtm_of(&m.value))).collect();
    moves.sort_by_key(|m| std::cmp::Reverse(m.2.rank()));
    let value = dtm_of(&analysis.value);
    if json {
        let moves: Vec<_> = moves
            .iter()
            .map(|(mv, fen, dtm)| json!({"move": mv, "position": fen, "value": dtm, "moves_to_mate": dtm.moves()}))
            .collect();
        return print_json(&json!({
            "position": analysis.position,
            "value": value,
            "moves_to_mate": value.moves(),
            "moves": moves,
            "best": analysis.best,
        }));
    }
    say!("{}", chess.render(&board));
    say!("{}: {}", analysis.position, words(value));
    for (mv, _, dtm) in &moves {
        let best = if analysis.best.contains(mv) { "  (best)" } else { "" };
        say!("  {mv:>6}  {}{best}", words(*dtm));
    }
    Ok(())
}

/// `solve chess FEN --mate N` (or `-`: one FEN a line): every first move that forces mate in at
/// most N moves, in SAN; the last line (the only one with `-`) is `FEN; mate N: MOVES` or
/// `FEN; no mate in N`.
pub fn mate(position: Option<&str>, moves: u32, json: bool) -> Result<()> {
    let Some(text) = position else {
        bail!("solve chess --mate needs a position: a FEN, or - to read one a line")
    };
    let chess = Chess::new();
    if text == "-" {
        return for_each_fen(&chess, |fen, board| {
            Ok(mate_line(fen, board, moves, &MateSearch::new().mating_moves_by_length(board, moves)))
        });
    }
    let board = parse_fen(text).with_context(|| format!("bad chess position '{}'", excerpt(text)))?;
    let started = Instant::now();
    let mut search = MateSearch::new();
    let found = search.mating_moves_by_length(&board, moves);
    let seconds = started.elapsed().as_secs_f64();
    if json {
        let list: Vec<_> = found
            .iter()
            .map(|&(mv, n)| json!({"move": san(&board, mv), "uci": chess.format_move(&board, mv), "mate_in": n}))
            .collect();
        return print_json(&json!({
            "position": chess.format_position(&board),
            "mate": moves,
            "moves": list,
            "nodes": search.nodes(),
            "seconds": seconds,
        }));
    }
    say!("{}", chess.render(&board));
    for &(mv, n) in &found {
        say!("  {:>8}  mate in {n}", san(&board, mv));
    }
    say!("({} positions in {seconds:.2} s, every move searched)", search.nodes());
    say!("{}", mate_line(&chess.format_position(&board), &board, moves, &found));
    Ok(())
}

/// Reads one FEN a line from standard input (a `;` and what follows are ignored, as are empty
/// lines) and prints `answer`'s line for each; an error names the input line.
fn for_each_fen(
    chess: &Chess,
    mut answer: impl FnMut(&str, &cozy_chess::Board) -> Result<String>,
) -> Result<()> {
    let input = read_text(Path::new("-"))?;
    for (n, line) in input.lines().enumerate() {
        let fen = chess.record_position(line);
        if fen.is_empty() {
            continue;
        }
        let at = || format!("standard input line {}: '{}'", n + 1, excerpt(fen));
        let board = parse_fen(fen).with_context(at)?;
        say!("{}", answer(fen, &board).with_context(at)?);
    }
    Ok(())
}

/// `FEN; mate N: MOVE MOVE ...` or `FEN; no mate in N`.
fn mate_line(fen: &str, board: &cozy_chess::Board, moves: u32, found: &[(cozy_chess::Move, u32)]) -> String {
    if found.is_empty() {
        return format!("{fen}; no mate in {moves}");
    }
    let list: Vec<String> = found.iter().map(|&(mv, _)| san(board, mv)).collect();
    format!("{fen}; mate {moves}: {}", list.join(" "))
}

/// `stats chess --db DIR`.
pub fn stats(dir: &Path, json: bool) -> Result<()> {
    let tables = Tablebase::open(dir)?;
    let mut all = Vec::new();
    for entry in tables.entries() {
        let material: Material = entry.material.parse()?;
        let file = &tables.table(material)?.file;
        all.push(table_stats(material, &file.all()?));
    }
    if json {
        return print_json(&json!({ "db": dir.display().to_string(), "tables": all }));
    }
    say!(
        "{:>8} {:>5} {:>12} {:>12} {:>12} {:>12} {:>7}  {}",
        "table",
        "side",
        "positions",
        "wins",
        "draws",
        "losses",
        "longest",
        "a longest mate"
    );
    for t in &all {
        for (side, s) in ["white", "black"].iter().zip(&t.sides) {
            let longest = s.longest.map_or("-".to_string(), |n| n.to_string());
            say!(
                "{:>8} {:>5} {:>12} {:>12} {:>12} {:>12} {:>7}  {}",
                t.material,
                side,
                s.positions,
                s.wins,
                s.draws,
                s.losses,
                longest,
                s.longest_fen.as_deref().unwrap_or("")
            );
        }
    }
    say!("(positions over all placements, no symmetry folded; longest mate in plies)");
    Ok(())
}

/// `verify chess --db DIR`: every entry of every table against its children.
pub fn verify(dir: &Path) -> Result<()> {
    let tables = Tablebase::open(dir)?;
    let started = Instant::now();
    let mut loaded = LoadedTables::new();
    let mut wrong = 0;
    for entry in tables.entries() {
        let material: Material = entry.material.parse()?;
        let file = &tables.table(material)?.file;
        let entries = file.all()?;
        // Only the tables this one leads to stay loaded, as in a build: a 5-piece directory
        // does not fit in memory whole.
        let needed = material.successors();
        loaded.retain(|m| needed.contains(&m));
        for m in needed {
            if !loaded.contains(m) {
                loaded.insert(m, tables.table(m)?.file.all()?);
            }
        }
        let mismatches = verify_table(material, &entries, &loaded, 5);
        say!("{material:>8}: {} entries, {} inconsistent", entries.len(), mismatches.len());
        for m in &mismatches {
            let shown = |d: Option<Dtm>| d.map_or("no position".to_string(), |d| d.to_string());
            say!("    {}: stored {}, its moves give {}", m.fen, shown(m.stored), shown(m.expected));
        }
        wrong += mismatches.len();
        loaded.insert(material, entries);
    }
    say!("verified {} tables in {:.1} s", tables.entries().len(), started.elapsed().as_secs_f64());
    if wrong > 0 {
        bail!("stored values differ from what their moves give");
    }
    Ok(())
}

/// `bench chess`: perft on the standard positions, then every table of up to `pieces` pieces
/// built from scratch in a temporary directory, then random probes of the files; with `db`,
/// only probes of that directory's tables.
pub fn bench(args: &crate::commands::bench::BenchChessArgs) -> Result<()> {
    let (pieces, perft_depth, probes, json) =
        (usize::from(args.pieces), args.perft, args.probes, args.output.json);
    if let Some(file) = args.epd.as_deref() {
        return bench_suite(file, args);
    }
    if let Some(dir) = args.db.as_deref() {
        let probe = bench_probes(&Tablebase::open(dir)?, probes)?;
        if json {
            return print_json(&json!({ "probe_microseconds": probe }));
        }
        say!("probe: {probe:.2} us per position on average ({probes} random positions, warm cache)");
        return Ok(());
    }
    let perft = bench_perft(perft_depth);
    let search = bench_search(args.search)?;
    let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
    let bars = Bars { quiet: json, ..Bars::default() };
    let started = Instant::now();
    let targets = Material::all_up_to(pieces);
    build_tables(dir.path(), &targets, &bars)?;
    let seconds = started.elapsed().as_secs_f64();
    let peak = crate::commands::bench::peak_memory();
    let tables = Tablebase::open(dir.path())?;
    let bytes = tables.bytes_by_pieces();
    let probe = bench_probes(&tables, probes)?;
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
        say!("  {n} pieces: {b} bytes ({:.2} MiB)", *b as f64 / 1048576.0);
    }
    if let Some(bytes) = peak {
        say!("peak memory: {:.0} MiB", bytes as f64 / 1048576.0);
    }
    say!("probe: {probe:.2} us per position on average ({probes} random positions, warm cache)");
    Ok(())
}

/// `bench chess --epd FILE`: a timed search of every position of a test suite, counting those
/// where the engine's move is one the suite names (`bm`) and none it warns against (`am`).
fn bench_suite(file: &Path, args: &crate::commands::bench::BenchChessArgs) -> Result<()> {
    let positions = gamegraph_games::records::epd_file(file, &read_text(file)?)?;
    let game = match args.db.as_deref() {
        Some(dir) => chess_with(Some(dir), "bench")?,
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

/// The six standard perft positions of the chess programming wiki.
pub const PERFT_POSITIONS: [(&str, &str); 6] = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"),
    ("position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"),
    ("position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"),
];

/// A one-thread search of each standard position to `depth` with a fresh table: its nodes and
/// seconds (quiescence nodes included).
fn bench_search(depth: u32) -> Result<Vec<(&'static str, u64, f64)>> {
    if depth == 0 {
        return Ok(Vec::new());
    }
    let chess = Chess::new();
    let settings = EngineSettings { threads: 1, ..EngineSettings::default() };
    let engine = gamegraph::engine::Engine::try_new(&chess, settings)?;
    let limits = gamegraph::engine::Limits { depth: Some(depth), ..Default::default() };
    PERFT_POSITIONS
        .iter()
        .map(|(name, fen)| {
            engine.clear();
            let report = engine.search(&parse_fen(fen)?, limits);
            Ok((*name, report.stats.nodes, report.elapsed.as_secs_f64()))
        })
        .collect()
}

fn bench_perft(depth: u32) -> Vec<(&'static str, u64, f64)> {
    if depth == 0 {
        return Vec::new();
    }
    PERFT_POSITIONS
        .iter()
        .map(|(name, fen)| {
            let board = parse_fen(fen).expect("a standard position");
            let started = Instant::now();
            let leaves = gamegraph_games::chess::perft(&board, depth);
            (*name, leaves, started.elapsed().as_secs_f64())
        })
        .collect()
}

/// Mean microseconds per probe of random legal positions of the directory's tables, after one
/// pass to warm the file cache.
fn bench_probes(tables: &Tablebase, count: u64) -> Result<f64> {
    use gamegraph::rng::SplitMix64;
    use gamegraph_games::chess::index::TableIndex;
    let materials = tables.materials();
    let mut rng = SplitMix64(2026);
    let mut boards = Vec::new();
    while (boards.len() as u64) < count && !materials.is_empty() {
        let m = materials[rng.below(materials.len() as u64) as usize];
        let index = TableIndex::new(m);
        if let Some(board) = index.placement(rng.below(index.len())).and_then(|p| index.board(&p)) {
            boards.push(board);
        }
    }
    for b in &boards {
        tables.probe(b)?;
    }
    let started = Instant::now();
    for b in &boards {
        tables.probe(b)?;
    }
    Ok(started.elapsed().as_secs_f64() * 1e6 / boards.len().max(1) as f64)
}

/// Whether a game name is chess's.
pub fn is_chess(name: &str) -> bool {
    <Chess as gamegraph_games::BuiltinGame>::ENTRY.is_called(name)
}
