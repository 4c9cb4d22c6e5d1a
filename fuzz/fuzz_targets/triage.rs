#![no_main]

libfuzzer_sys::fuzz_target!(
    init: submit_result_fuzz::seeds::write_if_asked("triage"),
    |data: &[u8]| submit_result_fuzz::targets::triage::run(data)
);
