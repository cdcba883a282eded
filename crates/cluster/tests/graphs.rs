//! The kernel over several workers against the one-machine kernel, on random graphs with cycles:
//! every position's label (side, level, remoteness) is the same, in every model.

use std::sync::Arc;

use gamegraph::random_graph::random_graph;
use gamegraph::solution::{solve_graph, Model};
use gamegraph_cluster::{graph, Cluster};
use proptest::prelude::*;

fn same_labels(
    nodes: usize,
    edges: usize,
    seed: u64,
    workers: usize,
    model: Model,
) -> Result<(), TestCaseError> {
    let g = Arc::new(random_graph(nodes, edges, seed));
    let expected = solve_graph(&g, model);
    let cluster = Cluster::local(workers);
    let part = Arc::new(graph::GraphPart::read(&*g, &cluster));
    let solved = graph::solve_graph(&part, model, &cluster).unwrap().unwrap();
    for u in 0..g.nodes() as u32 {
        prop_assert_eq!(
            solved.label(u),
            expected.label(u),
            "node {} with {} workers in {}",
            u,
            workers,
            model
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn workers_find_the_one_machine_labels(
        nodes in 1usize..300, density in 0usize..4, seed in any::<u64>(), workers in 1usize..5,
    ) {
        for model in Model::ALL {
            same_labels(nodes, nodes * density, seed, workers, model)?;
        }
    }
}

#[test]
fn a_larger_graph_over_three_workers() {
    for model in Model::ALL {
        same_labels(20_000, 60_000, 7, 3, model).unwrap();
    }
}
