//! Trains the pattern weights of the Othello evaluation (`othello::eval`) on exact endgame scores.
//!
//! `gen GAMES SEED OUT` plays reproducible games (random openings, then the current evaluation's
//! choice with noise; one game in three random to the end, like `bench othello --random`), solves
//! every position from `LABELLED_FROM` empties down to `LABELLED_TO` exactly, labels those with
//! more empties, up to `SEARCHED_TO`, by a search with the current evaluation down to
//! `LABELLED_FROM` empties, and writes one `PLAYER OPPONENT SCORE` line per position (discs in
//! hexadecimal). Each game is written as soon as it is labelled (games in the order they finish), so
//! a run stopped early leaves whole games to fit on.
//! `fit OUT SAMPLES...` fits the weights of each stage by ridge regression (conjugate gradients)
//! and writes them in the format `eval::Weights` reads, printing each stage's error. With
//! `PRIOR=WEIGHTS PRIOR_SHARE=R` the fit is pulled towards an earlier fit instead of towards zero,
//! each weight as much as `R` times the samples here that use it would pull: an earlier fit to `R`
//! times as many samples of the same kind, whose files are gone, counts as (the diagonal of) that
//! data.
//! `check N EMPTIES SEED WEIGHTS...` compares those weights with the built-in ones on N positions
//! from random play (as `bench othello --random` makes them; use another seed than the bench's),
//! each solved exactly: the error of each evaluation.
//!
//! `cargo run --release -p gamegraph-games --example train_othello_eval -- gen 12000 7 samples.txt`
//! `cargo run --release -p gamegraph-games --example train_othello_eval -- fit crates/games/src/othello/eval.bin samples.txt`
//! `cargo run --release -p gamegraph-games --example train_othello_eval -- check 200 20 1000 new.bin`
//!
//! The built-in weights were fitted to two files: `gen 12000 7` and `gen 30000 8`, the second
//! stopped after about 11,000 games (489,903 positions in all).

use std::io::{BufRead, Write};

use gamegraph::engine::{Engine, EngineSettings, Limits};
use gamegraph::rng::SplitMix64;
use gamegraph::{Evaluate, Game, SearchContext};
use gamegraph_games::othello::eval::{self, Weights};
use gamegraph_games::othello::patterns::{self, WEIGHTS};
use gamegraph_games::othello::{self, legal_moves, Board};
use gamegraph_games::Othello;
use rayon::prelude::*;

/// Positions with this many empties or fewer are solved and written, down to [`LABELLED_TO`].
const LABELLED_FROM: u32 = 18;
const LABELLED_TO: u32 = 6;

/// Positions with more empties than [`LABELLED_FROM`], up to this many, are labelled by a search
/// that ends at `LABELLED_FROM` empties, where the evaluation was fitted to exact scores.
const SEARCHED_TO: u32 = 26;

/// Plies of the opening played at random.
const RANDOM_PLIES: u32 = 8;

/// One game in this many is played at random to the end.
const RANDOM_GAME_EVERY: u64 = 3;

/// Weight sets fitted, by four empties (`eval::stage_of`), unless `STAGES` says otherwise.
const STAGES: usize = 5;

/// Ridge penalty per weight, in squared discs.
const RIDGE: f64 = 8.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("gen") if args.len() == 4 => generate(args[1].parse()?, args[2].parse()?, &args[3]),
        Some("fit") if args.len() >= 3 => fit(&args[1], &args[2..]),
        Some("check") if args.len() >= 4 => check(args[1].parse()?, args[2].parse()?, args[3].parse()?, &args[4..]),
        _ => Err("usage: train_othello_eval gen GAMES SEED OUT | fit OUT SAMPLES... | check N EMPTIES SEED WEIGHTS..."
            .into()),
    }
}

