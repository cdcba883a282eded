//! Mate solving: every first move that forces checkmate in at most `n` moves, proven exactly.
//!
//! The search is an AND/OR search over every legal move (no heuristic pruning, no evaluation,
//! no null move: nothing that could miss a mate or see a false one). The attacker needs one
//! move after which every reply leads to a mate in one move fewer; with one move left, only a
//! move that checks can mate. What it proves is kept by position and moves left, so that
//! transpositions are solved once. Repetitions and the 50-move rule do not apply: a mate in `n`
//! comes long before either.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use cozy_chess::{Board, Move};

use super::evaluate::is_capture;

/// A mate search and what it has proven so far.
#[derive(Debug)]
pub struct MateSearch {
    /// For (position key, attacker's moves left): whether the attacker to move mates in time.
    known: HashMap<(u64, u32), bool>,
    /// The most entries `known` may hold: beyond, what is proven is no longer kept (and is
    /// proven again where met again), so that memory stays bounded.
    capacity: usize,
    /// When the search gives up, if ever.
    deadline: Option<Instant>,
    /// Whether it gave up: answers found after are "no mate found", not "no mate".
    out_of_time: bool,
    /// Positions visited.
    nodes: u64,
}

/// Bytes one proven position takes in the table, about: key, moves left, answer and the map's
/// own overhead.
const ENTRY_BYTES: usize = 40;

/// Positions visited between two looks at the clock.
const CLOCK_EVERY: u64 = 4096;

impl Default for MateSearch {
    fn default() -> Self {
        Self::new()
    }
}

impl MateSearch {
    /// A search with nothing proven yet, a table of at most 64 MiB and no time limit.
    pub fn new() -> Self {
        Self::with_limits(64, None)
    }

    /// A search whose table of proven positions takes at most about `table_mib` MiB, and that
    /// gives up after `time` (then [`MateSearch::out_of_time`] says so).
    pub fn with_limits(table_mib: usize, time: Option<Duration>) -> Self {
        Self {
            known: HashMap::new(),
            capacity: (table_mib << 20) / ENTRY_BYTES,
            deadline: time.map(|t| Instant::now() + t),
            out_of_time: false,
            nodes: 0,
        }
    }

    /// Positions visited so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Whether the search gave up at its time limit: a first move it did not list may still
    /// mate (the moves it listed do).
    pub fn out_of_time(&self) -> bool {
        self.out_of_time
    }

    /// Counts a position, and looks at the clock now and then: true when the search must stop.
    fn visit(&mut self) -> bool {
        self.nodes += 1;
        if !self.out_of_time && self.nodes.is_multiple_of(CLOCK_EVERY) {
            self.out_of_time = self.deadline.is_some_and(|d| Instant::now() >= d);
        }
        self.out_of_time
    }

    /// Every legal move of `board` after which the side to move mates in at most `moves` moves
    /// (this one included), in generation order.
    pub fn mating_moves(&mut self, board: &Board, moves: u32) -> Vec<Move> {
        legal_moves(board)
            .into_iter()
            .filter(|&mv| moves > 0 && self.mated_after(board, mv, moves - 1))
            .collect()
    }

    /// Every legal move of `board` that forces mate in at most `moves` moves, with the fewest
    /// moves it mates in; the fastest first.
    pub fn mating_moves_by_length(&mut self, board: &Board, moves: u32) -> Vec<(Move, u32)> {
        let mut found: Vec<(Move, u32)> = legal_moves(board)
            .into_iter()
            .filter_map(|mv| (1..=moves).find(|&n| self.mated_after(board, mv, n - 1)).map(|n| (mv, n)))
            .collect();
        found.sort_by_key(|&(_, n)| n);
        found
    }

    /// The fewest moves in which the side to move forces mate, if at most `moves`.
    pub fn shortest_mate(&mut self, board: &Board, moves: u32) -> Option<u32> {
        (1..=moves).find(|&n| self.mates_within(board, n))
    }

    /// Whether the side to move (the attacker) mates in at most `n` moves.
    pub fn mates_within(&mut self, board: &Board, n: u32) -> bool {
        if n == 0 {
            return false;
        }
        let key = (board.hash(), n);
        if let Some(&known) = self.known.get(&key) {
            return known;
        }
        if self.visit() {
            return false;
        }
        let mut moves = legal_moves(board);
        // Checks first, then captures: mates are found sooner, and every move is still tried
        // before a failure is concluded.
        moves.sort_by_cached_key(|&mv| std::cmp::Reverse(forcing(board, mv)));
        let mates = moves.into_iter().any(|mv| {
            // With one move left, only a check can mate.
            (n > 1 || gives_check(board, mv)) && self.mated_after(board, mv, n - 1)
        });
        // A failure found after giving up proves nothing; a mate found is proven all the same.
        if (mates || !self.out_of_time) && self.known.len() < self.capacity {
            self.known.insert(key, mates);
        }
        mates
    }

    /// Whether, after the attacker plays `mv`, the defender is mated now or whatever he plays
    /// the attacker mates in at most `n` more moves.
    fn mated_after(&mut self, board: &Board, mv: Move, n: u32) -> bool {
        let mut defender = board.clone();
        defender.play_unchecked(mv);
        if self.visit() {
            return false;
        }
        let replies = legal_moves(&defender);
        if replies.is_empty() {
            return !defender.checkers().is_empty();
        }
        n > 0
            && replies.into_iter().all(|reply| {
                let mut attacker = defender.clone();
                attacker.play_unchecked(reply);
                self.mates_within(&attacker, n)
            })
    }
}

/// Every legal move of `board`.
pub fn legal_moves(board: &Board) -> Vec<Move> {
    let mut moves = Vec::new();
    board.generate_moves(|piece_moves| {
        moves.extend(piece_moves);
        false
    });
    moves
}

/// Whether `mv` checks the opponent.
fn gives_check(board: &Board, mv: Move) -> bool {
    let mut after = board.clone();
    after.play_unchecked(mv);
    !after.checkers().is_empty()
}

/// 2 for a check, 1 for a capture, 0 otherwise.
fn forcing(board: &Board, mv: Move) -> u8 {
    if gives_check(board, mv) {
        2
    } else {
        u8::from(is_capture(board, mv))
    }
}
