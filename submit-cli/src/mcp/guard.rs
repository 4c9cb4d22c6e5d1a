//! What every HTTP request passes before rmcp's streamable HTTP service handles it: its origin,
//! its token, its body, the session cap, and a `DELETE` of a session that does not exist. A
//! body read whole has a `tools/call`'s argument text cut from it (`super::envelope`): rmcp
//! reads the rest, and the text goes beside it in the request's extensions.
//!
//! Where rmcp answers on its own, it answers differently from what the MCP transport asks, and
//! cannot be configured otherwise (rmcp 3.11.0):
//!
//! - a body that is not a JSON-RPC message gets 415 (`expect_json`,
//!   `src/transport/common/server_side_http.rs`); here it gets 400 with a JSON-RPC parse error
//!   (`-32700`), or invalid request (`-32600`, with its `id`) for JSON that is no message;
//! - a `DELETE` of an unknown session gets 202 (`handle_delete`,
//!   `src/transport/streamable_http_server/tower.rs`, which closes whatever `close_session`
//!   finds, nothing included); here it gets 404, as the transport requires;
//! - sessions have no cap (`LocalSessionManager::create_session`); here an `initialize` past
//!   `--max-sessions` gets 503.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use http::header::{CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, BodyStream, Full, LengthLimitError, Limited, StreamBody};
use hyper::body::Frame;
use hyper::body::Incoming;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::StreamableHttpService;
use rmcp::ServerHandler;
use serde_json::Value;

use super::access::{Auth, Origins, Refusal, TOKEN_ENV};
use super::connections::{Connection, InFlight};
use super::envelope::{self, Cut};
use super::jsonrpc::{self, error};

/// A response as rmcp builds them.
pub type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// The header naming a request's session.
const SESSION: &str = "mcp-session-id";

/// What the checks need, shared by every connection.
pub struct Policy {
    /// The token, or none.
    pub auth: Auth,
    /// The browser origins allowed besides loopback ones.
    pub origins: Origins,
    /// rmcp's sessions, to count and look up.
    pub sessions: Arc<LocalSessionManager>,
    /// The most live sessions.
    pub max_sessions: usize,
    /// How long a session may stay idle.
    pub session_timeout: Duration,
    /// The most bytes a body may hold.
    pub max_body: usize,
    /// How long a body may take to arrive.
    pub read_timeout: Duration,
    /// Held while a session is opened, so that two at once cannot both pass the cap.
    pub opening: tokio::sync::Mutex<()>,
}

/// The service one connection is served with: the checks, then rmcp.
pub struct Guard<S: ServerHandler + Send + 'static> {
    inner: StreamableHttpService<S, LocalSessionManager>,
    policy: Arc<Policy>,
    connection: Arc<Connection>,
}

impl<S: ServerHandler + Send + 'static> Guard<S> {
    /// The service for one connection.
    pub fn new(
        inner: StreamableHttpService<S, LocalSessionManager>,
        policy: Arc<Policy>,
        connection: Arc<Connection>,
    ) -> Self {
        Guard {
            inner,
            policy,
            connection,
        }
    }
}

impl<S: ServerHandler + Send + 'static> hyper::service::Service<Request<Incoming>> for Guard<S> {
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        // In flight until the response's body is sent to its end or dropped.
        let in_flight = InFlight::on(&self.connection);
        let inner = self.inner.clone();
        let policy = Arc::clone(&self.policy);
        Box::pin(async move {
            let post = request.method() == Method::POST;
            let response = answer(&inner, &policy, request).await;
            let response = match post {
                true => whole_if_quick(response).await,
                false => response,
            };
            Ok(response.map(|body| {
                body.map_frame(move |frame| {
                    let _ = &in_flight;
                    frame
                })
                .boxed()
            }))
        })
    }
}

/// How long the start of an event stream is held back for the rest of it.
const HOLD: Duration = Duration::from_millis(100);

/// `response` (to a POST) in one piece when it is an event stream that ends within [`HOLD`]:
/// a call's answer comes microseconds after its request, and rmcp's stream starts with a
/// priming event before it; sent as it comes, the head and that event would go out in one
/// write and the answer and the stream's end in more, each a segment the client must take and
/// acknowledge. Held, the whole answer goes out in one write (its length known). A stream that
/// lasts longer (a `--validate` command still running) then flows as it comes, what was held
/// first.
async fn whole_if_quick(response: HttpResponse) -> HttpResponse {
    let event_stream = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
    if response.status() != StatusCode::OK || !event_stream {
        return response;
    }
    let (parts, mut body) = response.into_parts();
    let mut held = BytesMut::new();
    let hold = tokio::time::sleep(HOLD);
    tokio::pin!(hold);
    let rest = loop {
        tokio::select! {
            frame = body.frame() => match frame {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => held.extend_from_slice(&data),
                    // Trailers, which an event stream does not have: they end it.
                    Err(frame) => break Some(frame),
                },
                None => {
                    let whole = Full::new(held.freeze()).boxed();
                    return Response::from_parts(parts, whole);
                }
                Some(Err(never)) => match never {},
            },
            () = &mut hold => break None,
        }
    };
    let first = futures::stream::iter(
        [Some(Frame::data(held.freeze())), rest]
            .into_iter()
            .flatten()
            .map(Ok),
    );
    let body = BodyExt::boxed(StreamBody::new(first.chain(BodyStream::new(body))));
    Response::from_parts(parts, body)
}

