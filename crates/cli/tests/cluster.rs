//! `graph --hostfile` end to end: two and three processes on loopback ports give the one-process
//! answer byte for byte; a process that never comes, or one with another number of workers,
//! makes the run fail cleanly and in bounded time.

mod common;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use common::{fails, ok};

/// A random edge list with cycles and stakes: `nodes` nodes, reproducible from `seed`.
fn edges(nodes: u64, seed: u64) -> String {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        state >> 33
    };
    let mut text = String::new();
    for u in 0..nodes {
        if next() % 7 == 0 {
            text.push_str(&format!("{u} = {}\n", next() % 11));
        } else {
            for _ in 0..1 + next() % 4 {
                text.push_str(&format!("{u} {}\n", next() % nodes));
            }
        }
    }
    text
}

/// A host file of `n` free loopback ports, none used before by this test binary and all below
/// Linux's ephemeral range (from 32768): a port from that range, free when the file is written,
/// can be given meanwhile to the outgoing end of some other test's connection, and the process
/// that must listen on it then fails.
fn hostfile(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    const FIRST: u32 = 10_000;
    const PORTS: u32 = 22_000;
    let start = std::process::id().wrapping_mul(7919);
    let mut lines = Vec::new();
    while lines.len() < n {
        let port = FIRST + start.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed)) % PORTS;
        let address = format!("127.0.0.1:{port}");
        if TcpListener::bind(&address).is_ok() {
            lines.push(address);
        }
    }
    let path = dir.join("hosts");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gamegraph"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// Starts `gamegraph` with `args`, its output discarded (a process the test will kill).
fn spawn_silent(args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gamegraph"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs")
}

/// Runs process 0 (`args("0")`) beside process 1 (`args("1")`), kills process 1 after `after`,
/// and returns process 0's output.
fn kill_process_1_after(args: impl Fn(&'static str) -> Vec<String>, after: Duration) -> std::process::Output {
    let mut other = spawn_silent(&args("1"));
    let main = spawn(&args("0").iter().map(String::as_str).collect::<Vec<_>>());
    std::thread::sleep(after);
    other.kill().unwrap();
    other.wait().unwrap();
    main.wait_with_output().unwrap()
}

/// Runs `base` on `processes` processes of `workers` workers on loopback ports and returns
/// process 0's output, checking that the others succeed and print nothing.
fn on_processes(dir: &std::path::Path, base: &[&str], processes: usize, workers: &str) -> String {
    let hosts = hostfile(dir, processes);
    let hosts = hosts.to_str().unwrap();
    let others: Vec<Child> = (1..processes)
        .map(|i| {
            let i = i.to_string();
            let mut args = base.to_vec();
            args.extend(["--hostfile", hosts, "--process", &i, "--workers", workers]);
            spawn(&args)
        })
        .collect();
    let mut args = base.to_vec();
    args.extend(["--hostfile", hosts, "--process", "0", "--workers", workers]);
    let printed = ok(&args);
    for other in others {
        let out = other.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty(), "only process 0 prints");
    }
    printed
}

#[test]
fn processes_on_loopback_give_the_one_process_answer() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.edges");
    std::fs::write(&graph, edges(3000, 5)).unwrap();
    let graph = graph.to_str().unwrap();
    for model in ["outcome", "stakes", "minimax"] {
        let base = ["graph", graph, "--format", "edges", "--csv", "--model", model];
        let expected = ok(&base);
        for (processes, workers) in [(2, "1"), (3, "2")] {
            let printed = on_processes(dir.path(), &base, processes, workers);
            assert_eq!(printed, expected, "{model} on {processes} processes of {workers} workers");
        }
        let mut args = base.to_vec();
        args.extend(["--workers", "3"]);
        assert_eq!(ok(&args), expected, "{model} on one process of 3 workers");
    }
}

