//! The corpus of model-mistake vectors, `submit-core/tests/corpus/*.json`: each file a JSON
//! array of vectors, each vector an object with a unique `name` (the format is described where
//! the parser's corpus runner reads it, `submit-core/src/parse/tests/corpus.rs`).
//!
//! ```
//! let vectors = submit_test_kit::corpus::vectors().unwrap();
//! assert!(vectors.iter().all(|vector| vector["name"].is_string()));
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The folder of the corpus files.
pub fn dir() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../submit-core/tests/corpus"
    ))
}

/// Every corpus file (`*.json`) with its vectors, in file-name order.
pub fn files() -> Result<Vec<(PathBuf, Vec<Value>)>, String> {
    let dir = dir();
    let mut paths = Vec::new();
    for entry in
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?
    {
        let path = entry
            .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
            .path();
        if path.extension().is_some_and(|ext| ext == "json") {
            paths.push(path);
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let vectors = file_vectors(&path)?;
            Ok((path, vectors))
        })
        .collect()
}

/// The vectors of the corpus file `name` (such as `13_real_cases.json`).
pub fn file(name: &str) -> Result<Vec<Value>, String> {
    file_vectors(&dir().join(name))
}

/// Every vector of every corpus file, in file order; a vector without a name, or with the name
/// of one before it, is an error.
pub fn vectors() -> Result<Vec<Value>, String> {
    let mut names = HashSet::new();
    let mut all = Vec::new();
    for (path, vectors) in files()? {
        for vector in vectors {
            let name = vector["name"]
                .as_str()
                .ok_or_else(|| format!("a vector of {} has no name", path.display()))?;
            if !names.insert(name.to_owned()) {
                return Err(format!("duplicate vector name {name}"));
            }
            all.push(vector);
        }
    }
    Ok(all)
}

/// The vector named `name`.
pub fn vector(name: &str) -> Result<Value, String> {
    vectors()?
        .into_iter()
        .find(|vector| vector["name"] == name)
        .ok_or_else(|| format!("the corpus has no vector {name}"))
}

/// The vectors of the file at `path`.
fn file_vectors(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not a JSON array: {e}", path.display()))
}
