//! The JSON API over real HTTP: every endpoint, bad requests, bounded work, concurrent requests.

mod common;

use common::{encode, get, json, request, start_server};
use gamegraph_games::oware::database::build;
use gamegraph_games::oware::layer::Silent;
use gamegraph_games::oware::Rules;

const SEED_TREE: &str = "A(B(4 9 6) C(3 7 5) D(8 2 10))";

#[test]
fn games_lists_every_game_with_its_start() {
    let addr = start_server(None);
    let games = get(addr, "/api/games");
    let names: Vec<&str> =
        games["games"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    for name in ["tictactoe", "nim", "connect4", "oware"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let ttt = games["games"].as_array().unwrap().iter().find(|g| g["name"] == "tictactoe").unwrap();
    assert_eq!((ttt["start"].as_str(), ttt["solver"].as_str()), (Some("........."), Some("retrograde")));
    let (status, page) = request(addr, "GET", "/", b"");
    assert_eq!(status, 200);
    assert!(String::from_utf8(page).unwrap().contains("<script src=\"/app.js\">"));
}

#[test]
fn tictactoe_analysis_gives_exact_values_and_distances() {
    let addr = start_server(None);
    let start = get(addr, "/api/tictactoe/analyze");
    assert_eq!((start["value"].as_i64(), start["exact"].as_bool()), (Some(0), Some(true)));
    assert_eq!(start["moves"].as_array().unwrap().len(), 9);
    assert!(start["moves"].as_array().unwrap().iter().all(|m| m["outcome"] == "draw"));
    // X to move with two in a row: cell 3 wins at once.
    let a = get(addr, &format!("/api/tictactoe/analyze?position={}", encode("XX.OO....")));
    let three = a["moves"].as_array().unwrap().iter().find(|m| m["move"] == "3").unwrap();
    assert_eq!((three["outcome"].as_str(), three["remoteness"].as_u64()), (Some("win"), Some(1)));
    assert_eq!(three["position"], "XXXOO....");
    assert!(a["best"].as_array().unwrap().contains(&"3".into()));
    assert_eq!(a["board"]["cells"].as_array().unwrap().len(), 9);
    let over = get(addr, "/api/tictactoe/analyze?position=XXXOO....");
    assert_eq!((over["over"].as_bool(), over["outcome"].as_str()), (Some(true), Some("lose")));
}

#[test]
fn connect4_nim_and_oware_analyses() {
    let addr = start_server(None);
    // A position of README (score 3 for the player to move), solved exactly in the time given.
    let c4 = get(addr, "/api/connect4/analyze?position=37313333717124171162542&time=5");
    assert_eq!((c4["value"].as_i64(), c4["exact"].as_bool()), (Some(3), Some(true)));
    let four = c4["moves"].as_array().unwrap().iter().find(|m| m["move"] == "4").unwrap();
    assert_eq!(four["value"], 3);
    assert_eq!(c4["moves"].as_array().unwrap().len(), 5, "full columns 1 and 3 are not moves");
    // The empty board is not solved in 0.4 s: the answer comes anyway and says so.
    let empty = get(addr, "/api/connect4/analyze?position=&time=0.4");
    assert_eq!(empty["exact"], false);
    assert_eq!(empty["time_limit_seconds"], 0.4);
    let small = get(addr, "/api/connect4/analyze?width=4&height=4&position=");
    assert_eq!(small["board"]["cols"], 4);

    let nim = get(addr, "/api/nim/analyze?position=1,2");
    assert_eq!(nim["outcome"], "win");
    assert_eq!(nim["best"], serde_json::json!(["2:1"]));

    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), Rules::Vu, 6, &Silent).unwrap();
    let addr = start_server(Some(dir.path().to_path_buf()));
    let ow = get(addr, "/api/oware/analyze?position=0,0,0,0,0,3,0,2,1,0,0,1");
    assert_eq!((ow["value"].as_i64(), ow["exact"].as_bool()), (Some(5), Some(true)));
    assert_eq!(ow["board"]["rows"], 2);
    let deep = get(addr, "/api/oware/analyze?depth=2");
    assert_eq!((deep["exact"].as_bool(), deep["depth"].as_u64()), (Some(false), Some(2)));
}

