//! Property tests against oracles written independently of the kernel and the search:
//! naive per-threshold fixpoints on cyclic graphs, the seed's recursion on acyclic graphs, and
//! plain minimax on random trees.

use gamegraph::dense::{solve_layer, ByteStore, DenseLayer, Exit, Forward, OutcomeStore};
use gamegraph::graph::GameGraph;
use gamegraph::retrograde::{DenseStore, LabelStore, Side};
use gamegraph::search::Algorithm;
use gamegraph::solution::solve_graph;
use gamegraph::tree::{MoveOrder, Tree};
use gamegraph::{Model, Outcome, Stake};
use proptest::prelude::*;

mod common;

/// A graph as plain adjacency lists and stakes, easy to reason about in oracles.
#[derive(Debug, Clone)]
struct Plain {
    succ: Vec<Vec<usize>>,
    stakes: Vec<Stake>,
}

impl Plain {
    fn graph(&self) -> GameGraph {
        common::graph(&self.succ, &self.stakes)
    }

    fn is_final(&self, u: usize) -> bool {
        self.succ[u].is_empty()
    }

    /// Least fixpoint of: seeded finals; win if a move into `lose`; lose if every move into `win`.
    fn fixpoint(
        &self,
        seed_win: impl Fn(Stake) -> bool,
        seed_lose: impl Fn(Stake) -> bool,
    ) -> (Vec<bool>, Vec<bool>) {
        let n = self.succ.len();
        let mut win: Vec<bool> = (0..n).map(|u| self.is_final(u) && seed_win(self.stakes[u])).collect();
        let mut lose: Vec<bool> = (0..n).map(|u| self.is_final(u) && seed_lose(self.stakes[u])).collect();
        loop {
            let mut changed = false;
            for u in (0..n).filter(|&u| !self.is_final(u)) {
                if !win[u] && self.succ[u].iter().any(|&v| lose[v]) {
                    win[u] = true;
                    changed = true;
                }
                if !lose[u] && self.succ[u].iter().all(|&v| win[v]) {
                    lose[u] = true;
                    changed = true;
                }
            }
            if !changed {
                return (win, lose);
            }
        }
    }

    /// Outcome and remoteness by synchronous rounds: a position decided in round k has remoteness k.
    fn outcome_rounds(&self) -> Vec<(Outcome, Option<u32>)> {
        let n = self.succ.len();
        let mut res: Vec<Option<(Outcome, u32)>> =
            (0..n).map(|u| self.is_final(u).then_some((Outcome::Lose, 0))).collect();
        for round in 1..=(n as u32 + 1) {
            let prev = res.clone();
            for u in (0..n).filter(|&u| prev[u].is_none()) {
                let has_lose_child =
                    self.succ[u].iter().any(|&v| matches!(prev[v], Some((Outcome::Lose, r)) if r < round));
                let all_win = self.succ[u].iter().all(|&v| matches!(prev[v], Some((Outcome::Win, _))));
                if has_lose_child {
                    res[u] = Some((Outcome::Win, round));
                } else if all_win {
                    res[u] = Some((Outcome::Lose, round));
                }
            }
        }
        res.into_iter().map(|r| r.map_or((Outcome::Draw, None), |(o, r)| (o, Some(r)))).collect()
    }

    fn naive(&self, model: Model) -> Vec<(Outcome, Option<Stake>)> {
        let n = self.succ.len();
        match model {
            Model::Outcome => {
                let (w, l) = self.fixpoint(|_| false, |_| true);
                (0..n).map(|u| (side(w[u], l[u]), None)).collect()
            }
            Model::Stakes => {
                let (w, l) = self.fixpoint(|_| false, |_| true);
                let mut levels: Vec<Stake> = self.stakes.clone();
                levels.sort();
                levels.dedup();
                let mut value = vec![None; n];
                for &v in &levels {
                    let (wv, lv) = self.fixpoint(|_| false, |p| p >= v);
                    for u in 0..n {
                        if (w[u] && wv[u]) || (l[u] && lv[u]) {
                            value[u] = Some(v);
                        }
                    }
                }
                (0..n).map(|u| (side(w[u], l[u]), value[u])).collect()
            }
            Model::Minimax => {
                let top = self.stakes.iter().map(|p| p.abs()).max().unwrap_or(0);
                let mut value = vec![0; n];
                for v in 1..=top {
                    // X_v: the mover can force a payoff >= v; Y_v: the other player can.
                    let (x, y) = self.fixpoint(|p| -p >= v, |p| p >= v);
                    for u in 0..n {
                        if x[u] {
                            value[u] = v;
                        } else if y[u] && value[u] <= 0 {
                            value[u] = -v;
                        }
                    }
                }
                (0..n)
                    .map(|u| {
                        let o = match value[u].signum() {
                            1 => Outcome::Win,
                            -1 => Outcome::Lose,
                            _ => Outcome::Draw,
                        };
                        (o, Some(value[u]))
                    })
                    .collect()
            }
        }
    }

