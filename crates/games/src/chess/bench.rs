//! What `bench chess` measures, beside the table builds: perft and a fixed-depth search of the
//! standard positions, and random probes of a directory's tables. Each returns its figures; the
//! front end prints them.

use std::time::Instant;

use gamegraph::engine::{Engine, EngineSettings, Limits};

use super::tablebase::{ProbeError, Tablebase};
use super::{parse_fen, Chess};

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
pub fn search(depth: u32) -> Result<Vec<(&'static str, u64, f64)>, String> {
    if depth == 0 {
        return Ok(Vec::new());
    }
    let chess = Chess::new();
    let settings = EngineSettings { threads: 1, ..EngineSettings::default() };
    let engine = Engine::try_new(&chess, settings).map_err(|e| e.to_string())?;
    let limits = Limits { depth: Some(depth), ..Default::default() };
    PERFT_POSITIONS
        .iter()
        .map(|(name, fen)| {
            engine.clear();
            let report = engine.search(&parse_fen(fen).map_err(|e| e.to_string())?, limits);
            Ok((*name, report.stats.nodes, report.elapsed.as_secs_f64()))
        })
        .collect()
}

/// Leaves of each standard position to `depth`, with the seconds each count took.
pub fn perft(depth: u32) -> Vec<(&'static str, u64, f64)> {
    if depth == 0 {
        return Vec::new();
    }
    PERFT_POSITIONS
        .iter()
        .map(|(name, fen)| {
            let board = parse_fen(fen).expect("a standard position");
            let started = Instant::now();
            let leaves = super::perft(&board, depth);
            (*name, leaves, started.elapsed().as_secs_f64())
        })
        .collect()
}

/// Mean microseconds per probe of random legal positions of the directory's tables, after one
/// pass to warm the file cache.
pub fn probes(tables: &Tablebase, count: u64) -> Result<f64, ProbeError> {
    use super::index::TableIndex;
    use gamegraph::rng::SplitMix64;
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
