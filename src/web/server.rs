//! The routes of `descent serve`: the page (embedded: no files to install), and a JSON API the
//! page calls — runs, their metrics from an offset (the page polls for live curves), their
//! games, and the board (a position, an agent's move). Every bad request gets a JSON
//! `{"error": …}` with a 4xx status; the server reads run directories and never writes.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::host_check::HostCheck;
use super::play::{
    AgentCache, AgentCheckRequest, AgentMoveRequest, MAX_MOVE_TIME, PositionRequest,
    agent_move_then, check_agent, game_list, position_view,
};
use super::runs;
use super::web_error::WebError;
use crate::search::StopToken;

/// What every request may read.
pub struct ServerState {
    /// The directory whose runs are shown.
    pub root: PathBuf,
    pub agents: AgentCache,
    /// The `Host` headers answered.
    pub hosts: HostCheck,
    /// Agents' searches running now (at most [`max_searches`]; one more is answered 503).
    pub searches: AtomicUsize,
}

/// Agents' searches at once, at most: one a core, so that a burst of requests queues no work
/// that would answer after its client gave up.
pub fn max_searches() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

type Shared = State<Arc<ServerState>>;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// The application: the page and its API over `state`.
pub fn router(state: ServerState) -> Router {
    let state = Arc::new(state);
    Router::new()
        .route(
            "/",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                    INDEX_HTML,
                )
            }),
        )
        .route(
            "/app.js",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                    APP_JS,
                )
            }),
        )
        .route(
            "/style.css",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
                    STYLE_CSS,
                )
            }),
        )
        .route("/api/games", get(|| async { Json(game_list()) }))
        .route("/api/runs", get(list_runs))
        .route("/api/runs/{name}", get(run_details))
        .route("/api/runs/{name}/metrics", get(run_metrics))
        .route("/api/runs/{name}/games", get(run_games))
        .route("/api/runs/{name}/games/{number}", get(run_game_by_number))
        .route("/api/position", post(position))
        .route("/api/agent-move", post(agent))
        .route("/api/agent-check", post(agent_check))
        .fallback(|| async { WebError::not_found("no such page or API route") })
        .layer(middleware::from_fn(super::connections::read_body_in_time))
        .layer(middleware::from_fn_with_state(state.clone(), check_host))
        .with_state(state)
}

/// Answers only requests for this server's own host names (`HostCheck`).
async fn check_host(State(state): Shared, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if state.hosts.allows(host) {
        next.run(request).await
    } else {
        WebError::misdirected(format!(
            "Host {host:?} is not this server's (open it as http://localhost:PORT/ or by its address)"
        ))
        .into_response()
    }
}

/// Runs `read` (file reads) on the blocking pool, never on the threads that answer requests.
async fn off_the_runtime<T: Send + 'static>(
    read: impl FnOnce() -> Result<T, WebError> + Send + 'static,
) -> Result<T, WebError> {
    tokio::task::spawn_blocking(read)
        .await
        .map_err(|e| WebError::internal(format!("the read failed: {e}")))?
}

async fn list_runs(State(state): Shared) -> Result<Json<Vec<runs::RunSummary>>, WebError> {
    off_the_runtime(move || runs::list_runs(&state.root).map(Json)).await
}

async fn run_details(
    State(state): Shared,
    Path(name): Path<String>,
) -> Result<Json<Value>, WebError> {
    off_the_runtime(move || {
        let run = runs::run_path(&state.root, &name)?;
        let summary = runs::summary(&run, name);
        Ok(Json(json!({
            "summary": summary,
            "config": runs::config_text(&run),
            "model": run.display().to_string(),
            "ladder": runs::ladder(&run),
            "evaluation_reports": runs::evaluation_reports(&run),
        })))
    })
    .await
}

#[derive(Deserialize)]
struct MetricsQuery {
    #[serde(default)]
    from: u64,
}

