//! The tag grammar. The input is a tag string. Beyond "no panic": `Options::from_tag` accepts
//! exactly what `Metadata::from_tag` accepts and builds the options of that metadata; the
//! derive's reading of the same string (each part located, as `#[submit_result("…")]` is
//! read) reports the same metadata and the same mistakes; accepted metadata, written back in
//! the idiomatic spelling (`set` per key, as `#[submit_result(name = "…", flat)]` is read)
//! and as a tag string with its commas escaped, reads back the same.

use submit_meta::{split_tag, Builder, Key, Metadata};
use submit_result::Options;

pub fn run(data: &[u8]) {
    let Ok(tag) = std::str::from_utf8(data) else {
        return;
    };
    let read = Metadata::from_tag(tag);
    // The run-time reading.
    match (&read, Options::from_tag(tag)) {
        (Ok(metadata), Ok(options)) => {
            assert_eq!(
                format!("{options:?}"),
                format!("{:?}", Options::from_metadata(metadata))
            )
        }
        (Err(_), Err(_)) => {}
        (read, options) => {
            panic!("Metadata and Options disagree on {tag:?}: {read:?} / {options:?}")
        }
    }
    // The derive's reading of a tag string: every part located (here by its index).
    let mut located = Builder::default();
    for (index, part) in split_tag(tag).iter().enumerate() {
        located.tag_part(part, index);
    }
    let (metadata, errors) = located.finish_located();
    match &read {
        Ok(read) => {
            assert!(errors.is_empty(), "{tag:?}: {errors:?}");
            assert_eq!(&metadata, read, "{tag:?}");
        }
        Err(read) => {
            let located: Vec<_> = errors.into_iter().map(|(error, _)| error).collect();
            assert_eq!(located, read.0, "{tag:?}");
        }
    }
    let Ok(metadata) = read else {
        return;
    };
    // The idiomatic spelling of the same metadata.
    let mut idiomatic = Builder::default();
    for (key, value) in entries(&metadata) {
        idiomatic.set(key, Some(&value), ());
    }
    assert_eq!(idiomatic.finish().ok().as_ref(), Some(&metadata), "{tag:?}");
    // Written back as a tag string. A value ending in `\` cannot be followed by another part
    // (`\,` would read as a comma), so such a value is written last, and two cannot be.
    let mut parts: Vec<(Key, String)> = entries(&metadata);
    parts.sort_by_key(|(_, value)| value.ends_with('\\'));
    if parts
        .iter()
        .filter(|(_, value)| value.ends_with('\\'))
        .count()
        > 1
    {
        return;
    }
    let written: Vec<String> = parts
        .iter()
        .map(|(key, value)| format!("{}={}", key.tag_str(), value.replace(',', "\\,")))
        .collect();
    let written = written.join(",");
    assert_eq!(
        Metadata::from_tag(&written).ok().as_ref(),
        Some(&metadata),
        "{tag:?} → {written:?}"
    );
}

/// Every key the metadata sets, with its value as a string.
fn entries(metadata: &Metadata) -> Vec<(Key, String)> {
    let mut entries = Vec::new();
    for (key, value) in [
        (Key::Name, &metadata.name),
        (Key::Description, &metadata.description),
        (Key::Success, &metadata.success),
        (Key::Payload, &metadata.payload),
        (Key::PayloadDescription, &metadata.payload_description),
    ] {
        if let Some(value) = value {
            entries.push((key, value.to_string()));
        }
    }
    entries.push((Key::Flat, metadata.flat.to_string()));
    entries.push((Key::OmitReasoning, metadata.omit_reasoning.to_string()));
    entries
}
