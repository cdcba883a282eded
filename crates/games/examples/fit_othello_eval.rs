//! Fits the weights of the Othello evaluation (`othello::eval`) to exact endgame scores.
//!
//! Plays reproducible random games, stops each at a random number of empties, solves the position
//! exactly with the engine, and fits the features to the scores by least squares, one weight set
//! per phase. Prints the weights (hundredths of a disc) for `WEIGHTS` and the fit's error.
//!
//! `cargo run --release -p gamegraph-games --example fit_othello_eval [POSITIONS] [SEED]`

use gamegraph::engine::{Engine, EngineSettings, Limits};
use gamegraph::rng::SplitMix64;
use gamegraph::Game;
use gamegraph_games::othello::eval::{features, FEATURES, FEATURE_NAMES, LATE};
use gamegraph_games::othello::Board;
use gamegraph_games::Othello;
use rayon::prelude::*;

/// The phases fitted: empties from the first to the second number, inclusive.
const PHASES: [(u32, u32); 2] = [(10, LATE), (LATE + 1, 20)];

fn main() {
    let mut args = std::env::args().skip(1);
    let positions: usize = args.next().map_or(3000, |a| a.parse().expect("POSITIONS is a number"));
    let seed: u64 = args.next().map_or(1, |a| a.parse().expect("SEED is a number"));
    for (phase, &(from, to)) in PHASES.iter().enumerate() {
        let samples: Vec<([i32; FEATURES], i32)> = (0..positions as u64)
            .into_par_iter()
            .map(|i| {
                let mut rng = SplitMix64(seed ^ (phase as u64) << 32 ^ i.wrapping_mul(0x9E37_79B9));
                let empties = from + rng.below(u64::from(to - from + 1)) as u32;
                let board = random_game(&mut rng, empties);
                let engine = Engine::new(&Othello, EngineSettings { tt_mib: 4, ..EngineSettings::default() });
                let score = engine.solve(&board, Limits::default()).value;
                (features(board.player, board.opponent), score)
            })
            .collect();
        let weights = least_squares(&samples);
        let rms = (samples
            .iter()
            .map(|(f, s)| {
                let e = f.iter().zip(&weights).map(|(&f, w)| f as f64 * w).sum::<f64>() - *s as f64;
                e * e
            })
            .sum::<f64>()
            / samples.len() as f64)
            .sqrt();
        println!("empties {from}-{to}: {} positions, error {rms:.2} discs (root mean square)", samples.len());
        for (name, w) in FEATURE_NAMES.iter().zip(&weights) {
            println!("  {name:<20} {:>6}", (w * 100.0).round() as i32);
        }
        let row: Vec<String> = weights.iter().map(|w| format!("{}", (w * 100.0).round() as i32)).collect();
        println!("  [{}]", row.join(", "));
    }
}

/// A position of a random game with `empties` empties left (or the game's end, if earlier).
fn random_game(rng: &mut SplitMix64, empties: u32) -> Board {
    let mut board = Othello.start();
    let mut moves = Vec::new();
    while board.empties() > empties {
        moves.clear();
        Othello.moves(&board, &mut moves);
        if moves.is_empty() {
            break;
        }
        board = Othello.play(&board, moves[rng.below(moves.len() as u64) as usize]);
    }
    board
}

/// The weights minimising the squared error, by the normal equations.
fn least_squares(samples: &[([i32; FEATURES], i32)]) -> [f64; FEATURES] {
    let mut a = [[0f64; FEATURES + 1]; FEATURES];
    for (f, s) in samples {
        for i in 0..FEATURES {
            for j in 0..FEATURES {
                a[i][j] += f64::from(f[i]) * f64::from(f[j]);
            }
            a[i][FEATURES] += f64::from(f[i]) * f64::from(*s);
        }
    }
    // Gauss-Jordan elimination with partial pivoting.
    for col in 0..FEATURES {
        let pivot = (col..FEATURES).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs())).unwrap();
        a.swap(col, pivot);
        let pivot_row = a[col];
        if pivot_row[col] == 0.0 {
            continue;
        }
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let k = row[col] / pivot_row[col];
                for (x, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                    *x -= k * p;
                }
            }
        }
    }
    std::array::from_fn(|i| if a[i][i] == 0.0 { 0.0 } else { a[i][FEATURES] / a[i][i] })
}
