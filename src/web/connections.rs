//! The connections of `descent serve`, each bounded: a request's head must arrive within
//! [`HEADER_READ_TIMEOUT`] (an idle keep-alive connection is closed after it too), its body
//! within [`BODY_READ_TIMEOUT`], and at most [`MAX_CONNECTIONS`] are open at once (one more is
//! closed as soon as it is accepted). A client that opens connections and sends nothing, or
//! sends a byte a minute, holds nothing for long.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

use super::web_error::WebError;

/// The longest a request's head (its line and headers) may take to arrive, or a kept-alive
/// connection may stay idle.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest a request's body may take to arrive.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request body read (a position's moves as JSON: a few kilobytes in use).
pub const MAX_BODY_BYTES: usize = 2 << 20;
/// Connections open at once, at most.
pub const MAX_CONNECTIONS: usize = 256;

/// Serves `app` on `listener` until the returned future is dropped.
pub async fn serve(listener: TcpListener, app: Router) {
    let open = Arc::new(AtomicUsize::new(0));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of file descriptors, or a connection reset before it was accepted: the
            // server goes on after a pause rather than spinning.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(slot) = ConnectionSlot::take(&open) else {
            drop(stream);
            continue;
        };
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _slot = slot;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT);
            let _ = builder
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// One of the [`MAX_CONNECTIONS`] connections, given back when dropped.
struct ConnectionSlot(Arc<AtomicUsize>);

impl ConnectionSlot {
    fn take(open: &Arc<AtomicUsize>) -> Option<ConnectionSlot> {
        open.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < MAX_CONNECTIONS).then_some(n + 1)
        })
        .ok()
        .map(|_| ConnectionSlot(open.clone()))
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Reads the request's whole body within [`BODY_READ_TIMEOUT`] and [`MAX_BODY_BYTES`] before
/// any handler sees it: 408 for a body too slow, 413 for one too large.
pub async fn read_body_in_time(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let read = tokio::time::timeout(
        BODY_READ_TIMEOUT,
        axum::body::to_bytes(body, MAX_BODY_BYTES),
    )
    .await;
    match read {
        Ok(Ok(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Ok(Err(_)) => WebError {
            status: 413,
            message: format!("a request body of more than {MAX_BODY_BYTES} bytes, or cut short"),
        }
        .into_response(),
        Err(_) => WebError {
            status: 408,
            message: format!("the request body did not arrive within {BODY_READ_TIMEOUT:?}"),
        }
        .into_response(),
    }
}
