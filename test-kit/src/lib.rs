//! What the workspace's tests share, written once: the corpus of model mistakes as the tests
//! read it ([`corpus`]), and an allocator that counts the bytes a closure holds
//! ([`counting_alloc`]). Not published; a dev-dependency of the crates whose tests use it (and a
//! dependency of the fuzz targets' seeds).
//!
//! A call in a provider's shape, which fixtures need too, is public API:
//! `submit_core::Provider::call`.

pub mod corpus;
pub mod counting_alloc;