/// `bench graph --hostfile`, where each process generates the graph and keeps only its part:
/// every model's wins, losses and draws are the one-machine kernel's.
#[test]
fn the_graph_bench_over_processes_counts_what_one_machine_counts() {
    let dir = tempfile::tempdir().unwrap();
    let base = ["bench", "graph", "--nodes", "20000", "--edges", "70000", "--seed", "4", "--json"];
    let counts = |json: &str| -> Vec<(String, u64, u64, u64)> {
        let report: serde_json::Value = serde_json::from_str(json).unwrap();
        let solves = report["solve"].as_array().unwrap();
        let count = |s: &serde_json::Value, key: &str| s[key].as_u64().unwrap();
        solves
            .iter()
            .map(|s| (s["model"].to_string(), count(s, "win"), count(s, "lose"), count(s, "draw")))
            .collect()
    };
    let expected = counts(&ok(&base));
    assert_eq!(expected.len(), 3, "three models");
    assert!(expected.iter().all(|(_, w, l, d)| w + l + d == 20_000 && w * l > 0));
    for (processes, workers) in [(2, "1"), (3, "2")] {
        let printed = on_processes(dir.path(), &base, processes, workers);
        assert_eq!(counts(&printed), expected, "{processes} processes of {workers} workers");
    }
}

#[test]
fn a_missing_process_or_other_workers_fail_cleanly_in_bounded_time() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.edges");
    std::fs::write(&graph, edges(200, 9)).unwrap();
    let graph = graph.to_str().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let hosts = hosts.to_str().unwrap();
    let base = ["graph", graph, "--format", "edges", "--hostfile", hosts];

    // Process 1 never starts.
    let started = Instant::now();
    let mut args = base.to_vec();
    args.extend(["--process", "0", "--connect-timeout", "1"]);
    let message = fails(&args, "");
    assert!(message.contains("process(es) 1 did not connect within 1 s"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(20));

    // Process 1 runs 2 workers, process 0 one.
    let mut args = base.to_vec();
    args.extend(["--process", "1", "--workers", "2", "--connect-timeout", "20"]);
    let other = spawn(&args);
    let mut args = base.to_vec();
    args.extend(["--process", "0", "--connect-timeout", "20"]);
    let message = fails(&args, "");
    assert!(message.contains("every process needs the same --workers"), "{message}");
    let out = other.wait_with_output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("every process needs the same --workers"));
}

#[test]
fn a_process_killed_during_the_run_makes_the_others_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let hosts = hosts.to_str().unwrap();
    let args = |process: &'static str| {
        [
            "bench",
            "graph",
            "--nodes",
            "1000000",
            "--edges",
            "10000000",
            "--hostfile",
            hosts,
            "--process",
            process,
        ]
        .into_iter()
        .chain(["--connect-timeout", "20"])
        .map(str::to_string)
        .collect::<Vec<String>>()
    };
    let started = Instant::now();
    // Killed while building its graph or solving: either way process 0 must not hang.
    let out = kill_process_1_after(args, Duration::from_millis(1500));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "process 0 cannot finish without process 1");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("a process stopped") || stderr.contains("did not connect"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_malformed_host_file_is_refused_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, "127.0.0.1:4000\n127.0.0.1:http\n").unwrap();
    let graph = dir.path().join("g.edges");
    std::fs::write(&graph, "0 1\n1 = 1\n").unwrap();
    let args = ["graph", graph.to_str().unwrap(), "--format", "edges", "--hostfile", hosts.to_str().unwrap()];
    let mut bad = args.to_vec();
    bad.extend(["--process", "0"]);
    let message = fails(&bad, "");
    assert!(message.contains("line 2, column 11: 'http' is not a port number"), "{message}");
    std::fs::write(&hosts, "127.0.0.1:4000\n127.0.0.1:4001\n").unwrap();
    let mut bad = args.to_vec();
    bad.extend(["--process", "2"]);
    assert!(fails(&bad, "").contains("process 2 is not in the host file"));
    // A game without a database directory is solved on one machine.
    let message = fails(&["build", "tictactoe", "--workers", "2"], "");
    assert!(message.contains("tictactoe is built on one machine"), "{message}");
}

