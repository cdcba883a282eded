//! Completing, over a cluster, the workers' shares of a table read from a version 4 file, which
//! leaves out the values captures give: each worker walks its share, values each capture into
//! a position it holds and names the others, whose owners value them in their shares of the
//! tables of fewer pieces (completed before). Each position then takes the better of its stored
//! value and its best capture's, as [`super::resolve::raise`] does for a table read whole.

use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use gamegraph::dense::{DenseLayer, Exit, Forward, Leaving as Named, Reached};

use super::loaded::LoadedEntries;
use super::shares::{Part, TableShares};
use super::*;
use crate::chess::generate::exit_of;
use crate::chess::index::Placement;
use crate::chess::leaving::LeavingTables;
use crate::chess::moves::{Leaving, MoveVisitor};

/// One worker's share of a table to complete, as a layer whose moves are the captures alone:
/// the cluster's driver walks it forward, asking for the captures it names, and tells it each
/// position's best ([`DenseLayer::exits_found`]).
pub struct CaptureCompletion {
    index: TableIndex,
    leaving: LeavingTables,
    /// The tables its captures reach, numbered as [`DenseLayer::reached`] gives them.
    reached: Vec<Material>,
    /// This worker's share of those tables (complete) and of the others it holds.
    shares: Arc<TableShares>,
    /// The parts to complete, their entries (as `u16`) raised as the best captures are told.
    parts: Vec<(Part, Vec<AtomicU16>)>,
}

impl CaptureCompletion {
    /// The parts `parts` of the table of `material`, to complete through the captures valued
    /// in `shares`.
    pub(super) fn new(material: Material, parts: Vec<Part>, shares: Arc<TableShares>) -> Self {
        let index = TableIndex::new(material);
        let leaving = LeavingTables::new(&index);
        let reached = resolve::capture_halves(material).map(|(m, _)| m).collect();
        let parts = parts
            .into_iter()
            .map(|part| {
                let entries = &part.entries;
                let values = (0..entries.len()).into_par_iter().map(|i| AtomicU16::new(entries.get(i).0));
                let values: Vec<AtomicU16> = values.collect();
                // The entries read are in `values` now.
                (Part { entries: Arc::new(LoadedEntries::new(Vec::new())), ..part }, values)
            })
            .collect();
        Self { index, leaving, reached, shares, parts }
    }

    /// The parts, complete.
    pub(super) fn completed(&self) -> Vec<Part> {
        self.parts
            .iter()
            .map(|(part, values)| {
                let entries = values.par_iter().map(|v| Entry(v.load(Relaxed))).collect();
                Part { entries: Arc::new(LoadedEntries::new(entries)), ..part.clone() }
            })
            .collect()
    }

    /// Gives `valued` the value of each capture of `p` into a position this worker holds, and
    /// `leave` the others, named; whether `p` has a capture.
    fn captures(&self, p: &Placement, valued: &mut dyn FnMut(Exit), leave: &mut dyn FnMut(Named)) -> bool {
        struct Captures<'a> {
            layer: &'a CaptureCompletion,
            valued: &'a mut dyn FnMut(Exit),
            leave: &'a mut dyn FnMut(Named),
            any: bool,
        }
        impl MoveVisitor for Captures<'_> {
            const CAPTURES_ONLY: bool = true;

            fn inside(&mut self) {}

            fn leaving(&mut self, mv: Leaving) {
                if mv.captured.is_none() {
                    return;
                }
                self.any = true;
                let Some((material, index)) = self.layer.leaving.reach(mv) else {
                    return (self.valued)(Exit::new(0));
                };
                match self.layer.shares.held(material, index) {
                    Some(entry) => (self.valued)(exit_of(entry)),
                    None => {
                        let layer = self.layer.reached.iter().position(|&m| m == material);
                        let layer = layer.expect("every table a capture reaches is in capture_halves") as u32;
                        (self.leave)(Named { layer, index, tag: 0 })
                    }
                }
            }
        }
        let mut captures = Captures { layer: self, valued, leave, any: false };
        self.index.visit_moves(p, &mut captures);
        captures.any
    }
}

impl DenseLayer for CaptureCompletion {
    type Scratch = ();

    fn len(&self) -> u64 {
        self.index.len()
    }

    /// A side to move's half, as the table's layer and [`TableShares::reached`] cut it.
    fn segment(&self) -> u64 {
        self.index.len() / 2
    }

    /// Every capture valued: for a worker that holds every table they reach.
    fn forward(&self, start: u64, out: &mut [Forward]) {
        let mut marked = vec![None; out.len()];
        self.forward_leaving(start, out, &mut marked, &mut |_, mv| {
            unreachable!("{mv:?}: a capture into a position not held")
        });
    }

    /// Captures leave the table: no move stays in it.
    fn predecessors(&self, _: u64, _: &mut (), _: impl FnMut(u64)) {}

    fn asks(&self) -> bool {
        true
    }

    /// A position with a capture has that many moves leaving the table, and none inside; the
    /// others, and the indices outside the parts to complete, are absent.
    fn forward_leaving(
        &self,
        start: u64,
        out: &mut [Forward],
        _: &mut [Option<Exit>],
        leave: &mut dyn FnMut(usize, Named),
    ) {
        out.fill(Forward::Absent);
        let end = start + out.len() as u64;
        for (part, values) in &self.parts {
            let range = start.max(part.start)..end.min(part.start + values.len() as u64);
            self.index.placements(range, |at, p| {
                let Some(p) = p else { return };
                let offset = (at - start) as usize;
                let mut best: Option<Exit> = None;
                let mut valued = |exit: Exit| best = Some(exit.best_of(best));
                if self.captures(&p, &mut valued, &mut |mv| leave(offset, mv)) {
                    out[offset] = Forward::Moves { inside: 0, exit: best };
                }
            });
        }
    }

    fn reached(&self) -> Vec<Reached> {
        self.reached.iter().map(|&m| TableShares::reached(m)).collect()
    }

    fn exit_through(&self, leaving: Named) -> Exit {
        exit_of(self.shares.entry_at(self.reached[leaving.layer as usize], leaving.index))
    }

    /// Raises the position's entry to its best capture's value where that is better.
    fn exits_found(&self, index: u64, best: Option<Exit>, _: Option<Exit>) {
        let Some(best) = best else { return };
        let (part, values) = self
            .parts
            .iter()
            .find(|(part, values)| index.wrapping_sub(part.start) < values.len() as u64)
            .expect("told only of the positions of its parts");
        let value = &values[(index - part.start) as usize];
        value.store(resolve::raised(Entry(value.load(Relaxed)), Dtm::of_exit(best)).0, Relaxed);
    }
}