fn generate(games: u64, seed: u64, out: &str) -> Result<(), Box<dyn std::error::Error>> {
    let done = std::sync::atomic::AtomicU64::new(0);
    let written = std::sync::atomic::AtomicU64::new(0);
    let file = std::sync::Mutex::new(std::io::BufWriter::new(std::fs::File::create(out)?));
    (0..games).into_par_iter().try_for_each(|g| -> std::io::Result<()> {
        let random_plies = if g % RANDOM_GAME_EVERY == 0 { u32::MAX } else { RANDOM_PLIES };
        let lines = play_and_label(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ g, random_plies);
        // Each game is written whole as soon as it is labelled, so that a run stopped early
        // leaves a file of whole games to fit on.
        let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
        for line in &lines {
            writeln!(file, "{line}")?;
        }
        file.flush()?;
        written.fetch_add(lines.len() as u64, std::sync::atomic::Ordering::Relaxed);
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if n.is_multiple_of(500) {
            eprintln!("{n} games");
        }
        Ok(())
    })?;
    eprintln!("{} positions written to {out}", written.into_inner());
    Ok(())
}

/// The engine that labels positions exactly: one thread each, as the positions are spread over the
/// cores, and a small table.
fn exact_solver() -> Engine<'static, Othello> {
    Engine::new(&Othello, EngineSettings { tt_mib: 16, ..EngineSettings::default() })
}

/// One game's labelled positions.
fn play_and_label(seed: u64, random_plies: u32) -> Vec<String> {
    let mut rng = SplitMix64(seed);
    let engine = exact_solver();
    let mut board = Othello.start();
    let mut moves = Vec::new();
    let mut lines = Vec::new();
    for ply in 0.. {
        moves.clear();
        Othello.moves(&board, &mut moves);
        if moves.is_empty() || board.empties() < LABELLED_TO {
            break;
        }
        let empties = board.empties();
        let score = if empties <= LABELLED_FROM {
            Some(engine.solve(&board, Limits::default()).value)
        } else if empties <= SEARCHED_TO {
            let depth = empties - LABELLED_FROM;
            Some(eval::to_discs(eval::search(
                board.player,
                board.opponent,
                depth,
                -eval::BOUND,
                eval::BOUND,
                &mut SearchContext::default(),
            )))
        } else {
            None
        };
        if let Some(score) = score {
            lines.push(format!("{:016x} {:016x} {score}", board.player, board.opponent));
        }
        let pick = if ply < random_plies {
            rng.below(moves.len() as u64) as usize
        } else {
            noisy_best(&board, &moves, &mut rng)
        };
        board = Othello.play(&board, moves[pick]);
    }
    lines
}

/// The move that the evaluation, less the opponent's replies, prefers once each gets noise of up
/// to 4 discs.
fn noisy_best(board: &Board, moves: &[u8], rng: &mut SplitMix64) -> usize {
    (0..moves.len())
        .max_by_key(|&i| {
            let child = Othello.play(board, moves[i]);
            let replies = legal_moves(child.player, child.opponent).count_ones() as i32;
            -4 * (Othello.evaluate(&child) + replies) + rng.below(33) as i32
        })
        .unwrap_or(0)
}

fn read_samples(files: &[String]) -> Result<Vec<(Board, i32)>, Box<dyn std::error::Error>> {
    let mut samples = Vec::new();
    for path in files {
        for (n, line) in std::io::BufReader::new(std::fs::File::open(path)?).lines().enumerate() {
            let line = line?;
            let bad = || format!("{path}:{}: expected PLAYER OPPONENT SCORE", n + 1);
            let mut fields = line.split_whitespace();
            let mut next = || fields.next().ok_or_else(bad);
            let player = u64::from_str_radix(next()?, 16).map_err(|_| bad())?;
            let opponent = u64::from_str_radix(next()?, 16).map_err(|_| bad())?;
            let score: i32 = next()?.parse().map_err(|_| bad())?;
            samples.push((Board { player, opponent, black_to_move: true }, score));
        }
    }
    Ok(samples)
}

