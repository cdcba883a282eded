"""gamegraph.tree against the seed document's example, the command line and minimax."""

import random
import xml.etree.ElementTree as ET

import pytest

import gamegraph

SEED_TREE = "A(B(4 9 6) C(3 7 5) D(8 2 10))"


def test_the_seed_tree():
    r = gamegraph.tree(SEED_TREE)
    assert (r.value, r.best) == (4, "B")
    assert r.pruned == ["C/1", "C/2", "D/2"]
    assert (r.leaves, r.total_leaves) == (6, 9)
    m = gamegraph.tree(SEED_TREE, algo="minimax")
    assert (m.value, m.best, m.leaves, m.pruned) == (4, "B", 9, [])


def test_the_trace_shows_the_window_where_c_is_cut():
    r = gamegraph.tree(SEED_TREE)
    entered_c = [s for s in r.trace if s["node"] == "C" and s["step"] == "enter"]
    assert entered_c and entered_c[0]["alpha"] == 4, entered_c
    assert any(s["step"] == "prune" for s in r.trace)


def test_same_report_as_the_command_line(cli):
    for algo in ("minimax", "alphabeta"):
        for order in ("natural", "best", "worst"):
            r = gamegraph.tree(SEED_TREE, algo=algo, order=order)
            want = cli("tree", SEED_TREE, "--algo", algo, "--order", order, "--json", "--trace")
            got = r.to_dict()
            got.pop("shape")
            assert got == want
            assert r.to_dot().strip() == cli("tree", SEED_TREE, "--algo", algo, "--order", order, "--dot").strip()


def random_tree(rng, depth):
    if depth == 0 or rng.random() < 0.15:
        return str(rng.randint(-20, 20))
    return "(" + " ".join(random_tree(rng, depth - 1) for _ in range(rng.randint(1, 4))) + ")"


def test_alphabeta_equals_minimax_on_random_trees():
    rng = random.Random(7)
    for _ in range(200):
        text = random_tree(rng, rng.randint(1, 5))
        if not text.startswith("("):
            text = f"({text})"
        m = gamegraph.tree(text, algo="minimax")
        for order in ("natural", "best", "worst"):
            a = gamegraph.tree(text, order=order)
            assert a.value == m.value, text
            assert a.leaves <= m.leaves


def test_bad_trees_name_line_and_column():
    with pytest.raises(ValueError, match="column"):
        gamegraph.tree("A(B(4 9 6) C(3 x 5))")
    with pytest.raises(ValueError, match="algo"):
        gamegraph.tree(SEED_TREE, algo="negascout")


def test_the_picture_is_svg_with_every_node():
    r = gamegraph.tree(SEED_TREE)
    svg = r._repr_svg_()
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    texts = [t.text for t in root.iter() if t.tag.endswith("text") and t.text]
    for leaf in ("4", "9", "6", "3", "8", "2", "10"):
        assert leaf in texts
    dashed = [e for e in root.iter() if e.get("stroke-dasharray")]
    assert len(dashed) == 3  # the three pruned edges
