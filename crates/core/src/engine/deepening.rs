//! Iterative deepening: searches one ply deeper at a time until a limit or the end of the game,
//! each iteration with an aspiration window around the last value (or MTD(f)'s null windows), and
//! keeps the last completed iteration: one stopped by a limit never replaces it.

use super::principal_variation;
use super::settings::Iteration;
use super::worker::{RootResult, Worker};
use crate::game::Searchable;
use crate::score::{decisive_parts, DECISIVE, INFINITY, UNLIMITED};
use crate::tt::TtEntry;

impl<'e, G: Searchable + Sync> Worker<'e, G> {
    /// Iterative deepening; returns the last completed iteration.
    pub(super) fn iterate(&mut self, pos: &G::Position) -> RootResult<G::Move> {
        self.perturb = true;
        if let Some(known) = self.known_at_root(pos) {
            self.tell_iteration(pos, known.depth, known.value, known.best);
            return known;
        }
        let max_depth = self.limits.depth.unwrap_or(TtEntry::MAX_DEPTH).max(1);
        let mut done: Option<RootResult<G::Move>> = None;
        let mut previous = 0;
        // Helpers start one ply deeper on odd ids so that threads spread over depths.
        let first = 1 + (self.id % 2) as u32;
        for depth in first..=max_depth {
            self.may_stop = done.is_some();
            self.hit_horizon = false;
            self.root_best = None;
            self.iteration_depth = depth;
            self.seldepth = 0;
            let value = if self.settings.mtdf {
                self.mtdf(pos, depth, previous)
            } else if self.settings.aspiration && done.is_some() {
                self.aspiration(pos, depth, previous)
            } else {
                self.negamax(pos, depth, 0, -INFINITY, INFINITY)
            };
            if self.aborted {
                break;
            }
            previous = value;
            // A decisive score whose end lies within the depth searched is exact: every line to
            // that depth was searched, so no faster win (or longer resistance) lies deeper.
            let end_within = decisive_parts(value).is_some_and(|(_, plies)| plies <= depth);
            let reached_end = !self.hit_horizon || end_within;
            let depth = if reached_end { UNLIMITED } else { depth };
            self.tell_iteration(pos, depth, value, self.root_best);
            done = Some(RootResult {
                value,
                bounds: (value, value),
                best: self.root_best,
                depth,
                complete: true,
                probes: Vec::new(),
            });
            if reached_end {
                break;
            }
        }
        let Some(mut outcome) = done else {
            // The main thread's first iteration ignores the limits, so only a helper gets here:
            // stopped (its time is up, or the main thread is done) before finishing one
            // iteration. Its result is not used.
            debug_assert!(self.id != 0, "the main thread's first iteration always completes");
            return RootResult {
                value: 0,
                bounds: (-INFINITY, INFINITY),
                best: None,
                depth: 0,
                complete: false,
                probes: Vec::new(),
            };
        };
        outcome.complete =
            !self.aborted || outcome.depth == UNLIMITED || Some(outcome.depth) == self.limits.depth;
        outcome
    }

    /// Tells the search's controller (if any, and on the main thread) of a completed iteration.
    fn tell_iteration(&self, pos: &G::Position, depth: u32, value: i32, best: Option<G::Move>) {
        let Some(tell) = self.on_iteration.filter(|_| self.id == 0) else { return };
        tell(&Iteration {
            depth,
            seldepth: self.seldepth as u32,
            value,
            nodes: self.stats.nodes,
            elapsed: self.started.elapsed(),
            pv: principal_variation(self.game, self.tt, pos, best, self.context.owner()),
        });
    }

    /// A window around `guess` that widens on failure until the value falls inside.
    fn aspiration(&mut self, pos: &G::Position, depth: u32, guess: i32) -> i32 {
        let mut delta: i64 = if guess.abs() >= DECISIVE { INFINITY as i64 } else { 16 };
        loop {
            let alpha = (guess as i64 - delta).max(-(INFINITY as i64)) as i32;
            let beta = (guess as i64 + delta).min(INFINITY as i64) as i32;
            let value = self.negamax(pos, depth, 0, alpha, beta);
            if self.aborted || (value > alpha && value < beta) || (alpha == -INFINITY && beta == INFINITY) {
                return value;
            }
            delta *= 4;
        }
    }

    /// MTD(f): null-window searches converging on the value from a first guess.
    fn mtdf(&mut self, pos: &G::Position, depth: u32, guess: i32) -> i32 {
        let (mut lower, mut upper) = (-INFINITY, INFINITY);
        let mut g = guess;
        let mut best = None;
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            g = self.negamax(pos, depth, 0, beta - 1, beta);
            if self.aborted {
                return g;
            }
            if g < beta {
                upper = g;
            } else {
                lower = g;
                best = self.root_best;
            }
        }
        if best.is_some() {
            self.root_best = best;
        }
        g
    }
}