fn fit(out: &str, files: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let all = read_samples(files)?;
    // The last tenth (whole games, as the file keeps each game's positions together) checks the
    // fit on positions it did not see.
    let (samples, held) = all.split_at(all.len() - all.len() / 10);
    eprintln!("{} samples, {} held out", samples.len(), held.len());
    let penalty: f64 = std::env::var("RIDGE").ok().and_then(|r| r.parse().ok()).unwrap_or(RIDGE);
    let stages: usize = std::env::var("STAGES").ok().and_then(|s| s.parse().ok()).unwrap_or(STAGES);
    let prior = match std::env::var("PRIOR") {
        Ok(path) => Some(Weights::parse(&std::fs::read(&path)?)?),
        Err(_) => None,
    };
    let share: f64 = std::env::var("PRIOR_SHARE").ok().and_then(|r| r.parse().ok()).unwrap_or(1.0);
    let mut weights = Weights::zero(stages);
    for stage in 0..stages {
        // A stage learns from its own empties and two more on either side, for smoother steps.
        let own: Vec<u32> = (0..=60).filter(|&e| eval::stage_of(e, stages) == stage).collect();
        let (low, high) = (own[0].saturating_sub(2), own[own.len() - 1] + 2);
        let rows: Vec<Row> =
            samples.iter().filter(|(b, _)| (low..=high).contains(&b.empties())).map(row).collect();
        let checks: Vec<Row> =
            held.iter().filter(|(b, _)| eval::stage_of(b.empties(), stages) == stage).map(row).collect();
        let prior = match &prior {
            Some(weights) => {
                Some((weights.stage(stage).ok_or("the prior weights have fewer stages")?, share))
            }
            None => None,
        };
        let (w, mobility, bias) = ridge(&rows, penalty, prior);
        let rms = |rows: &[Row]| {
            let squares: f64 =
                rows.iter().map(|(i, m, y)| (predict(&w, mobility, bias, i, *m) - y).powi(2)).sum();
            (squares / rows.len().max(1) as f64).sqrt()
        };
        eprintln!(
            "stage {stage}: {} positions, error {:.2} discs (root mean square); {} held out, {:.2}",
            rows.len(),
            rms(&rows),
            checks.len(),
            rms(&checks)
        );
        weights.set_stage(stage, |i| w[patterns::canonical(i as u32) as usize], mobility, bias);
    }
    weights.write(out)?;
    Ok(())
}

/// The error of the built-in weights and of those in `paths`, in discs (root mean square), on
/// `n` positions from random play with `empties` empties, against their exact scores.
fn check(n: u32, empties: u32, seed: u64, paths: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let candidates: Vec<Weights> = paths
        .iter()
        .map(|p| Ok(Weights::parse(&std::fs::read(p)?)?))
        .collect::<Result<_, Box<dyn std::error::Error>>>()?;
    let mut rng = SplitMix64(seed);
    let boards: Vec<Board> = (0..n)
        .map(|_| othello::random_position(empties, &mut rng).ok_or("random games ended too soon"))
        .collect::<Result<_, _>>()?;
    let scored: Vec<(Board, i32)> = boards
        .into_par_iter()
        .map(|b| {
            let score = exact_solver().solve(&b, Limits::default()).value;
            (b, score)
        })
        .collect();
    let rms = |predict: &dyn Fn(&Board) -> i32| {
        let squares: f64 = scored
            .iter()
            .map(|(b, score)| (f64::from(predict(b)) / f64::from(eval::SCALE) - f64::from(*score)).powi(2))
            .sum();
        (squares / scored.len().max(1) as f64).sqrt()
    };
    println!("{n} positions from random play, {empties} empties, seed {seed}; error (root mean square):");
    println!("  built-in weights: {:.2} discs", rms(&|b| eval::evaluate_fine(b.player, b.opponent)));
    for (path, weights) in paths.iter().zip(&candidates) {
        println!("  {path}: {:.2} discs", rms(&|b| weights.predict(b.player, b.opponent)));
    }
    Ok(())
}

