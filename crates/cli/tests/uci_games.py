"""Complete games through `gamegraph uci`, driven by python-chess's engine module (a UCI client
that nobody here wrote): against itself and against Stockfish at skill level 0, at a short time
control. Every move must be legal, every game must end by the rules (mate, stalemate, repetition,
the 50-move rule, insufficient material), and no clock may run out.

Usage: python uci_games.py GAMEGRAPH_BINARY [STOCKFISH_BINARY]
"""

import sys
import time

import chess
import chess.engine

# Seconds on each clock at the start, and added after each move.
CLOCK = 2.0
INCREMENT = 0.02
# A game longer than this is a bug (the 50-move rule ends shuffling long before).
MAX_PLIES = 600


def play_game(white, black, names):
    """Plays one game; returns (result, plies, reason). Raises on an illegal move or a flag."""
    board = chess.Board()
    clocks = {chess.WHITE: CLOCK, chess.BLACK: CLOCK}
    engines = {chess.WHITE: white, chess.BLACK: black}
    while not board.is_game_over(claim_draw=True):
        if board.ply() >= MAX_PLIES:
            raise AssertionError(f"{names}: no result after {MAX_PLIES} plies")
        side = board.turn
        limit = chess.engine.Limit(
            white_clock=clocks[chess.WHITE],
            black_clock=clocks[chess.BLACK],
            white_inc=INCREMENT,
            black_inc=INCREMENT,
        )
        started = time.monotonic()
        result = engines[side].play(board, limit)
        used = time.monotonic() - started
        clocks[side] -= used
        if clocks[side] < 0:
            raise AssertionError(f"{names}: {chess.COLOR_NAMES[side]} lost on time at ply {board.ply()}")
        clocks[side] += INCREMENT
        if result.move is None or result.move not in board.legal_moves:
            raise AssertionError(f"{names}: illegal move {result.move} in {board.fen()}")
        board.push(result.move)
    outcome = board.outcome(claim_draw=True)
    return board.result(claim_draw=True), board.ply(), outcome.termination.name


def main():
    gamegraph = [sys.argv[1], "uci"]
    stockfish = sys.argv[2] if len(sys.argv) > 2 else None
    started = time.monotonic()
    ours = chess.engine.SimpleEngine.popen_uci(gamegraph)
    other = chess.engine.SimpleEngine.popen_uci(gamegraph)
    games = [(ours, other, "gamegraph - gamegraph"), (other, ours, "gamegraph - gamegraph")]
    opponent = None
    if stockfish:
        opponent = chess.engine.SimpleEngine.popen_uci(stockfish)
        opponent.configure({"Skill Level": 0, "Threads": 1, "Hash": 16})
        games += [(ours, opponent, "gamegraph - Stockfish"), (opponent, ours, "Stockfish - gamegraph")]
    try:
        for white, black, names in games:
            result, plies, reason = play_game(white, black, names)
            print(f"{names}: {result} in {plies} plies ({reason.lower()})")
    finally:
        for engine in (ours, other, opponent):
            if engine is not None:
                engine.quit()
    print(f"{len(games)} games in {time.monotonic() - started:.1f} s, every move legal, no clock run out")


if __name__ == "__main__":
    main()
