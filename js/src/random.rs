//! Random bytes for getrandom's `custom` backend (chosen in `.cargo/config.toml`): the
//! hash maps of the JSON Schema validator seed themselves with them. The package fills them
//! with `crypto.getRandomValues`.

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "env")]
extern "C" {
    /// Fills `len` bytes at `dest` with random bytes.
    fn sr_random(dest: *mut u8, len: usize);
}

/// getrandom's `custom` backend.
///
/// # Safety
///
/// `dest` points to `len` writable bytes (getrandom's contract).
#[cfg(target_arch = "wasm32")]
#[no_mangle]
unsafe extern "Rust" fn __getrandom_v03_custom(
    dest: *mut u8,
    len: usize,
) -> Result<(), getrandom::Error> {
    // SAFETY: the caller's contract, passed on.
    unsafe { sr_random(dest, len) };
    Ok(())
}