/// Runs `build oware` to `stones` on the processes of `hosts` (each with `workers` workers) into
/// `db`; process 0's standard output.
fn build_on(
    hosts: &std::path::Path,
    processes: usize,
    workers: &str,
    db: &std::path::Path,
    stones: &str,
) -> String {
    let (hosts, db) = (hosts.to_str().unwrap(), db.to_str().unwrap());
    let base = ["build", "oware", "--stones", stones, "--db", db, "--hostfile", hosts, "--workers", workers];
    let others: Vec<Child> = (1..processes)
        .map(|i| {
            let i = i.to_string();
            let mut args = base.to_vec();
            args.extend(["--process", &i]);
            spawn(&args)
        })
        .collect();
    let mut args = base.to_vec();
    args.extend(["--process", "0"]);
    let out = ok(&args);
    for other in others {
        let done = other.wait_with_output().unwrap();
        assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    }
    out
}

/// Every file of `a` and `b` (score files and manifest), byte for byte.
fn same_files(a: &std::path::Path, b: &std::path::Path) {
    let mut names: Vec<_> = std::fs::read_dir(a).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    let mut others: Vec<_> = std::fs::read_dir(b).unwrap().map(|e| e.unwrap().file_name()).collect();
    others.sort();
    assert_eq!(names, others);
    for name in names {
        assert!(
            std::fs::read(a.join(&name)).unwrap() == std::fs::read(b.join(&name)).unwrap(),
            "{name:?} differs"
        );
    }
}

#[test]
fn oware_on_two_and_three_processes_writes_the_one_process_files() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    ok(&["build", "oware", "--stones", "12", "--db", one.to_str().unwrap()]);
    let two = dir.path().join("two");
    build_on(&hostfile(dir.path(), 2), 2, "1", &two, "12");
    same_files(&one, &two);
    // Three processes of two workers to 10 stones, then resumed to 12.
    let three = dir.path().join("three");
    build_on(&hostfile(dir.path(), 3), 3, "2", &three, "10");
    let resumed = build_on(&hostfile(dir.path(), 3), 3, "2", &three, "12");
    assert!(resumed.contains("kept the 11 complete stone counts 0 to 10"), "{resumed}");
    same_files(&one, &three);
}

#[test]
fn an_oware_build_whose_process_dies_fails_cleanly_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let hosts = hostfile(dir.path(), 2);
    let (h, d) = (hosts.to_str().unwrap(), db.to_str().unwrap());
    let args = |process: &'static str| -> Vec<String> {
        [
            "build",
            "oware",
            "--stones",
            "14",
            "--db",
            d,
            "--hostfile",
            h,
            "--process",
            process,
            "--connect-timeout",
            "8",
        ]
        .map(str::to_string)
        .to_vec()
    };
    let out = kill_process_1_after(args, Duration::from_millis(2500));
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        // This machine built all 15 stone counts in 2.5 s: nothing left to interrupt.
        return;
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("a process stopped") || stderr.contains("did not connect"), "{stderr}");
    // The rerun (one process) completes what the manifest does not list, and the files are
    // those of a build that was never interrupted.
    ok(&["build", "oware", "--stones", "14", "--db", d]);
    let fresh = dir.path().join("fresh");
    ok(&["build", "oware", "--stones", "14", "--db", fresh.to_str().unwrap()]);
    same_files(&fresh, &db);
}

/// Runs `build chess --tables TABLES` on `processes` processes of `workers` workers into `db`;
/// process 0's standard output.
fn build_chess_on(dir: &std::path::Path, processes: usize, workers: &str, db: &std::path::Path) -> String {
    let base = ["build", "chess", "--tables", CHESS_TABLES, "--db", db.to_str().unwrap()];
    on_processes(dir, &base, processes, workers)
}

/// Every table of up to 4 pieces that KRPvKR leads to (15 with the 3-piece ones), with and
/// without pawns: those two lead to all the others.
const CHESS_TABLES: &str = "KRPvK,KRvKP";

