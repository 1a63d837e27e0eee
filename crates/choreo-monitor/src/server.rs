//! The HTTP side: the page's files and the WebSocket, on the monitor's own thread.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use crate::hub::batches;
use crate::{Command, Shared};
use choreo_base::lock;

/// The page's files, embedded.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("../assets/index.html"),
    ),
    (
        "/monitor.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/monitor.js"),
    ),
    // monitor.js's parts (ES modules it imports).
    (
        "/dom.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/dom.js"),
    ),
    (
        "/page.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/page.js"),
    ),
    (
        "/diagram.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/diagram.js"),
    ),
    (
        "/timelines.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/timelines.js"),
    ),
    (
        "/robot.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/robot.js"),
    ),
    (
        "/log.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/log.js"),
    ),
    (
        "/stack.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/stack.js"),
    ),
    (
        "/replay.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/replay.js"),
    ),
    (
        "/edit.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/edit.js"),
    ),
    (
        "/timeline_edit.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/timeline_edit.js"),
    ),
    (
        "/dialog_edit.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/dialog_edit.js"),
    ),
    (
        "/project_edit.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/project_edit.js"),
    ),
    (
        "/drafts.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/drafts.js"),
    ),
    (
        "/talk.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/talk.js"),
    ),
    (
        "/curves.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/curves.js"),
    ),
    (
        "/panels.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/panels.js"),
    ),
    (
        "/layout.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/layout.js"),
    ),
    (
        "/glyphs.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/glyphs.js"),
    ),
    (
        "/code.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/code.js"),
    ),
    (
        "/monitor.css",
        "text/css; charset=utf-8",
        include_str!("../assets/monitor.css"),
    ),
    (
        "/robot3d.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/robot3d.js"),
    ),
    // three.js, vendored (assets/vendor/README.txt says which version).
    (
        "/vendor/three.module.min.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/vendor/three.module.min.js"),
    ),
    (
        "/vendor/three.core.min.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/vendor/three.core.min.js"),
    ),
    // CodeMirror 6, bundled (scripts/vendor-codemirror), for choreo edit's code.
    (
        "/vendor/codemirror.min.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/vendor/codemirror.min.js"),
    ),
    (
        "/vendor/CODEMIRROR-LICENSES.txt",
        "text/plain; charset=utf-8",
        include_str!("../assets/vendor/CODEMIRROR-LICENSES.txt"),
    ),
    (
        "/vendor/LICENSE",
        "text/plain; charset=utf-8",
        include_str!("../assets/vendor/LICENSE"),
    ),
];

type Params = Query<HashMap<String, String>>;

/// Serves until `stopped` fires.
pub(crate) async fn run(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    stopped: tokio::sync::oneshot::Receiver<()>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let batching = tokio::spawn(batches(
        Arc::clone(&shared.hub),
        Arc::clone(&shared.pending),
        shared.replay.clone(),
    ));
    let mut app = Router::new().route("/ws", get(socket));
    for (path, _, _) in ASSETS {
        app = app.route(path, get(asset));
    }
    let closing = Arc::clone(&shared);
    let app = app.fallback(not_found).with_state(shared);
    let _ = axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = stopped.await;
        })
        .await;
    batching.abort();
    // The pages get what is queued for them (the end of the run) and a close, for up to a
    // second: a monitor dropped just after the end does not cut its pages off mid-message.
    closing.closing.send_replace(true);
    let deadline = tokio::time::Instant::now() + CLOSE_WAIT;
    while lock(&closing.hub).clients() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// How long a stopping monitor waits for its pages to take their last messages.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether the request carries the token, when one is required.
fn allowed(shared: &Shared, params: &HashMap<String, String>) -> bool {
    shared
        .token
        .as_ref()
        .is_none_or(|t| params.get("token") == Some(t))
}

async fn asset(
    State(shared): State<Arc<Shared>>,
    Query(params): Params,
    uri: axum::http::Uri,
) -> Response {
    if !allowed(&shared, &params) {
        return (
            StatusCode::FORBIDDEN,
            "a token is required: use the URL choreo printed",
        )
            .into_response();
    }
    match ASSETS.iter().find(|(p, _, _)| *p == uri.path()) {
        Some((_, kind, body)) => ([(header::CONTENT_TYPE, *kind)], *body).into_response(),
        None => not_found().await.into_response(),
    }
}

async fn not_found() -> impl IntoResponse {
    (StatusCode::NOT_FOUND, "not found")
}

