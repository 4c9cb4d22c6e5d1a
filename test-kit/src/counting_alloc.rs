//! The system allocator, counting per thread the bytes live and the most live at once, for the
//! tests that bound memory. A test binary allocates through it once it names it its global
//! allocator:
//!
//! ```
//! use submit_test_kit::counting_alloc::{peak_during, Counting};
//!
//! #[global_allocator]
//! static ALLOCATOR: Counting = Counting;
//!
//! let (bytes, held) = peak_during(|| vec![0u8; 4096].len());
//! assert_eq!(bytes, 4096);
//! assert!(held >= 4096);
//! ```
//!
//! The counts are per thread so that the tests running beside a measured one do not add to
//! its count: a measured closure runs on its test's own thread, and what it allocates there
//! is what it holds. The counters are `const`-initialized thread-locals of `Cell`s, which need
//! no allocation and no destructor, so the allocator can use them at any time. Memory freed on
//! another thread than the one that allocated it lowers that other thread's count. Without
//! the allocator registered, [`peak_during`] measures nothing and returns 0.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting; register it with `#[global_allocator]`.
pub struct Counting;

thread_local! {
    /// The bytes this thread allocated and has not freed (less what it freed of other
    /// threads' allocations).
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// The most `LIVE` has been since the last [`peak_during`] began.
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// Adds `bytes` to this thread's live count (a negative number for a release).
fn count(bytes: isize) {
    // Neither thread-local has a destructor, so both can be reached while a thread ends.
    let live = LIVE.with(|live| {
        let now = live.get() + bytes;
        live.set(now);
        now
    });
    PEAK.with(|peak| peak.set(peak.get().max(live)));
}

// SAFETY: every call is passed on unchanged to the system allocator; counting allocates
// nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: the caller's layout is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `f` and returns its result with the most bytes it held live at once on this thread
/// beyond what the thread held when it started.
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    let result = f();
    let held = PEAK.with(Cell::get) - before;
    (result, held.max(0) as usize)
}
