//! The midgame evaluation: the predicted final disc difference for the player to move, as a sum
//! of pattern weights (see [`super::patterns`]), a mobility weight and a bias, one set per stage of the
//! game. The weights were fitted to exact endgame scores, and above 18 empties to searches that
//! end where those were exact (`examples/train_othello_eval.rs`), so the evaluation is on the
//! scale of final scores: it compares sensibly with real game ends in a depth-limited search,
//! orders moves in the exact solver, and gives it a first guess.

use std::sync::LazyLock;

use gamegraph::SearchContext;

use super::bitboard::legal_moves;
use super::patterns::{Indices, IMAGES, LANES, OFFSETS, WEIGHTS};

/// The most weight sets a file may hold, by empties: see [`stage_of`].
pub const MAX_STAGES: usize = 16;

/// Weights are stored in units of 1/`SCALE` disc.
pub const SCALE: i32 = 128;

/// Above any evaluation, in 1/[`SCALE`] disc: the window of a search that wants the exact value.
pub const BOUND: i32 = 65 * SCALE;

/// The first bytes of a weights file.
const MAGIC: &[u8; 4] = b"GGOE";

/// The weight set used with `empties` empty squares, of `stages` sets: up to 9, 10 to 13, 14 to
/// 17 and so on by four empties, the last set for all the rest.
pub fn stage_of(empties: u32, stages: usize) -> usize {
    (empties.saturating_sub(6) / 4).min(stages as u32 - 1) as usize
}

/// The player's legal moves minus the opponent's.
pub fn mobility(p: u64, o: u64) -> i32 {
    legal_moves(p, o).count_ones() as i32 - legal_moves(o, p).count_ones() as i32
}

/// One stage's weights, in 1/[`SCALE`] disc.
#[derive(Clone)]
struct Stage {
    patterns: Vec<i16>,
    mobility: i16,
    bias: i16,
}

/// A full set of evaluation weights.
#[derive(Clone)]
pub struct Weights {
    stages: Vec<Stage>,
}

/// The weights built into the program.
static TRAINED: LazyLock<Weights> = LazyLock::new(|| {
    Weights::parse(include_bytes!("eval.bin")).expect("the built-in weights are well formed")
});

/// The predicted final disc difference for the player to move (`p` against `o`), in discs.
pub fn evaluate(p: u64, o: u64) -> i32 {
    to_discs(TRAINED.predict(p, o))
}

/// A value in 1/[`SCALE`] disc rounded to whole discs, within the scores of a game.
pub fn to_discs(fine: i32) -> i32 {
    ((fine + fine.signum() * SCALE / 2) / SCALE).clamp(-64, 64)
}

/// The same prediction in 1/[`SCALE`] disc, for ordering moves finely.
pub fn evaluate_fine(p: u64, o: u64) -> i32 {
    TRAINED.predict(p, o)
}

/// The value of a fail-soft alpha-beta search `depth` plies deep with the evaluation at its
/// leaves, in 1/[`SCALE`] disc, for the player `p` to move: to order moves and to guess a score.
/// Its nodes are counted in `context` (the engine's statistics, inside a search), and it ends
/// early, with a meaningless value, when the search it serves is told to stop.
pub fn search(p: u64, o: u64, depth: u32, alpha: i32, beta: i32, context: &mut SearchContext<'_>) -> i32 {
    search_from(p, o, &Indices::new(p, o), depth, alpha, beta, context)
}

/// [`search`] given the position's pattern indices.
pub fn search_from(
    p: u64,
    o: u64,
    indices: &Indices,
    depth: u32,
    alpha: i32,
    beta: i32,
    context: &mut SearchContext<'_>,
) -> i32 {
    context.count_nodes(1);
    if depth == 0 {
        return TRAINED.fine_from(&indices.mover, p, o);
    }
    // These searches order and estimate inside one node of the engine's: when the engine's
    // search is told to stop, their value no longer matters (checked where subtrees are big).
    if depth >= 4 && context.stop_requested() {
        return 0;
    }
    let moves = legal_moves(p, o);
    if moves == 0 {
        if legal_moves(o, p) == 0 {
            return super::endgame::final_score(p, o) * SCALE;
        }
        return -search_from(o, p, &indices.pass(), depth, -beta, -alpha, context);
    }
    if depth < SORTED_FROM || moves & (moves - 1) == 0 {
        let played = super::bitboard::squares(moves).map(|sq| (sq, super::bitboard::flips(p, o, sq)));
        return best_child((p, o), indices, played, depth, (alpha, beta), context);
    }
    // (the child's evaluation for its player to move, the square, the discs turned): least first.
    let mut keyed = [(0i32, 0u32, 0u64); MAX_MOVES];
    let mut n = 0;
    for sq in super::bitboard::squares(moves) {
        let f = super::bitboard::flips(p, o, sq);
        let next = indices.play(sq, f);
        keyed[n] = (TRAINED.fine_from(&next.mover, o & !f, p | f | (1u64 << sq)), sq, f);
        n += 1;
    }
    keyed[..n].sort_unstable();
    best_child((p, o), indices, keyed[..n].iter().map(|&(_, sq, f)| (sq, f)), depth, (alpha, beta), context)
}

