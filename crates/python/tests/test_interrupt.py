"""Ctrl-C stops long calls (a KeyboardInterrupt, the work stopped through the library's flag),
and a panic inside the library is an exception, never an abort of the interpreter."""

import signal
import subprocess
import sys
import time

import pytest

import gamegraph


def interrupted_after(code, seconds):
    """Runs `code` in a fresh interpreter, sends it SIGINT after `seconds`, and returns how long
    it took to exit after the signal, its exit code and its standard error."""
    # A shell that starts a job in the background without job control (CI's) leaves SIGINT
    # ignored, and Python then installs no handler: the child asks for the handler a terminal's
    # Ctrl-C would reach.
    code = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n" + code
    process = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
    time.sleep(seconds)
    assert process.poll() is None, "the call ended before it could be interrupted: " + process.stderr.read()
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError("the call did not stop within 60 s of Ctrl-C")
    return time.monotonic() - sent, process.returncode, stderr


def test_ctrl_c_stops_a_search_within_a_second():
    # The exact value of Connect 4's start takes minutes on one thread.
    code = "import gamegraph; print(gamegraph.analyze('connect4', threads=1))"
    took, code, stderr = interrupted_after(code, 2.0)
    assert "KeyboardInterrupt" in stderr
    assert code != 0
    assert took < 1.0, f"stopped {took:.2f} s after Ctrl-C"


def test_ctrl_c_stops_a_search_of_a_python_game():
    code = """
import gamegraph
class Endless:
    def start(self): return 0
    def moves(self, n): return [1, 2]
    def play(self, n, m): return 2 * n + m  # a tree: no position is reached twice
    def payoff(self, n): return None
gamegraph.search(Endless(), depth=60, evaluate=lambda n: 0)
"""
    took, code, stderr = interrupted_after(code, 2.0)
    assert "KeyboardInterrupt" in stderr
    assert took < 1.0, f"stopped {took:.2f} s after Ctrl-C"


def test_ctrl_c_stops_a_build_and_keeps_whole_files(tmp_path):
    code = f"import gamegraph; gamegraph.build('oware', {str(tmp_path)!r}, stones=30, progress=False)"
    took, code, stderr = interrupted_after(code, 3.0)
    assert "KeyboardInterrupt" in stderr
    assert took < 1.0, f"stopped {took:.2f} s after Ctrl-C"
    # A build stops inside the stone count it solves: what it finished is kept, whole.
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".") and p.name != ".gamegraph.lock"]
    report = gamegraph.verify("oware", tmp_path, progress=False)
    assert report["files"] >= 10
    resumed = gamegraph.build("oware", tmp_path, stones=report["files"] - 1, progress=False)
    assert resumed["built"] == []


def test_a_panic_is_an_exception():
    with pytest.raises(RuntimeError, match="deliberate panic"):
        gamegraph._native._panic_for_test()
    # The interpreter is still fine.
    assert gamegraph.tree("(1 2)").value == 2
