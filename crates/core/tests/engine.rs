//! The search engine against retrograde analysis and plain recursion, under every setting, and
//! the pitfalls of docs/search.md.

use gamegraph::engine::{Engine, EngineSettings, Limits, UNLIMITED};
use gamegraph::graph_game::GraphGame;
use gamegraph::solution::{solve_graph, Solution};
use gamegraph::{
    Evaluate, ExactHints, Game, Model, MoveOrdering, Payoff, PositionKey, SearchContext, Selectivity, Stake,
};
use proptest::prelude::*;

mod common;
use common::{acyclic, acyclic_with, cyclic, graph};

/// Every combination worth telling apart.
fn all_settings() -> Vec<EngineSettings> {
    let base = EngineSettings { tt_mib: 1, ..EngineSettings::default() };
    vec![
        base.clone(),
        EngineSettings { pvs: false, ..base.clone() },
        EngineSettings { killers: true, history: true, etc: false, ..base.clone() },
        EngineSettings { mtdf: true, aspiration: false, ..base.clone() },
        EngineSettings { threads: 2, ..base },
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// With cycles, a repetition is a draw and path-dependent results stay out of the table: the
    /// engine then finds the retrograde minimax value of every position.
    #[test]
    fn engine_equals_retrograde_on_cyclic_graphs((succ, stakes) in cyclic(10)) {
        let g = graph(&succ, &stakes);
        let exact = solve_graph(&g, Model::Minimax);
        for settings in all_settings() {
            for u in 0..g.nodes() as u32 {
                let game = GraphGame::new(&g, u);
                let engine = Engine::new(&game, settings.clone());
                let r = engine.solve(&u, Limits::default());
                prop_assert!(r.is_exact());
                prop_assert_eq!(Some(r.value), exact.value(u), "node {} with {:?}", u, settings);
                let s = engine.search(&u, Limits::default());
                prop_assert_eq!(Some(s.value), exact.value(u), "search, node {} with {:?}", u, settings);
                // Every root with moves gets a best move, and it achieves the value.
                let has_moves = !g.successors(u).is_empty();
                prop_assert_eq!(r.best.is_some(), has_moves);
                prop_assert_eq!(s.best.is_some(), has_moves, "search, node {} with {:?}", u, settings);
                if let Some(best) = r.best {
                    prop_assert_eq!(exact.value(best).map(|v| -v), exact.value(u));
                }
            }
        }
    }

    /// Fail-soft: a result at or below alpha bounds the value from above, at or above beta from
    /// below, and is exact in between; the table never lets a bound pass for an exact value.
    #[test]
    fn windows_give_the_right_kind_of_bound((succ, stakes) in acyclic(14), a in -6i32..6, width in 1i32..4) {
        let g = graph(&succ, &stakes);
        let exact = solve_graph(&g, Model::Minimax);
        let game = GraphGame::new(&g, 0);
        let engine = Engine::new(&game, EngineSettings { tt_mib: 1, ..EngineSettings::default() });
        for u in 0..g.nodes() as u32 {
            let v = exact.value(u).unwrap();
            // The same engine, so later windows meet entries stored by earlier ones.
            let r = engine.window(&u, UNLIMITED, a, a + width);
            if r <= a {
                prop_assert!(v <= r, "upper bound {} but value {}", r, v);
            } else if r >= a + width {
                prop_assert!(v >= r, "lower bound {} but value {}", r, v);
            } else {
                prop_assert_eq!(r, v);
            }
        }
    }
}

/// A graph game with a heuristic at the horizon, to test depth handling in the table, and two
/// switches: `quiet` opens every move to late move reductions; `ordered` sorts the moves by a
/// hash of the positions they lead to, from the moves, or from the children the search played
/// when `BY_CHILDREN` (through the trait's default `order_children`).
struct Heuristic<'g, const BY_CHILDREN: bool = false> {
    graph: GraphGame<'g>,
    quiet: bool,
    ordered: bool,
}

impl<'g> Heuristic<'g> {
    /// The graph game with the heuristic, its moves in the graph's order.
    fn new(graph: GraphGame<'g>, quiet: bool) -> Self {
        Heuristic { graph, quiet, ordered: false }
    }
}

