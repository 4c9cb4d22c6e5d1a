#![no_main]

libfuzzer_sys::fuzz_target!(
    init: submit_result_fuzz::seeds::write_if_asked("text"),
    |data: &[u8]| submit_result_fuzz::targets::text::run(data)
);