/// Chess endgames from the tables: exact distances to mate, moves valued, bad positions refused.
#[test]
fn chess_analysis_reads_the_endgame_tables() {
    let dir = tempfile::tempdir().unwrap();
    let krk: gamegraph_games::chess::Material = "KRvK".parse().unwrap();
    gamegraph_games::chess::tablebase::build(dir.path(), &[krk], &gamegraph_games::chess::tablebase::Silent)
        .unwrap();
    let config = gamegraph_web::ServerConfig::default().with_database("chess", dir.path().to_path_buf());
    let addr = common::start_server_with(config);
    let fen = encode("8/8/8/8/8/2k5/1R6/K7 w - - 0 1");
    let a = get(addr, &format!("/api/chess/analyze?position={fen}"));
    assert_eq!(
        (a["outcome"].as_str(), a["remoteness"].as_u64(), a["exact"].as_bool()),
        (Some("win"), Some(31), Some(true))
    );
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 16);
    let b2b1 = moves.iter().find(|m| m["move"] == "b2b1").unwrap();
    assert_eq!((b2b1["outcome"].as_str(), b2b1["remoteness"].as_u64()), (Some("win"), Some(31)));
    let b2c2 = moves.iter().find(|m| m["move"] == "b2c2").unwrap();
    assert_eq!(b2c2["outcome"], "draw");
    assert!(a["best"].as_array().unwrap().contains(&serde_json::json!("b2b1")));
    assert_eq!(a["board"]["cols"], 8);
    // A malformed FEN and an illegal position are refused, naming what is wrong.
    let (status, err) =
        common::json(addr, "GET", &format!("/api/chess/analyze?position={}", encode("8/8/8 w - - 0 1")), "");
    assert_eq!(status, 400, "{err}");
    let (status, err) = common::json(
        addr,
        "GET",
        &format!("/api/chess/analyze?position={}", encode("8/8/8/8/8/8/1k6/K1R5 w - - 0 1")),
        "",
    );
    assert_eq!(status, 400, "{err}");
    assert!(err["error"].as_str().unwrap().contains("side by side"), "{err}");
}

#[test]
fn tree_search_with_trace_and_shape() {
    let addr = start_server(None);
    let r = get(addr, &format!("/api/tree?tree={}&algo=alphabeta&order=natural", encode(SEED_TREE)));
    assert_eq!(
        (r["value"].as_i64(), r["leaves"].as_u64(), r["best"].as_str()),
        (Some(4), Some(6), Some("B"))
    );
    assert_eq!(r["pruned"], serde_json::json!(["C/1", "C/2", "D/2"]));
    let shape = r["shape"].as_array().unwrap();
    assert_eq!(shape.len(), 13);
    let greyed: Vec<&str> = shape
        .iter()
        .filter(|n| n["pruned"] == true && n["leaf"].is_i64())
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(greyed, vec!["C/1", "C/2", "D/2"]);
    let trace = r["trace"].as_array().unwrap();
    assert_eq!(trace.iter().filter(|s| s["step"] == "prune").count(), 3);
    assert!(trace.iter().all(|s| s["id"].is_u64()));
    let minimax = get(addr, &format!("/api/tree?tree={}&algo=minimax", encode(SEED_TREE)));
    assert_eq!(minimax["leaves"], 9);
    let worst = get(addr, &format!("/api/tree?tree={}&order=worst", encode(SEED_TREE)));
    assert_eq!(worst["value"], 4);
    let random = get(addr, "/api/tree/random?branching=2&depth=3&low=0&high=5&seed=9");
    let again = get(addr, "/api/tree/random?branching=2&depth=3&low=0&high=5&seed=9");
    assert_eq!(random["tree"], again["tree"]);
    let searched = get(addr, &format!("/api/tree?tree={}", encode(random["tree"].as_str().unwrap())));
    assert_eq!(searched["total_leaves"], 8);
}

#[test]
fn graph_solved_in_each_model() {
    let addr = start_server(None);
    let text = "a -> b c\nb -> d e\nc -> e f\nd = 5\ne = 2\nf = 7\n";
    let (status, stakes) = json(addr, "POST", "/api/graph?model=stakes", text);
    assert_eq!(status, 200);
    assert_eq!(stakes["positions"]["a"]["outcome"], "lose");
    assert_eq!(stakes["positions"]["a"]["value"], 5);
    assert_eq!(stakes["edges"].as_array().unwrap().len(), 6);
    let (_, minimax) = json(addr, "POST", "/api/graph?model=minimax", text);
    assert_eq!(minimax["positions"]["a"]["value"], -5);
    let (_, cycle) = json(addr, "POST", "/api/graph?model=outcome", "A -> B\nB -> A C\nC = 1\n");
    assert_eq!(cycle["positions"]["B"]["outcome"], "win");
    assert_eq!(cycle["positions"]["A"]["outcome"], "lose");
}

