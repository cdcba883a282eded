//! Which search a game's own solver works for ([`crate::ExactHints::solve_directly`]), so that the
//! table it keeps between calls serves that search alone.
//!
//! A game's solver keeps its table on each thread, small enough to stay in that core's cache,
//! and tags it with its owner: the engine it works for and that engine's generation. A thread
//! that moves on to another engine's search finds the table empty; [`crate::engine::Engine::clear`]
//! starts a new generation of its own engine only. So two searches in one process never clear
//! each other's tables, and a clear costs nothing, whatever the tables' size.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The search a game's solver works for: an engine, and how many times it was cleared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SolverOwner {
    engine: u64,
    generation: u32,
}

/// The number of the next owner made.
static NEXT: AtomicU64 = AtomicU64::new(1);

impl SolverOwner {
    /// An owner that no other has been or will be: each engine makes one, and so can code that
    /// calls a game's solver outside an engine (a test, a tool).
    pub fn new() -> Self {
        Self { engine: NEXT.fetch_add(1, Relaxed), generation: 0 }
    }

    /// Which owner this is: tables of another owner are not this one's.
    pub fn id(&self) -> u64 {
        self.engine
    }

    /// How many times the owner was told to forget: a table kept for an older generation of the
    /// same owner holds nothing that counts.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// The same owner at `generation`: told to forget what its solvers kept for the others.
    pub fn at_generation(self, generation: u32) -> Self {
        Self { generation, ..self }
    }
}

impl Default for SolverOwner {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_are_distinct_and_forgetting_keeps_the_owner() {
        let (a, b) = (SolverOwner::new(), SolverOwner::new());
        assert_ne!(a.id(), b.id());
        let later = a.at_generation(a.generation() + 1);
        assert_eq!((later.id(), later.generation()), (a.id(), a.generation() + 1));
        assert_ne!(later, a);
    }
}
