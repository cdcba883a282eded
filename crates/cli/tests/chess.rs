//! `gamegraph` on chess end to end: perft, building tables (and resuming a killed build with
//! identical files), solving, statistics, verification, and every kind of bad input.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{fails, json, ok, run};

const KRK: &str = "8/8/8/8/8/2k5/1R6/K7 w - - 0 1";

/// A directory with the tables `spec` needs.
fn tables(spec: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ok(&["build", "chess", "--tables", spec, "--db", dir.path().to_str().unwrap()]);
    dir
}

/// The table files of a directory and their bytes, by name.
fn table_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".dtm"))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn perft_counts_the_standard_positions() {
    assert_eq!(ok(&["perft", "chess", "3"]).trim(), "8902");
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    assert_eq!(ok(&["perft", "chess", "3", kiwipete]).trim(), "97862");
}

#[test]
fn solve_gives_the_distance_to_mate_and_every_move() {
    let dir = tables("KRvK");
    let db = dir.path().to_str().unwrap();
    let text = ok(&["solve", "chess", KRK, "--db", db]);
    assert!(text.contains(&format!("{KRK}: win in 16 (31 plies)")), "{text}");
    assert!(text.contains("b2b1  win in 16 (31 plies)  (best)"), "{text}");
    assert!(text.contains("b2c2  draw"), "{text}");
    let v = json(&["solve", "chess", KRK, "--db", db, "--json"]);
    assert_eq!(v["value"]["outcome"], "win");
    assert_eq!(v["value"]["plies"], 31);
    assert_eq!(v["moves_to_mate"], 16);
    // Best first: the first move keeps the win at its distance, the last throws the rook away.
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves[0]["value"]["plies"], 31);
    assert_eq!(moves.len(), 16);
    // One FEN a line, answers that read back in.
    let lines = "8/8/8/8/8/2k5/1R6/K7 w - - 0 1\n\nk7/1R6/1K6/8/8/8/8/8 b - - 0 1\n8/8/8/8/8/8/1Rk5/K7 b - - 0 1; loss 32\n";
    let out = run(&["solve", "chess", "-", "--db", db], lines);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "8/8/8/8/8/2k5/1R6/K7 w - - 0 1; win 31\nk7/1R6/1K6/8/8/8/8/8 b - - 0 1; draw\n8/8/8/8/8/8/1Rk5/K7 b - - 0 1; loss 32\n"
    );
    // A mated side to move.
    let out = run(&["solve", "chess", "-", "--db", db], "R1k5/8/2K5/8/8/8/8/8 b - - 0 1\n");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "R1k5/8/2K5/8/8/8/8/8 b - - 0 1; loss 0\n");
}

#[test]
fn stats_and_verify_report_the_tables() {
    let dir = tables("KQvK");
    let db = dir.path().to_str().unwrap();
    let v = json(&["stats", "chess", "--db", db, "--json"]);
    let kqk = &v["tables"][0];
    assert_eq!(kqk["material"], "KQvK");
    assert_eq!(kqk["sides"][0]["longest"], 19);
    assert_eq!(kqk["sides"][1]["stored"], 28_056);
    let text = ok(&["verify", "chess", "--db", db]);
    assert!(text.contains("KQvK: 59136 entries, 0 inconsistent"), "{text}");
    // A check with a record goes on from it: a table it holds is not checked again.
    let record = dir.path().join("verified.jsonl");
    let record = record.to_str().unwrap();
    let text = ok(&["verify", "chess", "--db", db, "--record", record]);
    assert!(!text.contains("earlier check"), "{text}");
    let text = ok(&["verify", "chess", "--db", db, "--record", record]);
    assert!(text.contains("KQvK: 59136 entries, 0 inconsistent"), "{text}");
    assert!(text.contains("verified 1 tables") && text.contains("(1 of them by an earlier check"), "{text}");
    // A table the record holds still has its file checked.
    let file = dir.path().join("KQvK.dtm");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let err = fails(&["verify", "chess", "--db", db, "--record", record], "");
    assert!(err.contains("KQvK.dtm") && err.contains("SHA-256"), "{err}");
    std::fs::write(record, "{\"part\": 3}\n").unwrap();
    let err = fails(&["verify", "chess", "--db", db, "--record", record], "");
    assert!(err.contains("verified.jsonl line 1 column"), "{err}");
}

