//! The HTTP server's open connections, capped, oldest first, each known to be serving a
//! request or not.
//!
//! A connection that sends half a request and waits holds a descriptor until hyper's
//! header-read timer closes it. Many of them could take every descriptor the process has, so
//! the number held open is capped; at the cap, a new connection takes the place of the oldest
//! one that is serving no request (waiting for a request head, or idle between two), which is
//! closed. A client that sends its request at once is then served while such connections come
//! and go. Only when every connection is serving a request is a new one refused (503).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// The open connections.
#[derive(Debug)]
pub struct Connections {
    /// How many may be open at once.
    max: usize,
    /// The number the next connection gets; numbers grow with age.
    next: AtomicU64,
    /// The open ones, by number.
    open: Mutex<BTreeMap<u64, Arc<Connection>>>,
}

/// One open connection.
#[derive(Debug, Default)]
pub struct Connection {
    /// Requests it is serving (their responses not yet sent to the end).
    in_flight: AtomicUsize,
    /// Told when it must close to make room.
    close: Notify,
}

/// A connection's place among the open ones, given back when dropped.
#[derive(Debug)]
pub struct Slot {
    number: u64,
    connection: Arc<Connection>,
    connections: Arc<Connections>,
}

/// A request in flight on a connection, until dropped.
#[derive(Debug)]
pub struct InFlight(Arc<Connection>);

impl Connections {
    /// Room for `max` connections.
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Connections {
            max,
            next: AtomicU64::new(0),
            open: Mutex::new(BTreeMap::new()),
        })
    }

    /// How many are open.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.open().len()
    }

    /// A place for a new connection: free, or taken from the oldest one serving no request
    /// (told to close). `None` when every one is serving a request.
    pub fn admit(self: &Arc<Self>) -> Option<Slot> {
        let mut open = self.open();
        if open.len() >= self.max {
            let idle = open
                .iter()
                .find(|(_, connection)| connection.in_flight.load(Ordering::Acquire) == 0)
                .map(|(number, _)| *number)?;
            if let Some(evicted) = open.remove(&idle) {
                evicted.close.notify_one();
            }
        }
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let connection = Arc::new(Connection::default());
        open.insert(number, Arc::clone(&connection));
        Some(Slot {
            number,
            connection,
            connections: Arc::clone(self),
        })
    }

    /// The cap.
    pub fn max(&self) -> usize {
        self.max
    }

    fn open(&self) -> MutexGuard<'_, BTreeMap<u64, Arc<Connection>>> {
        // The map is left whole by every holder of the lock, so a poisoned one is usable.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Slot {
    /// The connection, for requests to mark themselves in flight.
    pub fn connection(&self) -> Arc<Connection> {
        Arc::clone(&self.connection)
    }

    /// Resolves when the connection must close to make room for a new one.
    pub async fn evicted(&self) {
        self.connection.close.notified().await;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.connections.open().remove(&self.number);
    }
}

impl InFlight {
    /// Marks a request in flight on `connection`.
    pub fn on(connection: &Arc<Connection>) -> Self {
        connection.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(Arc::clone(connection))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_the_oldest_idle_connection_makes_room() {
        let connections = Connections::new(2);
        let first = connections.admit().unwrap();
        let second = connections.admit().unwrap();
        let busy = InFlight::on(&first.connection());
        // The first serves a request: the second, idle, is the one to go.
        let third = connections.admit().unwrap();
        assert_eq!(connections.len(), 2);
        drop(second);
        assert_eq!(connections.len(), 2);
        // Both left serve requests: a fourth is refused.
        let _also_busy = InFlight::on(&third.connection());
        assert!(connections.admit().is_none());
        drop(busy);
        assert!(connections.admit().is_some());
    }

    #[test]
    fn a_slot_dropped_gives_its_place_back() {
        let connections = Connections::new(1);
        let slot = connections.admit().unwrap();
        drop(slot);
        assert_eq!(connections.len(), 0);
    }
}