async fn run_metrics(
    State(state): Shared,
    Path(name): Path<String>,
    query: Result<Query<MetricsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, WebError> {
    let Query(query) = query.map_err(|e| WebError::bad_request(e.body_text()))?;
    off_the_runtime(move || {
        let run = runs::run_path(&state.root, &name)?;
        runs::metrics_since(&run, query.from).map(Json)
    })
    .await
}

#[derive(Deserialize)]
struct GamesQuery {
    #[serde(default = "default_games")]
    count: usize,
}

fn default_games() -> usize {
    20
}

async fn run_games(
    State(state): Shared,
    Path(name): Path<String>,
    query: Result<Query<GamesQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, WebError> {
    let Query(query) = query.map_err(|e| WebError::bad_request(e.body_text()))?;
    off_the_runtime(move || {
        let run = runs::run_path(&state.root, &name)?;
        Ok(Json(json!({
            "game": runs::run_game(&run),
            "games": runs::recent_games(&run, query.count.min(200)),
        })))
    })
    .await
}

/// One self-play game by its number (`game` in games.jsonl); 404 naming it when the run has
/// none of that number.
async fn run_game_by_number(
    State(state): Shared,
    Path((name, number)): Path<(String, String)>,
) -> Result<Json<Value>, WebError> {
    let number: u64 = number.parse().map_err(|_| {
        WebError::bad_request(format!("game {number:?}: not a game number (1, 2, …)"))
    })?;
    off_the_runtime(move || {
        let run = runs::run_path(&state.root, &name)?;
        match runs::game_by_number(&run, number)? {
            Some(record) => Ok(Json(json!({
                "game": runs::run_game(&run),
                "record": record,
            }))),
            None => Err(WebError::not_found(format!(
                "run {name} has no game {number} in its games.jsonl"
            ))),
        }
    })
    .await
}

fn body<T>(request: Result<Json<T>, JsonRejection>) -> Result<T, WebError> {
    request
        .map(|Json(value)| value)
        .map_err(|e| WebError::bad_request(e.body_text()))
}

async fn position(
    request: Result<Json<PositionRequest>, JsonRejection>,
) -> Result<impl IntoResponse, WebError> {
    let request = body(request)?;
    tokio::task::spawn_blocking(move || position_view(&request).map(Json))
        .await
        .map_err(|e| WebError::internal(format!("the position could not be shown: {e}")))?
}

async fn agent(
    State(state): Shared,
    request: Result<Json<AgentMoveRequest>, JsonRejection>,
) -> Result<impl IntoResponse, WebError> {
    let request = body(request)?;
    // Held by the search itself: a client that leaves does not free it before the search
    // has stopped.
    let slot = SearchSlot::take(&state)?;
    // Dropped with this handler — when the reply is sent, or when the client is gone and the
    // server drops the request — it cancels the agent's search; so does the end of the
    // turn's time (`MAX_MOVE_TIME` for the whole turn, however many actions it has, counted
    // from the first search: loading the network is not thinking).
    let cancel = CancelOnDrop(StopToken::new());
    let stop = cancel.0.clone();
    let turn_over = cancel.0.clone();
    let runtime = tokio::runtime::Handle::current();
    let search = move || {
        let _slot = slot;
        let start_clock = || {
            runtime.spawn(async move {
                tokio::time::sleep(MAX_MOVE_TIME).await;
                turn_over.stop();
            });
        };
        agent_move_then(&request, &state.agents, &stop, start_clock).map(Json)
    };
    tokio::task::spawn_blocking(search)
        .await
        .map_err(|e| WebError::internal(format!("the agent failed: {e}")))?
}

/// One of the [`max_searches`] searches, given back when dropped.
struct SearchSlot(Arc<ServerState>);

impl SearchSlot {
    fn take(state: &Arc<ServerState>) -> Result<SearchSlot, WebError> {
        let max = max_searches();
        state
            .searches
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map(|_| SearchSlot(state.clone()))
            .map_err(|_| {
                WebError::unavailable(format!(
                    "busy: {max} agents are thinking already (one a core); ask again in a moment"
                ))
            })
    }
}

impl Drop for SearchSlot {
    fn drop(&mut self) {
        self.0.searches.fetch_sub(1, Ordering::AcqRel);
    }
}

async fn agent_check(
    State(state): Shared,
    request: Result<Json<AgentCheckRequest>, JsonRejection>,
) -> Result<impl IntoResponse, WebError> {
    let request = body(request)?;
    tokio::task::spawn_blocking(move || {
        check_agent(&request, &state.agents).map(|()| Json(json!({"ok": true})))
    })
    .await
    .map_err(|e| WebError::internal(format!("the agent could not be checked: {e}")))?
}

/// Sets its flag when dropped.
struct CancelOnDrop(StopToken);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}
