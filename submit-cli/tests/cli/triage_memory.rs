//! The triage reader holds a bounded amount of memory whatever the input: a 100 MiB line is
//! counted as malformed and skipped while memory stays within twice `MAX_LINE_BYTES` (the
//! line buffer grows by doubling) and the reader's buffer. The input is written for this test.

use std::io::{BufReader, Read};

use serde_json::json;
use submit_cli::__private::{run, Handled, Input, MAX_LINE_BYTES};
use submit_core::{Accepted, Outcome};
use submit_test_kit::counting_alloc;

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
    let input = Input::new(BufReader::with_capacity(64 * 1024, reader));
    let handle = |line: &[u8]| {
        let call: serde_json::Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
        Ok(Handled {
            outcome: Outcome::Accepted(Accepted::new(
                call.clone(),
                String::new(),
                json!({"success": true}),
            )),
            shape: None,
        })
    };
    let (summary, held) = counting_alloc::peak_during(|| run(input, None, handle).unwrap());
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
