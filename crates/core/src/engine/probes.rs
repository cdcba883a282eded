//! Exact solving by null-window probes: each probe asks "is the value at least `t`?" with one
//! search to the end of the game, and the answers narrow the interval of possible values until
//! it closes. [`Thresholds`] chooses the probes, from the game's estimate when it has one. Where
//! the game gives probable bounds, a selective pass of probes that trust them comes first, and
//! its value is the exact pass's first guess.

use super::settings::Probe;
use super::worker::{RootResult, Worker};
use crate::game::Searchable;
use crate::score::{Score, MAX_SCORE, UNLIMITED};

impl<'e, G: Searchable + Sync> Worker<'e, G> {
    /// The value clamped to `[low, high]` by null-window searches that narrow the interval of
    /// possible values until it closes (see [`Thresholds`] for which values are probed). Where the
    /// game gives probable bounds ([`ExactHints::probable_bound`]), a selective pass that trusts
    /// them comes first: it fills the table with best moves and finds a close estimate for the
    /// exact pass, at a fraction of its cost.
    pub(super) fn solve(&mut self, pos: &G::Position, low: Score, high: Score) -> RootResult<G::Move> {
        if let Some(known) = self.known_at_root(pos) {
            return known;
        }
        let (lo, hi) = self.game.score_bounds(pos, -MAX_SCORE, MAX_SCORE);
        let (lo, hi) = (lo.max(-MAX_SCORE), hi.min(MAX_SCORE));
        let estimate = self.game.estimate(pos, &mut self.context);
        self.stats.nodes += self.context.take_nodes();
        self.selective = self.settings.probable_bounds;
        let mut probes = Vec::new();
        let (mut thresholds, mut best, guessed) =
            self.close(pos, Thresholds::new(lo, hi, estimate), (low, high), &mut probes);
        self.selective = false;
        // Unless a probable bound (or an entry one shaped) was used, the selective pass was exact.
        if guessed && !self.aborted {
            let guess = thresholds.value(low).clamp(lo, hi);
            (thresholds, best, _) =
                self.close(pos, Thresholds::new(lo, hi, Some(guess)), (low, high), &mut probes);
        }
        let (min, max) = (thresholds.min, thresholds.max);
        if best.is_none() && !self.aborted {
            best = self.move_reaching(pos, min);
        }
        let value = thresholds.value(low);
        RootResult { value, bounds: (min, max), best, depth: UNLIMITED, complete: !self.aborted, probes }
    }

    /// Probes the `thresholds` in turn until the interval closes or leaves `[low, high]`,
    /// appending each completed probe to `probes`; returns the final bounds, the best move of the
    /// last probe that failed high, and whether any probe's result rested on a guess (a probable
    /// bound or a heuristic table entry).
    fn close(
        &mut self,
        pos: &G::Position,
        mut thresholds: Thresholds,
        (low, high): (Score, Score),
        probes: &mut Vec<Probe>,
    ) -> (Thresholds, Option<G::Move>, bool) {
        let (mut best, mut guessed) = (None, false);
        while thresholds.min < thresholds.max && thresholds.max > low && thresholds.min < high {
            // Helpers probe the neighbouring thresholds (main: t, helper 1: t - 1, helper 2:
            // t + 1, ...), so the bounds the main thread needs next are being proven already.
            // Measured on Test_L1_R2 with two threads: 146 ms with helpers that only perturb the
            // move order, 132 ms with this.
            let offset = ((self.id as i32 + 1) / 2) * if self.id % 2 == 1 { -1 } else { 1 };
            let t = thresholds.next().saturating_add(offset);
            // Only values inside [low, high] matter, and the threshold must split [min, max].
            let t = t.clamp(thresholds.min.max(low) + 1, thresholds.max.min(high));
            self.hit_horizon = false;
            let nodes_before = self.stats.nodes;
            let r = self.negamax(pos, UNLIMITED, 0, t - 1, t);
            guessed |= self.hit_horizon;
            if self.aborted {
                break;
            }
            let nodes = self.stats.nodes - nodes_before;
            probes.push(Probe { threshold: t, result: r, nodes, selective: self.selective });
            if r >= t {
                best = self.root_best;
            }
            thresholds.record(t, r);
        }
        (thresholds, best, guessed)
    }

    /// The outcome of a root that needs no search: final, or valued at once by the game.
    pub(super) fn known_at_root(&mut self, pos: &G::Position) -> Option<RootResult<G::Move>> {
        let mut moves = Vec::new();
        self.game.moves(pos, &mut moves);
        let (score, best) = if moves.is_empty() {
            (self.game.final_score(pos), None)
        } else {
            (self.game.immediate_score(pos)?, self.immediate_move(pos))
        };
        let known = RootResult {
            value: score,
            bounds: (score, score),
            best,
            depth: UNLIMITED,
            complete: true,
            probes: Vec::new(),
        };
        Some(known)
    }