    /// The seed's recursion (acyclic graphs): stakes, with remoteness broken lexicographically.
    fn stakes_recursive(
        &self,
        u: usize,
        memo: &mut Vec<Option<(Outcome, Stake, u32)>>,
    ) -> (Outcome, Stake, u32) {
        if let Some(r) = memo[u] {
            return r;
        }
        let r = if self.is_final(u) {
            (Outcome::Lose, self.stakes[u], 0)
        } else {
            let kids: Vec<_> = self.succ[u].iter().map(|&v| self.stakes_recursive(v, memo)).collect();
            let losing: Vec<_> = kids.iter().filter(|k| k.0 == Outcome::Lose).collect();
            if !losing.is_empty() {
                let p = losing.iter().map(|k| k.1).max().unwrap();
                let r = losing.iter().filter(|k| k.1 == p).map(|k| k.2).min().unwrap();
                (Outcome::Win, p, r + 1)
            } else {
                let p = kids.iter().map(|k| k.1).min().unwrap();
                let r = kids.iter().filter(|k| k.1 == p).map(|k| k.2).max().unwrap();
                (Outcome::Lose, p, r + 1)
            }
        };
        memo[u] = Some(r);
        r
    }

    /// Negamax recursion (acyclic graphs): the payoff for the player to move.
    fn negamax(&self, u: usize, memo: &mut Vec<Option<Stake>>) -> Stake {
        if let Some(v) = memo[u] {
            return v;
        }
        let v = if self.is_final(u) {
            -self.stakes[u]
        } else {
            self.succ[u].iter().map(|&v| -self.negamax(v, memo)).max().unwrap()
        };
        memo[u] = Some(v);
        v
    }
}

fn side(win: bool, lose: bool) -> Outcome {
    assert!(!(win && lose), "a position cannot be both win and lose");
    if win {
        Outcome::Win
    } else if lose {
        Outcome::Lose
    } else {
        Outcome::Draw
    }
}

fn cyclic_graph() -> impl Strategy<Value = Plain> {
    common::cyclic(14).prop_map(|(succ, stakes)| Plain { succ, stakes })
}

fn acyclic_graph() -> impl Strategy<Value = Plain> {
    common::acyclic(16).prop_map(|(succ, stakes)| Plain { succ, stakes })
}

/// `g` with `stakes`, without the moves from nodes `k` and beyond back into the first `k`: the
/// first `k` nodes then form a layer whose moves out never come back.
fn first_nodes_closed(g: &Plain, k: usize, stakes: &[Stake]) -> GameGraph {
    let succ: Vec<Vec<usize>> = g
        .succ
        .iter()
        .enumerate()
        .map(|(u, vs)| vs.iter().copied().filter(|&v| u < k || v >= k).collect())
        .collect();
    common::graph(&succ, stakes)
}

/// The first `k` nodes of a graph as a dense layer: moves to nodes from `k` on leave it, worth
/// the negated whole-graph value of the node they reach.
/// With `DISTANCES`, exits also carry the remoteness of the node they reach.
struct FirstNodes<'g, const DISTANCES: bool> {
    graph: &'g GameGraph,
    k: usize,
    outside: Vec<Stake>,
    remoteness: Vec<u32>,
    /// The nodes the solve said its exit's value is kept at.
    kept: Vec<std::sync::atomic::AtomicBool>,
}