/// From this many plies to go on, [`search_from`] tries first the moves whose positions the
/// evaluation likes best. The value is the same, the window being wider than any evaluation
/// (bar extreme positions, whose bound may then differ), but cutoffs come sooner: measured on
/// 2026-12-03 (one thread), FFO #59 (34 empties, whose 8-ply ordering searches took all its time)
/// in 0.15 s instead of 8.7 s, 1.0 M nodes instead of 112.9 M; FFO #40-#44 in 5.04-5.09 s against
/// 5.30-5.33 s; sorting from 3 plies on, 5.33-5.59 s.
const SORTED_FROM: u32 = 2;

/// Room for the legal moves of any Othello position (33 at most).
pub(super) const MAX_MOVES: usize = 40;

/// The fail-soft value within `(alpha, beta)` of the best of the moves `played` (square, discs
/// turned) of the position `(p, o)`, searched in that order.
#[inline]
fn best_child(
    (p, o): (u64, u64),
    indices: &Indices,
    played: impl Iterator<Item = (u32, u64)>,
    depth: u32,
    (mut alpha, beta): (i32, i32),
    context: &mut SearchContext<'_>,
) -> i32 {
    let mut best = i32::MIN + 1;
    for (sq, f) in played {
        let next = indices.play(sq, f);
        let v = -search_from(o & !f, p | f | (1u64 << sq), &next, depth - 1, -beta, -alpha, context);
        if v > best {
            best = v;
            alpha = alpha.max(v);
            if v >= beta {
                break;
            }
        }
    }
    best
}

impl Weights {
    /// All weights of `stages` sets (1 to [`MAX_STAGES`]) zero: the starting point of a fit.
    pub fn zero(stages: usize) -> Weights {
        let stage = Stage { patterns: vec![0; WEIGHTS], mobility: 0, bias: 0 };
        Weights { stages: vec![stage; stages.clamp(1, MAX_STAGES)] }
    }

    /// Sets one stage's weights, given in discs: `pattern(i)` for weight index `i`.
    pub fn set_stage(&mut self, stage: usize, pattern: impl Fn(usize) -> f64, mobility: f64, bias: f64) {
        let scaled = |w: f64| (w * f64::from(SCALE)).round().clamp(-32767.0, 32767.0) as i16;
        let s = &mut self.stages[stage];
        for (i, w) in s.patterns.iter_mut().enumerate() {
            *w = scaled(pattern(i));
        }
        s.mobility = scaled(mobility);
        s.bias = scaled(bias);
    }

    /// One stage's weights in discs, as [`Weights::set_stage`] takes them: the pattern weights
    /// by weight index, the mobility weight and the bias. `None` past the last stage.
    pub fn stage(&self, stage: usize) -> Option<(Vec<f64>, f64, f64)> {
        let s = self.stages.get(stage)?;
        let discs = |w: i16| f64::from(w) / f64::from(SCALE);
        Some((s.patterns.iter().map(|&w| discs(w)).collect(), discs(s.mobility), discs(s.bias)))
    }

    /// The prediction of these weights in 1/[`SCALE`] disc (public to compare weight sets).
    pub fn predict(&self, p: u64, o: u64) -> i32 {
        self.fine_from(&Indices::new(p, o).mover, p, o)
    }

    /// The prediction in 1/[`SCALE`] disc, given the position's pattern indices (the mover's
    /// lanes of [`Indices`]).
    #[inline]
    fn fine_from(&self, lanes: &[u16; LANES], p: u64, o: u64) -> i32 {
        let s = &self.stages[stage_of(64 - (p | o).count_ones(), self.stages.len())];
        let sum: i32 =
            (0..IMAGES).map(|i| i32::from(s.patterns[OFFSETS[i] as usize + usize::from(lanes[i])])).sum();
        sum + i32::from(s.mobility) * mobility(p, o) + i32::from(s.bias)
    }

