//! The worked example of the seed document, step by step.

use gamegraph::search::{Algorithm, StepKind};
use gamegraph::tree::{MoveOrder, Tree};

const SEED: &str = "A(B(4 9 6) C(3 7 5) D(8 2 10))";

#[test]
fn minimax_visits_all_nine_leaves() {
    let tree = Tree::parse(SEED).unwrap();
    let r = tree.analyze(Algorithm::Minimax, MoveOrder::Natural);
    assert_eq!((r.value, r.best.as_deref(), r.leaves, r.nodes), (4, Some("B"), 9, 13));
    assert!(r.pruned.is_empty());
}

#[test]
fn alphabeta_prunes_c_7_and_5_and_d_10() {
    let tree = Tree::parse(SEED).unwrap();
    let r = tree.analyze(Algorithm::AlphaBeta, MoveOrder::Natural);
    assert_eq!((r.value, r.best.as_deref(), r.leaves, r.nodes), (4, Some("B"), 6, 10));
    assert_eq!(r.pruned, ["C/1", "C/2", "D/2"]);
    // The windows of the seed's walk-through: C is entered with alpha 4, D too, and they return
    // the bounds 3 and 2.
    let enter =
        |name: &str| r.trace.iter().find(|s| s.kind == StepKind::Enter && s.node == name).unwrap().clone();
    assert_eq!((enter("C").alpha, enter("C").beta), (Some(4), None));
    assert_eq!((enter("D").alpha, enter("D").beta), (Some(4), None));
    let exit =
        |name: &str| r.trace.iter().find(|s| s.kind == StepKind::Exit && s.node == name).unwrap().value;
    assert_eq!((exit("B"), exit("C"), exit("D"), exit("")), (Some(4), Some(3), Some(2), Some(4)));
}

/// The window as the seed draws it, step by step: C's beta falls to 3 once its first leaf is
/// back, below its alpha of 4, before 7 and 5 are cut; the root's alpha rises to 4 after B and
/// ends there.
#[test]
fn alphabeta_shows_each_window_as_it_narrows() {
    let tree = Tree::parse(SEED).unwrap();
    let r = tree.analyze(Algorithm::AlphaBeta, MoveOrder::Natural);
    let at = |kind: StepKind, name: &str| {
        r.trace
            .iter()
            .position(|s| s.kind == kind && s.node == name)
            .unwrap_or_else(|| panic!("{kind:?} {name}"))
    };
    let first_update_of_c = r.trace[at(StepKind::Leaf, "C/0")..]
        .iter()
        .position(|s| s.kind == StepKind::Update && s.node == "C")
        .map(|i| i + at(StepKind::Leaf, "C/0"))
        .expect("C updates its window after its first leaf");
    let update = &r.trace[first_update_of_c];
    assert_eq!((update.alpha, update.beta, update.value), (Some(4), Some(3), Some(3)));
    assert!(first_update_of_c < at(StepKind::Prune, "C/1"), "beta=3 is shown before 7 is cut");
    assert!(at(StepKind::Prune, "C/1") < at(StepKind::Prune, "C/2"));
    // B narrows nothing for the root while it is searched, then the root's alpha is 4.
    let after_b = r.trace.iter().find(|s| s.kind == StepKind::Update && s.node.is_empty()).unwrap();
    assert_eq!((after_b.alpha, after_b.beta, after_b.value), (Some(4), None, Some(4)));
    let root_exit = &r.trace[at(StepKind::Exit, "")];
    assert_eq!((root_exit.alpha, root_exit.beta), (Some(4), None));
    // Minimax keeps the whole window throughout.
    let m = tree.analyze(Algorithm::Minimax, MoveOrder::Natural);
    assert!(m.trace.iter().all(|s| s.alpha.is_none() && s.beta.is_none()));
}

#[test]
fn labels_are_optional() {
    let tree = Tree::parse("((4 9 6) (3 7 5) (8 2 10))").unwrap();
    let r = tree.analyze(Algorithm::AlphaBeta, MoveOrder::Natural);
    assert_eq!((r.value, r.best.as_deref(), r.leaves), (4, Some("0"), 6));
    assert_eq!(r.pruned, ["1/1", "1/2", "2/2"]);
}

#[test]
fn ordering_changes_the_work_not_the_value() {
    let tree = Tree::parse(SEED).unwrap();
    let best = tree.analyze(Algorithm::AlphaBeta, MoveOrder::Best);
    let worst = tree.analyze(Algorithm::AlphaBeta, MoveOrder::Worst);
    assert_eq!((best.value, worst.value), (4, 4));
    assert_eq!(best.best.as_deref(), Some("B"));
    assert_eq!(worst.best.as_deref(), Some("B"));
    // Best first: B's 4 then one leaf each for C (3) and D (2): 5 leaves.
    assert_eq!(best.leaves, 5);
    assert_eq!(worst.leaves, 9);
}

#[test]
fn malformed_trees_name_line_and_column() {
    let cases = [
        ("A(B(4 9 6) C(3 7 5)", (1, 20)),
        ("A(B(4 9 6))\n  x", (2, 3)),
        ("A()", (1, 3)),
        ("A(4 9 )) ", (1, 8)),
        ("A B(1)", (1, 1)),
        ("(1 2 x)", (1, 6)),
        ("(1 99999999999)", (1, 4)),
        ("", (1, 1)),
    ];
    for (text, at) in cases {
        let err = Tree::parse(text).expect_err(text);
        assert_eq!((err.line, err.column), at, "{text}: {err}");
    }
    let deep = "(".repeat(5000) + "1" + &")".repeat(5000);
    assert!(Tree::parse(&deep).unwrap_err().message.contains("deeper"));
}

#[test]
fn dot_output_dashes_pruned_edges() {
    let tree = Tree::parse(SEED).unwrap();
    let r = tree.analyze(Algorithm::AlphaBeta, MoveOrder::Natural);
    let dot = r.to_dot(&tree);
    assert_eq!(dot.matches("style=dashed").count(), 3, "{dot}");
    assert!(dot.contains("A\\n4"));
}