/// The response to `request`.
async fn answer<S: ServerHandler + Send + 'static>(
    inner: &StreamableHttpService<S, LocalSessionManager>,
    policy: &Policy,
    request: Request<Incoming>,
) -> HttpResponse {
    if let Err(refusal) = policy
        .origins
        .check(request.headers())
        .and_then(|()| policy.auth.check(request.headers()))
    {
        return refused(refusal, request.headers());
    }
    match *request.method() {
        Method::POST if is_json(&request) => post(inner, policy, request).await,
        Method::DELETE => delete(inner, policy, request).await,
        _ => inner.handle(request).await,
    }
}

/// A POST of JSON: its body read within the limits, a `tools/call`'s argument text cut from
/// it, the rest checked to be a message (by rmcp in a session), and the session cap for an
/// `initialize`.
async fn post<S: ServerHandler + Send + 'static>(
    inner: &StreamableHttpService<S, LocalSessionManager>,
    policy: &Policy,
    request: Request<Incoming>,
) -> HttpResponse {
    let (mut parts, body) = request.into_parts();
    let collected = tokio::time::timeout(
        policy.read_timeout,
        Limited::new(body, policy.max_body).collect(),
    )
    .await;
    let bytes = match collected {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(reason)) if reason.downcast_ref::<LengthLimitError>().is_some() => {
            return text(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                    "the request body is longer than {} bytes (--max-body): send a smaller \
                     message, or raise --max-body",
                    policy.max_body
                ),
            );
        }
        Ok(Err(reason)) => {
            return text(
                StatusCode::BAD_REQUEST,
                &format!("cannot read the request body: {reason}; send it again"),
            );
        }
        Err(_elapsed) => {
            return text(
                StatusCode::REQUEST_TIMEOUT,
                &format!(
                    "the request body did not arrive within {} s (--read-timeout): send it \
                     at once",
                    policy.read_timeout.as_secs()
                ),
            );
        }
    };
    // A tools/call's argument text goes beside the message rmcp reads (see `envelope`).
    let cut = std::str::from_utf8(&bytes).map_or(Cut::Whole, envelope::cut);
    cut.mark_http(&mut parts.extensions, &bytes);
    let body = cut.into_body(bytes);
    if parts.headers.contains_key(SESSION) {
        // In a session: rmcp reads the message (once); what it cannot read as one it answers
        // 415, which is answered here as a body that holds no message is.
        let response = inner
            .handle(Request::from_parts(parts, Full::new(body.clone())))
            .await;
        if response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
            return response;
        }
        return match serde_json::from_slice::<ClientJsonRpcMessage>(&body) {
            Err(wrong) => not_a_message(&body, &wrong),
            Ok(_) => response,
        };
    }
    let message = match serde_json::from_slice::<ClientJsonRpcMessage>(&body) {
        Ok(message) => message,
        Err(wrong) => return not_a_message(&body, &wrong),
    };
    let request = Request::from_parts(parts, Full::new(body));
    let opens_a_session = matches!(&message, ClientJsonRpcMessage::Request(r)
                    if matches!(r.request, ClientRequest::InitializeRequest(_)));
    if !opens_a_session {
        return inner.handle(request).await;
    }
    let _opening = policy.opening.lock().await;
    let live = policy.sessions.sessions.read().await.len();
    if live >= policy.max_sessions {
        tracing::warn!(
            live,
            "an initialize was refused: the session cap is reached"
        );
        let id = match &message {
            ClientJsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        let text = format!(
            "too many sessions: {live} are live, and --max-sessions is {}; end one you no longer \
             use (an HTTP DELETE with its {SESSION} header), wait for an idle one to expire \
             ({} s), or raise --max-sessions",
            policy.max_sessions,
            policy.session_timeout.as_secs()
        );
        let mut response = json(
            StatusCode::SERVICE_UNAVAILABLE,
            &error(id.as_ref(), ErrorCode(-32000), &text),
        );
        if let Ok(seconds) = HeaderValue::from_str(&policy.session_timeout.as_secs().to_string()) {
            response.headers_mut().insert(RETRY_AFTER, seconds);
        }
        return response;
    }
    inner.handle(request).await
}