impl<const BY_CHILDREN: bool> Game for Heuristic<'_, BY_CHILDREN> {
    type Position = u32;
    type Move = u32;
    fn start(&self) -> u32 {
        0
    }
    fn moves(&self, p: &u32, m: &mut Vec<u32>) {
        self.graph.moves(p, m)
    }
    fn play(&self, _p: &u32, m: u32) -> u32 {
        m
    }
    fn final_loss(&self, p: &u32) -> Stake {
        self.graph.final_loss(p)
    }
}

impl<const BY_CHILDREN: bool> Payoff for Heuristic<'_, BY_CHILDREN> {
    fn final_score(&self, p: &u32) -> i32 {
        self.graph.final_score(p)
    }
}

impl<const BY_CHILDREN: bool> Evaluate for Heuristic<'_, BY_CHILDREN> {
    fn evaluate(&self, p: &u32) -> i32 {
        (p.wrapping_mul(2_654_435_761) >> 28) as i32 - 8
    }
}

impl<const BY_CHILDREN: bool> MoveOrdering for Heuristic<'_, BY_CHILDREN> {
    fn order_moves(&self, _p: &u32, m: &mut [u32], _depth: u32, _context: &mut SearchContext<'_>) {
        if self.ordered {
            m.sort_by_key(|&c| c.wrapping_mul(2_654_435_761) >> 28);
        }
    }

    const ORDERS_BY_CHILDREN: bool = BY_CHILDREN;
}

impl<const BY_CHILDREN: bool> Selectivity for Heuristic<'_, BY_CHILDREN> {
    fn is_quiet(&self, _p: &u32, _m: u32) -> bool {
        self.quiet
    }
}

impl<const BY_CHILDREN: bool> ExactHints for Heuristic<'_, BY_CHILDREN> {}

impl<const BY_CHILDREN: bool> PositionKey for Heuristic<'_, BY_CHILDREN> {
    fn key(&self, p: &u32) -> u64 {
        u64::from(*p)
    }
}

