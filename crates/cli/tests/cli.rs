//! The `gamegraph` command end to end: outputs of every command and the handling of bad input.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

mod common;
use common::{fails, json, ok, run};

const SEED_TREE: &str = "A(B(4 9 6) C(3 7 5) D(8 2 10))";

#[test]
fn tree_reports_the_seed_example() {
    let ab = json(&["tree", SEED_TREE, "--json"]);
    assert_eq!(ab["value"], 4);
    assert_eq!(ab["best"], "B");
    assert_eq!(ab["leaves"], 6);
    assert_eq!(ab["pruned"], serde_json::json!(["C/1", "C/2", "D/2"]));
    let mm = json(&["tree", SEED_TREE, "--algo", "minimax", "--json"]);
    assert_eq!((mm["value"].as_i64(), mm["leaves"].as_i64()), (Some(4), Some(9)));
    let traced = json(&["tree", SEED_TREE, "--json", "--trace"]);
    let steps = traced["trace"].as_array().unwrap();
    assert_eq!(steps.iter().filter(|s| s["step"] == "prune").count(), 3);
    let dot = ok(&["tree", SEED_TREE, "--dot"]);
    assert_eq!(dot.matches("style=dashed").count(), 3);
    let from_stdin = run(&["tree", "-", "--json"], "((4 9 6)\n (3 7 5)\n (8 2 10))\n");
    let v: Value = serde_json::from_slice(&from_stdin.stdout).unwrap();
    assert_eq!((v["value"].as_i64(), v["best"].as_str()), (Some(4), Some("0")));
}

#[test]
fn graph_solves_the_reference_fixtures() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cycle.txt");
    std::fs::write(&file, "A -> B F\nB -> A\nF = 1\n").unwrap();
    let path = file.to_str().unwrap();
    let stakes = json(&["graph", path, "--model", "stakes", "--json"]);
    assert_eq!(stakes["model"], "stakes");
    assert_eq!(stakes["positions"]["A"]["value"], 1);
    assert_eq!(stakes["positions"]["A"]["best"], serde_json::json!(["F"]));
    assert_eq!(stakes["positions"]["B"]["outcome"], "lose");
    let outcome = json(&["graph", path, "--model", "outcome", "--json"]);
    assert_eq!(outcome["positions"]["A"]["value"], Value::Null);
    assert_eq!(outcome["positions"]["B"]["remoteness"], 2);

    let fixture = "x -> y z\ny = -3\nz -> w\nw = 1\n";
    let out = run(&["graph", "-", "--model", "minimax", "--json"], fixture);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["positions"]["x"]["value"], -1);
    assert_eq!(v["positions"]["x"]["best"], serde_json::json!(["z"]));
    let out = run(&["graph", "-", "--model", "stakes", "--csv"], fixture);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.contains("\nx,win,-3,1,y\n"), "{csv}");

    let edges = run(&["graph", "-", "--format", "edges", "--json"], "0 1\n0 2\n1 0\n2 = 1\n");
    let v: Value = serde_json::from_slice(&edges.stdout).unwrap();
    assert_eq!(v["positions"]["0"]["value"], 1);
    let dot = run(&["graph", "-", "--dot"], fixture);
    assert!(String::from_utf8(dot.stdout).unwrap().starts_with("digraph"));
}

#[test]
fn bad_graphs_name_line_and_column() {
    let err = fails(&["graph", "-"], "a -> b\nb = three\n");
    assert!(err.contains("line 2, column 5"), "{err}");
    let err = fails(&["graph", "-"], "a -> b\na = 1\n");
    assert!(err.contains("line 2"), "{err}");
    let err = fails(&["graph", "-", "--format", "edges"], "0 1\nx 2\n");
    assert!(err.contains("line 2, column 1"), "{err}");
    let err = fails(&["graph", "/nonexistent/graph.txt"], "");
    assert!(err.contains("/nonexistent/graph.txt"), "{err}");
    let err = fails(&["tree", "A(B(4 9 6) C(3 7 5)"], "");
    assert!(err.contains("line 1, column 20"), "{err}");
    let err = fails(&["tree", "A(4 x)"], "");
    assert!(err.contains("column 5"), "{err}");
}

