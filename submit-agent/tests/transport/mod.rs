//! The provider transports' shared helpers: the small agent the tests run (`agent`), the
//! loopback server that answers them (`server`), the acceptance cases each transport runs
//! (`suite`) and the replays of recorded traffic (`replay`). The scripted answers are in the
//! folders beside them, one per provider.

pub mod agent;
#[cfg(all(
    feature = "claude",
    feature = "gemini",
    feature = "openai-chat",
    feature = "openai-responses"
))]
pub mod replay;
pub mod server;
pub mod suite;