    /// At a position whose value the game knows at once, the move that realises it: the one whose
    /// child is best for us by its final score or its own immediate score.
    fn immediate_move(&mut self, pos: &G::Position) -> Option<G::Move> {
        let mut moves = Vec::new();
        self.game.moves(pos, &mut moves);
        let mut children = Vec::new();
        moves.into_iter().max_by_key(|&mv| {
            let child = self.game.play(pos, mv);
            children.clear();
            self.game.moves(&child, &mut children);
            let value = if children.is_empty() {
                self.game.final_score(&child)
            } else {
                self.game.immediate_score(&child).unwrap_or(0)
            };
            -value
        })
    }

    /// A root move whose value is at least `value`, by one null-window search per move.
    fn move_reaching(&mut self, pos: &G::Position, value: i32) -> Option<G::Move> {
        let mut moves = Vec::new();
        if self.game.search_moves(pos, &mut moves).is_some() {
            return self.immediate_move(pos);
        }
        self.game.order_moves(pos, &mut moves, UNLIMITED, &mut self.context);
        self.stats.nodes += self.context.take_nodes();
        for &mv in &moves {
            let child = self.game.play(pos, mv);
            let r = -self.negamax(&child, UNLIMITED, 1, -value, -value + 1);
            if self.aborted {
                return None;
            }
            if r >= value {
                return Some(mv);
            }
        }
        moves.first().copied()
    }
}

/// The thresholds an exact solve probes, one null-window search each ("is the value at least
/// `t`?"), and the bounds proven so far.
///
/// With an estimate of the value (see [`ExactHints::estimate`]) the first probe is the estimate
/// and the next ones step away from it in the direction of the answers, doubling the step, until
/// the value is bracketed; then they bisect. Probes near the value cost the most, so a good
/// estimate saves most of the work. Without an estimate they bisect, probing half-way towards
/// zero first (most positions are close to it, and small windows cut more).
struct Thresholds {
    /// The value is at least this.
    min: i32,
    /// The value is at most this.
    max: i32,
    /// The first threshold, if the game estimated the value.
    estimate: Option<i32>,
    /// The next step away from the estimate, while the value is not yet bracketed.
    step: i32,
    /// Which side the value was last found on: true above, false below, `None` before a probe.
    above: Option<bool>,
    /// Whether both sides have answered: bisect from then on.
    bracketed: bool,
}

impl Thresholds {
    fn new(min: i32, max: i32, estimate: Option<i32>) -> Self {
        Self { min, max, estimate, step: 1, above: None, bracketed: false }
    }

    /// The next threshold `t`, with `min < t <= max`.
    fn next(&mut self) -> i32 {
        let (min, max) = (self.min as i64, self.max as i64);
        let t = match (self.estimate, self.above) {
            (Some(guess), None) => guess as i64,
            (Some(_), Some(true)) if !self.bracketed => min + self.step as i64,
            (Some(_), Some(false)) if !self.bracketed => max + 1 - self.step as i64,
            (Some(_), _) => min + (max - min + 1) / 2,
            (None, _) => {
                let mid = (min + max) / 2;
                let mid = if mid <= 0 && min / 2 < mid {
                    min / 2
                } else if mid >= 0 && max / 2 > mid {
                    max / 2
                } else {
                    mid
                };
                mid + 1
            }
        };
        t.clamp(min + 1, max) as i32
    }

    /// The value the bounds give, for a solve that only tells values below `low` apart: the
    /// upper bound if at most `low`, else the lower bound, or 0 if both sides of it are open.
    fn value(&self, low: i32) -> i32 {
        if self.max <= low {
            self.max
        } else {
            self.min.max(self.max.min(0))
        }
    }

    /// Takes in the fail-soft result `r` of the probe at `t`.
    fn record(&mut self, t: i32, r: i32) {
        let above = r >= t;
        if above {
            self.min = r;
        } else {
            self.max = r;
        }
        if self.above.is_some_and(|a| a != above) {
            self.bracketed = true;
        }
        if self.above.is_some() {
            self.step = self.step.saturating_mul(2);
        }
        self.above = Some(above);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every schedule closes on the value, with each threshold splitting the interval, whatever
    /// the guess and however tight the fail-soft answers are.
    #[test]
    fn thresholds_close_on_the_value() {
        for estimate in [None, Some(-70), Some(-3), Some(0), Some(5), Some(64)] {
            for value in -64..=64 {
                for loose in [false, true] {
                    let mut probes = Thresholds::new(-64, 64, estimate);
                    let mut count = 0;
                    while probes.min < probes.max {
                        let t = probes.next();
                        assert!(
                            probes.min < t && t <= probes.max,
                            "{t} outside ({}, {}]",
                            probes.min,
                            probes.max
                        );
                        // Loose: the fail-soft result is the value itself; tight: just the bound.
                        let r = match (loose, value >= t) {
                            (true, _) => value,
                            (false, true) => t,
                            (false, false) => t - 1,
                        };
                        probes.record(t, r);
                        count += 1;
                        assert!(count <= 20, "no end for value {value} from {estimate:?}");
                    }
                    assert_eq!(probes.min, value, "from {estimate:?}");
                }
            }
        }
    }
}
