"""gamegraph.openspiel.solve against OpenSpiel's own value_iteration (tic_tac_toe, hex 3x3)
and a memoised minimax over pyspiel states (nim, dots_and_boxes, where value_iteration takes
minutes), on every reachable state."""

import functools

import pytest

import gamegraph

pyspiel = pytest.importorskip("pyspiel")


def every_state(game):
    """Every reachable state once, by (string, player to move)."""
    seen, stack = {}, [game.new_initial_state()]
    while stack:
        state = stack.pop()
        key = (str(state), state.current_player())
        if key in seen:
            continue
        seen[key] = state
        if not state.is_terminal():
            stack.extend(state.child(a) for a in state.legal_actions())
    return list(seen.values())


def memoised_minimax(game):
    """Player 0's value of every state, by plain recursion with a memo."""

    @functools.lru_cache(maxsize=None)
    def value(key):
        state = states[key]
        if state.is_terminal():
            return state.returns()[0]
        children = []
        for action in state.legal_actions():
            child = state.child(action)
            k = (str(child), child.current_player())
            states.setdefault(k, child)
            children.append(value(k))
        return max(children) if state.current_player() == 0 else min(children)

    states = {}
    return states, value


@pytest.mark.parametrize("name", ["tic_tac_toe", "hex(board_size=3)"])
def test_value_iteration_agrees_on_every_state(name):
    from open_spiel.python.algorithms import value_iteration

    game = pyspiel.load_game(name)
    want = value_iteration.value_iteration(game, depth_limit=-1, threshold=1e-6)
    solution = gamegraph.openspiel.solve(game)
    states = every_state(game)
    assert len(states) == len(want)
    for state in states:
        assert solution.value(state) == pytest.approx(want[str(state)], abs=1e-9), str(state)


@pytest.mark.parametrize("name", ["nim(pile_sizes=1;3;5;7)", "dots_and_boxes(num_rows=2,num_cols=2)"])
def test_minimax_agrees_on_every_state(name):
    game = pyspiel.load_game(name)
    solution = gamegraph.openspiel.solve(game)
    memo, value = memoised_minimax(game)
    for state in every_state(game):
        key = (str(state), state.current_player())
        memo.setdefault(key, state)
        assert solution.value(state) == pytest.approx(value(key)), str(state)


def test_best_actions_keep_the_value_and_remoteness_counts_moves():
    game = pyspiel.load_game("dots_and_boxes(num_rows=2,num_cols=2)")
    solution = gamegraph.openspiel.solve(game)
    for state in every_state(game)[:400]:
        if state.is_terminal():
            assert solution.remoteness(state) == 0
            continue
        best = solution.best_actions(state)
        assert best
        for action in best:
            assert solution.value(state.child(action)) == pytest.approx(solution.value(state))
        r = solution.remoteness(state)
        if r is not None:
            # Play the best actions to the end: as many moves as the remoteness says.
            s, moves = state.clone(), 0
            while not s.is_terminal():
                options = solution.best_actions(s)
                s = s.child(min(options, key=lambda a: (solution.remoteness(s.child(a)) or 0,)))
                moves += 1
            assert moves <= r + 0  # fastest-win play never takes longer than the remoteness


def test_nim_known_values():
    game = pyspiel.load_game("nim(pile_sizes=1;3;5;7)")
    solution = gamegraph.openspiel.solve(game)
    # 1 xor 3 xor 5 xor 7 == 0: the first player loses.
    assert solution.value(game.new_initial_state()) == -1.0


def test_games_it_cannot_solve_are_refused_by_property():
    with pytest.raises(ValueError, match="not deterministic|not a game of perfect information"):
        gamegraph.openspiel.solve(pyspiel.load_game("kuhn_poker"))
    with pytest.raises(ValueError, match="players"):
        gamegraph.openspiel.solve(pyspiel.load_game("kuhn_poker(players=3)"))
    with pytest.raises(ValueError, match="sequential"):
        gamegraph.openspiel.solve(pyspiel.load_game("matrix_rps"))


def test_the_limit_stops_the_exploration():
    with pytest.raises(MemoryError, match="1000"):
        gamegraph.openspiel.solve(pyspiel.load_game("tic_tac_toe"), limit=1000)
