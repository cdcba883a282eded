"""Chess endgame tables from Python.

``Tablebase(directory)`` opens a directory built by ``gamegraph build chess --tables ... --db
DIR`` (or ``gamegraph.build("chess", DIR, tables="4")``). ``probe(fen_or_board)`` gives the value
for the side to move as ``("win", plies)``, ``("draw", 0)`` or ``("loss", plies)``, plies to mate
under perfect play; ``moves(fen_or_board)`` every legal move in UCI notation with its value for
the side making it, best first. A python-chess ``chess.Board`` (anything with ``fen()``) is
accepted as well as a FEN. A position no table covers raises ``KeyError`` naming the table.
"""

from ._native import Tablebase

__all__ = ["Tablebase"]