/// Each bad request gets its status and a JSON message that names what is wrong.
#[test]
fn bad_requests_get_clear_errors() {
    let addr = start_server(None);
    let cases: Vec<(&str, &str, String, &str, u16, &str)> = vec![
        ("GET", "/api/go/analyze", String::new(), "", 404, "unknown game 'go'"),
        ("GET", "/api/nothing", String::new(), "", 404, "no such page"),
        ("GET", "/api/tictactoe/analyze?position=XX", String::new(), "", 400, "column 3"),
        ("GET", "/api/connect4/analyze?position=4445", String::new(), "", 200, ""),
        ("GET", "/api/connect4/analyze?position=44444444", String::new(), "", 400, "full"),
        ("GET", "/api/connect4/analyze?width=100", String::new(), "", 400, "64"),
        ("GET", "/api/tictactoe/analyze?rules=vu", String::new(), "", 400, "no option 'rules'"),
        ("GET", "/api/oware/analyze?rules=fifa", String::new(), "", 400, "fifa"),
        ("GET", "/api/tictactoe/analyze?time=100", String::new(), "", 400, "time"),
        ("GET", "/api/tictactoe/analyze?depth=0", String::new(), "", 400, "depth"),
        ("GET", "/api/tictactoe/analyze?time=abc", String::new(), "", 400, "time"),
        ("GET", "/api/nim/analyze?position=30,30,30,30,30", String::new(), "", 400, "positions"),
        ("GET", "/api/tree?tree=A(B(1%202)", String::new(), "", 400, "line 1, column"),
        ("GET", "/api/tree?tree=(1%202)&algo=magic", String::new(), "", 400, "magic"),
        ("GET", "/api/tree?tree=(1%202)&order=random", String::new(), "", 400, "random"),
        ("GET", "/api/tree", String::new(), "", 400, "tree"),
        ("GET", "/api/tree/random?branching=10&depth=8", String::new(), "", 400, "leaves"),
        ("GET", "/api/tree/random?low=5&high=1", String::new(), "", 400, "low <= high"),
        ("POST", "/api/graph?model=stakes", "a -> b\nb = x\n".into(), "", 400, "line 2"),
        ("POST", "/api/graph?model=fancy", "a = 1\n".into(), "", 400, "fancy"),
    ];
    for (method, path, body, _, status, needle) in cases {
        let (got, value) = json(addr, method, path, &body);
        assert_eq!(got, status, "{method} {path}: {value}");
        if status != 200 {
            let message =
                value["error"].as_str().unwrap_or_else(|| panic!("{path}: no error message: {value}"));
            assert!(message.contains(needle), "{path}: '{message}' should mention '{needle}'");
        }
    }
    let (status, body) = request(addr, "POST", "/api/graph", &vec![b'#'; 2 << 20]);
    assert_eq!(status, 413, "a body over the limit is refused");
    let message: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert!(message["error"].as_str().unwrap().contains("length limit"), "{message}");
}

#[test]
fn many_requests_at_once_are_all_served() {
    let addr = start_server(None);
    let workers: Vec<_> = (0..12)
        .map(|i| {
            std::thread::spawn(move || match i % 3 {
                0 => {
                    get(addr, "/api/connect4/analyze?position=4&time=0.5")["moves"].as_array().unwrap().len()
                }
                1 => get(addr, &format!("/api/tree?tree={}", encode(SEED_TREE)))["leaves"].as_u64().unwrap()
                    as usize,
                _ => get(addr, "/api/tictactoe/analyze")["moves"].as_array().unwrap().len(),
            })
        })
        .collect();
    let answers: Vec<usize> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    for (i, a) in answers.iter().enumerate() {
        assert_eq!(*a, [7, 6, 9][i % 3], "request {i}");
    }
}

/// The status line and headers (lower case) of `GET path`, and its body.
fn get_with_headers(addr: std::net::SocketAddr, path: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.to_ascii_lowercase(), body.to_string())
}

