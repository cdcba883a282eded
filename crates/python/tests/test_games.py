"""gamegraph.games() and gamegraph.analyze() against the command line and Pons' Connect 4 test
file (scores nobody here computed)."""

import pytest

import gamegraph


def test_games_lists_what_the_command_line_lists(cli):
    assert gamegraph.games() == cli("games", "--json")["games"]


@pytest.mark.parametrize("position", [None, "X........", "XO..X....", "XOXOXO...", "XX.OO...."])
def test_tictactoe_matches_solve(cli, position):
    args = ["solve", "tictactoe"] + ([position] if position else []) + ["--json"]
    want = cli(*args)
    got = gamegraph.analyze("tictactoe", position)
    assert got["exact"] is True
    assert got["best"] == want["best"]
    for key in ("value", "outcome", "remoteness"):
        assert got[key] == want[key], key
    assert [(m["move"], m["value"], m["outcome"], m["remoteness"]) for m in got["moves"]] == [
        (m["move"], m["value"], m["outcome"], m["remoteness"]) for m in want["moves"]
    ]


def test_connect4_scores_of_the_test_file(data):
    lines = (data / "connect4" / "Test_L1_R2").read_text().split("\n")
    for line in lines[:20]:
        position, score = line.split()
        a = gamegraph.analyze("connect4", position, threads=1)
        assert a["exact"] is True
        assert a["value"] == int(score), position


def test_options_by_name_as_on_the_web():
    small = gamegraph.analyze("connect4", width=4, height=4)
    assert small["exact"] is True and small["value"] == 0  # 4x4 Connect 4 is a draw
    nim = gamegraph.analyze("nim", "1,2,3")
    assert nim["outcome"] == "lose"  # 1 xor 2 xor 3 == 0


def test_a_limited_search_is_marked_not_exact():
    a = gamegraph.analyze("othello", time=0.2, threads=1)
    assert a["exact"] is False
    assert a["time_limit_seconds"] == pytest.approx(0.2)


def test_bad_input_is_a_value_error():
    with pytest.raises(ValueError, match="unknown game 'go'"):
        gamegraph.analyze("go")
    with pytest.raises(ValueError, match="bad connect4 position '448': column 3"):
        gamegraph.analyze("connect4", "448")
    with pytest.raises(ValueError, match="width"):
        gamegraph.analyze("connect4", width=99)
    with pytest.raises(ValueError, match="option"):
        gamegraph.analyze("tictactoe", colour="blue")
    with pytest.raises(ValueError, match="time"):
        gamegraph.analyze("connect4", time=-1)


def test_a_database_file_of_another_game_is_refused(cli, tmp_path):
    path = tmp_path / "ttt.db"
    cli("build", "tictactoe", "--out", path)
    assert gamegraph.analyze("tictactoe", db=str(path))["value"] == 0
    with pytest.raises(FileNotFoundError):
        gamegraph.analyze("tictactoe", db=str(tmp_path / "missing.db"))
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(path.read_bytes()[:-3])
    with pytest.raises(gamegraph.DatabaseError, match="damaged.db"):
        gamegraph.analyze("tictactoe", db=str(damaged))


def test_chess_moves_are_written_as_python_chess_writes_them():
    """Each move's ``display`` (standard algebraic notation) against python-chess, an oracle nobody
    here wrote: castling both ways, promotions with capture and check, en passant, knights and
    rooks told apart by file and by rank, mate, and the positions of random games."""
    import random

    import chess

    fens = [
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
        "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1",
        "4k3/8/8/N7/8/N7/8/4K3 w - - 0 1",
        "4k3/8/8/8/R7/8/8/R3K3 w - - 0 1",
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    ]
    rng = random.Random(3)
    for _ in range(8):
        board = chess.Board()
        for _ in range(rng.randrange(10, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        fens.append(board.fen())
    compared = 0
    for fen in fens:
        board = chess.Board(fen)
        if board.is_game_over():
            continue
        analysis = gamegraph.analyze("chess", fen, depth=1, threads=1)
        for m in analysis["moves"]:
            assert m["display"] == board.san(chess.Move.from_uci(m["move"])), (fen, m["move"])
            compared += 1
    assert compared > 200
