//! The fixtures of docs/models.md, in all three models.

use gamegraph::graph_text::parse_text;
use gamegraph::solution::solve_graph;
use gamegraph::{Model, Outcome};

struct Expect {
    name: &'static str,
    outcome: Outcome,
    value: Option<i32>,
    remoteness: Option<u32>,
    best: &'static [&'static str],
}

fn check(source: &str, model: Model, expected: &[Expect]) {
    let g = parse_text(source).unwrap();
    let sol = solve_graph(&g.graph, model);
    for e in expected {
        let u = g.id(e.name).unwrap();
        let succ = g.graph.successors(u);
        let best: Vec<&str> = sol
            .best_moves(u, succ.iter().copied())
            .into_iter()
            .map(|i| g.names[succ[i] as usize].as_str())
            .collect();
        assert_eq!(
            (sol.outcome(u), sol.value(u), sol.remoteness(u), best.as_slice()),
            (e.outcome, e.value, e.remoteness, e.best),
            "{model} model, node {}",
            e.name
        );
    }
}

const CYCLE: &str = "A -> B F\nB -> A\nF = 1\n";
const STAKES_VS_MINIMAX: &str = "x -> y z\ny = -3 # the mover at y gains 3\nz -> w\nw = 1\n";
const ACYCLIC: &str = "a -> b c\nb -> d e\nc -> e f\nd = 5\ne = 2\nf = 7\n";

use Outcome::{Draw, Lose, Win};

#[test]
fn cycle_example_counts_only_stakes_the_winner_can_force() {
    check(
        CYCLE,
        Model::Stakes,
        &[
            Expect { name: "A", outcome: Win, value: Some(1), remoteness: Some(1), best: &["F"] },
            Expect { name: "B", outcome: Lose, value: Some(1), remoteness: Some(2), best: &["A"] },
            Expect { name: "F", outcome: Lose, value: Some(1), remoteness: Some(0), best: &[] },
        ],
    );
    check(
        CYCLE,
        Model::Outcome,
        &[
            Expect { name: "A", outcome: Win, value: None, remoteness: Some(1), best: &["F"] },
            Expect { name: "B", outcome: Lose, value: None, remoteness: Some(2), best: &["A"] },
        ],
    );
    check(
        CYCLE,
        Model::Minimax,
        &[
            Expect { name: "A", outcome: Win, value: Some(1), remoteness: Some(1), best: &["F"] },
            Expect { name: "B", outcome: Lose, value: Some(-1), remoteness: Some(2), best: &["A"] },
            Expect { name: "F", outcome: Lose, value: Some(-1), remoteness: Some(0), best: &[] },
        ],
    );
}

#[test]
fn stakes_and_minimax_differ() {
    check(
        STAKES_VS_MINIMAX,
        Model::Stakes,
        &[
            Expect { name: "y", outcome: Lose, value: Some(-3), remoteness: Some(0), best: &[] },
            Expect { name: "z", outcome: Win, value: Some(1), remoteness: Some(1), best: &["w"] },
            Expect { name: "x", outcome: Win, value: Some(-3), remoteness: Some(1), best: &["y"] },
        ],
    );
    check(
        STAKES_VS_MINIMAX,
        Model::Minimax,
        &[
            Expect { name: "y", outcome: Win, value: Some(3), remoteness: Some(0), best: &[] },
            Expect { name: "w", outcome: Lose, value: Some(-1), remoteness: Some(0), best: &[] },
            Expect { name: "z", outcome: Win, value: Some(1), remoteness: Some(1), best: &["w"] },
            Expect { name: "x", outcome: Lose, value: Some(-1), remoteness: Some(2), best: &["z"] },
        ],
    );
}

#[test]
fn acyclic_fixture() {
    check(
        ACYCLIC,
        Model::Stakes,
        &[
            Expect { name: "b", outcome: Win, value: Some(5), remoteness: Some(1), best: &["d"] },
            Expect { name: "c", outcome: Win, value: Some(7), remoteness: Some(1), best: &["f"] },
            Expect { name: "a", outcome: Lose, value: Some(5), remoteness: Some(2), best: &["b"] },
        ],
    );
    check(
        ACYCLIC,
        Model::Outcome,
        &[Expect { name: "a", outcome: Lose, value: None, remoteness: Some(2), best: &["b", "c"] }],
    );
    check(
        ACYCLIC,
        Model::Minimax,
        &[Expect { name: "a", outcome: Lose, value: Some(-5), remoteness: Some(2), best: &["b"] }],
    );
}

#[test]
fn endless_play_is_a_draw() {
    let g = "a -> b\nb -> a c\nc -> b\n";
    for model in Model::ALL {
        check(
            g,
            model,
            &[Expect {
                name: "a",
                outcome: Draw,
                value: (model == Model::Minimax).then_some(0),
                remoteness: None,
                best: &["b"],
            }],
        );
    }
}
