//! The JSON API: games and their analysis, tree searches with their trace, solved graphs.
//! Every error is a JSON object `{"error": "..."}` with a 4xx status (5xx when the server itself
//! cannot do the work), naming what is wrong and where.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::extract::rejection::{QueryRejection, StringRejection};
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use gamegraph::engine::EngineSettings;
use gamegraph::graph_text::parse_text;
use gamegraph::report::{GraphReport, TreeReport};
use gamegraph::search::Algorithm;
use gamegraph::solution::solve_graph;
use gamegraph::tree::{MoveOrder, Tree};
use gamegraph::Model;
use gamegraph_games::analysis::{analyze_named, AnalysisError, AnalysisRequest, Budget, RequestError};
use gamegraph_games::{DatabaseKind, GameError, GameOptions, Solver};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::{AppState, Lane};

/// Longest search a request may ask for.
pub const MAX_TIME: Duration = Duration::from_secs(10);
/// Search time when the request does not say.
pub const DEFAULT_TIME: Duration = Duration::from_secs(2);
/// Deepest search a request may ask for.
pub const MAX_DEPTH: u32 = 64;
/// Most leaves in a tree searched with its full trace.
pub const MAX_TREE_LEAVES: usize = 20_000;
/// Deepest tree searched with its full trace: each step names the path to its node, so with the
/// leaves this bounds the answer (a 40 KB chain answered 88 MB).
pub const MAX_TREE_DEPTH: u32 = 64;
/// Most positions explored for one analysis by retrograde analysis (tic-tac-toe has 5,478; Nim
/// 30,30,30 about 30,000): larger games get a 400 rather than a minute of one core.
pub const MAX_POSITIONS: usize = 200_000;
/// The transposition table of one analysis, in MiB.
pub const SEARCH_TABLE_MIB: usize = 16;

/// An API error: a status and a message.
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn bad(message: impl Into<String>) -> Self {
        Self { status: StatusCode::BAD_REQUEST, message: message.into() }
    }
}

/// Seconds a client is asked to wait before retrying a request refused because the server is busy.
pub const RETRY_AFTER_SECONDS: u32 = 1;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(json!({ "error": self.message }));
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            let retry = [(axum::http::header::RETRY_AFTER, RETRY_AFTER_SECONDS.to_string())];
            return (self.status, retry, body).into_response();
        }
        (self.status, body).into_response()
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> Self {
        let status = match e {
            GameError::Unknown(_) => StatusCode::NOT_FOUND,
            GameError::BadOptions(_) => StatusCode::BAD_REQUEST,
        };
        Self { status, message: e.to_string() }
    }
}

type ApiResult = Result<Json<Value>, ApiError>;

/// The query parameters, or a JSON error naming the one that does not parse.
fn parameters<T>(query: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    query.map(|Query(q)| q).map_err(|e| ApiError { status: e.status(), message: e.body_text() })
}

/// A request with a method the path does not take: 405 with the usual JSON error.
pub async fn method_not_allowed(method: axum::http::Method, uri: Uri) -> ApiError {
    ApiError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        message: format!("{} does not take {method} requests", uri.path()),
    }
}

pub async fn not_found(uri: Uri) -> ApiError {
    ApiError { status: StatusCode::NOT_FOUND, message: format!("no such page or endpoint: {}", uri.path()) }
}

/// Runs blocking work on a blocking thread once a slot of `lane` is free; when too many requests
/// wait already, answers 503 (with `Retry-After`) at once instead of queueing without bound.
async fn blocking<T: Send + 'static>(
    lane: &Lane,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    use std::sync::atomic::Ordering::SeqCst;
    let busy = || ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        message: "the server is busy: try again in a moment".into(),
    };
    let permit = match lane.slots.try_acquire() {
        Ok(permit) => permit,
        Err(_) => {
            if lane.waiting.fetch_add(1, SeqCst) >= lane.queue {
                lane.waiting.fetch_sub(1, SeqCst);
                return Err(busy());
            }
            let permit = lane.slots.acquire().await;
            lane.waiting.fetch_sub(1, SeqCst);
            permit.map_err(|_| busy())?
        }
    };
    let _permit = permit;
    tokio::task::spawn_blocking(work).await.map_err(|e| ApiError {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        message: format!("the work failed: {e}"),
    })
}

