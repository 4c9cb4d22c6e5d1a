//! Compile-fail cases of `#[derive(SubmitResult)]`: each mistake must be a compile error on
//! the token at fault.

#[rustversion::attr(not(stable(1.95)), ignore)]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