/// Searches wait in a bounded queue: beyond it the answer is 503 with Retry-After at once, and a
/// cheap request (a solved game) is answered while the searches still run.
#[test]
fn a_full_queue_answers_503_and_cheap_requests_do_not_wait() {
    let mut config = gamegraph_web::ServerConfig::default();
    (config.searches, config.search_queue) = (1, 1);
    let addr = common::start_server_with(config);
    let finished = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Four searches of 3 s at once: one runs, one waits, two are refused.
    let slow: Vec<_> = (0..4)
        .map(|_| {
            let finished = finished.clone();
            std::thread::spawn(move || {
                let answer = get_with_headers(addr, "/api/connect4/analyze?time=3");
                if answer.0.starts_with("http/1.1 200") {
                    finished.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                answer
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (head, _) = get_with_headers(addr, "/api/tictactoe/analyze");
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(
        !finished.load(std::sync::atomic::Ordering::SeqCst),
        "the tic-tac-toe answer waited for a search"
    );
    let answers: Vec<(String, String)> = slow.into_iter().map(|h| h.join().unwrap()).collect();
    let refused: Vec<_> = answers.iter().filter(|(head, _)| head.starts_with("http/1.1 503")).collect();
    assert_eq!(refused.len(), 2, "{answers:?}");
    for (head, body) in refused {
        assert!(head.contains("retry-after: 1"), "{head}");
        assert!(body.contains("busy"), "{body}");
    }
    assert_eq!(answers.iter().filter(|(head, _)| head.starts_with("http/1.1 200")).count(), 2);
}

#[test]
fn deep_trees_and_large_solved_games_are_refused_with_400() {
    let addr = start_server(None);
    // A wrong method gets the usual JSON error, not an empty body.
    let (status, body) = json(addr, "POST", "/api/games", "");
    assert_eq!(status, 405, "{body}");
    assert!(body["error"].as_str().unwrap().contains("POST"), "{body}");
    let chain = format!("{}1{}", "(".repeat(100), ")".repeat(100));
    let (status, body) = json(addr, "GET", &format!("/api/tree?tree={}", encode(&chain)), "");
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("levels deep"), "{body}");
    let (status, body) =
        json(addr, "GET", &format!("/api/nim/analyze?position={}", encode("100,100,100")), "");
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("positions"), "{body}");
}

/// A bounded load on loopback: 2,000 requests from 50 clients at once, cheap ones (solved games,
/// trees) mixed with searches. Every answer is a 200, or a 503 with Retry-After (searches only:
/// the cheap lane's queue holds 50 clients); no other 5xx, no dropped connection. The latency of cheap
/// requests is printed (p50, p99), not asserted.
#[test]
fn a_bounded_load_gets_answers_or_busy_never_errors() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let addr = start_server(None);
    let next = std::sync::Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..50)
        .map(|_| {
            let next = next.clone();
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                loop {
                    let i = next.fetch_add(1, SeqCst);
                    if i >= 2_000 {
                        return seen;
                    }
                    let (cheap, path) = match i % 10 {
                        0 => (false, "/api/connect4/analyze?position=4453&time=0.2".to_string()),
                        1..=5 => (true, "/api/tictactoe/analyze?position=X...O....".to_string()),
                        _ => (true, format!("/api/tree?tree={}", encode(SEED_TREE))),
                    };
                    let started = std::time::Instant::now();
                    let (head, _) = get_with_headers(addr, &path);
                    seen.push((cheap, head, started.elapsed()));
                }
            })
        })
        .collect();
    let answers: Vec<_> = clients.into_iter().flat_map(|c| c.join().unwrap()).collect();
    assert_eq!(answers.len(), 2_000);
    let mut cheap_times = Vec::new();
    for (cheap, head, time) in &answers {
        let ok = head.starts_with("http/1.1 200");
        let busy = head.starts_with("http/1.1 503") && head.contains("retry-after: 1");
        assert!(ok || (busy && !cheap), "{head}");
        if *cheap {
            cheap_times.push(*time);
        }
    }
    cheap_times.sort();
    let at = |q: f64| cheap_times[((cheap_times.len() - 1) as f64 * q) as usize];
    eprintln!("cheap requests under load: p50 {:?}, p99 {:?}", at(0.5), at(0.99));
}