/// `GET /api/games`: every game as the registry lists it (the same as `gamegraph games --json`).
pub async fn games() -> ApiResult {
    Ok(Json(json!({ "games": gamegraph_games::registry::listing() })))
}

/// Query parameters of an analysis that are not game options.
const ANALYSIS_PARAMETERS: [&str; 3] = ["position", "time", "depth"];

/// `GET /api/{game}/analyze?position=P&time=S&depth=D` and the game's options (as listed by
/// `/api/games`): the position's value and every move's.
pub async fn analyze(
    State(state): State<AppState>,
    Path(game): Path<String>,
    query: Result<Query<BTreeMap<String, String>>, QueryRejection>,
) -> ApiResult {
    let query = parameters(query)?;
    let time = match query.get("time").map(|t| t.parse::<f64>()) {
        None => DEFAULT_TIME,
        Some(Ok(t)) if t > 0.0 && t <= MAX_TIME.as_secs_f64() => Duration::from_secs_f64(t),
        Some(_) => {
            return Err(ApiError::bad(format!(
                "time {}: give 0 < time <= {} seconds",
                query["time"],
                MAX_TIME.as_secs()
            )))
        }
    };
    let depth = match query.get("depth").map(|d| d.parse::<u32>()) {
        None => None,
        Some(Ok(d)) if (1..=MAX_DEPTH).contains(&d) => Some(d),
        Some(_) => {
            return Err(ApiError::bad(format!("depth {}: give 1 to {MAX_DEPTH} plies", query["depth"])))
        }
    };
    let entry = gamegraph_games::entry(&game)?;
    let mut options = GameOptions::default();
    for (name, value) in query.iter().filter(|(name, _)| !ANALYSIS_PARAMETERS.contains(&name.as_str())) {
        options.set(name, value);
    }
    if entry.database == DatabaseKind::Directory {
        options.database = state.config.databases.get(entry.name).cloned();
    }
    let budget = Budget { time: Some(time), depth, positions: MAX_POSITIONS, weak: false };
    let solved = state.solved.clone();
    let position = query.get("position").cloned();
    let lane = if entry.solver == Solver::Retrograde { &state.cheap } else { &state.searches };
    let analysis = blocking(lane, move || {
        analyze_named(AnalysisRequest {
            game: &game,
            options: &options,
            position: position.as_deref(),
            budget,
            settings: EngineSettings { tt_mib: SEARCH_TABLE_MIB, threads: 1, ..EngineSettings::default() },
            cache: Some(solved),
            interrupt: None,
            database_file: None,
        })
    })
    .await?
    .map_err(|e| match e {
        e @ RequestError::Analysis(AnalysisError::Memory(_)) => {
            ApiError { status: StatusCode::SERVICE_UNAVAILABLE, message: e.to_string() }
        }
        e => ApiError::bad(e.to_string()),
    })?;
    let mut out = serde_json::to_value(analysis).expect("an analysis serialises");
    out["time_limit_seconds"] = json!(time.as_secs_f64());
    Ok(Json(out))
}

#[derive(Debug, Deserialize)]
pub struct TreeQuery {
    tree: String,
    algo: Option<String>,
    order: Option<String>,
}

/// The algorithm named, alpha-beta by default.
fn algorithm(name: Option<&str>) -> Result<Algorithm, ApiError> {
    name.unwrap_or("alphabeta").parse().map_err(ApiError::bad)
}

/// The move order named, natural by default.
fn move_order(name: Option<&str>) -> Result<MoveOrder, ApiError> {
    name.unwrap_or("natural").parse().map_err(ApiError::bad)
}