impl<'g, const DISTANCES: bool> FirstNodes<'g, DISTANCES> {
    fn new(graph: &'g GameGraph, k: usize, outside: Vec<Stake>, remoteness: Vec<u32>) -> Self {
        let kept = (0..k).map(|_| Default::default()).collect();
        Self { graph, k, outside, remoteness, kept }
    }

    /// The best exit of node `u`, if it has one.
    fn exit(&self, u: u32) -> Option<Exit> {
        self.graph
            .successors(u)
            .iter()
            .filter(|&&v| v as usize >= self.k)
            .map(|&v| Exit { value: -self.outside[v as usize], remoteness: self.remoteness[v as usize] })
            // The best value, then the fastest win or the slowest loss.
            .max_by_key(|e| (e.value, -(e.value.signum() * e.remoteness as i32)))
    }
}

impl<const DISTANCES: bool> DenseLayer for FirstNodes<'_, DISTANCES> {
    type Scratch = ();

    fn len(&self) -> u64 {
        self.k as u64
    }

    fn forward(&self, start: u64, out: &mut [Forward]) {
        for (i, fact) in out.iter_mut().enumerate() {
            let u = start as u32 + i as u32;
            let succ = self.graph.successors(u);
            *fact = if succ.is_empty() {
                Forward::Final(self.graph.stake(u).unwrap_or(0))
            } else {
                let inside = succ.iter().filter(|&&v| (v as usize) < self.k).count() as u32;
                let exit = self.exit(u).map(|e| if DISTANCES { e } else { Exit::new(e.value) });
                Forward::Moves { inside, exit }
            };
        }
    }

    fn predecessors(&self, index: u64, _: &mut (), mut f: impl FnMut(u64)) {
        for &p in self.graph.predecessors(index as u32).iter().filter(|&&p| (p as usize) < self.k) {
            f(u64::from(p));
        }
    }

    fn exit_kept(&self, index: u64) {
        self.kept[index as usize].store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn retrograde_equals_naive_fixpoint_on_cyclic_graphs(g in cyclic_graph()) {
        let graph = g.graph();
        for model in Model::ALL {
            let sol = solve_graph(&graph, model);
            let naive = g.naive(model);
            for (u, expected) in naive.iter().enumerate() {
                prop_assert_eq!((sol.outcome(u as u32), sol.value(u as u32)), *expected, "{} model, node {}", model, u);
            }
        }
        let sol = solve_graph(&graph, Model::Outcome);
        for (u, (o, r)) in g.outcome_rounds().into_iter().enumerate() {
            prop_assert_eq!((sol.outcome(u as u32), sol.remoteness(u as u32)), (o, r), "node {}", u);
        }
    }

    /// Solving the first nodes of a graph as a dense layer, the moves to later nodes (which never
    /// come back) entering as exits worth their solved values, gives the whole graph's minimax
    /// values there, in both stores: the path Awari layers and chess tables take.
    #[test]
    fn a_dense_layer_with_exits_equals_the_whole_graph(g in cyclic_graph(), split in any::<prop::sample::Index>()) {
        let n = g.succ.len();
        let k = 1 + split.index(n);
        let graph = first_nodes_closed(&g, k, &g.stakes);
        let whole = solve_graph(&graph, Model::Minimax);
        let outside = (0..n as u32).map(|u| whole.value(u).unwrap_or(0)).collect();
        let remoteness: Vec<u32> = (0..n as u32).map(|u| whole.remoteness(u).unwrap_or(0)).collect();
        let layer = FirstNodes::<false>::new(&graph, k, outside, remoteness);
        let told = std::sync::atomic::AtomicU64::new(0);
        let progress = |units| {
            told.fetch_add(units, std::sync::atomic::Ordering::Relaxed);
        };
        let dense: DenseStore<u32> = solve_layer(&layer, &progress).unwrap();
        // A progress bar of two units an index ends full, whatever the layer's levels.
        prop_assert_eq!(told.into_inner(), 2 * k as u64);
        let bytes: ByteStore<u32> = solve_layer(&layer, &|_| {}).unwrap();
        let bytes = bytes.into_values();
        for (u, &byte) in bytes.iter().enumerate() {
            let value = dense.label(u as u32).map_or(0, |l| if l.side == Side::Win { l.level } else { -l.level });
            prop_assert_eq!(Some(value), whole.value(u as u32), "node {} of {}", u, k);
            prop_assert_eq!(byte as i8 as Stake, value, "byte store, node {}", u);
        }
        // With distances through the exits, the remoteness is the whole graph's too.
        let FirstNodes { outside, remoteness, .. } = layer;
        let layer = FirstNodes::<true>::new(&graph, k, outside, remoteness);
        let far: DenseStore<u32> = solve_layer(&layer, &|_| {}).unwrap();
        for u in 0..k as u32 {
            prop_assert_eq!(far.label(u).map(|l| l.remoteness), whole.remoteness(u), "remoteness of node {} of {}", u, k);
        }
    }

    /// With every final lost at stake 1 (win or lose, no levels), the two-byte store gives the
    /// whole graph's outcome and remoteness, exits carrying distances: the chess tables' path.
    #[test]
    fn an_outcome_store_layer_equals_the_whole_graph(g in cyclic_graph(), split in any::<prop::sample::Index>()) {
        let n = g.succ.len();
        let k = 1 + split.index(n);
        let stakes: Vec<Stake> = g.stakes.iter().map(|&s| if s == 0 { 0 } else { 1 }).collect();
        let graph = first_nodes_closed(&g, k, &stakes);
        let whole = solve_graph(&graph, Model::Minimax);
        let outside = (0..n as u32).map(|u| whole.value(u).unwrap_or(0)).collect();
        let remoteness = (0..n as u32).map(|u| whole.remoteness(u).unwrap_or(0)).collect();
        let layer = FirstNodes::<true>::new(&graph, k, outside, remoteness);
        let store: OutcomeStore<u32> = solve_layer(&layer, &|_| {}).unwrap();
        for u in 0..k as u32 {
            let label = store.label(u).map(|l| (if l.side == Side::Win { 1 } else { -1 }, l.remoteness));
            let expected = whole.value(u).filter(|&v| v != 0).zip(whole.remoteness(u));
            prop_assert_eq!(label, expected, "node {} of {}", u, k);
            // The solve keeps exactly the nodes whose value their decisive best exit gives.
            let exit = layer.exit(u).filter(|e| e.value != 0).map(|e| (e.value.signum(), e.remoteness + 1));
            let kept = layer.kept[u as usize].load(std::sync::atomic::Ordering::Relaxed);
            prop_assert_eq!(kept, exit.is_some() && exit == label, "exit kept at node {} of {}", u, k);
        }
    }

    #[test]
    fn best_moves_keep_the_value_and_make_progress(g in cyclic_graph()) {
        let graph = g.graph();
        for model in Model::ALL {
            let sol = solve_graph(&graph, model);
            for u in 0..graph.nodes() as u32 {
                let succ = graph.successors(u);
                let best = sol.best_moves(u, succ.iter().copied());
                prop_assert_eq!(best.is_empty(), succ.is_empty(), "every non-final node has a best move");
                for i in best {
                    let v = succ[i];
                    prop_assert_eq!(sol.outcome(v), sol.outcome(u).opposite());
                    if let Some(r) = sol.remoteness(u) {
                        prop_assert_eq!(sol.remoteness(v), Some(r - 1));
                    }
                    if model == Model::Minimax {
                        prop_assert_eq!(sol.value(v).map(|x| -x), sol.value(u));
                    }
                }
            }
        }
    }

    #[test]
    fn stakes_equal_the_seed_recursion_on_acyclic_graphs(g in acyclic_graph()) {
        let sol = solve_graph(&g.graph(), Model::Stakes);
        let mut memo = vec![None; g.succ.len()];
        for u in 0..g.succ.len() {
            let (o, p, r) = g.stakes_recursive(u, &mut memo);
            prop_assert_eq!((sol.outcome(u as u32), sol.value(u as u32), sol.remoteness(u as u32)), (o, Some(p), Some(r)));
        }
    }

    #[test]
    fn minimax_equals_negamax_recursion_on_acyclic_graphs(g in acyclic_graph()) {
        let sol = solve_graph(&g.graph(), Model::Minimax);
        let mut memo = vec![None; g.succ.len()];
        for u in 0..g.succ.len() {
            prop_assert_eq!(sol.value(u as u32), Some(g.negamax(u, &mut memo)), "node {}", u);
        }
    }

    #[test]
    fn alphabeta_equals_minimax_on_random_trees(
        branching in 1u32..5, depth in 0u32..6, seed in any::<u64>(), low in -20i32..0, span in 0i32..40,
    ) {
        let tree = Tree::random(branching, depth, low, low + span, seed);
        let exact = tree.minimax_values()[0];
        let full = tree.analyze(Algorithm::Minimax, MoveOrder::Natural);
        prop_assert_eq!(full.value, exact);
        prop_assert_eq!(full.leaves as usize, tree.leaf_count());
        prop_assert!(full.pruned.is_empty());
        for order in [MoveOrder::Natural, MoveOrder::Best, MoveOrder::Worst] {
            let ab = tree.analyze(Algorithm::AlphaBeta, order);
            prop_assert_eq!(ab.value, exact, "order {}", order.name());
            prop_assert!(ab.leaves <= full.leaves);
            // The reported best move really achieves the value.
            if let Some(best) = &ab.best {
                let idx: usize = best.parse().unwrap();
                let child = tree.nodes()[0].children[idx];
                prop_assert_eq!(tree.minimax_values()[child as usize], exact);
            }
            // Pruned leaves plus evaluated leaves are all the leaves.
            let pruned_leaves = ab.is_pruned.iter().zip(tree.nodes()).filter(|(p, n)| **p && n.value.is_some()).count();
            prop_assert_eq!(pruned_leaves as u64 + ab.leaves, tree.leaf_count() as u64);
        }
        let best_first = tree.analyze(Algorithm::AlphaBeta, MoveOrder::Best);
        let b = branching as u64;
        let minimal = b.pow(depth.div_ceil(2)) + b.pow(depth / 2) - 1;
        prop_assert!(best_first.leaves <= minimal, "{} leaves > minimal tree {}", best_first.leaves, minimal);
    }
}

