//! The triage reader holds a bounded amount of memory whatever the input: a 100 MiB line is
//! counted as malformed and skipped while memory stays within twice `MAX_LINE_BYTES` (the
//! line buffer grows by doubling) and the reader's buffer. The input is written for this test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufReader, Read};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use submit_cli::triage::{run, Handled, Input, MAX_LINE_BYTES};
use submit_core::{Accepted, Outcome};

/// The system allocator, counting the bytes live and the most live at once.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: the caller's layout is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `long` bytes of `a`, a newline, then `tail`, made as they are read (never held whole).
struct Generated {
    long: usize,
    tail: &'static [u8],
    at: usize,
}

impl Read for Generated {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < out.len() {
            let byte = match self.at {
                at if at < self.long => b'a',
                at if at == self.long => b'\n',
                at => match self.tail.get(at - self.long - 1) {
                    Some(byte) => *byte,
                    None => break,
                },
            };
            out[n] = byte;
            n += 1;
            self.at += 1;
        }
        Ok(n)
    }
}

#[test]
fn a_100_mib_line_is_skipped_in_bounded_memory_and_every_line_counted() {
    let reader = Generated {
        long: 100 << 20,
        tail: b"{\"ok\": 1}\n",
        at: 0,
    };
    let input = Input {
        reader: BufReader::with_capacity(64 * 1024, reader),
        size: None,
        progress: false,
    };
    let handle = |call: &serde_json::Value| {
        Ok(Handled {
            outcome: Outcome::Accepted(Accepted {
                response: call.clone(),
                reasoning: String::new(),
                recovery: None,
                recoveries: Vec::new(),
                tool_result: json!({"success": true}),
            }),
            shape: None,
        })
    };
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let summary = run(input, None, handle).unwrap();
    let held = PEAK.load(Ordering::Relaxed) - before;
    assert_eq!(
        (summary.lines, summary.malformed, summary.calls()),
        (2, 1, 1)
    );
    assert_eq!(summary.malformed_first[0].line, 1);
    assert!(
        summary.malformed_first[0]
            .reason
            .starts_with("longer than 16777216 bytes"),
        "{:?}",
        summary.malformed_first
    );
    assert!(
        held <= 2 * MAX_LINE_BYTES + (1 << 20),
        "held {held} bytes reading a 100 MiB line with a limit of {MAX_LINE_BYTES}"
    );
}
