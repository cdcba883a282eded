"""Shared fixtures: the command line built by `cargo test` (the oracle the package must agree
with) and the repository's test data."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def cli():
    """Runs `gamegraph ARGS` and returns its standard output; JSON decoded with `--json`."""
    path = pathlib.Path(os.environ.get("GAMEGRAPH_CLI", ROOT / "target" / "debug" / "gamegraph"))
    assert path.exists(), f"{path} is missing: build it with `cargo build -p gamegraph-cli` or set GAMEGRAPH_CLI"

    def run(*args, stdin=None):
        done = subprocess.run([str(path), *map(str, args)], input=stdin, capture_output=True, text=True, check=True)
        return json.loads(done.stdout) if "--json" in args else done.stdout

    return run


@pytest.fixture(scope="session")
def data():
    return ROOT / "tests" / "data"
