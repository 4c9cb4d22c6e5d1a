//! The tokio runtime that the provider transports and MCP connections run on.
//!
//! A call polled inside a tokio runtime runs on that runtime; polled anywhere else
//! (`futures::executor::block_on`, another executor), it runs on one small runtime this crate
//! owns (one worker thread, started on first use) and shared by every transport and MCP
//! connection. The loop itself stays runtime-agnostic.

use std::future::Future;
use std::sync::{Arc, OnceLock};

use tokio::runtime::{Handle, Runtime};

/// The caller's tokio runtime, or the one this crate owns; `Err` says why that could not start.
pub(crate) fn handle() -> Result<Handle, Arc<std::io::Error>> {
    if let Ok(handle) = Handle::try_current() {
        return Ok(handle);
    }
    static OWNED: OnceLock<Result<Runtime, Arc<std::io::Error>>> = OnceLock::new();
    OWNED
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("submit-agent-io")
                .enable_all()
                .build()
                .map_err(Arc::new)
        })
        .as_ref()
        .map(|runtime| runtime.handle().clone())
        .map_err(Clone::clone)
}

/// Aborts the spawned task when the caller drops its future.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs `future` on `handle` and waits for it from any executor; dropping the returned future
/// aborts the task. `Err` when the task panicked or was cancelled.
pub(crate) async fn run<T, F>(handle: &Handle, future: F) -> Result<T, tokio::task::JoinError>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    let mut task = AbortOnDrop(handle.spawn(future));
    (&mut task.0).await
}