/// The classic sequential outcome algorithm with one first-in first-out queue, written here
/// independently of the kernel: (win, remoteness) or `None` for a draw.
fn sequential_outcomes(graph: &GameGraph) -> Vec<Option<(bool, u32)>> {
    let n = graph.nodes();
    let mut counter: Vec<u32> = (0..n as u32).map(|u| graph.successors(u).len() as u32).collect();
    let mut result: Vec<Option<(bool, u32)>> = vec![None; n];
    let mut queue = std::collections::VecDeque::new();
    for u in (0..n as u32).filter(|&u| graph.is_final(u)) {
        result[u as usize] = Some((false, 0));
        queue.push_back(u);
    }
    while let Some(v) = queue.pop_front() {
        let (win, r) = result[v as usize].unwrap();
        for &u in graph.predecessors(v) {
            if result[u as usize].is_some() {
                continue;
            }
            counter[u as usize] -= 1;
            if !win || counter[u as usize] == 0 {
                result[u as usize] = Some((!win, r + 1));
                queue.push_back(u);
            }
        }
    }
    result
}

/// Large frontiers are expanded in parallel: the labels must be those of the sequential
/// algorithm, and the same with one thread or four.
#[test]
fn parallel_rounds_equal_the_sequential_queue_on_a_large_graph() {
    let graph = gamegraph::random_graph::random_graph(300_000, 900_000, 11);
    let solve_in = |threads: usize, model: Model| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| solve_graph(&graph, model))
    };
    let expected = sequential_outcomes(&graph);
    let parallel = solve_in(4, Model::Outcome);
    let mut decided = 0;
    for (u, e) in expected.iter().enumerate() {
        let got =
            parallel.label(u as u32).map(|l| (l.side == gamegraph::retrograde::Side::Win, l.remoteness));
        assert_eq!(got, *e, "node {u}");
        decided += usize::from(e.is_some());
    }
    assert!(decided > 100_000, "the graph must exercise large frontiers ({decided} decided)");
    for model in Model::ALL {
        let (one, four) = (solve_in(1, model), solve_in(4, model));
        for u in 0..graph.nodes() as u32 {
            assert_eq!(one.label(u), four.label(u), "{model} model, node {u}");
        }
    }
}
