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