#[test]
fn bad_options_are_refused() {
    for args in [
        &["graph", "-", "--model", "bogus"][..],
        &["tree", SEED_TREE, "--order", "sideways"],
        &["solve"],
        &["bench", "graph", "--nodes", "many"],
    ] {
        let out = run(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    let err = fails(&["solve", "go"], "");
    assert!(err.contains("unknown game 'go'"), "{err}");
}

#[test]
fn solve_gives_every_move_value() {
    let start = json(&["solve", "tictactoe", "--json"]);
    assert_eq!(start["outcome"], "draw");
    assert_eq!(start["value"], 0);
    let moves = start["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 9);
    assert!(moves.iter().all(|m| m["outcome"] == "draw"));
    assert_eq!(start["best"].as_array().unwrap().len(), 9);

    // X to move can win at once on 3 (top row): the fastest win is the only best move.
    let v = json(&["solve", "tictactoe", "XX.OO....", "--json"]);
    assert_eq!((v["outcome"].as_str(), v["remoteness"].as_u64()), (Some("win"), Some(1)));
    assert_eq!(v["best"], serde_json::json!(["3"]));

    let nim = json(&["solve", "nim", "1,2,3", "--json"]);
    assert_eq!(nim["outcome"], "lose");
    let nim = json(&["solve", "nim", "3,4,5", "--json"]);
    assert_eq!((nim["outcome"].as_str(), nim["best"].clone()), (Some("win"), serde_json::json!(["1:2"])));

    let err = fails(&["solve", "tictactoe", "XX?......"], "");
    assert!(err.contains("column 3"), "{err}");
    let err = fails(&["solve", "nim", "1,2,3", "--limit", "5"], "");
    assert!(err.contains("more than 5 positions"), "{err}");
}

#[test]
fn build_writes_a_database_that_solve_reads_back() {
    let v = json(&["build", "tictactoe", "--json"]);
    assert_eq!((v["positions"].as_u64(), v["terminal"].as_u64()), (Some(5478), Some(958)));
    assert_eq!(v["start"]["outcome"], "draw");
    let total = v["win"].as_u64().unwrap() + v["lose"].as_u64().unwrap() + v["draw"].as_u64().unwrap();
    assert_eq!(total, 5478);

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ttt.db");
    let db_path = db.to_str().unwrap();
    json(&["build", "tictactoe", "--out", db_path, "--json"]);
    let from_db = json(&["solve", "tictactoe", "X...O....", "--db", db_path, "--json"]);
    let solved = json(&["solve", "tictactoe", "X...O....", "--json"]);
    assert_eq!(from_db, solved);

    // A damaged database is refused, never misread.
    let mut bytes = std::fs::read(&db).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&db, &bytes).unwrap();
    let err = fails(&["solve", "tictactoe", "--db", db_path], "");
    assert!(err.contains("checksum"), "{err}");
    let err = fails(&["solve", "nim", "--db", db_path], "");
    assert!(err.contains("ttt.db"), "{err}");

    // A database of another game is refused.
    let nim_db = dir.path().join("nim.db");
    json(&["build", "nim", "--out", nim_db.to_str().unwrap(), "--json"]);
    let err = fails(&["solve", "tictactoe", "--db", nim_db.to_str().unwrap()], "");
    assert!(err.contains("database of nim"), "{err}");
}

#[test]
fn a_failed_build_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("sub");
    std::fs::create_dir(&target).unwrap();
    // The output path is a directory: the rename fails and nothing is left behind.
    fails(&["build", "tictactoe", "--out", target.to_str().unwrap()], "");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["sub"]);
    fails(&["build", "tictactoe", "--out", "/nonexistent/dir/ttt.db"], "");
}

#[test]
fn play_against_perfect_play() {
    // The engine plays both sides from the start: perfect play draws.
    let out = ok(&["play", "tictactoe", "--you", "none"]);
    assert!(out.trim_end().ends_with("game over: draw"), "{out}");
    // You play X (5, then 2, then quit); the engine answers; each JSON line shows every move's value.
    let out = run(&["play", "tictactoe", "--you", "first", "--json"], "5\n2\nquit\n");
    assert!(out.status.success());
    let turns: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(turns[0]["to_move"], "you");
    assert_eq!(turns[0]["moves"].as_array().unwrap().len(), 9);
    assert_eq!(turns[1]["to_move"], "engine");
    assert_eq!(turns[1]["position"], "....X....");
    // The engine never moves into a lost position.
    assert_eq!(turns[2]["outcome"], "draw");
    // Engine against engine from a won position: the winner wins as fast as possible.
    let out = run(&["play", "tictactoe", "XX.OO....", "--you", "none", "--json"], "");
    let turns: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[1]["position"], "XXXOO....");
    // Illegal input is answered and asked again, not fatal.
    let out = run(&["play", "nim", "1,1", "--you", "both"], "9:9\n1:1\n2:1\n");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("'9:9' is not a legal move"), "{text}");
    assert!(text.contains("game over"), "{text}");
}