#[test]
fn bad_input_gets_a_one_line_error() {
    let dir = tables("KRvK");
    let db = dir.path().to_str().unwrap();
    let err = fails(&["solve", "chess", "8/8/8/8/8/2k5/1R6/K7 x - - 0 1", "--db", db], "");
    assert!(err.contains("column 22") && err.contains("side to move"), "{err}");
    let err = fails(&["solve", "chess", "8/8/8/8/8/2k5/1R9/K7 w - - 0 1", "--db", db], "");
    assert!(err.contains("column 17") && err.contains("from 1 to 8"), "{err}");
    // Illegal positions get their reason.
    for (fen, reason) in [
        ("8/8/8/8/8/2k5/1R6/8 w - - 0 1", "White has no king"),
        ("8/8/8/8/8/2k5/1R6/KK6 w - - 0 1", "more than one king"),
        ("P7/8/8/8/8/2k5/1R6/K7 w - - 0 1", "pawn stands on the first or last rank"),
        ("8/8/8/8/8/2k5/2R5/K7 w - - 0 1", "side not to move is in check"),
        ("8/8/8/8/2k5/1R6/K7 w - - 0 1", "7 ranks"),
        ("8/8/8/8/8/2k5/1R6/K8 w - - 0 1", "rank 1 has 9 squares"),
    ] {
        let err = fails(&["solve", "chess", fen, "--db", db], "");
        assert!(err.contains(reason), "{fen}: {err}");
    }
    // What the operating system says is said once, and a file in place of a directory is named.
    let file = dir.path().join("KRvK.dtm");
    let err = fails(&["build", "chess", "--tables", "KRvK", "--db", file.to_str().unwrap()], "");
    assert!(err.contains("exists and is not a directory"), "{err}");
    let err = fails(&["solve", "chess", KRK, "--db", file.join("x").to_str().unwrap()], "");
    assert_eq!(err.matches("Not a directory").count(), 1, "{err}");
    let err = fails(&["solve", "chess", "8/8/8/8/8/8/1k6/K1R5 w - - 0 1", "--db", db], "");
    assert!(err.contains("kings stand side by side"), "{err}");
    let err = fails(&["solve", "chess", "8/8/8/8/8/2k5/7Q/K7 w - - 0 1", "--db", db], "");
    assert!(err.contains("KQvK table was not built"), "{err}");
    // Beyond the tables (more pieces, castling rights, no tables at all): a search, marked as
    // not exact, as the web page answers.
    for (fen, tables) in [
        ("8/8/8/8/8/2k5/1R6/KQ6 w - - 0 1", Some(db)),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", Some(db)),
        (KRK, None),
    ] {
        let mut args = vec!["solve", "chess", fen, "--depth", "2"];
        args.extend(tables.iter().flat_map(|db| ["--db", db]));
        args.push("--json");
        let v = json(&args);
        assert_eq!(v["exact"], false, "{fen}: {v}");
        assert_eq!(v["depth"], 2, "{fen}: {v}");
        assert!(v["moves"].as_array().unwrap().iter().any(|m| m["exact"] == false), "{fen}: {v}");
        let text = ok(&args[..args.len() - 1]);
        assert!(text.contains("(searched 2 plies, not exact)"), "{fen}: {text}");
    }
    // Castling rights are not in the tables, but every move leaves them: valued exactly.
    let v = json(&["solve", "chess", "r3k3/8/8/8/8/8/8/4K3 b q - 0 1", "--db", db, "--json"]);
    assert_eq!((v["exact"].clone(), v["value"]["outcome"].clone()), (true.into(), "win".into()), "{v}");
    // Mate solving reads FENs line by line too, and is for chess only.
    let out = run(
        &["solve", "chess", "-", "--mate", "1"],
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1

4k3/8 w
",
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1; mate 1: Rd8#\n");
    assert!(String::from_utf8(out.stderr).unwrap().contains("standard input line 3"));
    let err = fails(&["solve", "tictactoe", "--mate", "2"], "");
    assert!(err.contains("--mate"), "{err}");
    let err = fails(&["solve", "chess", "-", "--db", db], "8/8/8/8/8/2k5/1R6/K7 w - - 0 1\nnot a fen\n");
    assert!(err.contains("line 2"), "{err}");
    let empty = tempfile::tempdir().unwrap();
    let err = fails(&["solve", "chess", KRK, "--db", empty.path().to_str().unwrap()], "");
    assert!(err.contains("no chess tables here"), "{err}");
    let err = fails(&["build", "chess", "--tables", "KQvKX", "--db", db], "");
    assert!(err.contains("'X' is not a piece"), "{err}");
    let err = fails(&["build", "chess", "--tables", "6", "--db", db], "");
    assert!(err.contains("3 to 5"), "{err}");
    let err = fails(&["build", "chess", "--db", db], "");
    assert!(err.contains("--tables"), "{err}");
    // A damaged file is refused by name.
    let file = dir.path().join("KRvK.dtm");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let err = fails(&["solve", "chess", KRK, "--db", db], "");
    assert!(err.contains("KRvK.dtm") && err.contains("SHA-256"), "{err}");
    let err = fails(&["verify", "chess", "--db", db], "");
    assert!(err.contains("KRvK.dtm"), "{err}");
}

#[test]
fn a_killed_build_resumes_with_identical_files() {
    let reference = tables("KQvKR");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamegraph"))
        .args(["build", "chess", "--tables", "KQvKR", "--db", path])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once the manifest lists the smaller tables, in the middle of KQvKR.
    let listed = || {
        std::fs::read_to_string(dir.path().join("manifest.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .map_or(0, |m| m["tables"].as_array().unwrap().len())
    };
    while listed() < 2 && child.try_wait().unwrap().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!dir.path().join("KQvKR.dtm").exists(), "killed before the last table was written");
    // A damaged kept file is built again too.
    let kept = dir.path().join("KQvK.dtm");
    let mut bytes = std::fs::read(&kept).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&kept, bytes).unwrap();
    let resumed = json(&["build", "chess", "--tables", "KQvKR", "--db", path, "--json"]);
    let built: Vec<&str> =
        resumed["built"].as_array().unwrap().iter().map(|b| b["material"].as_str().unwrap()).collect();
    assert!(built.contains(&"KQvK") && built.contains(&"KQvKR") && !built.contains(&"KRvK"), "{built:?}");
    assert_eq!(table_files(dir.path()), table_files(reference.path()));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_manifest_or_a_table_that_is_a_device_or_a_pipe_is_refused_at_once() {
    let dir = tables("KRvK");
    let db = dir.path().to_str().unwrap();
    // A table file replaced by a pipe: opening it would wait for a writer for ever.
    let table = dir.path().join("KRvK.dtm");
    std::fs::remove_file(&table).unwrap();
    if Command::new("mkfifo").arg(&table).status().is_ok_and(|s| s.success()) {
        let err = fails(&["solve", "chess", KRK, "--db", db], "");
        assert!(err.contains("KRvK.dtm") && err.contains("not a regular file"), "{err}");
    }
    // A manifest that reads without end.
    let manifest = dir.path().join("manifest.json");
    std::fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &manifest).unwrap();
    for command in [&["stats", "chess", "--db", db][..], &["solve", "chess", KRK, "--db", db]] {
        let err = fails(command, "");
        assert!(err.contains("manifest.json") && err.contains("not a regular file"), "{command:?}: {err}");
    }
}

#[test]
fn fens_with_a_byte_order_mark_or_four_fields_are_read_and_a_zero_rank_digit_is_not() {
    let dir = tables("KRvK");
    let db = dir.path().to_str().unwrap();
    // A file saved with a byte order mark, one line in EPD's four fields.
    let out = run(
        &["solve", "chess", "-", "--db", db],
        "\u{feff}8/8/8/8/8/2k5/1R6/K7 w - -\nk7/1R6/1K6/8/8/8/8/8 b - -\n",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "8/8/8/8/8/2k5/1R6/K7 w - -; win 31\nk7/1R6/1K6/8/8/8/8/8 b - -; draw\n"
    );
    let err = fails(&["solve", "chess", "8/8/8/8/8/2k5/1R6/K07 w - - 0 1", "--db", db], "");
    assert!(err.contains("column 20") && err.contains("from 1 to 8"), "{err}");
}

#[test]
fn a_build_into_a_directory_another_build_holds_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().to_str().unwrap();
    // Another build holds the directory (its lock, as a build takes it).
    let lock = std::fs::File::create(dir.path().join(".gamegraph.lock")).unwrap();
    lock.try_lock().unwrap();
    std::fs::write(dir.path().join(".gamegraph.lock"), "4242").unwrap();
    for build in [
        &["build", "chess", "--tables", "KRvK", "--db", db][..],
        &["build", "oware", "--stones", "3", "--db", db],
    ] {
        let err = fails(build, "");
        assert!(err.contains("is being built by process 4242"), "{build:?}: {err}");
    }
    drop(lock);
    ok(&["build", "chess", "--tables", "KRvK", "--db", db]);
    assert!(!dir.path().join(".gamegraph.lock").exists(), "the lock goes with the build");
}

