//! The tool loop: tools and their context, hooks, interrupts and resume, streaming, and the
//! executor that gates a terminal submit through result validators.
