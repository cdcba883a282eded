//! The page end to end in a real headless Chromium, driven through ChromeDriver's WebDriver API:
//! play a tic-tac-toe move and read the values shown, run alpha-beta on the seed's tree and find
//! the pruned leaves greyed, paste a graph and read its outcomes; load a chess endgame, read its
//! moves' distances to mate from the tables and have the engine answer a move perfectly.
//!
//! Needs Debian's `chromium` and `chromium-driver` (installed by `.ci/run` and by the test command
//! of the README). With `GAMEGRAPH_SCREENSHOTS=DIR` it also saves a screenshot of each view there.

mod common;

use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use common::{json, start_server, start_server_with};
use gamegraph_games::chess::tablebase::{self, Silent};
use serde_json::{json, Value};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";

/// A ChromeDriver process and one browser session, both ended on drop.
struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
    _profile: tempfile::TempDir,
}

/// Starts ChromeDriver on a free port and waits until it listens. The port is free when picked
/// but can be taken before ChromeDriver listens on it (by the outgoing end of another connection),
/// and ChromeDriver then exits: it is started again on another port, up to five times.
fn start_driver() -> (Child, SocketAddr) {
    for _ in 0..5 {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if driver.try_wait().unwrap().is_some() {
                break; // it could not listen there: another port
            }
            if std::net::TcpStream::connect(addr).is_ok() {
                return (driver, addr);
            }
            assert!(Instant::now() < deadline, "chromedriver did not start listening");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    panic!("chromedriver exited five times without listening");
}

impl Browser {
    fn start() -> Browser {
        assert!(
            std::path::Path::new(CHROMEDRIVER).exists() && std::path::Path::new(CHROMIUM).exists(),
            "the browser tests need Debian's chromium and chromium-driver: apt-get install chromium chromium-driver"
        );
        let (driver, addr) = start_driver();
        let profile = tempfile::tempdir().unwrap();
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-quic", "--window-size=1280,1000",
                    format!("--user-data-dir={}", profile.path().display()),
                ]
            }
        }}});
        let (status, created) = json(addr, "POST", "/session", &capabilities.to_string());
        assert_eq!(status, 200, "new session: {created}");
        let session = created["value"]["sessionId"].as_str().expect("a session id").to_string();
        Browser { driver, addr, session, _profile: profile }
    }

    fn command(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("/session/{}{path}", self.session);
        let text = if body.is_null() { String::new() } else { body.to_string() };
        let (status, answer) = json(self.addr, method, &url, &text);
        assert_eq!(status, 200, "{method} {path}: {answer}");
        answer["value"].clone()
    }

    fn open(&self, url: &str) {
        self.command("POST", "/url", json!({ "url": url }));
    }

    fn script(&self, script: &str) -> Value {
        self.command("POST", "/execute/sync", json!({ "script": script, "args": [] }))
    }

    /// Waits until `script` returns something other than null or false, and returns it.
    fn wait_for(&self, what: &str, script: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let value = self.script(script);
            if !value.is_null() && value != json!(false) {
                return value;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks the element matched by `css` as a user would, finding it again if the page redrew it
    /// in between.
    fn click(&self, css: &str) {
        for _ in 0..20 {
            let element = self.command("POST", "/element", json!({"using": "css selector", "value": css}));
            let id = element
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
                .expect("an element");
            let url = format!("/session/{}/element/{id}/click", self.session);
            let (status, answer) = json(self.addr, "POST", &url, "{}");
            if status == 200 {
                return;
            }
            assert_eq!(answer["value"]["error"], "stale element reference", "click {css}: {answer}");
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("{css} kept being redrawn");
    }

    fn screenshot(&self, name: &str) {
        let Ok(dir) = std::env::var("GAMEGRAPH_SCREENSHOTS") else { return };
        let png = self.command("GET", "/screenshot", Value::Null);
        let bytes = base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap()).unwrap();
        std::fs::write(std::path::Path::new(&dir).join(format!("{name}.png")), bytes).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = json(self.addr, "DELETE", &format!("/session/{}", self.session), "");
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Sets a `<select>` or `<input>` by id and tells the page it changed.
fn set(browser: &Browser, id: &str, value: &str) {
    browser.script(&format!(
        "const e = document.getElementById({id:?}); e.value = {value:?}; e.dispatchEvent(new Event('change'));"
    ));
}

/// True once the play view has shown the analysis it asked for.
const SETTLED: &str = "return !document.getElementById('play-status').textContent.includes('thinking');";

#[test]
fn the_page_plays_traces_and_solves() {
    let server = start_server(None);
    let browser = Browser::start();
    let base = format!("http://{server}/");

    // Play: X takes the centre; O's corners draw and O's edges lose.
    browser.open(&format!("{base}#play"));
    browser.wait_for("the start position", "return document.querySelectorAll('#moves button').length === 9;");
    set(&browser, "mode", "human-human");
    browser.wait_for("the redraw", SETTLED);
    browser.click(".cell[data-move='5']");
    browser.wait_for(
        "O's moves after X in the centre",
        "return document.getElementById('position').value === '....X....' \
         && document.querySelectorAll('#moves button').length === 8 \
         && !document.getElementById('play-status').textContent.includes('thinking');",
    );
    let shown = browser.script(
        "return Array.from(document.querySelectorAll('#moves button')).map(b => [b.dataset.move, b.querySelector('.value').textContent, b.className]);",
    );
    for entry in shown.as_array().unwrap() {
        let (mv, value, class) =
            (entry[0].as_str().unwrap(), entry[1].as_str().unwrap(), entry[2].as_str().unwrap());
        if ["1", "3", "7", "9"].contains(&mv) {
            assert_eq!(value, "draw", "corner {mv}");
            assert!(class.contains("draw"));
        } else {
            assert!(value.starts_with("lose in ") && value.ends_with(" plies"), "edge {mv}: {value}");
            assert!(class.contains("lose"));
        }
    }
    let record = browser.script("return document.getElementById('record').textContent;");
    assert_eq!(record, "1. 5 ", "the game record");
    let cell_classes = browser.script("return document.querySelector(\".cell[data-move='2']\").className;");
    assert!(
        cell_classes.as_str().unwrap().contains("lose"),
        "the board colours the cell too: {cell_classes}"
    );
    browser.click("#undo");
    browser.wait_for("undo", "return document.getElementById('position').value === '.........';");
    browser.click("#redo");
    browser.wait_for("redo", "return document.getElementById('position').value === '....X....';");
    browser.screenshot("play");

    // Trees: alpha-beta on the seed's tree greys exactly C/1, C/2 and D/2.
    browser.click(".tab[data-view='trees']");
    set(&browser, "tree-text", "A(B(4 9 6) C(3 7 5) D(8 2 10))");
    set(&browser, "algo", "alphabeta");
    browser.click("#tree-run");
    browser.wait_for(
        "the search",
        "return document.getElementById('tree-status').textContent.includes('leaves evaluated 6 of 9');",
    );
    let greyed = browser.script(
        "return Array.from(document.querySelectorAll('#tree-svg g.node.leaf.pruned')).map(g => g.dataset.name).sort();",
    );
    assert_eq!(greyed, json!(["C/1", "C/2", "D/2"]));
    // Step by step: the first step enters the root with the full window.
    browser.click("#tree-reset");
    browser.click("#tree-step");
    let status = browser.wait_for("the first step", "return document.getElementById('tree-status').textContent.startsWith('step 1') && document.getElementById('tree-status').textContent;");
    assert!(status.as_str().unwrap().contains("enter root with α=-∞, β=+∞"), "{status}");
    browser.click("#tree-run");
    browser.wait_for(
        "the whole search again",
        "return document.getElementById('tree-status').textContent.includes('6 of 9');",
    );
    browser.screenshot("trees");

    // Graphs: the cycle of docs/models.md, section 2; A wins, B loses (it must move back to A), F is final.
    browser.click(".tab[data-view='graphs']");
    set(&browser, "graph-text", "A -> B F\nB -> A\nF = 1\n");
    set(&browser, "model", "stakes");
    browser.wait_for(
        "the solved graph",
        "return document.querySelectorAll('#graph-table tr[data-name]').length === 3;",
    );
    let outcomes = browser.script(
        "return Object.fromEntries(Array.from(document.querySelectorAll('#graph-table tr[data-name]')).map(r => [r.dataset.name, r.cells[1].textContent + ' ' + r.cells[2].textContent]));",
    );
    assert_eq!(outcomes, json!({"A": "win 1", "B": "lose 1", "F": "lose 1"}));
    let drawn = browser.script("return document.querySelectorAll('#graph-svg g.node').length;");
    assert_eq!(drawn, 3);
    set(&browser, "graph-text", include_str!("../../../examples/acyclic.txt"));
    browser.click("#graph-solve");
    browser.wait_for(
        "the second graph",
        "return document.querySelectorAll('#graph-table tr[data-name]').length === 6;",
    );
    browser.screenshot("graphs");
}

/// The moves listed in the play view, in their order: (move, value shown, class).
fn listed_moves(browser: &Browser) -> Vec<(String, String, String)> {
    let shown = browser.script(
        "return Array.from(document.querySelectorAll('#moves button')).map(b => [b.dataset.move, b.querySelector('.value').textContent, b.className]);",
    );
    let text = |v: &Value| v.as_str().unwrap().to_string();
    shown.as_array().unwrap().iter().map(|m| (text(&m[0]), text(&m[1]), text(&m[2]))).collect()
}

#[test]
fn the_page_plays_chess_endgames_from_the_tables() {
    let tables = tempfile::tempdir().unwrap();
    tablebase::build(tables.path(), &["KRvK".parse().unwrap()], &Silent).unwrap();
    let config = gamegraph_web::ServerConfig::default().with_database("chess", tables.path().to_path_buf());
    let server = start_server_with(config);
    let browser = Browser::start();
    browser.open(&format!("http://{server}/#play"));
    browser.wait_for("the start position", "return document.querySelectorAll('#moves button').length === 9;");
    set(&browser, "time", "0.2");
    set(&browser, "game", "chess");
    browser.wait_for("the chess start", "return document.querySelectorAll('#moves button').length === 20;");
    browser.wait_for("the redraw", SETTLED);

    // White mates in 16 moves (31 plies); the rook's moves are listed best first, each with its
    // distance, and those that let the rook be taken or stalemate are draws.
    browser.script("document.getElementById('position').value = '8/8/8/8/8/2k5/1R6/K7 w - - 0 1';");
    browser.click("#load");
    browser.wait_for(
        "the endgame",
        "return document.querySelectorAll('#moves button').length === 16 \
         && document.getElementById('play-status').textContent.includes('win in 16 (31 plies)');",
    );
    let moves = listed_moves(&browser);
    assert_eq!(moves[0].1, "win in 16 (31 plies)", "best first: {moves:?}");
    assert!(moves[0].2.contains("win") && moves[0].2.contains("best"), "{moves:?}");
    let b2c2 = moves.iter().find(|m| m.0 == "b2c2").expect("b2c2 is listed");
    assert!(b2c2.1.starts_with("draw"), "the rook is taken: {}", b2c2.1);
    assert!(b2c2.2.contains("draw"));
    let squares = browser.script("return document.querySelectorAll('#board .cell').length;");
    assert_eq!(squares, 64);

    // A best move, then the engine's answer from the tables: still mate in 15 (29 plies).
    browser.click("#moves button[data-move='b2b1']");
    browser.wait_for(
        "the engine's answer",
        "return document.getElementById('position').value.includes(' w ') \
         && document.getElementById('play-status').textContent.includes('win in 15 (29 plies)');",
    );
    browser.screenshot("chess");
    // The moves in standard notation: the list and the game record.
    let record = browser.script("return document.getElementById('record').textContent;");
    assert!(record.as_str().unwrap().starts_with("1. Rb1 K"), "{record}");
    let written = browser
        .script("return document.querySelector(\"#moves button[data-move='a1a2'] .notation\").textContent;");
    assert_eq!(written, "Ka2");

    // The value history, from White's side by default: three positions, each a proven win for
    // White, above the draw line and nearer the top as the mate comes nearer; from Black's side
    // the same points below it.
    let chart = "const line = document.querySelector('#chart .draw-line').getAttribute('y1');         return [Array.from(document.getElementById('chart-side').options).map(o => o.value),         Array.from(document.querySelectorAll('#chart circle.point')).map(c => +c.getAttribute('cy') - line)];";
    let shown = browser.script(chart);
    assert_eq!(shown[0], json!(["White", "Black"]), "{shown}");
    let offsets: Vec<f64> = shown[1].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(offsets.len(), 3, "{shown}");
    assert!(offsets.iter().all(|&o| o < 0.0), "White wins: above the line: {offsets:?}");
    assert!(offsets[2] < offsets[0], "the mate is nearer: nearer the top: {offsets:?}");
    set(&browser, "chart-side", "Black");
    let black = browser.script(chart);
    let below: Vec<f64> = black[1].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(
        below.iter().zip(&offsets).all(|(b, w)| (b + w).abs() < 1e-6),
        "Black's view mirrors White's: {below:?}"
    );
    set(&browser, "chart-side", "White");
    browser.script("document.getElementById('chart').scrollIntoView();");
    browser.screenshot("chart");
}

/// What a user of chess sites expects: a piece clicked then its square, a pawn's promotion picked
/// among four pieces, a piece dragged, the board turned for Black, a link that opens a position,
/// a bad FEN that leaves the last good position playable.
#[test]
fn the_page_plays_chess_by_clicking_and_dragging_and_opens_links() {
    let tables = tempfile::tempdir().unwrap();
    tablebase::build(tables.path(), &["KPvK".parse().unwrap()], &Silent).unwrap();
    let config = gamegraph_web::ServerConfig::default().with_database("chess", tables.path().to_path_buf());
    let server = start_server_with(config);
    let browser = Browser::start();

    // A link opens the position: White to move promotes on e8.
    let fen = "8/4P3/8/8/8/2k5/8/K7 w - - 0 1";
    let query: String =
        fen.chars().map(|c| if c == ' ' { '+' } else { c }).collect::<String>().replace('/', "%2F");
    browser.open(&format!("http://{server}/?game=chess&fen={query}#play"));
    browser.wait_for(
        "the linked position",
        &format!("return document.getElementById('position').value === {fen:?} && document.querySelectorAll('#moves button').length > 0;"),
    );
    browser.wait_for("the redraw", SETTLED);
    assert_eq!(browser.script("return document.getElementById('game').value;"), "chess");
    let labels =
        browser.script("return document.querySelector(\"#board .cell[data-square='a1']\").textContent;");
    assert!(labels.as_str().unwrap().contains('1') && labels.as_str().unwrap().contains('a'), "{labels}");

    // Click the pawn, then e8: four promotions to choose from, the queen's a win.
    browser.click("#board .cell[data-square='e7']");
    let targets = browser.script(
        "return Array.from(document.querySelectorAll('#board .cell.target')).map(c => c.dataset.square).sort();",
    );
    assert!(targets.as_array().unwrap().contains(&json!("e8")), "{targets}");
    browser.click("#board .cell[data-square='e8']");
    let promotions = browser.script(
        "return Array.from(document.querySelectorAll('#promotion button')).map(b => b.dataset.move);",
    );
    assert_eq!(promotions, json!(["e7e8q", "e7e8r", "e7e8b", "e7e8n"]));
    browser.click("#promotion button[data-move='e7e8q']");
    browser.wait_for(
        "the promotion played and the engine's answer",
        "return document.getElementById('position').value.startsWith('4Q3') \
         && document.getElementById('position').value.includes(' w ') \
         && !document.getElementById('play-status').textContent.includes('thinking');",
    );
    let address = browser.script("return location.search;");
    assert!(address.as_str().unwrap().contains("game=chess&position=4Q3"), "the address follows: {address}");
    // The last move is marked.
    let marked = browser.script("return document.querySelectorAll('#board .cell.last').length;");
    assert_eq!(marked, 2);

    // Drag the king one square; the engine answers.
    let before = browser.script("return document.getElementById('position').value;");
    let before = before.as_str().unwrap().to_string();
    let king = browser.script(
        "const from = Array.from(document.querySelectorAll('#board .cell.movable')).find(c => c.textContent.includes('\u{2654}')); \
         return from && from.dataset.square;",
    );
    let king = king.as_str().expect("the white king can move").to_string();
    browser.script(&format!(
        "const dt = new DataTransfer(); \
         const from = document.querySelector(\"#board .cell[data-square='{king}']\"); \
         from.dispatchEvent(new DragEvent('dragstart', {{ dataTransfer: dt, bubbles: true }})); \
         const to = document.querySelector('#board .cell.target'); \
         to.dispatchEvent(new DragEvent('dragover', {{ dataTransfer: dt, bubbles: true, cancelable: true }})); \
         to.dispatchEvent(new DragEvent('drop', {{ dataTransfer: dt, bubbles: true, cancelable: true }}));"
    ));
    browser.wait_for(
        "the dragged king's move and the engine's answer",
        &format!(
            "const p = document.getElementById('position').value; \
             return p !== {before:?} && p.includes(' w ') \
             && !document.getElementById('play-status').textContent.includes('thinking');"
        ),
    );

    // A bad FEN: the error says so and the last good position stays, playable.
    let good = browser.script("return document.getElementById('position').value;");
    browser.script("document.getElementById('position').value = '8/8/8/8 w - - 0 1';");
    browser.click("#load");
    let error = browser.wait_for(
        "the error",
        "return document.getElementById('play-error').textContent.includes('last good position') && document.getElementById('play-error').textContent;",
    );
    assert!(error.as_str().unwrap().contains("bad chess position"), "{error}");
    assert_eq!(browser.script("return document.getElementById('position').value;"), good);
    let busy = browser.script("return document.getElementById('board').classList.contains('busy');");
    assert_eq!(busy, false);
    assert!(
        browser
            .script("return document.querySelectorAll('#moves button:not([disabled])').length;")
            .as_u64()
            .unwrap()
            > 0
    );

    // Black to move in a linked position: the board turns, Black at the bottom.
    let fen = "8/8/8/8/8/2k5/4p3/K7 b - - 0 1";
    let query: String =
        fen.chars().map(|c| if c == ' ' { '+' } else { c }).collect::<String>().replace('/', "%2F");
    browser.open(&format!("http://{server}/?game=chess&position={query}#play"));
    browser.wait_for("the second link", "return document.querySelectorAll('#moves button').length > 0;");
    let first = browser.script("return document.querySelector('#board .cell').dataset.square;");
    assert_eq!(first, "h1", "flipped for Black: h1 at the top left");
    browser.screenshot("chess-promotion");
}

/// Estimates of a limited search are numbers in a neutral style, never coloured as a result.
#[test]
fn the_page_shows_estimates_without_win_or_loss_colours() {
    let server = start_server(None);
    let browser = Browser::start();
    browser.open(&format!("http://{server}/?game=chess#play"));
    browser.wait_for("the chess start", "return document.querySelectorAll('#moves button').length === 20;");
    set(&browser, "time", "0.2");
    browser.wait_for(
        "the search",
        "return document.querySelectorAll('#moves button.estimate').length === 20 \
         && !document.getElementById('play-status').textContent.includes('thinking');",
    );
    let moves = listed_moves(&browser);
    for (mv, value, class) in &moves {
        assert!(value.starts_with('\u{2248}') && value.contains("pawns"), "{mv}: {value}");
        for word in ["win", "lose", "draw"] {
            assert!(!class.split(' ').any(|c| c == word), "{mv} coloured {word}: {class}");
        }
    }
    let status = browser.script("return document.getElementById('play-status').textContent;");
    assert!(status.as_str().unwrap().contains('\u{2248}'), "{status}");
    browser.screenshot("estimate");
}

/// Tic-tac-toe by keyboard: a square takes the focus and Enter plays it.
#[test]
fn the_page_plays_tictactoe_from_the_keyboard() {
    let server = start_server(None);
    let browser = Browser::start();
    browser.open(&format!("http://{server}/?game=tictactoe#play"));
    browser.wait_for("the start", "return document.querySelectorAll('#moves button').length === 9;");
    set(&browser, "mode", "human-human");
    browser.wait_for("the redraw", SETTLED);
    let focusable =
        browser.script("return document.querySelectorAll('#board .cell[tabindex=\"0\"]').length;");
    assert_eq!(focusable, 9);
    browser.script(
        "const c = document.querySelector(\"#board .cell[data-move='5']\"); c.focus(); \
         c.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));",
    );
    browser.wait_for("the move", "return document.getElementById('position').value.startsWith('....X');");
    // The arrow keys walk the free squares: right of the centre is 6, then down from 6 is 9.
    browser.script(
        "const c = document.querySelector(\"#board .cell[data-move='4']\"); c.focus(); \
         c.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));",
    );
    let focused = browser.script("return document.activeElement.dataset.move;");
    assert_eq!(focused, "7", "down from 4 is 7");
    let label = browser
        .script("return document.querySelector('#board .cell[data-move]').getAttribute('aria-label');");
    assert!(label.as_str().unwrap().starts_with("move "), "{label}");
}

/// The Trees view as the seed teaches alpha-beta: stepping through the seed's tree, C's window
/// narrows to beta=3 (below its alpha of 4) before 7 and 5 are cut; a step back undoes the cut;
/// at the end the principal path root-B-4 is highlighted.
#[test]
fn the_tree_view_shows_the_window_narrowing_at_c_before_the_cut() {
    let server = start_server(None);
    let browser = Browser::start();
    let tree = "A(B(4 9 6) C(3 7 5) D(8 2 10))";
    browser.open(&format!("http://{server}/?tree={}&algo=alphabeta#trees", tree.replace(' ', "+")));
    browser.wait_for("the tree", "return document.getElementById('tree-text').value.startsWith('A(B');");
    set(&browser, "algo", "alphabeta");
    browser.click("#tree-reset");
    browser.wait_for("the reset tree", "return document.querySelectorAll('#tree-svg g.node').length === 13;");
    let status = "document.getElementById('tree-status').textContent";
    let c_window = "Array.from(document.querySelectorAll('#tree-svg g.node[data-name=\"C\"] text.window tspan')).map(t => t.textContent).join(' ')";
    let pruned =
        "Array.from(document.querySelectorAll('#tree-svg g.node.pruned')).map(g => g.dataset.name).sort()";
    let mut closed_at_c = None;
    for step in 1..=40 {
        browser.click("#tree-step");
        let shown = browser.wait_for(
            "the step",
            &format!("const s = {status}; return s.startsWith('step {step} ') && [s, {c_window}, {pruned}];"),
        );
        if shown[0].as_str().unwrap().contains("C: best so far 3") {
            closed_at_c = Some((step, shown));
            break;
        }
    }
    let (step, shown) = closed_at_c.expect("C's window narrows after its first leaf");
    assert!(shown[0].as_str().unwrap().contains("window now α=4, β=3 (closed"), "{shown}");
    assert_eq!(shown[1], "α=4 β=3", "C shows its narrowed window");
    assert_eq!(shown[2], json!([]), "nothing is cut yet");
    browser.screenshot("trees-midway");
    // The next step cuts C/1 (7); a step back shows it uncut again.
    browser.click("#tree-step");
    let cut = browser
        .wait_for("the cut", &format!("return {status}.startsWith('step {} ') && {pruned};", step + 1));
    assert_eq!(cut, json!(["C/1"]));
    browser.click("#tree-back");
    let back = browser
        .wait_for("the step back", &format!("return {status}.startsWith('step {step} ') && [{pruned}];"));
    assert_eq!(back, json!([[]]));
    // At the end: the principal path root, B, B/0 (the leaf 4), and the root's alpha is 4.
    browser.click("#tree-run");
    browser.wait_for("the end", &format!("return {status}.includes('leaves evaluated 6 of 9');"));
    let principal = browser.script(
        "return Array.from(document.querySelectorAll('#tree-svg g.node.principal')).map(g => g.dataset.name).sort();",
    );
    assert_eq!(principal, json!(["", "B", "B/0"]));
    let root_window = browser.script(
        "return Array.from(document.querySelectorAll('#tree-svg g.node[data-id=\"0\"] text.window tspan')).map(t => t.textContent).join(' ');",
    );
    assert_eq!(root_window, "α=4 β=+∞");
}

/// At a phone's 360 px the page fits its width in every view: no horizontal scrolling, the board
/// whole, the tabs reachable.
#[test]
fn the_page_fits_a_phone_360_px_wide() {
    let server = start_server(None);
    let browser = Browser::start();
    browser.command("POST", "/window/rect", json!({"width": 360, "height": 780}));
    let inner = browser.script("return window.innerWidth;");
    assert!(inner.as_u64().unwrap() <= 360, "the window is {inner} px wide");
    let overflow = "const d = document.documentElement; \
        const wide = Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right > d.clientWidth + 1 && e.offsetParent !== null && !e.closest('.scroll')).map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 5); \
        return [d.scrollWidth, d.clientWidth, wide];";
    for (view, ready) in [
        ("?game=chess#play", "document.querySelectorAll('#moves button').length === 20"),
        ("?game=connect4#play", "document.querySelectorAll('#board .cell').length === 42"),
        ("?game=oware#play", "document.querySelectorAll('#moves button').length > 0"),
        ("#trees", "document.querySelectorAll('#tree-svg g.node').length > 0 || true"),
        ("#graphs", "document.getElementById('graph-text') !== null"),
    ] {
        browser.open(&format!("http://{server}/{view}"));
        browser.wait_for(view, &format!("return {ready};"));
        if view == "#trees" {
            browser.click("#tree-run");
            browser.wait_for("the tree", "return document.querySelectorAll('#tree-svg g.node').length > 0;");
        }
        let measured = browser.script(overflow);
        let (scroll, client) = (measured[0].as_u64().unwrap(), measured[1].as_u64().unwrap());
        assert!(scroll <= client, "{view}: the page is {scroll} px wide in {client} px: {}", measured[2]);
        if view == "?game=chess#play" {
            let board = browser.script("const r = document.getElementById('board').getBoundingClientRect(); return [r.left, r.right];");
            assert!(
                board[0].as_f64().unwrap() >= 0.0 && board[1].as_f64().unwrap() <= client as f64,
                "the board is cut: {board}"
            );
            browser.screenshot("phone-chess");
        }
    }
}

/// The page in French: from `?lang=fr`, the tabs, the values and the tree's steps are French,
/// numbers take a decimal comma; the switch turns it back to English without losing the game,
/// and the choice is remembered.
#[test]
fn the_page_speaks_french_from_the_link_and_the_switch() {
    let server = start_server(None);
    let browser = Browser::start();
    browser.open(&format!("http://{server}/?game=tictactoe&lang=fr#play"));
    browser.wait_for("the start", "return document.querySelectorAll('#moves button').length === 9;");
    set(&browser, "mode", "human-human");
    browser.wait_for(
        "the redraw",
        "return !document.getElementById('play-status').textContent.includes('réflexion');",
    );
    let texts = browser.script(
        "return [document.documentElement.lang, document.querySelector('.tab[data-view=\"play\"]').textContent, \
         document.getElementById('game').selectedOptions[0].textContent, document.getElementById('play-status').textContent];",
    );
    assert_eq!(texts[0], "fr");
    assert_eq!(texts[1], "Jouer");
    assert_eq!(texts[2], "Morpion");
    assert!(texts[3].as_str().unwrap().contains("au trait"), "{texts}");
    browser.click(".cell[data-move='5']");
    browser.wait_for(
        "O's moves",
        "return document.querySelectorAll('#moves button').length === 8 \
         && !document.getElementById('play-status').textContent.includes('réflexion');",
    );
    let values = listed_moves(&browser);
    let edge = values.iter().find(|m| m.0 == "2").expect("an edge");
    assert!(edge.1.starts_with("perte en ") && edge.1.ends_with(" demi-coups"), "{edge:?}");
    let corner = values.iter().find(|m| m.0 == "1").expect("a corner");
    assert_eq!(corner.1, "nulle");

    browser.click(".tab[data-view='trees']");
    browser.click("#tree-run");
    let status = browser.wait_for(
        "the tree in French",
        "const s = document.getElementById('tree-status').textContent; return s.includes('feuilles évaluées 6 sur 9') && s;",
    );
    assert!(status.as_str().unwrap().starts_with("alpha-bêta (ordre naturel)"), "{status}");

    // Back to English with the switch: the game stays where it was.
    browser.click(".tab[data-view='play']");
    set(&browser, "lang", "en");
    let english = browser.script(
        "return [document.querySelector('.tab[data-view=\"play\"]').textContent, document.getElementById('position').value, \
         document.querySelector(\"#moves button[data-move='2'] .value\").textContent];",
    );
    assert_eq!(english[0], "Play");
    assert_eq!(english[1], "....X....");
    assert!(english[2].as_str().unwrap().starts_with("lose in "), "{english}");
    // Remembered: a page opened without ?lang= stays English.
    browser.open(&format!("http://{server}/#trees"));
    browser.wait_for(
        "English again",
        "return document.querySelector('.tab[data-view=\"trees\"]').textContent === 'Trees';",
    );
}
