//! Every target over its seeds and its saved corpus (`fuzz/corpus/<target>/`), as an ordinary
//! test: what the fuzzer found and kept keeps passing, without the engine.

use std::path::Path;

#[test]
fn every_target_holds_on_its_seeds_and_saved_corpus() {
    for (name, run) in submit_result_fuzz::TARGETS {
        let mut inputs = submit_result_fuzz::seeds::seeds(name);
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus")
            .join(name);
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                inputs.push(std::fs::read(entry.path()).unwrap());
            }
        }
        assert!(!inputs.is_empty(), "{name} has no inputs");
        for input in &inputs {
            run(input);
        }
        println!("{name}: {} inputs", inputs.len());
    }
}