    /// The file format: the magic bytes, the number of stages and of pattern weights (u32, little
    /// endian), then per stage the pattern weights, the mobility weight and the bias (i16).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&(self.stages.len() as u32).to_le_bytes());
        out.extend_from_slice(&(WEIGHTS as u32).to_le_bytes());
        for s in &self.stages {
            for w in s.patterns.iter().chain([&s.mobility, &s.bias]) {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        out
    }

    /// Writes the weights to `path` (see [`Weights::to_bytes`]).
    pub fn write(&self, path: &str) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())
    }

    /// Reads weights written by [`Weights::to_bytes`], checking their shape.
    pub fn parse(bytes: &[u8]) -> Result<Weights, String> {
        if bytes.len() < 12 || &bytes[..4] != MAGIC {
            return Err(format!("expected a header starting with GGOE, found {} bytes", bytes.len()));
        }
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let (stages, weights) = (word(4) as usize, word(8) as usize);
        if !(1..=MAX_STAGES).contains(&stages) || weights != WEIGHTS {
            return Err(format!(
                "weights for {stages} stages of {weights}, expected 1 to {MAX_STAGES} of {WEIGHTS}"
            ));
        }
        let expected = 12 + stages * (WEIGHTS + 2) * 2;
        if bytes.len() != expected {
            return Err(format!("expected {expected} bytes for {stages} stages, found {}", bytes.len()));
        }
        let mut values = bytes[12..].chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]));
        let stages = (0..stages)
            .map(|_| {
                let patterns: Vec<i16> = values.by_ref().take(WEIGHTS).collect();
                let (mobility, bias) = (values.next().unwrap_or(0), values.next().unwrap_or(0));
                Stage { patterns, mobility, bias }
            })
            .collect();
        Ok(Weights { stages })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::bitboard::{flips, squares};

    /// Plain minimax over the same tree, the definition that [`search`] prunes.
    fn minimax(p: u64, o: u64, depth: u32) -> i32 {
        if depth == 0 {
            return evaluate_fine(p, o);
        }
        let moves = legal_moves(p, o);
        if moves == 0 {
            if legal_moves(o, p) == 0 {
                return crate::othello::endgame::final_score(p, o) * SCALE;
            }
            return -minimax(o, p, depth);
        }
        squares(moves)
            .map(|sq| {
                let f = flips(p, o, sq);
                -minimax(o & !f, p | f | (1u64 << sq), depth - 1)
            })
            .max()
            .unwrap()
    }

    #[test]
    fn search_equals_minimax_and_bounds_it_outside_the_window() {
        let mut rng = gamegraph::rng::SplitMix64(5);
        for game in 0..40 {
            let (mut p, mut o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
            for _ in 0..(game % 50) {
                let moves = legal_moves(p, o);
                if moves == 0 {
                    break;
                }
                let sq = squares(moves).nth(rng.below(u64::from(moves.count_ones())) as usize).unwrap();
                let f = flips(p, o, sq);
                (p, o) = (o & !f, p | f | (1u64 << sq));
            }
            let search =
                |p, o, depth, alpha, beta| search(p, o, depth, alpha, beta, &mut SearchContext::default());
            for depth in 0..4 {
                let exact = minimax(p, o, depth);
                assert_eq!(search(p, o, depth, -1_000_000, 1_000_000), exact);
                let (a, b) = (exact - 50, exact + 50);
                assert_eq!(search(p, o, depth, a, b), exact);
                // Outside the window, a bound on the right side.
                assert!(search(p, o, depth, exact, exact + 1) <= exact);
                assert!(search(p, o, depth, exact - 1, exact) >= exact);
            }
        }
    }

    #[test]
    fn the_built_in_weights_round_trip_and_are_symmetric() {
        let w = Weights::parse(include_bytes!("eval.bin")).unwrap();
        assert_eq!(w.to_bytes(), include_bytes!("eval.bin"));
        assert!(Weights::parse(&include_bytes!("eval.bin")[..100]).is_err());
        assert!(Weights::parse(&include_bytes!("eval.bin")[..8]).is_err());
        // A file of five stages reads back as five, with the stages beyond the fourth used.
        let five = Weights::zero(5);
        assert_eq!(Weights::parse(&five.to_bytes()).unwrap().stages.len(), 5);
        assert_eq!(stage_of(60, 5), 4);
        assert_eq!(stage_of(21, 5), 3);
        assert_eq!(stage_of(22, 4), 3);
        // A position and its mirror image along the main diagonal are worth the same.
        let transpose = |b: u64| {
            (0..64).filter(|&sq| b >> sq & 1 == 1).fold(0u64, |m, sq| m | 1 << ((sq % 8) * 8 + sq / 8))
        };
        let (p, o) = (0x0000_1c38_1000_0301u64, 0x0102_2040_0810_0c00u64);
        assert_eq!(evaluate_fine(p, o), evaluate_fine(transpose(p), transpose(o)));
    }
}