async fn socket(
    State(shared): State<Arc<Shared>>,
    Query(params): Params,
    upgrade: WebSocketUpgrade,
) -> Response {
    if !allowed(&shared, &params) {
        return (StatusCode::FORBIDDEN, "a token is required").into_response();
    }
    upgrade.on_upgrade(move |ws| page(ws, shared))
}

/// One page: its queue to the socket, its commands to the run or the replay.
async fn page(mut ws: WebSocket, shared: Arc<Shared>) {
    let extra = shared.replay.as_ref().map(|r| lock(r).position());
    let (id, mut queue) = lock(&shared.hub).join(extra);
    let mut closing = shared.closing.subscribe();
    loop {
        tokio::select! {
            () = async { drop(closing.wait_for(|c| *c).await) } => {
                while let Ok(text) = queue.try_recv() {
                    if ws.send(Message::Text(text.as_ref().into())).await.is_err() {
                        break;
                    }
                }
                let _ = ws.send(Message::Close(None)).await;
                break;
            }
            message = queue.recv() => {
                let Some(text) = message else { break };
                if ws.send(Message::Text(text.as_ref().into())).await.is_err() {
                    break;
                }
            }
            incoming = ws.recv() => {
                match incoming {
                    Some(Ok(Message::Text(text))) => {
                        if let Some(answer) = command(&shared, text.as_str()) {
                            let _ = ws.send(Message::Text(answer.to_string().into())).await;
                        }
                    }
                    Some(Ok(Message::Close(_)) | Err(_)) | None => break,
                    Some(Ok(_)) => {}
                }
            }
        }
    }
    lock(&shared.hub).leave(id);
}

/// Carries out a page's command; the answer to send back when it is refused.
fn command(shared: &Shared, text: &str) -> Option<Value> {
    let refused = |why: &str| Some(json!({"type": "refused", "why": why}));
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return refused("not JSON");
    };
    let str_of = |k: &str| v.get(k).and_then(Value::as_str);
    let send = |c: Command| {
        let sent = lock(&shared.commands).send(c).is_ok();
        if sent {
            None
        } else {
            refused("the run is over")
        }
    };
    // What an editor's page asks besides edits (docs/editor.md).
    const EDITOR: &[&str] = &[
        "edit",
        "undo",
        "redo",
        "inspect",
        "reload",
        "library",
        "problems",
        "play",
        "check",
        "dialog",
        "text_check",
        "complete",
        "try_rule",
        "project",
        "open_behavior",
        "history",
        "draft",
        "drafts",
        "world",
    ];
    match (str_of("type"), &shared.replay) {
        (Some("stop"), None) => send(Command::Stop),
        (Some("stimulate"), None) if shared.control => match (str_of("path"), str_of("input")) {
            (Some(path), Some(input)) => send(Command::Stimulate {
                path: path.to_string(),
                input: input.to_string(),
                value: v.get("value").cloned().unwrap_or(Value::Null),
            }),
            _ => refused("stimulate needs a path and an input"),
        },
        (Some("stimulate"), None) => {
            refused("stimulating inputs is off: run with --monitor-control")
        }
        // A person's doing (a sentence heard, a touch): to a run, with control; an editor
        // hands it to the run it plays.
        (Some("world"), None) if shared.control && !shared.edit => send(Command::World(v.clone())),
        (Some("world"), None) if !shared.edit => {
            refused("acting on the run is off: run with --monitor-control")
        }
        (Some(t), None) if !shared.edit && EDITOR.contains(&t) => {
            refused("editing is off: open the behavior with choreo edit")
        }
        (Some("edit"), None) => match v.get("edit") {
            Some(edit) => send(Command::Edit(edit.clone())),
            None => refused("edit needs an edit"),
        },
        (Some("undo"), None) => send(Command::Undo),
        (Some("redo"), None) => send(Command::Redo),
        (Some(t), None) if EDITOR.contains(&t) => send(Command::Editor(v.clone())),
        (Some(kind), Some(replay)) => {
            let mut r = lock(replay);
            match kind {
                "play" => r.play(),
                "pause" => r.pause(),
                "speed" => match v.get("speed").and_then(Value::as_f64) {
                    Some(s) => r.set_speed(s),
                    None => return refused("speed needs a number"),
                },
                "seek" => match v.get("seq").and_then(Value::as_u64) {
                    Some(s) => r.seek(s),
                    None => return refused("seek needs a seq"),
                },
                "step" => {
                    let n = v.get("count").and_then(Value::as_u64).unwrap_or(1);
                    r.step(usize::try_from(n).unwrap_or(usize::MAX));
                }
                _ => return refused("not a replay command"),
            }
            None
        }
        _ => refused("unknown command"),
    }
}