/// Plain depth-limited negamax, the oracle.
fn negamax(game: &Heuristic<'_>, p: u32, depth: u32) -> i32 {
    let mut moves = Vec::new();
    game.moves(&p, &mut moves);
    if moves.is_empty() {
        return game.final_score(&p);
    }
    if depth == 0 {
        return game.evaluate(&p);
    }
    moves.iter().map(|&m| -negamax(game, m, depth - 1)).max().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// An entry from a shallow search never answers a deeper one: a table filled at depth 1
    /// gives the same depth-3 value as plain negamax at depth 3. (On trees: with transpositions a
    /// deeper entry may rightly answer, and plain negamax is no longer the oracle.)
    #[test]
    fn shallow_entries_do_not_cut_deeper_searches(
        parents in prop::collection::vec(any::<prop::sample::Index>(), 0..30),
        stakes in prop::collection::vec(-6i32..7, 31),
    ) {
        let n = parents.len() + 1;
        let mut succ = vec![Vec::new(); n];
        for (i, p) in parents.iter().enumerate() {
            succ[p.index(i + 1)].push(i + 1);
        }
        let g = graph(&succ, &stakes[..n]);
        let game = Heuristic::new(GraphGame::new(&g, 0), false);
        let engine = Engine::new(&game, EngineSettings { tt_mib: 1, aspiration: false, ..EngineSettings::default() });
        for u in 0..g.nodes() as u32 {
            engine.clear();
            let _ = engine.window(&u, 1, -1000, 1000);
            prop_assert_eq!(engine.window(&u, 3, -1000, 1000), negamax(&game, u, 3), "node {}", u);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Late move reductions are a depth-limited heuristic: with every move quiet, exact solves
    /// still find the retrograde value, and so does iterative deepening, whose iterations reduce
    /// until one reaches the end of every line.
    #[test]
    fn reductions_stay_out_of_exact_solves((succ, stakes) in acyclic_with(40, 8)) {
        let g = graph(&succ, &stakes);
        let exact = solve_graph(&g, Model::Minimax);
        let game = Heuristic::new(GraphGame::new(&g, 0), true);
        let engine = Engine::new(&game, EngineSettings { tt_mib: 1, ..EngineSettings::default() });
        for u in 0..g.nodes() as u32 {
            prop_assert_eq!(Some(engine.solve(&u, Limits::default()).value), exact.value(u), "node {}", u);
            prop_assert_eq!(Some(engine.search(&u, Limits::default()).value), exact.value(u), "node {}", u);
        }
    }
}

/// A complete tree of `width` moves a node and `height` levels, for [`Heuristic`].
fn complete_tree(width: usize, height: u32) -> Vec<Vec<usize>> {
    let mut succ = vec![Vec::new()];
    let mut level = vec![0];
    for _ in 0..height {
        let mut next = Vec::new();
        for &node in &level {
            for _ in 0..width {
                let child = succ.len();
                succ.push(Vec::new());
                succ[node].push(child);
                next.push(child);
            }
        }
        level = next;
    }
    succ
}

/// Late move reductions do reduce: on a wide tree whose moves are all quiet, a depth-limited
/// search visits fewer nodes with them than without.
#[test]
fn reductions_search_fewer_nodes_in_depth_limited_searches() {
    let succ = complete_tree(5, 9);
    let g = graph(&succ, &vec![0; succ.len()]);
    let game = Heuristic::new(GraphGame::new(&g, 0), true);
    let nodes = |late_move_reductions| {
        let settings = EngineSettings { tt_mib: 4, late_move_reductions, ..EngineSettings::default() };
        let engine = Engine::new(&game, settings);
        engine.search(&0, Limits { depth: Some(8), ..Limits::default() }).stats.nodes
    };
    let (with, without) = (nodes(true), nodes(false));
    assert!(with * 4 < without * 3, "{with} nodes with reductions, {without} without");
}

/// A graph game without cycles (so exact solves split subtrees over threads) that guesses its
/// value, to test the probe schedules from any starting point, and that may solve its odd
/// vertices itself, from their known values, as a game with its own endgame solver does; and
/// that may give probable bounds, at random at a quarter of the positions (`probable`, the seed of
/// their choice), which the selective pass trusts and the exact pass must not.
struct Guessing<'g> {
    graph: GraphGame<'g>,
    guess: Option<i32>,
    direct: Option<&'g Solution<u32>>,
    probable: Option<u32>,
}

impl Game for Guessing<'_> {
    type Position = u32;
    type Move = u32;
    fn start(&self) -> u32 {
        0
    }
    fn moves(&self, p: &u32, m: &mut Vec<u32>) {
        self.graph.moves(p, m)
    }
    fn play(&self, _p: &u32, m: u32) -> u32 {
        m
    }
    fn final_loss(&self, p: &u32) -> Stake {
        self.graph.final_loss(p)
    }
}

impl Payoff for Guessing<'_> {
    fn final_score(&self, p: &u32) -> i32 {
        -self.graph.final_loss(p)
    }
}

impl Evaluate for Guessing<'_> {
    fn evaluate(&self, _p: &u32) -> i32 {
        0
    }
}

impl MoveOrdering for Guessing<'_> {}
impl Selectivity for Guessing<'_> {}

impl ExactHints for Guessing<'_> {
    fn estimate(&self, _p: &u32, _context: &mut SearchContext<'_>) -> Option<i32> {
        self.guess
    }
    fn solves_directly(&self, p: &u32) -> bool {
        self.direct.is_some() && p % 2 == 1
    }
    /// Fail-hard, the weakest answer allowed: only `alpha` or `beta` when the value is outside
    /// the window, so that the engine must keep the bound, not the value, in its table.
    fn solve_directly(&self, p: &u32, alpha: i32, beta: i32, context: &mut SearchContext<'_>) -> Option<i32> {
        context.count_nodes(1);
        Some(self.direct?.value(*p)?.clamp(alpha, beta))
    }
    fn score_bounds(&self, _p: &u32, _alpha: i32, _beta: i32) -> (i32, i32) {
        (-6, 6)
    }
    fn probable_bound(
        &self,
        p: &u32,
        alpha: i32,
        beta: i32,
        _context: &mut SearchContext<'_>,
    ) -> Option<i32> {
        match (p ^ self.probable?).wrapping_mul(2_654_435_761) >> 29 {
            0 => Some(beta),
            1 => Some(alpha),
            _ => None,
        }
    }
}

