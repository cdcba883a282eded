"""OpenSpiel games solved by gamegraph's retrograde kernel.

``solve(game)`` takes a ``pyspiel.Game`` that is two-player, zero-sum or constant-sum, of perfect
information, deterministic and sequential; it generates every reachable state through pyspiel
(most of the time goes there), hands the graph to the core kernel and returns an
``OpenSpielSolution`` with ``value(state)`` (player 0's value under perfect play, as OpenSpiel's
``value_iteration`` gives it), ``best_actions(state)`` and ``remoteness(state)``.

States are told apart by a key, by default ``(str(state), state.current_player())``: some games'
strings leave the player to move out (dots_and_boxes, breakthrough), and the same string with
another player to move is another position. Pass ``key=`` to use your own (any hashable).

A move after which the same player moves again (dots_and_boxes) is solved through a pass node
of the other player, so that the kernel's alternating turns hold; remoteness counts real moves
only.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Dict, Hashable, List, Optional

import numpy as np

from . import Graph

__all__ = ["OpenSpielSolution", "solve"]

_NO_REMOTENESS = np.iinfo(np.uint32).max


def _default_key(state: Any) -> Hashable:
    return (str(state), state.current_player())


def _check(game: Any) -> None:
    """Refuses, naming the property it lacks, a game the kernel cannot solve."""
    import pyspiel

    t = game.get_type()
    if game.num_players() != 2:
        raise ValueError(f"{t.short_name} has {game.num_players()} players, not 2")
    if t.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"{t.short_name} is not sequential (its players move simultaneously)")
    if t.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        raise ValueError(f"{t.short_name} is not deterministic (it has chance nodes)")
    if t.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        raise ValueError(f"{t.short_name} is not a game of perfect information")
    if t.utility not in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM):
        raise ValueError(f"{t.short_name} is not zero-sum or constant-sum ({t.utility})")


class OpenSpielSolution:
    """Every reachable state of an OpenSpiel game, solved."""

    def __init__(self, key: Callable[[Any], Hashable], ids: Dict[Hashable, int], graph: Graph,
                 solution: Any, ranks: List[float], centre: float, real: int):
        self._key = key
        self._ids = ids
        self._graph = graph
        self._solution = solution
        self._ranks = ranks
        self._centre = centre
        self._real = real
        self._value = solution.value
        self._remoteness = solution.remoteness

    def _unrank(self, rank: int) -> float:
        if rank == 0:
            return 0.0
        magnitude = self._ranks[abs(rank) - 1]
        return magnitude if rank > 0 else -magnitude

    def value(self, state: Any) -> float:
        """Player 0's value of ``state`` under perfect play (its utility at a terminal state)."""
        if state.is_terminal():
            return float(state.returns()[0])
        u = self._ids.get(self._key(state))
        if u is None:
            raise KeyError(f"state {str(state)!r} was not reached from the initial state")
        mine = self._unrank(int(self._value[u]))
        player = state.current_player()
        return self._centre + (mine if player == 0 else -mine)

    def best_actions(self, state: Any) -> List[int]:
        """The actions of ``state`` that keep its value (the fastest win, the slowest loss)."""
        if state.is_terminal():
            return []
        u = self._ids.get(self._key(state))
        if u is None:
            raise KeyError(f"state {str(state)!r} was not reached from the initial state")
        best = set(self._solution.best(u))
        return [a for a, v in zip(state.legal_actions(), self._graph.successors(u)) if v in best]

    def remoteness(self, state: Any) -> Optional[int]:
        """Moves to the end of the game under perfect play, the winner hurrying and the loser
        delaying; None for a drawn state (value halfway between the players' utilities), 0 at a
        terminal state."""
        if state.is_terminal():
            return 0
        u = self._ids.get(self._key(state))
        if u is None:
            raise KeyError(f"state {str(state)!r} was not reached from the initial state")
        left = int(self._remoteness[u])
        if left == _NO_REMOTENESS:
            return None
        moves = 0
        # Follow optimal play, counting the moves of real states, not of pass nodes.
        while left > 0:
            if u < self._real:
                moves += 1
            u = next(v for v in self._solution.best(u) if int(self._remoteness[v]) == left - 1)
            left -= 1
        return moves

    def __len__(self) -> int:
        """The states solved (terminal states once per player who could have moved into them)."""
        return self._real

    def __repr__(self) -> str:
        return f"<OpenSpielSolution of {self._real} states>"


