"""A match between `gamegraph uci` and another UCI engine (Stockfish at a skill level, or another
build of gamegraph to measure a change), through python-chess: the score, and the Elo difference
with its 95% margin. Colours alternate; every game starts from the start position with 4 random
plies played first (the same for both colours of a pair), so that games differ.

Usage: python scripts/uci_match.py GAMEGRAPH OPPONENT [--games N] [--skill S] [--clock SECONDS]
       [--increment SECONDS] [--seed N]
OPPONENT is a command line ("stockfish", "/tmp/old/gamegraph uci"); --skill sets Stockfish's
"Skill Level" and is ignored by engines without that option.
(python-chess is in target/uci-venv after scripts/test.)
"""

import argparse
import math
import random
import shlex
import time

import chess
import chess.engine


def play(engines, board, clock, increment):
    """Plays `board` to its end; engines[colour] moves. Returns the result string."""
    clocks = {chess.WHITE: clock, chess.BLACK: clock}
    while not board.is_game_over(claim_draw=True):
        side = board.turn
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=increment, black_inc=increment)
        started = time.monotonic()
        move = engines[side].play(board, limit).move
        clocks[side] -= time.monotonic() - started
        if clocks[side] < 0:
            return "0-1" if side == chess.WHITE else "1-0"
        clocks[side] += increment
        board.push(move)
    return board.result(claim_draw=True)


def elo(score, games):
    """The Elo difference of a score (points out of games) and its 95% margin."""
    p = min(max(score / games, 1e-3), 1 - 1e-3)
    diff = -400 * math.log10(1 / p - 1)
    sigma = math.sqrt(p * (1 - p) / games)
    slope = 400 / (math.log(10) * p * (1 - p))
    return diff, 1.96 * sigma * slope


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gamegraph")
    parser.add_argument("opponent")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--skill", type=int, default=3)
    parser.add_argument("--clock", type=float, default=10.0)
    parser.add_argument("--increment", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ours = chess.engine.SimpleEngine.popen_uci([args.gamegraph, "uci"])
    ours.configure({"Threads": 1, "Hash": 64})
    them = chess.engine.SimpleEngine.popen_uci(shlex.split(args.opponent))
    options = {"Threads": 1, "Hash": 16}
    if "Skill Level" in them.options:
        options["Skill Level"] = args.skill
    them.configure(options)
    name = them.id.get("name", args.opponent)
    if "Skill Level" in them.options:
        name += f" skill {args.skill}"
    points = 0.0
    tally = {"win": 0, "draw": 0, "loss": 0}
    try:
        opening = []
        for game in range(args.games):
            if game % 2 == 0:
                board = chess.Board()
                opening = []
                for _ in range(4):
                    move = rng.choice(list(board.legal_moves))
                    opening.append(move)
                    board.push(move)
            board = chess.Board()
            for move in opening:
                board.push(move)
            white_is_us = game % 2 == 0
            engines = {chess.WHITE: ours if white_is_us else them, chess.BLACK: them if white_is_us else ours}
            result = play(engines, board, args.clock, args.increment)
            ours_points = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
            if not white_is_us:
                ours_points = 1.0 - ours_points if result != "1/2-1/2" else 0.5
            points += ours_points
            tally[{1.0: "win", 0.5: "draw", 0.0: "loss"}[ours_points]] += 1
            print(f"game {game + 1}: {'white' if white_is_us else 'black'} {result}, score {points}/{game + 1}",
                  flush=True)
    finally:
        ours.quit()
        them.quit()
    diff, margin = elo(points, args.games)
    print(f"gamegraph against {name}, {args.clock:g} s + {args.increment:g} s: "
          f"+{tally['win']} ={tally['draw']} -{tally['loss']}, {points}/{args.games}, "
          f"Elo {diff:+.0f} +- {margin:.0f}")


if __name__ == "__main__":
    main()
