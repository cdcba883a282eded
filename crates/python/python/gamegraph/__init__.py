"""gamegraph: solve two-player games of perfect information from Python.

The same engine as the ``gamegraph`` command line and web page (a Rust library), so the three
give the same answers:

- ``tree(text)``: minimax and alpha-beta on an explicit tree, with what was pruned and every
  step (drawn as a picture in Jupyter).
- ``Graph``: a game graph from text or numpy arrays, solved backwards (retrograde analysis):
  win / lose / draw, the seed's stakes or zero-sum values, remoteness, as numpy arrays.
- ``games()``, ``analyze(game, position)``: the built-in games (tic-tac-toe, Nim, Connect 4,
  Othello, Oware, chess) valued exactly, or by a search marked not exact.
- ``build``, ``verify``, ``stats``: endgame databases (chess tables, Oware score files).
- ``chess.Tablebase``: probe chess tables by FEN or python-chess board.
- ``solve_game(game)`` and ``search(game, position)``: your own game in Python, solved whole
  or searched by the alpha-beta engine.
- ``openspiel.solve(game)``: an OpenSpiel game solved, state by state.

Long calls release the GIL and stop on Ctrl-C (``KeyboardInterrupt``). Bad input raises
``ValueError``, missing files ``FileNotFoundError``, damaged databases ``DatabaseError``.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Dict, Hashable, Iterable, List, Optional

import numpy as np

from . import _native
from ._draw import tree_svg
from ._native import DatabaseError, Solution

__version__ = _native.__version__

__all__ = [
    "DatabaseError",
    "GameSolution",
    "Graph",
    "Solution",
    "TreeResult",
    "analyze",
    "build",
    "games",
    "search",
    "solve_game",
    "stats",
    "tree",
    "verify",
]


class TreeResult:
    """What a minimax or alpha-beta search of a tree found (``gamegraph tree --json --trace``).

    Attributes: ``value`` (the root's value, MAX's point of view), ``best`` (the best root move),
    ``leaves`` (leaves evaluated), ``total_leaves``, ``nodes`` (nodes visited), ``pruned`` (the
    subtrees not searched, as paths like ``"C/1"``), ``trace`` (every step: the window on entry,
    the best value and narrowed window after each child, the value on exit, the prunes), ``algo`` and ``order``. ``to_dot()`` gives Graphviz; in
    Jupyter the result shows as a picture of the tree.
    """

    def __init__(self, report: Dict[str, Any], dot: str):
        self._report = report
        self._dot = dot
        self.algo: str = report["algo"]
        self.order: str = report["order"]
        self.value: int = report["value"]
        self.best: Optional[str] = report["best"]
        self.leaves: int = report["leaves"]
        self.total_leaves: int = report["total_leaves"]
        self.nodes: int = report["nodes"]
        self.pruned: List[str] = list(report["pruned"])
        self.trace: List[Dict[str, Any]] = list(report["trace"])

    def to_dict(self) -> Dict[str, Any]:
        """The report as ``gamegraph tree --json --trace`` prints it, with each node's shape."""
        return dict(self._report)

    def to_dot(self) -> str:
        """The tree in Graphviz: values on nodes, pruned edges dashed."""
        return self._dot

    def to_svg(self) -> str:
        """The tree as an SVG picture, drawn here (no Graphviz needed)."""
        return tree_svg(self._report["shape"], self.pruned)

    def _repr_svg_(self) -> str:
        return self.to_svg()

    def __repr__(self) -> str:
        pruned = " ".join(self.pruned) or "none"
        return (
            f"<TreeResult {self.algo}: value {self.value}, best {self.best}, "
            f"{self.leaves} of {self.total_leaves} leaves, pruned {pruned}>"
        )


def tree(text: str, algo: str = "alphabeta", order: str = "natural") -> TreeResult:
    """Search the tree written in ``text`` with ``algo`` ("minimax" or "alphabeta").

    Leaves are integers (MAX's point of view), inner nodes an optional label and their children
    in parentheses: ``tree("A(B(4 9 6) C(3 7 5) D(8 2 10))")`` is worth 4, best move B, and
    alpha-beta prunes C/1, C/2 and D/2. ``order`` is the order children are searched in:
    "natural", "best" (best first: the most pruning) or "worst".
    """
    report, dot = _native.tree(text, algo, order)
    return TreeResult(report, dot)