def solve(game: Any, *, key: Optional[Callable[[Any], Hashable]] = None,
          limit: int = 20_000_000) -> OpenSpielSolution:
    """Solve every state reachable from ``game.new_initial_state()`` (see the module's doc).
    Beyond ``limit`` states it stops with ``MemoryError`` rather than exhausting memory."""
    _check(game)
    key = key or _default_key
    root = game.new_initial_state()
    ids: Dict[Hashable, int] = {key(root): 0}
    sources: List[int] = []
    targets: List[int] = []
    terminal_returns: Dict[int, float] = {}  # node -> utility of its player to move
    sums = set()  # the utilities' sums at terminal states: one constant
    movers: List[int] = [root.current_player()]
    # States wait in the queue only until expanded: pyspiel states are not kept.
    queue = deque([(0, root)])
    while queue:
        u, state = queue.popleft()
        player = movers[u]
        for action in state.legal_actions():
            child = state.child(action)
            terminal = child.is_terminal()
            # The player to move at a final node is the one who did not just move.
            k = (key(child), 1 - player) if terminal else key(child)
            v = ids.get(k)
            if v is None:
                if len(movers) >= limit:
                    raise MemoryError(f"more than {limit} states: raise limit= if memory allows")
                v = len(movers)
                ids[k] = v
                if terminal:
                    movers.append(1 - player)
                    returns = child.returns()
                    terminal_returns[v] = float(returns[1 - player])
                    sums.add(round(sum(returns), 9))
                else:
                    movers.append(child.current_player())
                    queue.append((v, child))
            sources.append(u)
            targets.append(v)
    real = len(movers)
    # Zero-sum stakes: utilities less half their sum, ranked so that the kernel's integers keep
    # their order and sign.
    if len(sums) > 1:
        raise ValueError(f"{game.get_type().short_name}'s utilities do not sum to one constant: {sorted(sums)}")
    centre = (sums.pop() if sums else 0.0) / 2
    magnitudes = sorted({abs(r - centre) for r in terminal_returns.values()} - {0.0})
    rank_of = {m: i + 1 for i, m in enumerate(magnitudes)}
    stakes = np.zeros(real, dtype=np.int64)
    for v, r in terminal_returns.items():
        x = r - centre
        stakes[v] = 0 if x == 0 else -(rank_of[abs(x)] if x > 0 else -rank_of[abs(x)])
    # Moves after which the same player moves again go through a pass node of the other player.
    src = np.array(sources, dtype=np.int64)
    dst = np.array(targets, dtype=np.int64)
    mover = np.array(movers, dtype=np.int8)
    same = mover[src] == mover[dst]
    if same.any():
        children = np.unique(dst[same])
        passes = np.arange(real, real + len(children), dtype=np.int64)
        pass_of = dict(zip(children.tolist(), passes.tolist()))
        dst = dst.copy()
        dst[same] = [pass_of[v] for v in dst[same].tolist()]
        src = np.concatenate([src, passes])
        dst = np.concatenate([dst, children])
        stakes = np.concatenate([stakes, np.zeros(len(children), dtype=np.int64)])
    graph = Graph.from_edges(src, dst, nodes=len(stakes), stakes=stakes)
    solution = graph.solve("minimax")
    return OpenSpielSolution(key, ids, graph, solution, magnitudes, centre, real)
