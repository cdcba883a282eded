//! # gamegraph-web
//!
//! The web page of gamegraph: an HTTP server (axum) with a small JSON API and a single-page
//! application whose files are compiled into the binary, so nothing is built at install time and
//! nothing is fetched at run time. The page plays every built-in game with each move's value,
//! draws game trees searched by minimax or alpha-beta step by step, and draws solved game graphs.
//!
//! The server only translates requests into calls of the `gamegraph` library and games crate.
//! Every request is bounded: request bodies, tree and graph sizes, and search time, which is cut at
//! a limit and reported as such; searches run on blocking threads, a few at a time, so that the
//! server keeps answering.

mod api;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::Semaphore;

/// Largest request body accepted (a graph), in bytes.
pub const MAX_BODY: usize = 1 << 20;

/// Searches that may run at the same time.
pub const CONCURRENT_SEARCHES: usize = 2;

/// Cheap requests (solved games, trees, graphs) that may run at the same time, apart from the
/// searches, so that they never wait behind one.
pub const CONCURRENT_CHEAP: usize = 4;

/// Searches that may wait for a slot; beyond, the answer is 503 with `Retry-After`.
pub const SEARCH_QUEUE: usize = 8;

/// Cheap requests that may wait for a slot (they take milliseconds, so more may wait); beyond,
/// 503 with `Retry-After`.
pub const CHEAP_QUEUE: usize = 64;

/// What the server needs to answer requests.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The database directory of each game that has one (by game name): Oware score files,
    /// chess tables.
    pub databases: std::collections::BTreeMap<String, PathBuf>,
    /// Searches that may run at once ([`CONCURRENT_SEARCHES`] by default).
    pub searches: usize,
    /// Cheap requests that may run at once ([`CONCURRENT_CHEAP`] by default).
    pub cheap: usize,
    /// Searches that may wait ([`SEARCH_QUEUE`] by default).
    pub search_queue: usize,
    /// Cheap requests that may wait ([`CHEAP_QUEUE`] by default).
    pub cheap_queue: usize,
}

impl Default for ServerConfig {
    /// The default limits, and no database.
    fn default() -> Self {
        Self {
            databases: Default::default(),
            searches: CONCURRENT_SEARCHES,
            cheap: CONCURRENT_CHEAP,
            search_queue: SEARCH_QUEUE,
            cheap_queue: CHEAP_QUEUE,
        }
    }
}

impl ServerConfig {
    /// The same, with `game`'s values read from the database directory `dir`.
    pub fn with_database(mut self, game: &str, dir: PathBuf) -> Self {
        self.databases.insert(game.to_string(), dir);
        self
    }
}

/// Slots for one kind of work, and how many requests wait for one.
#[derive(Debug)]
struct Lane {
    slots: Semaphore,
    waiting: std::sync::atomic::AtomicUsize,
    queue: usize,
}

impl Lane {
    fn new(slots: usize, queue: usize) -> Arc<Self> {
        Arc::new(Self { slots: Semaphore::new(slots.max(1)), waiting: 0.into(), queue })
    }
}

/// State shared by the handlers.
#[derive(Debug, Clone)]
struct AppState {
    config: Arc<ServerConfig>,
    /// Analyses that search (Connect 4, Othello, Oware beyond its database).
    searches: Arc<Lane>,
    /// Everything else that takes work: solved games, trees, graphs.
    cheap: Arc<Lane>,
    /// Solved games kept from request to request.
    solved: Arc<gamegraph_games::analysis::SolvedCache>,
}

/// Solved game graphs kept across requests (each of at most `api::MAX_POSITIONS` positions), so
/// that a game played on the page is explored once, not at every move.
pub const SOLVED_GAMES: usize = 8;

/// The application: the page's files and the JSON API.
pub fn router(config: ServerConfig) -> Router {
    let state = AppState {
        searches: Lane::new(config.searches, config.search_queue),
        cheap: Lane::new(config.cheap, config.cheap_queue),
        solved: Arc::new(gamegraph_games::analysis::SolvedCache::new(SOLVED_GAMES)),
        config: Arc::new(config),
    };
    Router::new()
        .route("/", get(|| asset("text/html; charset=utf-8", include_str!("../assets/index.html"))))
        .route("/app.js", get(|| asset("text/javascript; charset=utf-8", include_str!("../assets/app.js"))))
        .route("/i18n.js", get(|| asset("text/javascript; charset=utf-8", include_str!("../assets/i18n.js"))))
        .route("/style.css", get(|| asset("text/css; charset=utf-8", include_str!("../assets/style.css"))))
        .route("/api/games", get(api::games))
        .route("/api/tree", get(api::tree))
        .route("/api/tree/random", get(api::random_tree))
        .route("/api/graph", post(api::graph))
        .route("/api/{game}/analyze", get(api::analyze))
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

async fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], body)
}

/// Serves the application on `addr` until Ctrl-C; `on_listen` is told the address bound (useful
/// with port 0).
pub fn serve(
    addr: SocketAddr,
    config: ServerConfig,
    on_listen: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        on_listen(listener.local_addr()?);
        axum::serve(listener, router(config))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
    })
}