/// A DELETE: 404 when its session is not live; else rmcp ends it, and its 202 becomes 204
/// (the session is ended, nothing follows; the MCP Python SDK warns on any success but 200
/// and 204).
async fn delete<S: ServerHandler + Send + 'static>(
    inner: &StreamableHttpService<S, LocalSessionManager>,
    policy: &Policy,
    request: Request<Incoming>,
) -> HttpResponse {
    if let Some(id) = request.headers().get(SESSION) {
        let live = match id.to_str() {
            Ok(id) => policy.sessions.sessions.read().await.contains_key(id),
            Err(_) => false,
        };
        if !live {
            return text(
                StatusCode::NOT_FOUND,
                "no such session: it ended (deleted, or expired idle) or was never issued; \
                 start a new one with initialize",
            );
        }
    }
    let mut response = inner.handle(request).await;
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
        *response.body_mut() = Full::new(Bytes::new())
            .map_err(|never| match never {})
            .boxed();
    }
    response
}

/// The answer to a body that is not a JSON-RPC message: as a line over standard input and
/// output gets, with 400.
fn not_a_message(bytes: &[u8], wrong: &serde_json::Error) -> HttpResponse {
    tracing::warn!(error = %wrong, "a body that is not a JSON-RPC message was answered 400");
    let answer = jsonrpc::not_a_message(bytes, wrong)
        // A notification is answered too: HTTP answers every request.
        .unwrap_or_else(|| {
            error(
                None,
                ErrorCode::INVALID_REQUEST,
                &jsonrpc::invalid_request(wrong),
            )
        });
    json(StatusCode::BAD_REQUEST, &answer)
}

/// The answer to a refused request.
fn refused(refusal: Refusal, headers: &http::HeaderMap) -> HttpResponse {
    match refusal {
        Refusal::Origin => {
            let origin = headers
                .get(http::header::ORIGIN)
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
                .unwrap_or_default();
            tracing::warn!(%origin, "a request from a foreign origin was refused");
            text(
                StatusCode::FORBIDDEN,
                &format!(
                    "origin `{}` is not allowed: a browser page may call this server only from \
                     a loopback origin or one given with --allow-origin",
                    origin.escape_debug()
                ),
            )
        }
        Refusal::NoToken | Refusal::WrongToken => {
            let (challenge, what) = match refusal {
                Refusal::WrongToken => (
                    r#"Bearer realm="submit-result", error="invalid_token""#,
                    "the bearer token is not this server's",
                ),
                _ => (r#"Bearer realm="submit-result""#, "no bearer token"),
            };
            tracing::warn!(what, "a request without the token was refused");
            let mut response = text(
                StatusCode::UNAUTHORIZED,
                &format!(
                    "{what}: send the header `Authorization: Bearer <token>`, with the token \
                     of {TOKEN_ENV}, or the one the server printed at start or wrote to \
                     --token-file"
                ),
            );
            response
                .headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
            response
        }
    }
}

/// Whether a request says its body is JSON.
fn is_json<B>(request: &Request<B>) -> bool {
    request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// A plain-text response.
fn text(status: StatusCode, message: &str) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::from(format!("{message}\n"))).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// A JSON response.
fn json(status: StatusCode, body: &Value) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use hyper::body::Body;

    use super::*;

    /// An event-stream response whose body is `frames`, each after `gap`.
    fn event_stream(frames: &[&'static str], gap: Duration) -> HttpResponse {
        let frames = frames.to_vec();
        let stream = futures::stream::iter(frames).then(move |frame| async move {
            tokio::time::sleep(gap).await;
            Ok::<_, Infallible>(Frame::data(Bytes::from_static(frame.as_bytes())))
        });
        let mut response = Response::new(BodyExt::boxed(StreamBody::new(stream)));
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        response
    }

    const EVENTS: [&str; 3] = [
        "id: 0\nretry: 3000\ndata: \n\n",
        "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
        "",
    ];

    #[tokio::test]
    async fn an_answer_that_ends_at_once_goes_out_whole_with_its_length() {
        let response = whole_if_quick(event_stream(&EVENTS, Duration::ZERO)).await;
        let body = response.into_body();
        let length = EVENTS.concat().len() as u64;
        assert_eq!(body.size_hint().exact(), Some(length));
        let whole = body.collect().await.unwrap().to_bytes();
        assert_eq!(whole, EVENTS.concat());
    }

    #[tokio::test]
    async fn a_stream_that_lasts_flows_after_the_hold_with_what_was_held_first() {
        let started = Instant::now();
        let response = whole_if_quick(event_stream(&EVENTS, 3 * HOLD)).await;
        assert!(started.elapsed() < 3 * HOLD, "{:?}", started.elapsed());
        let mut body = response.into_body();
        assert_eq!(body.size_hint().exact(), None);
        let mut frames = Vec::new();
        while let Some(frame) = body.frame().await {
            frames.push(frame.unwrap().into_data().unwrap());
        }
        assert_eq!(frames.concat(), EVENTS.concat().as_bytes());
    }

    #[tokio::test]
    async fn other_answers_are_left_as_they_are() {
        let mut response = event_stream(&EVENTS, Duration::ZERO);
        *response.status_mut() = StatusCode::NOT_FOUND;
        let response = whole_if_quick(response).await;
        assert_eq!(response.into_body().size_hint().exact(), None);
    }
}