#[test]
fn chess_tables_on_two_processes_or_two_workers_are_the_one_process_files() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    ok(&["build", "chess", "--tables", CHESS_TABLES, "--db", one.to_str().unwrap()]);
    let two = dir.path().join("two");
    let out = build_chess_on(dir.path(), 2, "1", &two);
    assert!(out.contains("built 15 tables"), "{out}");
    same_files(&one, &two);
    let workers = dir.path().join("workers");
    build_chess_on(dir.path(), 1, "2", &workers);
    same_files(&one, &workers);
    // Resumed: nothing left to build.
    let again = build_chess_on(dir.path(), 2, "1", &two);
    assert!(again.contains("built 0 tables"), "{again}");
    same_files(&one, &two);
}

#[test]
fn a_chess_build_whose_process_dies_resumes_to_the_one_process_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let hosts = hostfile(dir.path(), 2);
    let (h, d) = (hosts.to_str().unwrap(), db.to_str().unwrap());
    let args = |process: &'static str| -> Vec<String> {
        ["build", "chess", "--tables", CHESS_TABLES, "--db", d, "--hostfile", h, "--process", process]
            .into_iter()
            .chain(["--connect-timeout", "8"])
            .map(str::to_string)
            .collect()
    };
    // Long enough to build some tables, not all fifteen.
    let out = kill_process_1_after(args, Duration::from_millis(1500));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "process 0 goes on without process 1");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("a process stopped") || stderr.contains("did not connect"), "{stderr}");
    // Resumed over two processes again: the tables left, the same files as a build never
    // interrupted.
    let resumed = build_chess_on(dir.path(), 2, "1", &db);
    assert!(!resumed.contains("built 15 tables"), "some tables were kept: {resumed}");
    let fresh = dir.path().join("fresh");
    ok(&["build", "chess", "--tables", CHESS_TABLES, "--db", fresh.to_str().unwrap()]);
    same_files(&fresh, &db);
}

/// Freezes `child` (SIGSTOP): it stays alive, its connections stay open and its machine's kernel
/// still answers for it, but it does nothing, as a process stuck in a debugger or swapped out.
fn freeze(child: &Child) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) takes two integers and touches no memory of ours. The pid is a child that
    // has not been waited for, so it cannot have been reused by another process.
    let sent = unsafe { libc::kill(pid, libc::SIGSTOP) };
    assert_eq!(sent, 0, "SIGSTOP to process {pid}");
}

