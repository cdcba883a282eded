"""Measurements of the Python package against its peers and the command line (not tests: no
timing is asserted anywhere).

    python crates/python/bench.py openspiel [--games 'tic_tac_toe clobber(rows=4,columns=4)']
    python crates/python/bench.py graph [--nodes 10000000 --edges 100000000 --seed 1]
    python crates/python/bench.py connect4 [--first 100]

`openspiel` solves each game with gamegraph.openspiel.solve and, where it finishes in reasonable
time, with OpenSpiel's own value_iteration in the same run (tic_tac_toe, hex 3x3), and says how
much of gamegraph's time went to pyspiel's own state generation. `graph` builds the random graph
of `gamegraph bench graph` from numpy arrays, solves it, and runs the command line's bench on the
same graph for the ratios of time and peak memory. `connect4` analyses Test_L1_R2 positions with
gamegraph.analyze and with `gamegraph solve connect4 - --analyze`, one thread each.
Needs the package installed and the release command line (`cargo build --release -p
gamegraph-cli`; set GAMEGRAPH_CLI to use another).
"""

import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import time
from collections import deque

import gamegraph

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("GAMEGRAPH_CLI", str(ROOT / "target" / "release" / "gamegraph"))
SLOW_VALUE_ITERATION = {"clobber", "breakthrough", "dots_and_boxes", "nim"}


def pyspiel_walk(game):
    """Every reachable state by breadth-first search, as openspiel.solve walks them, without
    solving: the part of the time that is pyspiel's."""
    root = game.new_initial_state()
    seen = {(str(root), root.current_player())}
    queue = deque([root])
    while queue:
        state = queue.popleft()
        for action in state.legal_actions():
            child = state.child(action)
            key = (str(child), child.current_player())
            if key not in seen:
                seen.add(key)
                if not child.is_terminal():
                    queue.append(child)
    return len(seen)


def bench_openspiel(args):
    import pyspiel

    for name in args.games.split(" "):
        game = pyspiel.load_game(name)
        started = time.perf_counter()
        solution = gamegraph.openspiel.solve(game)
        ours = time.perf_counter() - started
        started = time.perf_counter()
        pyspiel_walk(game)
        walk = time.perf_counter() - started
        line = (
            f"{name}: {len(solution)} states, gamegraph {ours:.3f} s "
            f"(pyspiel's state generation alone {walk:.3f} s, {100 * walk / ours:.0f}%)"
        )
        if name.split("(")[0] not in SLOW_VALUE_ITERATION:
            from open_spiel.python.algorithms import value_iteration

            started = time.perf_counter()
            value_iteration.value_iteration(game, depth_limit=-1, threshold=1e-6)
            theirs = time.perf_counter() - started
            line += f", value_iteration {theirs:.3f} s: {theirs / ours:.1f}x faster"
        print(line, flush=True)


def peak_rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def bench_graph(args):
    sources, targets, stakes = gamegraph._native.random_graph_arrays(args.nodes, args.edges, args.seed)
    inputs = sources.nbytes + targets.nbytes + stakes.nbytes
    started = time.perf_counter()
    graph = gamegraph.Graph.from_edges(sources, targets, nodes=args.nodes, stakes=stakes)
    built = time.perf_counter() - started
    started = time.perf_counter()
    solution = graph.solve("stakes")
    solved = time.perf_counter() - started
    wins = int((solution.outcome == 1).sum())
    peak = peak_rss_bytes()
    cli = json.loads(
        subprocess.run(
            [CLI, "bench", "graph", "--nodes", str(args.nodes), "--edges", str(args.edges),
             "--seed", str(args.seed), "--json"],
            capture_output=True, text=True, check=True,
        ).stdout
    )
    cli_solve = next(s for s in cli["solve"] if s["model"] == "stakes")
    assert cli_solve["win"] == wins, (cli_solve, wins)
    ours, theirs = built + solved, cli["build_seconds"] + cli_solve["seconds"]
    print(f"graph of {args.nodes} nodes, {args.edges} edges (seed {args.seed}), stakes model:")
    print(f"  python: from_edges {built:.2f} s + solve {solved:.2f} s = {ours:.2f} s, peak {peak >> 20} MiB "
          f"({inputs >> 20} MiB of it the input arrays)")
    print(f"  cli:    build {cli['build_seconds']:.2f} s + solve {cli_solve['seconds']:.2f} s = {theirs:.2f} s, "
          f"peak {cli['peak_memory_bytes'] >> 20} MiB (all three models solved)")
    print(f"  ratio: time {ours / theirs:.2f}x, memory {peak / cli['peak_memory_bytes']:.2f}x "
          f"({(peak - inputs) / cli['peak_memory_bytes']:.2f}x without the input arrays)")


def bench_connect4(args):
    lines = (ROOT / "tests" / "data" / "connect4" / "Test_L1_R2").read_text().split("\n")[: args.first]
    positions = [line.split()[0] for line in lines if line]
    started = time.perf_counter()
    for position in positions:
        gamegraph.analyze("connect4", position, threads=1)
    ours = time.perf_counter() - started
    started = time.perf_counter()
    subprocess.run([CLI, "solve", "connect4", "-", "--analyze", "--threads", "1"],
                   input="\n".join(positions) + "\n", capture_output=True, text=True, check=True)
    theirs = time.perf_counter() - started
    print(f"connect4 Test_L1_R2, first {len(positions)}, every move analysed, 1 thread: "
          f"python {ours:.2f} s, cli {theirs:.2f} s: {ours / theirs:.3f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    o = commands.add_parser("openspiel")
    o.add_argument("--games", default="tic_tac_toe hex(board_size=3) clobber(rows=4,columns=4) "
                                      "breakthrough(rows=4,columns=4)", help="game strings, space-separated")
    g = commands.add_parser("graph")
    g.add_argument("--nodes", type=int, default=10_000_000)
    g.add_argument("--edges", type=int, default=100_000_000)
    g.add_argument("--seed", type=int, default=1)
    c = commands.add_parser("connect4")
    c.add_argument("--first", type=int, default=100)
    args = parser.parse_args()
    {"openspiel": bench_openspiel, "graph": bench_graph, "connect4": bench_connect4}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
