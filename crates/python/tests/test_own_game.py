"""Your own game in Python: solve_game and search against brute force, with and without
cycles."""

import functools
import random

import pytest

import gamegraph


class Subtraction:
    """Take 1, 2 or 3 from a heap; who cannot move loses."""

    def __init__(self, heap, takes=(1, 2, 3)):
        self.heap, self.takes = heap, takes

    def start(self):
        return self.heap

    def moves(self, n):
        return [t for t in self.takes if t <= n]

    def play(self, n, t):
        return n - t

    def payoff(self, n):
        return -1 if n == 0 else None


class GraphGame:
    """A random game graph given as a dict: node -> successors; finals pay `pay[node]`."""

    def __init__(self, succ, pay):
        self.succ, self.pay = succ, pay

    def start(self):
        return 0

    def moves(self, u):
        return list(range(len(self.succ[u])))

    def play(self, u, i):
        return self.succ[u][i]

    def payoff(self, u):
        return self.pay[u] if not self.succ[u] else None


def brute_force(game, nodes):
    """(value, remoteness) of every node: can the mover force a win within d plies, for every
    d up to 2n; what no depth decides is a draw (endless play)."""

    @functools.lru_cache(maxsize=None)
    def within(u, d):
        p = game.payoff(u)
        if p is not None:
            return p
        if d == 0:
            return None
        results = [within(game.play(u, m), d - 1) for m in game.moves(u)]
        if any(r is not None and r < 0 for r in results):
            return 1
        if all(r is not None and r > 0 for r in results):
            return -1
        return None

    out = {}
    for u in range(nodes):
        value, remoteness = 0, None
        for d in range(2 * nodes + 2):
            r = within(u, d)
            if r is not None:
                value, remoteness = r, d
                break
        if game.payoff(u) == 0:
            value, remoteness = 0, None
        out[u] = (value, remoteness)
    return out


def test_subtraction_game():
    game = Subtraction(21)
    solution = game_solution = gamegraph.solve_game(game)
    assert len(game_solution) == 22
    for n in range(22):
        lost = n % 4 == 0
        assert solution.value(n) == (-1 if lost else 1)
        assert solution.outcome(n) == ("lose" if lost else "win")
        assert solution.remoteness(n) == (n // 4 * 2 if lost else n // 4 * 2 + 1)
        if not lost:
            assert solution.best(n) == [n % 4]


def test_random_games_with_cycles_against_brute_force():
    rng = random.Random(5)
    for _ in range(60):
        n = rng.randint(2, 9)
        succ = {u: [rng.randrange(n) for _ in range(rng.choice([0, 1, 2, 3]))] for u in range(n)}
        pay = {u: rng.choice([-1, 0, 1]) for u in range(n)}
        game = GraphGame(succ, pay)
        solution = gamegraph.solve_game(game)
        truth = brute_force(game, n)
        for u in solution.positions:
            assert (solution.value(u), solution.remoteness(u)) == truth[u], (succ, pay, u)


def test_search_agrees_with_solve_game():
    game = Subtraction(30, takes=(1, 3, 4))
    solved = gamegraph.solve_game(game)
    for n in range(0, 31, 3):
        found = gamegraph.search(game, n)
        assert found["exact"] is True
        assert found["value"] == solved.value(n)
        assert found["remoteness"] == solved.remoteness(n)
        if solved.value(n) > 0:
            assert found["best"] in solved.best(n)
            assert found["pv"][0] == found["best"]


def test_search_to_a_depth_uses_the_heuristic():
    game = Subtraction(200)
    found = gamegraph.search(game, depth=4, evaluate=lambda n: n % 4)
    assert found["exact"] is False
    assert found["depth"] == 4
    assert found["nodes"] > 0


def test_search_of_a_cyclic_game_draws_endless_play():
    game = GraphGame({0: [1], 1: [0]}, {0: 0, 1: 0})
    found = gamegraph.search(game)
    assert found["value"] == 0 and found["exact"] is True


def test_errors_of_the_game_reach_the_caller():
    class Broken(Subtraction):
        def moves(self, n):
            if n == 7:
                raise RuntimeError("no moves at 7")
            return super().moves(n)

    with pytest.raises(RuntimeError, match="no moves at 7"):
        gamegraph.solve_game(Broken(10))
    with pytest.raises(RuntimeError, match="no moves at 7"):
        gamegraph.search(Broken(10))

    class Stuck(Subtraction):
        def payoff(self, n):
            return None

    with pytest.raises(ValueError, match="no moves but payoff"):
        gamegraph.solve_game(Stuck(3))
    with pytest.raises(ValueError, match="no moves but payoff"):
        gamegraph.search(Stuck(3))

    class Fractional(Subtraction):
        def payoff(self, n):
            return 0.5 if n == 0 else None

    with pytest.raises(ValueError, match="integers"):
        gamegraph.solve_game(Fractional(3))


def test_the_limit_stops_the_exploration():
    with pytest.raises(MemoryError, match="100"):
        gamegraph.solve_game(Subtraction(1000), limit=100)