/// `GET /api/tree?tree=T&algo=A&order=O`: the search of a tree, with every step and every node.
pub async fn tree(
    State(state): State<AppState>,
    query: Result<Query<TreeQuery>, QueryRejection>,
) -> ApiResult {
    let query = parameters(query)?;
    let algo = algorithm(query.algo.as_deref())?;
    let order = move_order(query.order.as_deref())?;
    let tree = Tree::parse(&query.tree).map_err(|e| ApiError::bad(format!("bad tree: {e}")))?;
    if tree.leaf_count() > MAX_TREE_LEAVES {
        return Err(ApiError::bad(format!(
            "the tree has {} leaves; the page traces at most {MAX_TREE_LEAVES}",
            tree.leaf_count()
        )));
    }
    // Every step and node names its path from the root: depth bounds the answer's size.
    let depth = tree.nodes().iter().map(|n| n.depth).max().unwrap_or(0);
    if depth > MAX_TREE_DEPTH {
        return Err(ApiError::bad(format!(
            "the tree is {depth} levels deep; the page traces at most {MAX_TREE_DEPTH}"
        )));
    }
    let report = blocking(&state.cheap, move || {
        let analysis = tree.analyze(algo, order);
        TreeReport::new(&tree, &analysis, true, true)
    })
    .await?;
    Ok(Json(serde_json::to_value(report).expect("a report serialises")))
}

#[derive(Debug, Deserialize)]
pub struct RandomTreeQuery {
    branching: Option<u32>,
    depth: Option<u32>,
    low: Option<i32>,
    high: Option<i32>,
    seed: Option<u64>,
}

/// Most leaves in a random tree.
pub const MAX_RANDOM_LEAVES: u64 = 4096;

/// `GET /api/tree/random?branching=B&depth=D&low=L&high=H&seed=S`: a uniform random tree.
pub async fn random_tree(query: Result<Query<RandomTreeQuery>, QueryRejection>) -> ApiResult {
    let q = parameters(query)?;
    let (branching, depth) = (q.branching.unwrap_or(3), q.depth.unwrap_or(3));
    let (low, high) = (q.low.unwrap_or(-9), q.high.unwrap_or(9));
    if branching == 0 || branching.checked_pow(depth).is_none_or(|n| u64::from(n) > MAX_RANDOM_LEAVES) {
        return Err(ApiError::bad(format!(
            "branching {branching} and depth {depth}: give branching >= 1 and at most {MAX_RANDOM_LEAVES} leaves"
        )));
    }
    let limit = gamegraph::tree::MAX_LEAF as i32;
    if low > high || low < -limit || high > limit {
        return Err(ApiError::bad(format!("values {low}..{high}: give low <= high within +-{limit}")));
    }
    let seed = q.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    let tree = Tree::random(branching, depth, low, high, seed);
    Ok(Json(json!({ "tree": tree.to_notation(), "seed": seed })))
}

#[derive(Debug, Deserialize)]
pub struct GraphQuery {
    model: Option<String>,
}

/// `POST /api/graph?model=M` with the graph text as body: every position's value and the moves.
pub async fn graph(
    State(state): State<AppState>,
    query: Result<Query<GraphQuery>, QueryRejection>,
    body: Result<String, StringRejection>,
) -> ApiResult {
    let query = parameters(query)?;
    let body = body.map_err(|e| ApiError { status: e.status(), message: e.body_text() })?;
    let model: Model = query.model.as_deref().unwrap_or("stakes").parse().map_err(ApiError::bad)?;
    let named = parse_text(&body).map_err(|e| ApiError::bad(format!("bad graph: {e}")))?;
    let report = blocking(&state.cheap, move || {
        let solution = solve_graph(&named.graph, model);
        GraphReport::new(&named, &solution, true)
    })
    .await?;
    Ok(Json(serde_json::to_value(report).expect("a report serialises")))
}