impl PositionKey for Guessing<'_> {
    fn key(&self, p: &u32) -> u64 {
        u64::from(*p)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// Exact solves find the retrograde value and a move achieving it from any first guess, or
    /// none, and whatever probable bounds the selective pass trusted, on one thread and with
    /// subtrees split over two (the split's cancellations included: its subtrees fail high and
    /// low at random here).
    #[test]
    fn solves_from_any_guess_on_one_or_two_threads(
        (succ, stakes) in acyclic_with(40, 6),
        guess in prop::option::of(-8i32..9),
        direct in any::<bool>(),
        probable in prop::option::of(any::<u32>()),
    ) {
        let g = graph(&succ, &stakes);
        let exact = solve_graph(&g, Model::Minimax);
        let direct = direct.then_some(&exact);
        for threads in [1, 2] {
            let settings = EngineSettings { tt_mib: 1, threads, ..EngineSettings::default() };
            for u in 0..g.nodes() as u32 {
                let game = Guessing { graph: GraphGame::new(&g, u), guess, direct, probable };
                let engine = Engine::new(&game, settings.clone());
                let r = engine.solve(&u, Limits::default());
                prop_assert!(r.is_exact());
                prop_assert_eq!(Some(r.value), exact.value(u), "node {} on {} threads", u, threads);
                if let Some(best) = r.best {
                    prop_assert_eq!(exact.value(best).map(|v| -v), exact.value(u));
                }
                prop_assert_eq!(r.best.is_some(), !g.successors(u).is_empty());
                // Wide windows too: a split subtree's null-window result above alpha is only a
                // lower bound, to be searched again.
                let v = exact.value(u).unwrap();
                // The probes, where the nodes went: the selective pass's first, the exact ones
                // bounding the value as their fail-soft answers say, no node counted twice.
                let exact_from = r.probes.iter().position(|p| !p.selective).unwrap_or(r.probes.len());
                prop_assert!(r.probes[exact_from..].iter().all(|p| !p.selective), "{:?}", r.probes);
                for p in &r.probes[exact_from..] {
                    let holds = if p.result >= p.threshold { v >= p.result } else { v <= p.result };
                    prop_assert!(holds, "probe {:?} but value {}", p, v);
                }
                prop_assert!(r.probes.iter().map(|p| p.nodes).sum::<u64>() <= r.stats.nodes);
                for (a, b) in [(-7, 7), (-2, 3), (v - 1, v + 1), (v - 3, v + 2)] {
                    let w = engine.window(&u, UNLIMITED, a, b);
                    if w <= a {
                        prop_assert!(v <= w, "upper bound {} but value {}", w, v);
                    } else if w >= b {
                        prop_assert!(v >= w, "lower bound {} but value {}", w, v);
                    } else {
                        prop_assert_eq!(w, v, "node {} window ({}, {}) on {} threads", u, a, b, threads);
                    }
                }
            }
            // One engine for every position, its table kept from solve to solve: what one
            // selective pass stored must not pass for exact in the next solve.
            let game = Guessing { graph: GraphGame::new(&g, 0), guess, direct, probable };
            let engine = Engine::new(&game, settings.clone());
            for u in (0..g.nodes() as u32).rev().chain(0..g.nodes() as u32) {
                let r = engine.solve(&u, Limits::default());
                prop_assert_eq!(Some(r.value), exact.value(u), "node {} after others on {} threads", u, threads);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// A game that orders by its children gets them all, in the order its moves would have, and
    /// is solved exactly under every setting.
    #[test]
    fn ordering_by_children_orders_as_the_moves_and_solves_exactly((succ, stakes) in acyclic_with(14, 6)) {
        let g = graph(&succ, &stakes);
        let exact = solve_graph(&g, Model::Minimax);
        let game = Heuristic::<true> { graph: GraphGame::new(&g, 0), quiet: false, ordered: true };
        for u in 0..g.nodes() as u32 {
            let mut moves = Vec::new();
            game.moves(&u, &mut moves);
            let mut children: Vec<(u32, u32, char)> = moves.iter().map(|&m| (m, game.play(&u, m), 'k')).collect();
            game.order_children(&u, &mut children, |c| (c.0, &c.1), UNLIMITED, &mut SearchContext::default());
            game.order_moves(&u, &mut moves, UNLIMITED, &mut SearchContext::default());
            prop_assert_eq!(children.iter().map(|c| c.0).collect::<Vec<_>>(), moves);
        }
        for settings in all_settings() {
            for u in 0..g.nodes() as u32 {
                let by_children = Engine::new(&game, settings.clone()).solve(&u, Limits::default());
                let plain = Heuristic::<false> { graph: GraphGame::new(&g, u), quiet: false, ordered: true };
                let by_moves = Engine::new(&plain, settings.clone()).solve(&u, Limits::default());
                prop_assert_eq!(Some(by_children.value), exact.value(u), "node {} with {:?}", u, settings);
                prop_assert_eq!(Some(by_moves.value), exact.value(u), "node {} with {:?}", u, settings);
            }
        }
    }
}

/// A binary tree 40 plies deep whose move ordering is slow (a millisecond), as a game's own
/// ordering searches can be, counting how often it is asked.
struct SlowOrdering {
    orderings: std::sync::atomic::AtomicU64,
}

impl Game for SlowOrdering {
    type Position = (u32, u64);
    type Move = u8;
    fn start(&self) -> (u32, u64) {
        (0, 1)
    }
    fn moves(&self, p: &(u32, u64), m: &mut Vec<u8>) {
        if p.0 < 40 {
            m.extend([0, 1]);
        }
    }
    fn play(&self, p: &(u32, u64), m: u8) -> (u32, u64) {
        (p.0 + 1, p.1 * 2 + u64::from(m))
    }
    fn final_loss(&self, p: &(u32, u64)) -> Stake {
        (p.1 % 3) as Stake - 1
    }
}

impl Payoff for SlowOrdering {}

impl Evaluate for SlowOrdering {
    fn evaluate(&self, _p: &(u32, u64)) -> i32 {
        0
    }
}

impl MoveOrdering for SlowOrdering {
    fn order_moves(&self, _p: &(u32, u64), _m: &mut [u8], _depth: u32, _context: &mut SearchContext<'_>) {
        self.orderings.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

impl Selectivity for SlowOrdering {}

impl ExactHints for SlowOrdering {}

impl PositionKey for SlowOrdering {
    fn key(&self, p: &(u32, u64)) -> u64 {
        p.1
    }
}

/// A search stops soon after its time even when single nodes are slow: the deadline raises a
/// flag that every node reads, where the clock is read only every 1,024 nodes (which here would
/// take at least a second). Counted in slow calls, not timed, so that a loaded machine cannot
/// make it fail: 20 ms of time allow about 20 calls; fewer than 500 are accepted.
#[test]
fn a_search_stops_at_its_time_even_when_nodes_are_slow() {
    for threads in [1, 2] {
        let game = SlowOrdering { orderings: 0.into() };
        let engine = Engine::new(&game, EngineSettings { tt_mib: 1, threads, ..EngineSettings::default() });
        let limits = Limits { time: Some(std::time::Duration::from_millis(20)), ..Limits::default() };
        let r = engine.solve(&game.start(), limits);
        assert!(!r.complete);
        let calls = game.orderings.load(std::sync::atomic::Ordering::Relaxed);
        assert!(calls < 500, "{calls} slow calls after the deadline, {threads} threads");
        // Iterative deepening too; a helper stopped before its first iteration ends quietly.
        let r = engine.search(&game.start(), limits);
        assert!(r.depth >= 1 && r.best.is_some(), "{r:?}");
    }
}

/// An engine's interrupt flag (a user's Ctrl-C) stops its searches, exact or deepening, however
/// long their time: raised by another thread 20 ms in, where the search without a limit would
/// run for hours. Counted in slow calls like the deadline's test, not timed.
#[test]
fn the_interrupt_flag_stops_every_search_of_the_engine() {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    use std::sync::Arc;
    for threads in [1, 2] {
        let game = SlowOrdering { orderings: 0.into() };
        let interrupt = Arc::new(AtomicBool::new(false));
        let engine = Engine::new(&game, EngineSettings { tt_mib: 1, threads, ..EngineSettings::default() })
            .with_interrupt(Arc::clone(&interrupt));
        let r = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(20));
                interrupt.store(true, Relaxed);
            });
            engine.solve(&game.start(), Limits::default())
        });
        assert!(!r.complete && !r.is_exact());
        let calls = game.orderings.load(Relaxed);
        assert!(calls < 1_000, "{calls} slow calls, {threads} threads");
        // Still raised: the next search stops at once, after its first iteration.
        let r = engine.search(&game.start(), Limits::default());
        assert!(!r.complete && r.best.is_some(), "{r:?}");
    }
}

