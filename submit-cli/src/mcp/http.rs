//! Streamable HTTP: the listener, its connections and their limits, and rmcp's service behind
//! the checks of [`super::guard`].
//!
//! Limits, each in `--help` and the README:
//!
//! - `--read-timeout` (10 s): hyper's header-read timer, wired to tokio's clock, closes a
//!   connection that has not sent a whole request head that long after it opened or after its
//!   previous response (hyper starts the same timer while a kept-alive connection waits, so it
//!   is the idle-connection timeout as well); a body must arrive within as long again (408).
//!   hyper closes such a connection without a response (hyper 1.12.0,
//!   `src/proto/h1/role.rs`, `Server::on_error` answers parse errors only).
//! - `--max-connections` (64): see [`super::connections`]; 503 with `Retry-After` when every
//!   one is serving, written before the connection is closed, and the rest of the request read
//!   and dropped first (closing a connection with bytes unread resets it, and the client could
//!   lose the answer with them).
//! - `--max-sessions` (16) and `--session-timeout` (120 s, rmcp's `SessionConfig::keep_alive`,
//!   whose default is 300 s): 503 past the cap; an expired session's next request gets 404.
//! - `--max-body` (4 MiB, rmcp's default): 413.
//!
//! Every accepted connection has `TCP_NODELAY` set: an answer that goes out in more than one
//! write (a stream that lasts past the guard's hold, see [`super::guard`]; a response whose
//! head hyper writes before its body) would otherwise have its later writes held by Nagle's
//! algorithm until the client acknowledged the first, which a client waiting for the rest
//! delays by its delayed-ACK timer (about 40 ms on Linux): one call would take that long on a
//! kept-alive connection. A call's answer that is complete at once goes out in one write.
//! Interrupted (Ctrl-C, or SIGTERM where there is one), the server stops; the signals are
//! listened for from before it takes its first connection until it stops.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, RETRY_AFTER};
use http::{HeaderValue, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServerHandler;

use super::access::{Auth, Origins, Token, TOKEN_ENV};
use super::connections::Connections;
use super::guard::{Guard, Policy};
use crate::args::McpArgs;
use crate::error::CliError;

/// How the HTTP server is set up, from the command line.
#[derive(Debug)]
pub struct Setup {
    addr: SocketAddr,
    /// Whether to serve without a token.
    no_auth: bool,
    token_file: Option<PathBuf>,
    origins: Origins,
    read_timeout: Duration,
    max_connections: usize,
    max_sessions: usize,
    session_timeout: Duration,
    max_body: usize,
}

impl Setup {
    /// The setup `args` ask for, serving on `addr`; refused when it would serve anyone who
    /// can reach a non-loopback address without a token.
    pub fn new(args: &McpArgs, addr: SocketAddr) -> Result<Setup, CliError> {
        let http = &args.http;
        if http.no_auth && !addr.ip().is_loopback() {
            return Err(CliError::NoAuthNotLoopback(addr));
        }
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        Ok(Setup {
            addr,
            no_auth: http.no_auth,
            token_file: http.token_file.clone(),
            origins: Origins::new(&http.allow_origins)?,
            read_timeout: Duration::from_secs(http.read_timeout),
            max_connections: count(http.max_connections),
            max_sessions: count(http.max_sessions),
            session_timeout: Duration::from_secs(http.session_timeout),
            max_body: count(http.max_body),
        })
    }

    /// The token requests must carry: SUBMIT_RESULT_MCP_TOKEN's, or one generated and printed
    /// once on standard error; written to `--token-file` when given.
    fn auth(&self) -> Result<Auth, CliError> {
        if self.no_auth {
            tracing::warn!("serving without a token (--no-auth): any local program may call");
            return Ok(Auth::Open);
        }
        let token = match Token::from_env()? {
            Some(token) => token,
            None => {
                let token = Token::generate()?;
                // Printed whatever the log filter: the host needs it.
                eprintln!(
                    "submit-result: bearer token (send `Authorization: Bearer <token>`; set \
                     {TOKEN_ENV} to choose it): {}",
                    token.secret()
                );
                token
            }
        };
        if let Some(path) = &self.token_file {
            token.write_to(path)?;
        }
        Ok(Auth::Bearer(token))
    }
}

/// Serves streamable HTTP as `setup` says, a server from `factory` for each session, until
/// interrupted.
pub async fn serve<S, F>(factory: F, setup: Setup) -> Result<(), CliError>
where
    S: ServerHandler + Send + 'static,
    F: Fn() -> S + Send + Sync + 'static,
{
    let mut stop = Stop::listen().map_err(|error| {
        CliError::Mcp(format!(
            "cannot listen for the signals that stop the server: {error}"
        ))
    })?;
    let addr = setup.addr;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| CliError::Listen { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| CliError::Listen { addr, source })?;
    let auth = setup.auth()?;

    let (sessions, config) = streamable(&setup, local);
    let cancel = config.cancellation_token.clone();
    let service = StreamableHttpService::new(move || Ok(factory()), Arc::clone(&sessions), config);
    let policy = Arc::new(Policy {
        auth,
        origins: setup.origins,
        sessions,
        max_sessions: setup.max_sessions,
        session_timeout: setup.session_timeout,
        max_body: setup.max_body,
        read_timeout: setup.read_timeout,
        opening: tokio::sync::Mutex::new(()),
    });
    let connections = Connections::new(setup.max_connections);
    let http1 = http1(setup.read_timeout);

    // The address is the interface here (port 0 picks one), so it is printed whatever the log
    // filter.
    eprintln!("submit-result: serving MCP at http://{local}/mcp");
    loop {
        let stream = tokio::select! {
            () = stop.stopped() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors and the like: wait, then take the next one.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::warn!(%error, "cannot set TCP_NODELAY on a connection");
        }
        let Some(slot) = connections.admit() else {
            refuse(stream, connections.max(), &http1, setup.read_timeout);
            continue;
        };
        let io = TokioIo::new(stream);
        let guard = Guard::new(service.clone(), Arc::clone(&policy), slot.connection());
        let http1 = Arc::clone(&http1);
        tokio::spawn(async move {
            let connection = http1.serve_connection(io, guard);
            tokio::select! {
                result = connection => {
                    if let Err(error) = result {
                        tracing::debug!(%error, "a connection ended with an error");
                    }
                }
                () = slot.evicted() => {
                    tracing::debug!("an idle connection was closed to make room for a new one");
                }
            }
            drop(slot);
        });
        // A connection evicted to make room closes when its task next runs: let it run before
        // the next accept, so evicted ones never pile up past the cap while accepts are ready.
        tokio::task::yield_now().await;
    }
    cancel.cancel();
    tracing::info!("interrupted: stopped serving");
    Ok(())
}

/// The session manager and the streamable HTTP configuration for a server at `local`.
fn streamable(
    setup: &Setup,
    local: SocketAddr,
) -> (Arc<LocalSessionManager>, StreamableHttpServerConfig) {
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(setup.session_timeout);
    // A request's stream is kept after its answer for a client that lost the connection to
    // resume (rmcp keeps it 60 s), so memory would grow with the calls of the last minute
    // rather than with the sessions; a stream cut before its answer is still resumed.
    sessions.session_config.completed_cache_ttl = Duration::ZERO;
    let config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(setup.max_body)
        .with_allowed_hosts(allowed_hosts(local));
    let config = if local.ip().is_unspecified() {
        // Every interface: the names it is reached by are unknown. The token guards it.
        config.disable_allowed_hosts()
    } else {
        config
    };
    (Arc::new(sessions), config)
}

/// The HTTP/1 connection builder: a request's headers must arrive within `read_timeout`.
fn http1(read_timeout: Duration) -> Arc<hyper::server::conn::http1::Builder> {
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(read_timeout);
    Arc::new(http1)
}

/// The signals that stop the server, each registered once, for the server's whole life: a
/// signal that arrives while the server is busy is kept until it next looks.
struct Stop {
    /// SIGINT (Ctrl-C) and SIGTERM.
    #[cfg(unix)]
    signals: [tokio::signal::unix::Signal; 2],
    /// Ctrl-C.
    #[cfg(not(unix))]
    ctrl_c: std::pin::Pin<Box<dyn std::future::Future<Output = std::io::Result<()>> + Send>>,
}

impl Stop {
    /// Starts listening.
    fn listen() -> std::io::Result<Stop> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Stop {
                signals: [
                    signal(SignalKind::interrupt())?,
                    signal(SignalKind::terminate())?,
                ],
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Stop {
                ctrl_c: Box::pin(tokio::signal::ctrl_c()),
            })
        }
    }

    /// Resolves once a signal has arrived since the server started listening (at once when
    /// one came while it was not looking).
    async fn stopped(&mut self) {
        #[cfg(unix)]
        {
            let [interrupt, terminate] = &mut self.signals;
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = self.ctrl_c.as_mut().await;
        }
    }
}

