//! The trace of submit calls an engineer reads.
