//! What game code called from inside a search knows of that search ([`SearchContext`]).
//!
//! Some games search on their own inside one node of the engine's: a shallow search per move
//! to order the moves, a solver for the last few moves, an estimate. Those searches belong to
//! the engine's search that called them: their nodes count in its statistics and node limits,
//! they stop when it is told to stop, and the tables they keep serve it alone. The engine hands
//! each such call the context of the search it runs, so nothing of a search lives in a global or
//! a thread-local, and two searches in one process never see each other's state.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use crate::solver_owner::SolverOwner;

/// The search that game code serves: its stop flag, the nodes the game code visited for it, and
/// the owner of the tables the game's own solver keeps ([`SolverOwner`]).
#[derive(Debug)]
pub struct SearchContext<'s> {
    stop: &'s AtomicBool,
    nodes: u64,
    owner: SolverOwner,
}

/// The stop flag of code that runs outside any search: never raised.
static NEVER: AtomicBool = AtomicBool::new(false);

impl<'s> SearchContext<'s> {
    /// The context of a search that stops when `stop` is raised and whose game solver's tables
    /// serve `owner`.
    pub fn new(stop: &'s AtomicBool, owner: SolverOwner) -> Self {
        Self { stop, nodes: 0, owner }
    }

    /// A context outside any running search (a principal variation read after it, a tool) whose
    /// solver tables are `owner`'s: it never stops.
    pub fn outside_search(owner: SolverOwner) -> SearchContext<'static> {
        SearchContext::new(&NEVER, owner)
    }

    /// Whether the search has been told to stop (its deadline passed, or it was cancelled): game
    /// code that searches on its own should then return at once, with any value, since the
    /// engine discards it.
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Relaxed)
    }

    /// Counts `nodes` that game code visited for the search, so that its statistics, node limits
    /// and clock checks include them.
    pub fn count_nodes(&mut self, nodes: u64) {
        self.nodes += nodes;
    }

    /// Runs a game's own solver that works for [`SearchContext::owner`] and counts the positions
    /// it visits into a `u64` of its own, and counts those here.
    pub fn counting<T>(&mut self, solve: impl FnOnce(SolverOwner, &mut u64) -> T) -> T {
        let mut nodes = 0;
        let result = solve(self.owner, &mut nodes);
        self.nodes += nodes;
        result
    }

    /// The nodes counted since the last call, for the search to add to its own.
    pub fn take_nodes(&mut self) -> u64 {
        std::mem::take(&mut self.nodes)
    }

    /// Whom the game's own solver works for in this search.
    pub fn owner(&self) -> SolverOwner {
        self.owner
    }
}

impl Default for SearchContext<'static> {
    /// A context for game code run outside any engine (a tool, a test): it never stops, and its
    /// solver tables are its own.
    fn default() -> Self {
        Self::outside_search(SolverOwner::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_reads_its_own_flag_and_hands_over_its_nodes_once() {
        let stop = AtomicBool::new(false);
        let mut context = SearchContext::new(&stop, SolverOwner::new());
        assert!(!context.stop_requested());
        stop.store(true, Relaxed);
        assert!(context.stop_requested());
        assert!(!SearchContext::default().stop_requested(), "outside a search nothing stops");
        context.count_nodes(3);
        context.count_nodes(4);
        let owner = context.counting(|owner, nodes| {
            *nodes += 5;
            owner
        });
        assert_eq!(owner, context.owner());
        assert_eq!(context.take_nodes(), 12);
        assert_eq!(context.take_nodes(), 0);
    }
}