#[test]
fn bench_graph_reports_every_model() {
    let v = json(&["bench", "graph", "--nodes", "2000", "--edges", "10000", "--seed", "5", "--json"]);
    assert_eq!((v["nodes"].as_u64(), v["edges"].as_u64()), (Some(2000), Some(10000)));
    let solves = v["solve"].as_array().unwrap();
    assert_eq!(solves.len(), 3);
    for s in solves {
        let total = ["win", "lose", "draw"].iter().map(|k| s[k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(total, 2000);
    }
    // Same seed, same graph, same counts.
    let again = json(&["bench", "graph", "--nodes", "2000", "--edges", "10000", "--seed", "5", "--json"]);
    assert_eq!(v["solve"][2]["win"], again["solve"][2]["win"]);
}

fn connect4_file(name: &str) -> String {
    format!("{}/../../tests/data/connect4/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn solve_connect4_reads_test_files_from_stdin() {
    let path = connect4_file("Test_L3_R1");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (the public test files are in tests/data/connect4)"));
    let sample: String = text.lines().take(40).map(|l| format!("{l}\n")).collect();
    let out = run(&["solve", "connect4", "-", "--threads", "1", "--hash", "16"], &sample);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(printed.lines().count(), 40);
    for (expected, got) in sample.lines().zip(printed.lines()) {
        assert_eq!(expected, got, "'POSITION SCORE' per line, as in the file");
    }
}

#[test]
fn solve_connect4_analyze_and_weak() {
    // Column 1 is full; the others are scored, and the position's score is their maximum.
    let v = json(&["solve", "connect4", "1111112233", "--analyze", "--json", "--hash", "16"]);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 7);
    assert_eq!(moves[0]["playable"], false);
    assert_eq!(moves[0]["score"], Value::Null);
    let best = moves.iter().filter_map(|m| m["score"].as_i64()).max().unwrap();
    assert_eq!(v["score"].as_i64(), Some(best));
    let text = ok(&["solve", "connect4", "1111112233", "--analyze", "--hash", "16"]);
    assert!(text.starts_with(&format!("1111112233 {best} 1:full 2:")), "{text}");
    let weak = json(&["solve", "connect4", "1111112233", "--weak", "--json", "--hash", "16"]);
    assert_eq!(weak["score"].as_i64(), Some(best.signum()));
    // Small boards: docs/oracles.md says 6 x 4 is a loss for the first player.
    let v = json(&["solve", "connect4", "--width", "6", "--height", "4", "--json", "--hash", "16"]);
    assert_eq!(v["outcome"], "lose");
}

/// `--stats` lists the probes of the exact solve, and the bounds they prove close on the score.
#[test]
fn solve_stats_lists_the_probes() {
    for (position, score) in [("274552224131661", 0), ("2531276566711153", 2), ("6614446666373154", -4)] {
        let v = json(&["solve", "connect4", position, "--stats", "--json", "--threads", "1", "--hash", "16"]);
        assert_eq!(v["score"].as_i64(), Some(score), "{v}");
        let probes = v["probes"].as_array().unwrap();
        let (mut low, mut high, mut nodes) = (i64::MIN, i64::MAX, 0);
        for p in probes {
            let (t, r) = (p["threshold"].as_i64().unwrap(), p["result"].as_i64().unwrap());
            if r >= t {
                low = low.max(r);
            } else {
                high = high.min(r);
            }
            nodes += p["nodes"].as_u64().unwrap();
        }
        assert_eq!((low, high), (score, score), "{position}: {v}");
        assert!(nodes <= v["nodes"].as_u64().unwrap(), "{v}");
        let text = ok(&["solve", "connect4", position, "--stats", "--threads", "1", "--hash", "16"]);
        assert!(text.starts_with(&format!("{position} {score}  (")), "{text}");
        assert_eq!(text.matches(" nodes").count(), probes.len() + 1, "{text}");
    }
}

#[test]
fn connect4_input_errors() {
    let err = fails(&["solve", "connect4", "12121212"], "");
    assert!(err.contains("column 8") && err.contains("game is over"), "{err}");
    let err = fails(&["solve", "connect4", "1111111"], "");
    assert!(err.contains("column 1 is full"), "{err}");
    let err = fails(&["solve", "connect4", "-"], "4453\n12x4\n");
    assert!(err.contains("line 2") && err.contains("column 3"), "{err}");
    let err = fails(&["solve", "connect4", "--width", "9", "--height", "7"], "");
    assert!(err.contains("does not fit"), "{err}");
    let err = fails(&["solve", "nim", "--width", "5"], "");
    assert!(err.contains("no option 'width'"), "{err}");
    let err = fails(&["solve", "connect4", "4", "--hash", "100000000"], "");
    assert!(err.contains("--hash"), "{err}");
    let err = fails(&["bench", "graph", "--nodes", "10", "--edges", "100000000000000"], "");
    assert!(err.contains("needs about"), "{err}");
    let err = fails(&["bench", "connect4", "/nonexistent/Test_L1_R1"], "");
    assert!(err.contains("/nonexistent/Test_L1_R1"), "{err}");
}

#[test]
fn search_reports_value_pv_and_statistics() {
    let v = json(&["search", "tictactoe", "--json", "--threads", "1"]);
    assert_eq!((v["value"].as_i64(), v["to_the_end"].as_bool()), (Some(0), Some(true)));
    let v = json(&["search", "connect4", "4453", "--depth", "6", "--json", "--hash", "16"]);
    assert_eq!(v["depth"], 6);
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert!(!v["pv"].as_array().unwrap().is_empty());
    let v = json(&["search", "nim", "3,4,5", "--json"]);
    assert_eq!(v["best"], "1:2");
}

#[test]
fn bench_ordering_measures_the_seed_claim() {
    let v = json(&["bench", "ordering", "--branching", "3", "--depth", "4", "--trees", "5", "--json"]);
    assert_eq!((v["b_to_the_d"].as_u64(), v["minimal_tree"].as_u64()), (Some(81), Some(17)));
    let leaves: Vec<f64> =
        v["runs"].as_array().unwrap().iter().map(|r| r["mean_leaves"].as_f64().unwrap()).collect();
    assert_eq!(leaves[0], 81.0, "minimax evaluates every leaf");
    assert!(leaves[1] >= leaves[2] && leaves[2] >= leaves[3], "worst >= random >= best: {leaves:?}");
    assert!(leaves[3] <= 17.0, "best-first alpha-beta meets the minimal tree: {leaves:?}");
}

#[test]
fn bench_connect4_checks_every_score() {
    let v =
        json(&["bench", "connect4", &connect4_file("Test_L2_R1"), "--first", "20", "--json", "--hash", "16"]);
    let file = &v["files"][0];
    assert_eq!((file["correct"].as_u64(), file["total"].as_u64()), (Some(20), Some(20)));
    assert!(file["mean_nodes"].as_f64().unwrap() > 0.0);
    assert!(file["mean_probes"].as_f64().unwrap() >= 1.0, "every position is solved by probes");
}

#[test]
fn play_connect4_to_the_end() {
    // Near the end of a game, the engine plays both sides with perfect play.
    let out = run(
        &[
            "play",
            "connect4",
            "2252576253462244111563365343671351441",
            "--you",
            "none",
            "--time",
            "0.5",
            "--json",
        ],
        "",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let last: Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().lines().last().unwrap()).unwrap();
    assert_eq!(last["to_move"], "nobody");
}

/// A fresh Oware database of the VU rules up to `stones` stones in a temporary directory.
fn oware_database(stones: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let built = json(&["build", "oware", "--stones", &stones.to_string(), "--db", path, "--json"]);
    assert_eq!(built["built"].as_array().unwrap().len(), stones + 1);
    dir
}

fn score_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn oware_database_stats_verify_and_solve() {
    let dir = oware_database(10);
    let db = dir.path().to_str().unwrap();
    let stats = json(&["stats", "oware", "--db", db, "--json"]);
    let layers = stats["stones"].as_array().unwrap();
    assert_eq!(layers.len(), 11);
    for layer in layers {
        let count = |k: &str| layer[k].as_u64().unwrap();
        assert_eq!(count("wins") + count("draws") + count("losses"), count("positions"));
    }
    assert_eq!(layers[10]["positions"], 352_716 - 1_365);
    assert!(ok(&["verify", "oware", "--db", db, "--full"])
        .contains("10 stones: 351351 positions checked, 0 inconsistent"));
    // A record serves a check of the same kind only: a sample is not a check of every position.
    let record = dir.path().join("verified.jsonl");
    let record = record.to_str().unwrap();
    let full = ["verify", "oware", "--db", db, "--full", "--record", record];
    assert!(!ok(&full).contains("earlier check"));
    let sampled = ok(&["verify", "oware", "--db", db, "--sample", "1000", "--record", record]);
    assert!(!sampled.contains("earlier check"), "{sampled}");
    let again = ok(&full);
    assert!(again.contains("10 stones: 351351 positions checked, 0 inconsistent"), "{again}");
    assert!(again.contains("(11 stone counts by an earlier check"), "{again}");

    // Every move's value is its capture minus the value of the position it leads to.
    let solved = json(&["solve", "oware", "0,0,0,0,0,3,0,2,1,0,0,1", "--db", db, "--json"]);
    assert_eq!(solved["exact"], true);
    let moves = solved["moves"].as_array().unwrap();
    let best = moves.iter().map(|m| m["value"].as_i64().unwrap()).max().unwrap();
    assert_eq!(solved["value"].as_i64(), Some(best));
    for m in moves {
        let child = json(&["solve", "oware", m["position"].as_str().unwrap(), "--db", db, "--json"]);
        assert_eq!(m["value"].as_i64(), child["value"].as_i64().map(|v| -v), "move {}", m["move"]);
    }
    // Beyond the database: a limited search, marked as such.
    let start = json(&["solve", "oware", "--db", db, "--depth", "3", "--json"]);
    assert_eq!((start["exact"].as_bool(), start["depth"].as_u64()), (Some(false), Some(3)));
    assert_eq!(start["moves"].as_array().unwrap().len(), 6);
    let text = ok(&["solve", "oware", "0,0,0,0,0,3,0,2,1,0,0,1", "--db", db]);
    assert!(text.starts_with("0,0,0,0,0,3,0,2,1,0,0,1 "), "{text}");

    // Perfect play to the end, or to a repetition, which also ends the game.
    let out = run(&["play", "oware", "0,1,0,0,1,1,0,0,1,0,0,1", "--db", db, "--you", "none", "--json"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let last: Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().lines().last().unwrap()).unwrap();
    assert_eq!(last["to_move"], "nobody");
}

#[test]
fn oware_build_resumes_after_a_kill_with_identical_files() {
    let reference = oware_database(12);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamegraph"))
        .args(["build", "oware", "--stones", "12", "--db", path])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once some stone counts are complete, in the middle of another.
    let manifest = dir.path().join("manifest.json");
    let complete = || {
        std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .map_or(0, |m| m["layers"].as_array().unwrap().len())
    };
    while complete() < 9 && child.try_wait().unwrap().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let killed_at = complete();
    assert!(
        (9..13).contains(&killed_at),
        "killed in the middle of the build, after {killed_at} stone counts"
    );
    // A partial file from the killed run, and a damaged (short) last file, are both redone.
    std::fs::write(dir.path().join("scores.12.partial.x1y2z3"), b"half").unwrap();
    let resumed = json(&["build", "oware", "--stones", "12", "--db", path, "--json"]);
    assert_eq!(resumed["resumed"].as_u64(), Some(killed_at as u64));
    assert_eq!(score_files(dir.path()), score_files(reference.path()));

    let last = dir.path().join("scores.12");
    let bytes = std::fs::read(&last).unwrap();
    std::fs::write(&last, &bytes[..bytes.len() - 1]).unwrap();
    let err = fails(&["stats", "oware", "--db", path], "");
    assert!(err.contains("scores.12") && err.contains("bytes, expected"), "{err}");
    let rebuilt = json(&["build", "oware", "--stones", "12", "--db", path, "--json"]);
    assert_eq!(rebuilt["built"], serde_json::json!([12]));
    assert_eq!(score_files(dir.path()), score_files(reference.path()));

    // A flipped byte keeps the size: the checksums catch it, whoever opens the database, even
    // when the byte is still a value a position could have.
    let mut flipped = bytes.clone();
    let at = flipped.iter().position(|&b| b == 0).expect("a drawn position");
    flipped[at] = 1;
    std::fs::write(&last, &flipped).unwrap();
    for command in ["verify", "stats", "solve"] {
        let err = fails(&[command, "oware", "--db", path], "");
        assert!(err.contains("scores.12") && err.contains("SHA-256"), "{command}: {err}");
    }
    // A resumed build checks what it keeps: the damaged file is built again.
    let rebuilt = json(&["build", "oware", "--stones", "12", "--db", path, "--json"]);
    assert_eq!(rebuilt["built"], serde_json::json!([12]));
    assert_eq!(score_files(dir.path()), score_files(reference.path()));

    // Bytes no position can hold (0x80 is -128) are refused on reading, not served or summed.
    std::fs::write(&last, vec![0x80u8; bytes.len()]).unwrap();
    let err = fails(&["stats", "oware", "--db", path], "");
    assert!(err.contains("scores.12") && err.contains("holds -128"), "{err}");
    let err = fails(&["solve", "oware", "--db", path], "");
    assert!(err.contains("holds -128"), "{err}");
    let rebuilt = json(&["build", "oware", "--stones", "12", "--db", path, "--json"]);
    assert_eq!(rebuilt["built"], serde_json::json!([12]));
    assert_eq!(score_files(dir.path()), score_files(reference.path()));
}

#[test]
fn oware_rejects_bad_input() {
    let dir = oware_database(3);
    let db = dir.path().to_str().unwrap();
    assert!(fails(&["build", "oware", "--stones", "49", "--db", db], "").contains("48"));
    assert!(fails(&["build", "oware", "--db", db], "").contains("--stones"));
    assert!(fails(&["build", "oware", "--stones", "3"], "").contains("--db"));
    assert!(
        fails(&["build", "oware", "--rules", "abapa", "--stones", "3", "--db", db], "").contains("vu rules")
    );
    assert!(fails(&["build", "oware", "--rules", "fifa", "--stones", "3", "--db", db], "").contains("fifa"));
    assert!(fails(&["solve", "oware", "--rules", "abapa", "--db", db, "0,0,0,0,0,0,0,0,0,0,0,1"], "")
        .contains("vu"));
    assert!(fails(&["solve", "oware", "4,4,x", "--db", db], "").contains("column 5"));
    assert!(fails(&["stats", "tictactoe", "--db", db], "").contains("oware"));
    assert!(fails(&["stats", "oware", "--db", "/nonexistent/db"], "").contains("no complete score file"));
    assert!(fails(&["solve", "tictactoe", "--rules", "vu"], "").contains("no option 'rules'"));
    std::fs::write(dir.path().join("manifest.json"), "{\"format\": 3").unwrap();
    assert!(fails(&["verify", "oware", "--db", db], "").contains("manifest"));
}

#[test]
fn bench_oware_reports_every_stone_count() {
    let report = json(&["bench", "oware", "--stones", "6", "--rules", "abapa", "--json"]);
    let layers = report["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 7);
    let total: u64 = layers.iter().map(|l| l["positions"].as_u64().unwrap()).sum();
    assert_eq!(report["positions"].as_u64(), Some(total));
    assert_eq!(total, 1 + 12 + 78 + 364 + 1365 + 4368 + 12375);
    assert!(fails(&["bench", "oware", "--stones", "60"], "").contains("48"));
}

#[test]
fn serve_starts_on_a_free_port_and_refuses_a_bad_database() {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamegraph"))
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.starts_with("gamegraph: serving http://127.0.0.1:"), "{line}");
    // The page lists the games from the same registry as the command line, options included.
    let addr = line.trim_start_matches("gamegraph: serving http://").split('/').next().unwrap();
    let served = http_get_json(addr, "/api/games");
    child.kill().unwrap();
    child.wait().unwrap();
    let listed = json(&["games", "--json"]);
    assert_eq!(served, listed);
    let connect4 = listed["games"].as_array().unwrap().iter().find(|g| g["name"] == "connect4").unwrap();
    assert_eq!(connect4["options"]["width"]["default"], "7");
    assert_eq!(connect4["solver"], "search");
    assert!(fails(&["serve", "--db", "/nonexistent/db"], "").contains("no complete score file"));
    let err = fails(&["serve", "--host", "no-such-host.invalid"], "");
    assert!(err.contains("--host no-such-host.invalid"), "{err}");
}

/// The JSON body of `GET path` from the server at `addr`.
fn http_get_json(addr: &str, path: &str) -> Value {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str(body).unwrap()
}

const FFO_1: &str = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";

#[test]
fn othello_perft_solve_and_bench() {
    assert_eq!(ok(&["perft", "othello", "6"]).trim(), "8200");
    assert_eq!(ok(&["perft", "tictactoe", "2"]).trim(), "72");
    // .obf lines on standard input: the board and side, then the best move and its exact score.
    let out = run(&["solve", "othello", "-"], &format!("{FFO_1}; G8:+18; H1:+12;\n\n{FFO_1}\n"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().collect::<Vec<_>>(), vec![format!("{FFO_1}; G8:+18;"); 2]);
    let analyzed = ok(&["solve", "othello", FFO_1, "--analyze"]);
    // Every move's exact score, best first, as in the FFO file (ties in any order).
    assert!(analyzed.starts_with(&format!("{FFO_1}; G8:+18; H1:+12; ")), "{analyzed}");
    assert!(analyzed.trim_end().ends_with("A3:+4; B1:-4; A4:-22; G2:-24;"), "{analyzed}");
    assert!(analyzed.contains("H7:+6") && analyzed.contains("A2:+6"), "{analyzed}");
    let dir = tempfile::tempdir().unwrap();
    let obf = dir.path().join("two.obf");
    std::fs::write(&obf, format!("{FFO_1}; G8:+18; H1:+12;\n")).unwrap();
    let bench = ok(&["bench", "othello", obf.to_str().unwrap(), "--threads", "1"]);
    assert!(bench.contains("1 positions, 0 wrong"), "{bench}");
    // Its probes close on the score: the last one that failed high found +18.
    let v = json(&["bench", "othello", obf.to_str().unwrap(), "--threads", "1", "--json"]);
    let probes = v["positions"][0]["probes"].as_array().unwrap();
    let high = probes.iter().rfind(|p| p["result"].as_i64() >= p["threshold"].as_i64()).unwrap();
    assert_eq!(high["result"].as_i64(), Some(18), "{probes:?}");
    let probed: u64 = probes.iter().map(|p| p["nodes"].as_u64().unwrap()).sum();
    assert!(probed <= v["positions"][0]["nodes"].as_u64().unwrap());
    std::fs::write(&obf, format!("{FFO_1}; G8:+16;\n")).unwrap();
    let wrong = run(&["bench", "othello", obf.to_str().unwrap()], "");
    assert!(!wrong.status.success(), "a wrong expected score fails the bench");
    std::fs::write(&obf, format!("{FFO_1}; G8=+18;\n")).unwrap();
    assert!(fails(&["bench", "othello", obf.to_str().unwrap()], "").contains("line 1"));
    assert!(fails(&["solve", "othello", "XO-"], "").contains("column 4"));
    assert!(fails(&["perft", "go", "3"], "").contains("unknown game"));
    // A depth-limited search from the start: the ordering searches follow the depth limit, not
    // the 60 empties (which would not finish).
    let start = "---------------------------OX------XO--------------------------- X";
    let searched = ok(&["search", "othello", start, "--depth", "6", "--threads", "1"]);
    assert!(["D3", "C4", "F5", "E6"].iter().any(|m| searched.contains(m)), "{searched}");
}

#[test]
fn othello_bench_of_random_positions_writes_a_file_that_benches_again() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("random.obf");
    let random = ["bench", "othello", "--random", "5", "--empties", "11", "--seed", "4", "--threads", "1"];
    let first = ok(&[&random[..], &["--write", file.to_str().unwrap()]].concat());
    assert!(first.contains("5 positions, 0 wrong"), "{first}");
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(written.lines().count(), 5, "{written}");
    for line in written.lines() {
        let (board, moves) = line.split_once(';').unwrap();
        assert_eq!(board.matches('-').count(), 11, "{line}");
        // Every legal move with its score, best first.
        let scores: Vec<i32> =
            moves.split(';').filter_map(|m| m.split_once(':')).map(|m| m.1.parse().unwrap()).collect();
        assert!(!scores.is_empty() && scores.windows(2).all(|w| w[0] >= w[1]), "{line}");
    }
    // The same seed, the same positions and scores; the file benches with every answer right.
    let again = ok(&random);
    let values = |text: &str| {
        text.lines().take(5).map(|l| l.split_whitespace().nth(3).unwrap().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(values(&first), values(&again));
    let checked = ok(&["bench", "othello", file.to_str().unwrap(), "--threads", "1"]);
    assert!(checked.contains("5 positions, 0 wrong") && checked.contains(" ok "), "{checked}");
    // A target that cannot be replaced is refused before any solving.
    let dir_target = dir.path().to_str().unwrap();
    assert!(fails(&["bench", "othello", "--random", "1", "--empties", "40", "--write", dir_target], "")
        .contains("not a regular file"));
    let nowhere = dir.path().join("missing").join("out.obf");
    assert!(fails(
        &["bench", "othello", "--random", "1", "--empties", "40", "--write", nowhere.to_str().unwrap()],
        ""
    )
    .contains("not a folder that exists"));
    refused_option(&["bench", "othello", "--empties", "20"], "--random");
    refused_option(&["bench", "othello", "x.obf", "--random", "2"], "--random");
    refused_option(&["bench", "othello", "--random", "2", "--empties", "61"], "--empties");
}

/// Runs a command whose options clap must refuse: exit 2, no panic, the option named.
fn refused_option(args: &[&str], option: &str) {
    let out = run(args, "");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    assert!(stderr.contains(option), "{args:?}: {stderr}");
}

#[test]
fn options_out_of_range_exit_2_with_the_same_words() {
    for time in ["1e300", "0", "-1", "nan", "inf", "soon"] {
        refused_option(&["solve", "oware", "--time", time], "--time");
        refused_option(&["search", "connect4", "--time", time], "--time");
        refused_option(&["play", "connect4", "--time", time], "--time");
    }
    refused_option(&["search", "tictactoe", "--depth", "0"], "--depth");
    refused_option(&["search", "tictactoe", "--nodes", "0"], "--nodes");
    refused_option(&["solve", "oware", "--depth", "0"], "--depth");
    refused_option(&["verify", "oware", "--db", "x", "--sample", "0"], "--sample");
    refused_option(&["tree", "(1 2)", "--trace"], "--json");
}

#[test]
fn hostile_inputs_get_errors_or_right_answers_not_panics() {
    // A leaf beyond 64 bits' absolute value was read as 0.
    let err = fails(&["tree", "((-9223372036854775808) (-5))"], "");
    assert!(err.contains("column 3"), "{err}");
    // A node name longer than a format width.
    let name = "A".repeat(70_000);
    let out = run(&["graph", "-"], &format!("{name} -> B\n"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().contains(&format!("{name}  win")));
    // A device where a database file should be is refused before it is read, and a file that is
    // not a database from its first bytes.
    let err = fails(&["solve", "tictactoe", "--db", "/dev/zero"], "");
    assert!(err.contains("/dev/zero: not a regular file"), "{err}");
    let junk = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(junk.path(), vec![0u8; 1 << 20]).unwrap();
    let err = fails(&["solve", "tictactoe", "--db", junk.path().to_str().unwrap()], "");
    assert!(err.contains("GGDB signature"), "{err}");
    // A byte order mark is not part of a name; a control character in one is refused.
    let out = run(&["graph", "-"], "\u{feff}A -> B\n");
    assert!(String::from_utf8(out.stdout).unwrap().lines().nth(1).unwrap().starts_with("A "));
    let err = fails(&["graph", "-"], "A -> B\u{0}\n");
    assert!(err.contains("line 1, column 7") && err.contains("control character"), "{err}");
    // A long input is quoted by its start, and a cause is said once.
    let err = fails(&["solve", "connect4", &"1".repeat(60_000)], "");
    assert!(err.len() < 400 && err.contains("60000 characters"), "{}", err.len());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let err = fails(&["build", "oware", "--stones", "2", "--db", file.join("x").to_str().unwrap()], "");
    assert_eq!(err.matches("Not a directory").count(), 1, "{err}");
    // An edge list's ids bound its memory: a huge id is named, not allocated.
    let err = fails(&["graph", "-", "--format", "edges"], "0 1\n0 4294967294\n");
    assert!(err.contains("line 2, column 3") && err.contains("too large"), "{err}");
    // A finished Connect 4 game has no moves, not seven full columns.
    assert_eq!(ok(&["solve", "connect4", "1212121", "--analyze"]).trim(), "1212121 -18");
    // search shows a won game as solve does, not the engine's internal score.
    let out = ok(&["search", "tictactoe", "XX.OO....", "--threads", "1"]);
    assert!(out.starts_with("value win +1 in 1 at the end of the game"), "{out}");
}

#[test]
fn a_closed_output_ends_the_command_quietly() {
    use std::io::{BufRead, BufReader};
    let input = std::fs::read_to_string(connect4_file("Test_L3_R1")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamegraph"))
        .args(["solve", "connect4", "-", "--threads", "1", "--hash", "16"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    // Read one answer, as `| head -1` does, and close the pipe.
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("2252576253462244111563365343671351441 -1"), "{first}");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[cfg(unix)]
#[test]
fn a_database_is_written_to_regular_files_only_through_links() {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    // A device is refused and stays a device.
    let err = fails(&["build", "tictactoe", "--out", "/dev/null"], "");
    assert!(err.contains("not a regular file"), "{err}");
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    // A symbolic link is followed: the link stays, the file it names is replaced.
    let dir = tempfile::tempdir().unwrap();
    let (real, link) = (dir.path().join("real.db"), dir.path().join("link.db"));
    std::fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    ok(&["build", "tictactoe", "--out", link.to_str().unwrap()]);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_ne!(std::fs::read(&real).unwrap(), b"old");
    ok(&["solve", "tictactoe", "--db", link.to_str().unwrap()]);
    // A new file gets the mode any new file gets here (the umask's), not the temporary's 0600.
    let fresh = dir.path().join("fresh.db");
    ok(&["build", "tictactoe", "--out", fresh.to_str().unwrap()]);
    let reference = dir.path().join("reference");
    std::fs::File::create(&reference).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().mode() & 0o777;
    assert_eq!(mode(&fresh), mode(&reference));
    // Nothing temporary is left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 4, "{left:?}");
}

/// A tmpfs of `kib` KiB mounted on a fresh directory, unmounted on drop; `None` where this user
/// cannot mount (the test command runs as root, as CI does).
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn new(kib: u32) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().ok()?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs", dir.path().to_str()?])
            .stderr(Stdio::null())
            .status()
            .ok()?
            .success();
        mounted.then_some(SmallDisk { dir })
    }

    fn path(&self) -> &std::path::Path {
        self.dir.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// A disk that fills up during a build: the error says so, the previous file stays whole, no
/// temporary file is left, and an Oware build resumes once there is room.
#[test]
fn a_full_disk_leaves_the_previous_files_intact() {
    let Some(disk) = SmallDisk::new(64) else {
        eprintln!("skipped: cannot mount a tmpfs here (run as root, as CI does)");
        return;
    };
    let db = disk.path().join("game.db");
    let db_path = db.to_str().unwrap();
    json(&["build", "nim", "--from", "1,1", "--out", db_path, "--json"]);
    let before = std::fs::read(&db).unwrap();
    let err = fails(&["build", "tictactoe", "--out", db_path], "");
    assert!(err.contains("No space left"), "{err}");
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let left: Vec<_> = std::fs::read_dir(disk.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["game.db"]);
    json(&["solve", "nim", "1,1", "--db", db_path, "--json"]);

    // Oware: the stone counts that fit are kept; with room, the build resumes and ends as one
    // built on a large disk does.
    let full = SmallDisk::new(160).unwrap();
    let dir = full.path().join("awari");
    // (Each finished stone count is reported on stderr, then the error.)
    let out = run(&["build", "oware", "--stones", "9", "--db", dir.to_str().unwrap()], "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !stderr.contains("panicked"), "{stderr}");
    assert!(stderr.trim_end().lines().last().unwrap().contains("No space left"), "{stderr}");
    // Kept: the stone counts the manifest lists (a file written whole whose manifest could not
    // be written after it is not kept, and is built again).
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let kept = manifest["layers"].as_array().unwrap().len();
    assert!(kept > 0 && kept < 10, "{kept} stone counts kept");
    let roomy = tempfile::tempdir().unwrap();
    let moved = roomy.path().join("awari");
    std::fs::create_dir(&moved).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), moved.join(entry.file_name())).unwrap();
    }
    let resumed = json(&["build", "oware", "--stones", "9", "--db", moved.to_str().unwrap(), "--json"]);
    assert_eq!(resumed["resumed"].as_u64(), Some(kept as u64));
    let reference = oware_database(9);
    assert_eq!(score_files(&moved), score_files(reference.path()));
}

/// A read-only disk: the build says so and the previous file stays whole.
#[test]
fn a_read_only_disk_leaves_the_previous_file_intact() {
    let Some(disk) = SmallDisk::new(256) else {
        eprintln!("skipped: cannot mount a tmpfs here (run as root, as CI does)");
        return;
    };
    let db = disk.path().join("game.db");
    json(&["build", "nim", "--from", "1,1", "--out", db.to_str().unwrap(), "--json"]);
    let before = std::fs::read(&db).unwrap();
    let remount = |mode: &str| {
        Command::new("mount").args(["-o", &format!("remount,{mode}"), disk.path().to_str().unwrap()]).status()
    };
    assert!(remount("ro").unwrap().success());
    let err = fails(&["build", "tictactoe", "--out", db.to_str().unwrap()], "");
    let _ = remount("rw");
    assert!(err.contains("Read-only"), "{err}");
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

/// A build killed at any moment leaves the previous file whole, and the next write removes what
/// the killed one left.
#[test]
fn a_killed_build_never_leaves_a_broken_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ttt.db");
    let db_path = db.to_str().unwrap();
    json(&["build", "nim", "--from", "1,1", "--out", db_path, "--json"]);
    let before = std::fs::read(&db).unwrap();
    for delay_ms in [0u64, 5, 20, 40, 60, 90] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gamegraph"))
            .args(["build", "tictactoe", "--out", db_path])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        child.wait().unwrap();
        // Either the old database or the new complete one, never a part.
        let now = std::fs::read(&db).unwrap();
        if now != before {
            ok(&["solve", "tictactoe", "--db", db_path]);
            break;
        }
    }
    // The next write removes the temporaries of killed processes.
    json(&["build", "tictactoe", "--out", db_path, "--json"]);
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["ttt.db"]);
}
