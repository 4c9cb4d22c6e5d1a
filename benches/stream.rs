//! Reading streamed answers: hostile event streams at 1 MiB and 8 MiB, each beside serde_json's
//! own decode of the same bytes (see BENCHMARKS.md). A linear reader takes about 8 times as
//! long for 8 times the bytes; the SSE framing used before took 14 times as long for 4 times
//! the bytes of events arriving in one piece.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use submit_result::agent::transport::{Claude, StreamLimits};

/// Small events, all in one piece: `n` bytes of pings.
fn many_events(n: usize) -> Vec<u8> {
    let ping = b"event: ping\ndata: {\"type\":\"ping\"}\n\n";
    ping.repeat(n / ping.len())
}

/// One event whose data line is `n` bytes of text, never ended.
fn one_long_event(n: usize) -> Vec<u8> {
    let mut stream = b"data: ".to_vec();
    stream.resize(n, b'a');
    stream
}

fn stream(c: &mut Criterion) {
    let mut group = c.benchmark_group("stream");
    group.sample_size(10);
    let transport = Claude::new("m").stream_limits(
        StreamLimits::default()
            .event_bytes(64 << 20)
            .stream_bytes(256 << 20),
    );
    for mib in [1usize, 8] {
        let n = mib << 20;
        group.throughput(Throughput::Bytes(n as u64));
        let events = many_events(n);
        group.bench_with_input(
            BenchmarkId::new("many_events_one_piece", mib),
            &events,
            |b, s| b.iter(|| black_box(transport.decode_stream([s.as_slice()]))),
        );
        group.bench_with_input(
            BenchmarkId::new("many_events_61_byte_pieces", mib),
            &events,
            |b, s| b.iter(|| black_box(transport.decode_stream(s.chunks(61)))),
        );
        let long = one_long_event(n);
        group.bench_with_input(
            BenchmarkId::new("one_long_event_16k_pieces", mib),
            &long,
            |b, s| b.iter(|| black_box(transport.decode_stream(s.chunks(16 * 1024)))),
        );
        // serde_json reading the same bytes as one string: the cost of looking at each byte.
        let quoted = {
            let mut q = b"\"".to_vec();
            q.extend(std::iter::repeat_n(b'a', n));
            q.push(b'"');
            q
        };
        group.bench_with_input(
            BenchmarkId::new("baseline_serde_json_string", mib),
            &quoted,
            |b, s| b.iter(|| black_box(serde_json::from_slice::<String>(s).map(|s| s.len()))),
        );
    }
    group.finish();
}

criterion_group!(benches, stream);
criterion_main!(benches);
