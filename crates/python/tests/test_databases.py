"""Chess tables and Oware databases built, probed, checked and counted from Python, against the
command line on random positions."""

import random

import pytest

import gamegraph

chess = pytest.importorskip("chess")


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tables")
    report = gamegraph.build("chess", directory, tables="KRvKP", progress=False)
    assert {t["material"] for t in report["built"]} >= {"KRvKP", "KQvK", "KRvK"}
    return directory


def random_positions(rng, pieces, count):
    """Legal positions (python-chess's rules) with these pieces on random squares."""
    out = []
    while len(out) < count:
        board = chess.Board(None)
        squares = rng.sample(range(64), len(pieces))
        for (symbol, square) in zip(pieces, squares):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if board.is_valid():
            out.append(board)
    return out


def test_probes_match_the_command_line(tables, cli):
    rng = random.Random(3)
    boards = random_positions(rng, "KRkp", 150) + random_positions(rng, "KQk", 50)
    fens = [b.fen() for b in boards]
    lines = cli("solve", "chess", "-", "--db", tables, stdin="\n".join(fens) + "\n").strip().split("\n")
    tb = gamegraph.chess.Tablebase(str(tables))
    for board, line in zip(boards, lines):
        fen, value = line.split("; ")
        assert fen == board.fen()
        word, plies = tb.probe(board)
        assert value == ("draw" if word == "draw" else f"{word} {plies}"), fen


def test_moves_are_best_first_and_agree_with_the_children(tables):
    tb = gamegraph.chess.Tablebase(str(tables))
    board = chess.Board("8/8/8/8/8/2k5/1R6/K7 w - - 0 1")  # the longest KRvK win
    assert tb.probe(board) == ("win", 31)
    moves = tb.moves(board)
    assert moves[0][1:] == ("win", 31)
    assert {m.uci() for m in board.legal_moves} == {m for m, _, _ in moves}
    for uci, word, plies in moves:
        child = board.copy()
        child.push_uci(uci)
        theirs, their_plies = tb.probe(child)
        flipped = {"win": "loss", "loss": "win", "draw": "draw"}[theirs]
        assert (word, plies) == (flipped, their_plies + 1 if theirs != "draw" else 0)


def test_positions_outside_the_tables(tables):
    tb = gamegraph.chess.Tablebase(str(tables))
    with pytest.raises(KeyError, match="KBBvK"):
        tb.probe("8/8/8/8/8/4k3/1BB5/K7 w - - 0 1")
    with pytest.raises(ValueError, match="castling"):
        tb.probe("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
    with pytest.raises(ValueError, match="bad chess position"):
        tb.probe("not a fen")
    with pytest.raises(FileNotFoundError):
        gamegraph.chess.Tablebase("/nonexistent/tables")


def test_verify_and_stats_match_the_command_line(tables, cli):
    assert gamegraph.stats("chess", tables) == cli("stats", "chess", "--db", tables, "--json")
    report = gamegraph.verify("chess", tables, progress=False)
    assert [t["material"] for t in report["tables"]] == [t["material"] for t in gamegraph.stats("chess", tables)["tables"]]
    assert all(not t["inconsistent"] for t in report["tables"])


def test_a_check_with_a_record_resumes_from_it(tmp_path):
    gamegraph.build("chess", tmp_path, tables="KRvK", progress=False)
    record = tmp_path / "verified.jsonl"
    first = gamegraph.verify("chess", tmp_path, record=record, progress=False)
    again = gamegraph.verify("chess", tmp_path, record=str(record), progress=False)
    assert (first["recorded"], again["recorded"]) == (0, 1)
    assert again["tables"] == first["tables"]
    record.write_text("not json\n")
    with pytest.raises(ValueError, match="line 1 column 2"):
        gamegraph.verify("chess", tmp_path, record=record, progress=False)


def test_a_damaged_table_is_a_database_error(tmp_path):
    gamegraph.build("chess", tmp_path, tables="KQvK", progress=False)
    path = tmp_path / "KQvK.dtm"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(gamegraph.DatabaseError):
        gamegraph.verify("chess", tmp_path, progress=False)
    with pytest.raises(gamegraph.DatabaseError):
        gamegraph.chess.Tablebase(str(tmp_path)).probe("8/8/8/8/8/3k4/1Q6/K7 w - - 0 1")


def test_oware_build_resumes_and_matches_the_command_line(tmp_path, cli):
    first = gamegraph.build("oware", tmp_path, stones=6, progress=False)
    assert first["built"] == list(range(7))
    more = gamegraph.build("oware", tmp_path, stones=9, progress=False)
    assert (more["resumed"], more["built"]) == (7, [7, 8, 9])
    assert gamegraph.stats("oware", tmp_path) == cli("stats", "oware", "--db", tmp_path, "--json")
    assert gamegraph.verify("oware", tmp_path, full=True, progress=False)["files"] == 10
    cli_dir = tmp_path / "cli"
    cli("build", "oware", "--stones", 9, "--db", cli_dir)
    for n in range(10):
        assert (tmp_path / f"scores.{n}").read_bytes() == (cli_dir / f"scores.{n}").read_bytes()
    # A position of 2 stones: inside the database, so exact at once.
    analysis = gamegraph.analyze("oware", "0,0,0,0,0,1,0,0,0,0,0,1", db=str(tmp_path), time=5)
    assert analysis["exact"] is True


def test_build_options_are_checked():
    with pytest.raises(ValueError, match="needs tables"):
        gamegraph.build("chess", "/tmp/unused")
    with pytest.raises(ValueError, match="stones"):
        gamegraph.build("oware", "/tmp/unused", stones=99)
    with pytest.raises(ValueError, match="width"):
        gamegraph.build("connect4", "/tmp/unused.db", width=99)


def test_games_without_a_directory_are_solved_whole_into_a_file(tmp_path, cli):
    path = tmp_path / "ttt.db"
    report = gamegraph.build("tictactoe", path)
    want = cli("build", "tictactoe", "--json")
    del report["seconds"], want["seconds"]
    assert report == dict(want, out=str(path))
    cli_path = tmp_path / "cli.db"
    cli("build", "tictactoe", "--out", cli_path)
    assert path.read_bytes() == cli_path.read_bytes()
    assert gamegraph.analyze("tictactoe", "XO.......", db=str(path))["outcome"] == "win"
    with pytest.raises(OSError, match="not a folder that exists"):
        gamegraph.build("tictactoe", tmp_path / "no" / "such" / "dir.db")
