//! The progress line `triage` draws on a terminal.

use std::io::Write;
use std::time::{Duration, Instant};

/// A one-line progress display on standard error, redrawn at most ten times a second: the
/// share of the input's bytes read (of the archive, for a compressed input) when its size is
/// known, and the lines counted.
pub(super) struct Progress {
    enabled: bool,
    size: Option<u64>,
    last: Instant,
    drawn: bool,
}

impl Progress {
    const EVERY: Duration = Duration::from_millis(100);

    pub(super) fn new(enabled: bool, size: Option<u64>) -> Self {
        Progress {
            enabled,
            size,
            last: Instant::now(),
            drawn: false,
        }
    }

    /// Lines counted so far, and the bytes of the input read so far.
    pub(super) fn tick(&mut self, lines: u64, read: u64) {
        if !self.enabled || self.last.elapsed() < Self::EVERY {
            return;
        }
        self.last = Instant::now();
        self.drawn = true;
        let mut stderr = std::io::stderr().lock();
        let _ = match self.size.filter(|size| *size > 0) {
            Some(size) => {
                let done = read.min(size);
                let width = 30u64;
                let filled = done * width / size;
                write!(
                    stderr,
                    "\r[{}{}] {:>5.1}%  {lines} lines",
                    "#".repeat(filled as usize),
                    "-".repeat((width - filled) as usize),
                    done as f64 * 100.0 / size as f64
                )
            }
            None => write!(stderr, "\r{lines} lines"),
        };
        let _ = stderr.flush();
    }

    pub(super) fn finish(&mut self) {
        if self.drawn {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K");
            let _ = stderr.flush();
        }
    }
}