#[test]
fn a_frozen_process_makes_the_others_fail_within_the_hang_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let (hosts, db) = (hosts.to_str().unwrap(), dir.path().join("db"));
    let args = |process: &'static str| -> Vec<String> {
        let db = db.to_str().unwrap();
        ["build", "oware", "--stones", "16", "--db", db, "--hostfile", hosts, "--process", process]
            .into_iter()
            .chain(["--connect-timeout", "8", "--hang-timeout", "3"])
            .map(str::to_string)
            .collect()
    };
    let mut other = spawn_silent(&args("1"));
    let mut main = spawn(&args("0").iter().map(String::as_str).collect::<Vec<_>>());
    std::thread::sleep(Duration::from_millis(2500));
    freeze(&other);
    let frozen = Instant::now();
    // Process 0 is killed if it has not stopped after a minute (its error output is a few lines:
    // it cannot fill the pipe and block).
    let stopped = loop {
        if main.try_wait().unwrap().is_some() {
            break frozen.elapsed();
        }
        if frozen.elapsed() > Duration::from_secs(60) {
            main.kill().unwrap();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = main.wait_with_output().unwrap();
    other.kill().unwrap();
    other.wait().unwrap();
    // Frozen inside a stone count's run: the heartbeat stops it after 3 s; between two runs:
    // the next run's connection times out after 8 s. Never a hang.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "process 0 cannot finish without process 1");
    assert!(stopped < Duration::from_secs(40), "stopped after {stopped:?}: {stderr}");
    assert!(stderr.contains("sent no heartbeat for 3 s") || stderr.contains("did not connect"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `bench oware --hostfile`: every process reports its time, messages and memory, process 0 the
/// positions, as many as one process builds; a shared directory is required and must be new.
#[test]
fn the_oware_bench_over_processes_reports_every_process() {
    let dir = tempfile::tempdir().unwrap();
    let json = |text: &str| -> serde_json::Value { serde_json::from_str(text).unwrap() };
    let alone = json(&ok(&["bench", "oware", "--stones", "9", "--json"]));
    let db = dir.path().join("db");
    let hosts = hostfile(dir.path(), 2);
    let (db, hosts) = (db.to_str().unwrap(), hosts.to_str().unwrap());
    let base = ["bench", "oware", "--stones", "9", "--db", db, "--json", "--hostfile", hosts];
    let mut args = base.to_vec();
    args.extend(["--process", "1"]);
    let other = spawn(&args);
    let mut args = base.to_vec();
    args.extend(["--process", "0"]);
    let first = json(&ok(&args));
    let out = other.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let second = json(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(first["positions"], alone["positions"]);
    assert!(second["positions"].is_null(), "only process 0 counts the positions");
    for (report, process) in [(&first, 0), (&second, 1)] {
        assert_eq!(report["process"], process);
        assert_eq!(report["processes"], 2);
        let (kernel, exits) =
            (report["kernel_bytes_sent"].as_u64().unwrap(), report["exit_bytes_sent"].as_u64().unwrap());
        // Each worker owns half of every smaller stone count, so captures are asked across.
        assert!(kernel > 0 && exits > 0 && report["bytes_sent"] == kernel + exits, "{report}");
    }
    let again = fails(&base[..7], "");
    assert!(again.contains("already holds a database"), "{again}");
    let shared = fails(&["bench", "oware", "--hostfile", hosts, "--process", "0"], "");
    assert!(shared.contains("needs --db DIR"), "{shared}");
}

#[test]
fn the_chess_bench_over_processes_reports_every_process() {
    let dir = tempfile::tempdir().unwrap();
    let json = |text: &[u8]| -> serde_json::Value { serde_json::from_slice(text).unwrap() };
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let base = ["bench", "chess", "--tables", "KRvKP", "--db", db, "--json"];
    let (first, second) = both(&hostfile(dir.path(), 2), &base, &base);
    for out in [&first, &second] {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let (first, second) = (json(&first.stdout), json(&second.stdout));
    // The 10 tables KRvKP leads to, as the manifest lists them.
    let listed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("db/manifest.json")).unwrap()).unwrap();
    let tables = listed["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 10);
    let entries: u64 = tables.iter().map(|t| t["entries"].as_u64().unwrap()).sum();
    assert_eq!(first["entries"], entries);
    assert!(second["entries"].is_null(), "only process 0 counts the entries");
    for (report, process) in [(&first, 0), (&second, 1)] {
        assert_eq!(report["process"], process);
        assert_eq!(report["processes"], 2);
        // Each table's captures and promotions are asked of the workers that own the positions
        // they reach.
        let (messages, exits) =
            (report["messages_sent"].as_u64().unwrap(), report["exit_bytes_sent"].as_u64().unwrap());
        assert!(messages > 0 && report["kernel_bytes_sent"] == 8 * messages, "{report}");
        // And each table's entries are sent to the workers that compress their blocks.
        let blocks = report["block_bytes_sent"].as_u64().unwrap();
        assert!(exits > 0 && blocks > 0 && report["bytes_sent"] == 8 * messages + exits + blocks, "{report}");
    }
    let hosts = dir.path().join("hosts");
    let hosts = hosts.to_str().unwrap();
    let again = fails(&[&base[..], &["--hostfile", hosts, "--process", "0"]].concat(), "");
    assert!(again.contains("already holds tables"), "{again}");
    let shared = fails(&["bench", "chess", "--tables", "KRvK", "--hostfile", hosts, "--process", "0"], "");
    assert!(shared.contains("needs --tables SPEC and --db DIR"), "{shared}");
}

/// Runs process 1 with `one` and process 0 with `zero` (each beside the other, sharing `db`):
/// both outputs.
fn both(
    hosts: &std::path::Path,
    zero: &[&str],
    one: &[&str],
) -> (std::process::Output, std::process::Output) {
    let hosts = hosts.to_str().unwrap();
    let with = |args: &[&str], process: &'static str| {
        let mut all = args.to_vec();
        all.extend(["--hostfile", hosts, "--process", process, "--connect-timeout", "20"]);
        spawn(&all)
    };
    let other = with(one, "1");
    let main = with(zero, "0");
    (main.wait_with_output().unwrap(), other.wait_with_output().unwrap())
}

#[test]
fn processes_given_other_rules_or_stones_refuse_each_other_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let base = |rules: &'static str, stones: &'static str| {
        vec!["build", "oware", "--rules", rules, "--stones", stones, "--db", db]
    };
    for (zero, one, differs) in [
        (base("vu", "8"), base("abapa", "8"), "--rules"),
        (base("vu", "8"), base("vu", "10"), "--stones"),
        (base("vu", "10"), base("vu", "8"), "--stones"),
    ] {
        let started = Instant::now();
        let (a, b) = both(&hostfile(dir.path(), 2), &zero, &one);
        for (process, out) in [(0, &a), (1, &b)] {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "process {process} of {zero:?} / {one:?} succeeded");
            assert!(
                stderr.contains("every process must run the same command") && stderr.contains(differs),
                "process {process}: {stderr}"
            );
        }
        assert!(started.elapsed() < Duration::from_secs(20), "refused in {:?}", started.elapsed());
        assert!(!std::path::Path::new(db).join("manifest.json").exists(), "nothing is written");
    }
}

#[test]
fn processes_that_do_not_share_the_db_directory_stop_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let (zero, one) = (dir.path().join("zero"), dir.path().join("one"));
    std::fs::create_dir(&one).unwrap();
    let (zero, one) = (zero.to_str().unwrap(), one.to_str().unwrap());
    for game in [["oware", "--stones", "4"], ["chess", "--tables", "KRvK"]] {
        let with = |db| [&["build"][..], &game[..], &["--db", db]].concat();
        let (a, b) = both(&hostfile(dir.path(), 2), &with(zero), &with(one));
        for (out, db) in [(&a, zero), (&b, one)] {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{game:?} on {db} succeeded");
            assert!(
                stderr.contains(&format!("the directory (here {db}) is not shared: process 1 did not find")),
                "{game:?} on {db}: {stderr}"
            );
        }
        for db in [zero, one] {
            let left: Vec<_> = std::fs::read_dir(db).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert!(left.is_empty(), "{game:?} left {left:?} in {db}");
        }
    }
}

#[test]
fn a_host_line_that_reaches_another_server_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let first = std::fs::read_to_string(&hosts).unwrap().lines().next().unwrap().to_string();
    // A server that is not ours answers on process 0's address.
    let server = TcpListener::bind(&first).unwrap();
    std::thread::spawn(move || {
        if let Ok((mut stream, _)) = server.accept() {
            use std::io::{Read, Write};
            let mut request = [0u8; 64];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
        }
    });
    let hosts = hosts.to_str().unwrap();
    let err =
        fails(&["graph", "-", "--format", "edges", "--hostfile", hosts, "--process", "1"], "0 1\n1 = 1\n");
    assert!(err.contains("is not a gamegraph process"), "{err}");
}

#[test]
fn a_hang_timeout_shorter_than_a_few_heartbeats_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    let hosts = hosts.to_str().unwrap();
    for short in ["0.001", "1.5"] {
        let err = fails(
            &["graph", "-", "--hostfile", hosts, "--process", "0", "--hang-timeout", short],
            "a -> b\n",
        );
        assert!(err.contains("--hang-timeout") && err.contains("at least 2 s"), "{err}");
    }
}
