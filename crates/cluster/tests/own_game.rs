//! A user's own game on the cluster: Refill (the `own_game` example's game, rules, dense index
//! and un-moves and nothing more) solved over two processes on loopback ports and over several
//! workers of one process, against the one-machine dense solve and, position by position,
//! against the explicit graph of what is reachable from there.

#[path = "../examples/own_game/refill.rs"]
mod refill;

use std::net::TcpListener;
use std::process::Command;
use std::sync::Arc;

use gamegraph::game::DenseIndex;
use gamegraph::{ExploredGame, Model, Solution};
use gamegraph_cluster::dense::solve_game;
use gamegraph_cluster::Cluster;
use refill::Refill;

/// Set in the environment of the test run as process 1: the host file.
const PROCESS_1: &str = "GAMEGRAPH_OWN_GAME_PROCESS_1_HOSTS";
const GAME: Refill = Refill { pile: 40, bank: 5 };

/// A host file of `n` loopback addresses whose ports were free a moment ago.
fn hostfile(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    let mut lines = Vec::new();
    let mut port = 20_000 + (std::process::id() * 7919) % 30_000;
    while lines.len() < n {
        port += 1;
        let address = format!("127.0.0.1:{port}");
        if TcpListener::bind(&address).is_ok() {
            lines.push(address);
        }
    }
    let path = dir.join("hosts");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// Every position of the game has the label of the one-machine solve, and the outcome, value and
/// remoteness of the explicit graph of the positions it reaches.
fn is_the_one_machine_solution(solution: &Solution<u64>) {
    let expected = gamegraph::dense::solve_game(&GAME).unwrap();
    assert_eq!(solution.len() as u64, GAME.index_len());
    let mut outcomes = [0; 3];
    for index in 0..GAME.index_len() {
        assert_eq!(solution.label(index), expected.label(index), "index {index}");
        let Some(position) = GAME.position(index) else {
            assert_eq!(solution.label(index), None, "index {index} is no position");
            continue;
        };
        let explored = ExploredGame::new(&GAME, position, 10_000).unwrap().solve(Model::Minimax);
        let at = format!("{position:?}");
        assert_eq!(solution.outcome(index), explored.outcome(0), "{at}");
        assert_eq!(solution.value(index), explored.value(0), "{at}");
        assert_eq!(solution.remoteness(index), explored.remoteness(0), "{at}");
        outcomes[solution.outcome(index) as usize] += 1;
    }
    // The game has won, lost and drawn positions.
    assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
}

#[test]
fn two_processes_solve_a_users_game_as_one_machine_does() {
    if let Ok(hosts) = std::env::var(PROCESS_1) {
        let cluster = Cluster::from_hostfile(hosts.as_ref(), 1, 1).unwrap();
        assert!(solve_game(Arc::new(GAME), &cluster).unwrap().is_none(), "process 1 gets nothing");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let hosts = hostfile(dir.path(), 2);
    // This test again, in a process of its own, as process 1.
    let mut process_1 = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "two_processes_solve_a_users_game_as_one_machine_does", "--test-threads", "1"])
        .env(PROCESS_1, &hosts)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let cluster = Cluster::from_hostfile(&hosts, 0, 1).unwrap();
    let solution = solve_game(Arc::new(GAME), &cluster).unwrap().expect("process 0 gets the solution");
    assert!(process_1.wait().unwrap().success(), "process 1 failed");
    is_the_one_machine_solution(&solution);
}

#[test]
fn workers_of_one_process_solve_a_users_game_as_one_machine_does() {
    for workers in [1, 3] {
        let solution = solve_game(Arc::new(GAME), &Cluster::local(workers)).unwrap().unwrap();
        is_the_one_machine_solution(&solution);
    }
}