def _integer_array(values: Any, name: str) -> np.ndarray:
    """``values`` as a one-dimensional contiguous integer array, copied only if it is not one."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {array.shape}")
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} must hold integers, not {array.dtype}")
    if array.dtype not in (np.int64, np.uint32, np.int32, np.uint64):
        array = array.astype(np.int64)
    return np.ascontiguousarray(array)


class Graph:
    """A game graph: positions are nodes, moves are arcs, and a final node (without moves) has
    a stake, what its player to move loses (0 unless given).

    Build it with ``Graph.from_text`` (the ``graph`` command's text format) or
    ``Graph.from_edges`` (numpy arrays), then ``solve`` it.
    """

    def __init__(self, native: "_native.Graph"):
        self._native = native

    @staticmethod
    def from_text(text: str) -> "Graph":
        """Read the text format: ``a -> b c`` (moves), ``b = 3`` (b is final and its player to
        move loses 3), ``a`` (a node), ``#`` comments. Errors name the line and column."""
        return Graph(_native.Graph.from_text(text))

    @staticmethod
    def from_edge_list(text: str) -> "Graph":
        """Read a numeric edge list: ``u v`` per move, ``u = p`` for a final node's stake."""
        return Graph(_native.Graph.from_edge_list(text))

    @staticmethod
    def from_edges(
        sources: Any,
        targets: Any,
        *,
        nodes: Optional[int] = None,
        stakes: Any = None,
    ) -> "Graph":
        """The graph with the moves ``sources[i] -> targets[i]``.

        ``sources`` and ``targets`` are numpy integer arrays (int64, uint32, int32 or uint64 are
        read in place, without a copy); ``nodes`` defaults to one more than the largest id;
        ``stakes[node]`` is what the player to move at a final node loses (0 by default).
        """
        s = _integer_array(sources, "sources")
        t = _integer_array(targets, "targets")
        if s.dtype != t.dtype:
            t = t.astype(s.dtype)
        p = None if stakes is None else np.ascontiguousarray(_integer_array(stakes, "stakes"), dtype=np.int64)
        return Graph(_native.Graph.from_arrays(s, t, nodes, p))

    def solve(self, model: str = "stakes", threads: Optional[int] = None) -> Solution:
        """Label every node backwards from the final ones, cycles included (endless play is a
        draw), in ``model``: "outcome" (win / lose / draw with remoteness), "stakes" (the seed's
        stake p: the winner keeps the largest) or "minimax" (zero-sum payoff). ``threads``: all
        cores by default. Values are identical to ``gamegraph graph --json``'s."""
        return self._native.solve(model, threads)

    def id(self, name: str) -> int:
        """The id of the node called ``name``."""
        return self._native.id(name)

    def successors(self, node: int) -> List[int]:
        """The nodes one move from ``node``."""
        return self._native.successors(node)

    @property
    def names(self) -> List[str]:
        """Every node's name, in id order."""
        return self._native.names

    @property
    def edges(self) -> int:
        """The number of moves."""
        return self._native.edges

    def __len__(self) -> int:
        return len(self._native)

    def __repr__(self) -> str:
        return repr(self._native)


def games() -> List[Dict[str, Any]]:
    """Every built-in game with its options, as ``gamegraph games --json`` lists them."""
    return _native.games()


def analyze(
    game: str,
    position: Optional[str] = None,
    *,
    time: Optional[float] = None,
    depth: Optional[int] = None,
    db: Optional[str] = None,
    threads: Optional[int] = None,
    hash: Optional[int] = None,
    **options: Any,
) -> Dict[str, Any]:
    """Value ``position`` of a built-in ``game`` (its notation; the start by default) and every
    move, as the web page's ``GET /api/{game}/analyze`` answers.

    The dict has ``value``, ``outcome`` ("win", "draw", "lose" for the player to move),
    ``remoteness``, ``exact``, ``moves`` (each with its value for the player making it),
    ``best``, ``board`` and more. Retrograde games and databases give exact values; searches are
    exact unless ``time`` (seconds) cut them, when values are estimates marked
    ``"exact": False`` (to ``depth`` plies at most). ``db`` is the game's database: a file
    written by ``gamegraph build`` for games solved whole, a directory for chess and Oware.
    ``threads`` and ``hash`` (MiB) size the search; the game's options go by name, as on the web
    (``width=7``, ``height=6``, ``rules="abapa"``).
    """
    return _native.analyze(game, position, (time, depth), db, (threads, hash), **options)


def build(game: str, db: str, *, progress: bool = True, **options: Any) -> Dict[str, Any]:
    """Build (or complete, resuming after the parts already there) the endgame databases of
    ``game`` in the directory ``db``: chess ``tables="KQvKR"`` (or ``"4"`` for every table of up
    to 4 pieces), Oware ``stones=12`` with ``rules=``. Progress bars on standard error unless
    ``progress=False``. Ctrl-C stops the build within a moment, inside the table or stone count
    it solves; the ones finished are kept, whole, and the next build resumes after them. A game without a database directory (tic-tac-toe, Nim, a small Connect 4
    board) is solved whole into the database file ``db``, as ``gamegraph build GAME --out FILE``
    writes it (``analyze(game, db=...)`` reads it). Returns the build's report."""
    return _native.build(game, str(db), progress, **options)


def verify(
    game: str,
    db: str,
    *,
    sample: Optional[int] = 100_000,
    full: bool = False,
    record: Optional[str] = None,
    progress: bool = True,
) -> Dict[str, Any]:
    """Check the databases of ``game`` in ``db``: each file against its SHA-256, and stored
    values against their moves (Oware: ``sample`` positions per stone count, or all with
    ``full=True``). With ``record``, a file, each part's result is kept there as it is found
    and the parts it holds from an earlier check of the same files are not checked again, so a
    long check that was stopped resumes. Raises ``DatabaseError`` if a value is wrong; returns
    the report."""
    kept = None if record is None else str(record)
    return _native.verify(game, str(db), None if full else sample, kept, progress)


def stats(game: str, db: str) -> Dict[str, Any]:
    """The won, drawn and lost positions of the databases of ``game`` in ``db``, part by part."""
    return _native.stats(game, str(db))


class GameSolution:
    """Every position reachable in a game, solved (``solve_game``).

    ``value(p)`` is what the player to move at ``p`` gets under perfect play (0 for endless
    play), ``outcome(p)`` is "win", "lose" or "draw" for that player, ``remoteness(p)`` the moves
    to the end (None for a draw), ``best(p)`` the optimal moves. ``len()`` is the number of
    positions explored.
    """

    def __init__(self, positions: List[Hashable], ids: Dict[Hashable, int], moves: List[list],
                 children: List[List[int]], solution: Solution):
        self._positions = positions
        self._ids = ids
        self._moves = moves
        self._children = children
        self._solution = solution
        self._value = solution.value
        self._outcome = solution.outcome
        self._remoteness = solution.remoteness

    def _id(self, position: Hashable) -> int:
        try:
            return self._ids[position]
        except KeyError:
            raise KeyError(f"{position!r} is not reachable from the start") from None

    def value(self, position: Hashable) -> int:
        """What the player to move at ``position`` gets under perfect play."""
        return int(self._value[self._id(position)])

    def outcome(self, position: Hashable) -> str:
        """"win", "lose" or "draw" for the player to move at ``position``."""
        return ("lose", "draw", "win")[int(self._outcome[self._id(position)]) + 1]

    def remoteness(self, position: Hashable) -> Optional[int]:
        """Moves to the end of the game under perfect play; None for a draw."""
        r = int(self._remoteness[self._id(position)])
        return None if r == np.iinfo(np.uint32).max else r

    def best(self, position: Hashable) -> list:
        """The optimal moves at ``position``: the best value, then the fastest win or the
        slowest loss."""
        u = self._id(position)
        best = set(self._solution.best(u))
        return [m for m, v in zip(self._moves[u], self._children[u]) if v in best]

    @property
    def positions(self) -> List[Hashable]:
        """Every position explored, the start first."""
        return list(self._positions)

    def __len__(self) -> int:
        return len(self._positions)

    def __contains__(self, position: Hashable) -> bool:
        return position in self._ids

    def __repr__(self) -> str:
        return f"<GameSolution of {len(self)} positions>"


def _payoff(game: Any, position: Hashable) -> Optional[int]:
    payoff = game.payoff(position)
    if payoff is None:
        return None
    if isinstance(payoff, bool) or not float(payoff).is_integer():
        raise ValueError(f"payoff({position!r}) is {payoff!r}: payoffs are integers")
    payoff = int(payoff)
    if not -(2**31 - 1) <= payoff <= 2**31 - 1:
        raise ValueError(f"payoff({position!r}) is {payoff}, beyond 32-bit payoffs")
    return payoff


def solve_game(game: Any, *, limit: int = 20_000_000) -> GameSolution:
    """Explore every position reachable from ``game.start()`` and solve them all backwards with
    the core's retrograde kernel (cycles included: endless play is a draw).

    ``game`` has ``start()``, ``moves(position)``, ``play(position, move)`` and
    ``payoff(position)``: None for a position that is not final, else what its player to move
    gets (an integer, as in the minimax model). Positions must be hashable. Beyond ``limit``
    positions the exploration stops with ``MemoryError`` rather than exhausting memory.
    """
    start = game.start()
    ids: Dict[Hashable, int] = {start: 0}
    positions: List[Hashable] = [start]
    moves: List[list] = []
    children: List[List[int]] = []
    sources: List[int] = []
    targets: List[int] = []
    stakes: List[int] = []
    queue = deque([0])
    while queue:
        u = queue.popleft()
        position = positions[u]
        payoff = _payoff(game, position)
        while len(moves) <= u:
            moves.append([])
            children.append([])
            stakes.append(0)
        if payoff is not None:
            stakes[u] = -payoff
            continue
        listed = list(game.moves(position))
        if not listed:
            raise ValueError(
                f"position {position!r} has no moves but payoff() returned None: "
                "a final position needs a payoff"
            )
        for move in listed:
            child = game.play(position, move)
            v = ids.get(child)
            if v is None:
                if len(positions) >= limit:
                    raise MemoryError(f"more than {limit} positions: raise limit= if memory allows")
                v = len(positions)
                ids[child] = v
                positions.append(child)
                queue.append(v)
            moves[u].append(move)
            children[u].append(v)
            sources.append(u)
            targets.append(v)
    graph = Graph.from_edges(
        np.array(sources, dtype=np.int64),
        np.array(targets, dtype=np.int64),
        nodes=len(positions),
        stakes=np.array(stakes, dtype=np.int64),
    )
    return GameSolution(positions, ids, moves, children, graph.solve("minimax"))


def search(
    game: Any,
    position: Any = None,
    *,
    depth: Optional[int] = None,
    time: Optional[float] = None,
    evaluate: Optional[Callable[[Any], float]] = None,
    limit: int = 10_000_000,
) -> Dict[str, Any]:
    """Run the alpha-beta engine (iterative deepening, transposition table, null windows) on
    your own ``game`` (as for ``solve_game``, with payoffs from -1999 to 1999) from
    ``position`` (the start by default).

    Without ``depth`` or ``time`` it searches to the end of the game (exact). With them, it
    stops at ``depth`` plies or after ``time`` seconds and values the horizon with
    ``evaluate(position)``, a number for the player to move (below 500,000 in size; 0 without
    it). Returns a dict: ``value`` (the payoff where the end was reached, else the heuristic
    value), ``exact``, ``remoteness``, ``best``, ``pv`` (moves as ``moves()`` gave them),
    ``depth``, ``nodes`` and ``positions`` (met). ``limit`` bounds the positions kept.
    """
    if position is None:
        position = game.start()
    return _native.search(game, position, depth, time, evaluate, limit)

# The submodules users reach as attributes (gamegraph.chess.Tablebase); neither imports its
# optional partner (python-chess, pyspiel) until used.
from . import chess, openspiel  # noqa: E402