/// Answers a connection past the cap 503, with `Retry-After`, then closes it (see [`linger`]).
fn refuse(
    stream: tokio::net::TcpStream,
    max: usize,
    http1: &hyper::server::conn::http1::Builder,
    linger_for: Duration,
) {
    tracing::warn!(
        max,
        "a connection was refused: every one open is serving a request"
    );
    let mut http1 = http1.clone();
    http1.keep_alive(false);
    tokio::spawn(async move {
        let service = hyper::service::service_fn(move |_request| async move {
            let message = format!(
                "too many connections: all {max} (--max-connections) are serving requests; try \
                 again shortly, or raise --max-connections\n"
            );
            let mut response = Response::new(Full::new(Bytes::from(message)).boxed());
            *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
            let headers = response.headers_mut();
            headers.insert(RETRY_AFTER, HeaderValue::from_static("1"));
            headers.insert(
                CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            Ok::<_, std::convert::Infallible>(response)
        });
        match http1
            .serve_connection(TokioIo::new(stream), service)
            .without_shutdown()
            .await
        {
            Ok(parts) => linger(parts.io.into_inner(), linger_for).await,
            Err(error) => tracing::debug!(%error, "a refused connection ended with an error"),
        }
    });
}

/// Closes `stream` after its answer was written, without resetting it: its sending half is
/// closed first, then what the client still sends (the rest of a request that was answered
/// before it was read) is read and dropped until the client closes its half, or for at most
/// `limit`. A connection closed with bytes unread is reset, and the client may lose the
/// answer with them.
async fn linger(mut stream: tokio::net::TcpStream, limit: Duration) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    if stream.shutdown().await.is_err() {
        return;
    }
    let mut dropped = vec![0_u8; 16 * 1024];
    let drained = tokio::time::timeout(limit, async {
        while let Ok(1..) = stream.read(&mut dropped).await {}
    })
    .await;
    if drained.is_err() {
        tracing::debug!("a refused connection was still sending when it was closed");
    }
}

/// The `Host` values rmcp lets through: loopback names, and the address listened on.
fn allowed_hosts(local: SocketAddr) -> Vec<String> {
    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    let ip = local.ip().to_string();
    if !hosts.contains(&ip) {
        hosts.push(ip);
    }
    hosts
}