/// Game code that searches on its own inside a node can ask whether the search is over.
#[test]
fn hooks_see_the_stop_flag_of_their_search() {
    struct Asking(std::sync::atomic::AtomicBool);
    impl Game for Asking {
        type Position = u32;
        type Move = u32;
        fn start(&self) -> u32 {
            0
        }
        fn moves(&self, p: &u32, m: &mut Vec<u32>) {
            if *p < 30 {
                m.extend([p * 2 + 1, p * 2 + 2].map(|c| c.min(30)));
            }
        }
        fn play(&self, _p: &u32, m: u32) -> u32 {
            m
        }
    }
    impl Payoff for Asking {}
    impl Evaluate for Asking {
        fn evaluate(&self, _p: &u32) -> i32 {
            0
        }
    }
    impl MoveOrdering for Asking {
        fn order_moves(&self, _p: &u32, _m: &mut [u32], _depth: u32, context: &mut SearchContext<'_>) {
            // Spins until the search it serves is told to stop: only the flag ends it.
            while !context.stop_requested() {
                std::thread::yield_now();
            }
            self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
    impl Selectivity for Asking {}
    impl ExactHints for Asking {}
    impl PositionKey for Asking {
        fn key(&self, p: &u32) -> u64 {
            u64::from(*p)
        }
    }
    let game = Asking(false.into());
    let engine = Engine::new(&game, EngineSettings { tt_mib: 1, ..EngineSettings::default() });
    let r =
        engine.solve(&0, Limits { time: Some(std::time::Duration::from_millis(10)), ..Limits::default() });
    assert!(!r.complete);
    assert!(game.0.load(std::sync::atomic::Ordering::Relaxed));
}

/// Nodes that game code searches on its own (an ordering search) count in the statistics (and so
/// against node limits): each ordering here reports 1,000 nodes.
#[test]
fn nodes_searched_by_hooks_are_counted() {
    struct Counting(bool);
    impl Game for Counting {
        type Position = u32;
        type Move = u32;
        fn start(&self) -> u32 {
            0
        }
        fn moves(&self, p: &u32, m: &mut Vec<u32>) {
            if *p < 1000 {
                m.extend([p * 3 + 1, p * 3 + 2, p * 3 + 3]);
            }
        }
        fn play(&self, _p: &u32, m: u32) -> u32 {
            m
        }
    }
    impl Payoff for Counting {}
    impl Evaluate for Counting {
        fn evaluate(&self, p: &u32) -> i32 {
            (p.wrapping_mul(2_654_435_761) >> 28) as i32
        }
    }
    impl MoveOrdering for Counting {
        fn order_moves(&self, _p: &u32, _m: &mut [u32], _depth: u32, context: &mut SearchContext<'_>) {
            if self.0 {
                context.count_nodes(1000);
            }
        }
    }
    impl Selectivity for Counting {}
    impl ExactHints for Counting {}
    impl PositionKey for Counting {
        fn key(&self, p: &u32) -> u64 {
            u64::from(*p)
        }
    }
    let nodes = |counting: bool, limits: Limits| {
        let game = Counting(counting);
        let engine = Engine::new(&game, EngineSettings { tt_mib: 1, ..EngineSettings::default() });
        engine.search(&0, limits).stats.nodes
    };
    let depth = Limits { depth: Some(4), ..Limits::default() };
    let (plain, counted) = (nodes(false, depth), nodes(true, depth));
    assert!(counted >= plain + 1000, "{counted} nodes with the hook's, {plain} without");
}