/// One stage's weights in discs: the pattern weights, the mobility weight and the bias.
type StageWeights = (Vec<f64>, f64, f64);

/// A sample as the fit sees it: canonical pattern indices, mobility, score.
type Row = (Vec<u32>, f64, f64);

fn row((b, score): &(Board, i32)) -> Row {
    let idx = patterns::indices(b.player, b.opponent).map(patterns::canonical).to_vec();
    (idx, eval::mobility(b.player, b.opponent) as f64, *score as f64)
}

fn predict(w: &[f64], mobility: f64, bias: f64, idx: &[u32], m: f64) -> f64 {
    idx.iter().map(|&i| w[i as usize]).sum::<f64>() + mobility * m + bias
}

/// Ridge regression over the pattern weights, a mobility weight and a bias, by conjugate
/// gradients on the normal equations. The pattern weights are pulled towards zero by `penalty`,
/// or with a `prior` (weights, share) towards those weights, by `penalty` plus `share` times the
/// number of rows that use each.
fn ridge(rows: &[Row], penalty: f64, prior: Option<(StageWeights, f64)>) -> StageWeights {
    let n = WEIGHTS + 2;
    let mut pull = vec![penalty; WEIGHTS];
    let mut centre = vec![0.0; n];
    if let Some(((patterns, mobility, bias), share)) = &prior {
        for (idx, _, _) in rows {
            for &i in idx {
                pull[i as usize] += share;
            }
        }
        centre[..WEIGHTS].copy_from_slice(patterns);
        centre[WEIGHTS] = *mobility;
        centre[WEIGHTS + 1] = *bias;
    }
    // The design matrix times a vector, and its transpose times a vector.
    let times = |x: &[f64]| -> Vec<f64> {
        rows.iter().map(|(i, m, _)| predict(&x[..WEIGHTS], x[WEIGHTS], x[WEIGHTS + 1], i, *m)).collect()
    };
    let transposed = |r: &[f64]| -> Vec<f64> {
        let mut g = vec![0.0; n];
        for ((idx, m, _), &e) in rows.iter().zip(r) {
            for &i in idx {
                g[i as usize] += e;
            }
            g[WEIGHTS] += m * e;
            g[WEIGHTS + 1] += e;
        }
        g
    };
    let normal = |x: &[f64]| -> Vec<f64> {
        let mut g = transposed(&times(x));
        for ((gi, xi), p) in g.iter_mut().zip(x).zip(&pull) {
            *gi += p * xi;
        }
        g
    };
    let y: Vec<f64> = rows.iter().map(|r| r.2).collect();
    // Start from the centre: the residual of the normal equations there.
    let mut x = centre.clone();
    let mut r = transposed(&y);
    for (ri, (ci, p)) in r.iter_mut().zip(centre.iter().zip(&pull)) {
        *ri += p * ci;
    }
    for (ri, ai) in r.iter_mut().zip(normal(&x)) {
        *ri -= ai;
    }
    let mut d = r.clone();
    let mut rr: f64 = r.iter().map(|v| v * v).sum();
    for _ in 0..300 {
        if rr < 1e-6 {
            break;
        }
        let q = normal(&d);
        let step = rr / d.iter().zip(&q).map(|(a, b)| a * b).sum::<f64>();
        for i in 0..n {
            x[i] += step * d[i];
            r[i] -= step * q[i];
        }
        let next: f64 = r.iter().map(|v| v * v).sum();
        for i in 0..n {
            d[i] = r[i] + next / rr * d[i];
        }
        rr = next;
    }
    (x[..WEIGHTS].to_vec(), x[WEIGHTS], x[WEIGHTS + 1])
}
