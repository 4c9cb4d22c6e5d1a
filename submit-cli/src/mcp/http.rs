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
//! - `--max-connections` (64): see [`super::connections`]; 503 when every one is serving.
//! - `--max-sessions` (16) and `--session-timeout` (120 s, rmcp's `SessionConfig::keep_alive`,
//!   whose default is 300 s): 503 past the cap; an expired session's next request gets 404.
//! - `--max-body` (4 MiB, rmcp's default): 413.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Response, StatusCode};
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
    let addr = setup.addr;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| CliError::Listen { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| CliError::Listen { addr, source })?;
    let auth = setup.auth()?;

    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(setup.session_timeout);
    let sessions = Arc::new(sessions);
    let config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(setup.max_body)
        .with_allowed_hosts(allowed_hosts(local));
    let config = if local.ip().is_unspecified() {
        // Every interface: the names it is reached by are unknown. The token guards it.
        config.disable_allowed_hosts()
    } else {
        config
    };
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
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(setup.read_timeout);
    let http1 = Arc::new(http1);

    // The address is the interface here (port 0 picks one), so it is printed whatever the log
    // filter.
    eprintln!("submit-result: serving MCP at http://{local}/mcp");
    loop {
        let stream = tokio::select! {
            () = shutdown() => break,
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
        let io = TokioIo::new(stream);
        let Some(slot) = connections.admit() else {
            refuse(io, &connections, &http1);
            continue;
        };
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

/// Resolves on Ctrl-C, or on SIGTERM where there is one.
async fn shutdown() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Answers a connection past the cap 503, or closes it when too many are being answered.
fn refuse(
    io: TokioIo<tokio::net::TcpStream>,
    connections: &Arc<Connections>,
    http1: &hyper::server::conn::http1::Builder,
) {
    let Some(refusing) = connections.refuse() else {
        tracing::warn!("a connection was closed unanswered: too many are open and serving");
        return;
    };
    tracing::warn!(
        max = connections.max(),
        "a connection was refused: every one open is serving a request"
    );
    let max = connections.max();
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
            Ok::<_, std::convert::Infallible>(response)
        });
        let _ = http1.serve_connection(io, service).await;
        drop(refusing);
    });
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