#[test]
fn a_table_built_again_keeps_its_place_in_the_manifest() {
    let dir = tables("KQvKR");
    let db = dir.path().to_str().unwrap();
    let manifest = std::fs::read(dir.path().join("manifest.json")).unwrap();
    let file = dir.path().join("KQvK.dtm");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    ok(&["build", "chess", "--tables", "KQvKR", "--db", db]);
    assert!(
        std::fs::read(dir.path().join("manifest.json")).unwrap() == manifest,
        "the manifest of a fresh build"
    );
}

#[test]
fn a_mate_search_obeys_its_time_and_its_table_size() {
    let opening = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let started = std::time::Instant::now();
    let out = ok(&["solve", "chess", opening, "--mate", "8", "--time", "1", "--hash", "1"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
    assert!(
        out.contains("no mate found in 8 within the time") && out.contains("stopped by the time limit"),
        "{out}"
    );
    let v = json(&["solve", "chess", opening, "--mate", "8", "--time", "0.5", "--json"]);
    assert_eq!(v["complete"], false, "{v}");
    // Without a table at all, mates are still proven.
    let out = ok(&["solve", "chess", "k7/8/8/3K4/8/8/8/7R w - - 0 1", "--mate", "3", "--hash", "1"]);
    assert!(out.trim_end().ends_with("mate 3: Kc6"), "{out}");
}
