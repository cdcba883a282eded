"""gamegraph.Graph against the command line's JSON on random graphs, and its numpy interface."""

import random

import numpy as np
import pytest

import gamegraph

MODELS = ("outcome", "stakes", "minimax")


def random_graph_text(rng, nodes, edges):
    lines = [f"n{u}" for u in range(nodes)]
    for _ in range(edges):
        lines.append(f"n{rng.randrange(nodes)} -> n{rng.randrange(nodes)}")
    for u in range(nodes):
        if rng.random() < 0.3:
            lines.append(f"s{u} = {rng.randint(-5, 5)}")
            lines.append(f"n{u} -> s{u}")
    return "\n".join(lines) + "\n"


def test_random_graphs_match_the_command_line(cli, tmp_path):
    rng = random.Random(11)
    for case in range(12):
        text = random_graph_text(rng, rng.randint(1, 25), rng.randint(0, 50))
        path = tmp_path / f"g{case}.txt"
        path.write_text(text)
        graph = gamegraph.Graph.from_text(text)
        for model in MODELS:
            want = cli("graph", path, "--model", model, "--json")
            solution = graph.solve(model)
            assert solution.to_json() == want
            for name, position in want["positions"].items():
                assert solution[name] == position
                u = graph.id(name)
                outcome = {"win": 1, "draw": 0, "lose": -1}[position["outcome"]]
                assert solution.outcome[u] == outcome
                assert solution.value[u] == (position["value"] or 0)
                r = position["remoteness"]
                assert solution.remoteness[u] == (np.iinfo(np.uint32).max if r is None else r)


def test_arrays_give_the_same_solution_as_the_edge_list(cli, tmp_path):
    sources, targets, stakes = gamegraph._native.random_graph_arrays(300, 900, 5)
    lines = [f"{u} {v}" for u, v in zip(sources.tolist(), targets.tolist())]
    graph_from_arrays = gamegraph.Graph.from_edges(sources, targets, nodes=300, stakes=stakes)
    # Every final node with its stake, so that every node is named in the list.
    lines += [f"{u} = {stakes[u]}" for u in range(300) if not graph_from_arrays.successors(u)]
    path = tmp_path / "edges.txt"
    path.write_text("\n".join(lines) + "\n")
    for model in MODELS:
        want = cli("graph", path, "--format", "edges", "--model", model, "--json")
        got = graph_from_arrays.solve(model).to_json()
        assert got == want


def test_every_integer_dtype_reads_the_same():
    s, t, p = gamegraph._native.random_graph_arrays(250, 1000, 9)
    want = gamegraph.Graph.from_edges(s, t, stakes=p, nodes=250).solve("minimax")
    for dtype in (np.int64, np.uint32, np.int32, np.uint64, np.int16, np.uint8):
        got = gamegraph.Graph.from_edges(s.astype(dtype), t.astype(dtype), stakes=p, nodes=250).solve("minimax")
        assert np.array_equal(got.value, want.value)
        assert np.array_equal(got.outcome, want.outcome)
        assert np.array_equal(got.remoteness, want.remoteness)
    assert want.value.dtype == np.int64
    assert want.outcome.dtype == np.int8
    assert want.remoteness.dtype == np.uint32


def test_threads_do_not_change_values():
    s, t, p = gamegraph._native.random_graph_arrays(5000, 20000, 3)
    g = gamegraph.Graph.from_edges(s, t, stakes=p)
    one, two = g.solve("stakes", threads=1), g.solve("stakes", threads=2)
    assert np.array_equal(one.value, two.value) and np.array_equal(one.remoteness, two.remoteness)


def test_best_moves_are_optimal():
    g = gamegraph.Graph.from_text("a -> b c\nb -> d\nc = 2\nd = 1\n")
    s = g.solve("stakes")
    assert s.best("a") == [g.id("c")]
    assert s["a"] == {"outcome": "win", "value": 2, "remoteness": 1, "best": ["c"]}


def test_bad_graphs_are_value_errors():
    with pytest.raises(ValueError, match="line 2, column"):
        gamegraph.Graph.from_text("a -> b\nb = x\n")
    with pytest.raises(ValueError, match="one target per source"):
        gamegraph.Graph.from_edges(np.array([0, 1]), np.array([1]))
    with pytest.raises(ValueError, match="negative"):
        gamegraph.Graph.from_edges(np.array([0, -1]), np.array([1, 0]))
    with pytest.raises(ValueError, match=r"targets\[1\] is 7"):
        gamegraph.Graph.from_edges(np.array([0, 1]), np.array([1, 7]), nodes=3)
    with pytest.raises(ValueError, match="integers"):
        gamegraph.Graph.from_edges(np.array([0.5]), np.array([1.0]))
    with pytest.raises(ValueError, match="stakes has 2 entries for 3 nodes"):
        gamegraph.Graph.from_edges(np.array([0]), np.array([1]), nodes=3, stakes=np.array([0, 1]))
    with pytest.raises(ValueError, match="unknown model"):
        gamegraph.Graph.from_text("a -> b\n").solve("bogus")
    with pytest.raises(KeyError):
        gamegraph.Graph.from_text("a -> b\n").solve()["zz"]
