//! The byte layer every command shares: opening inputs (mmap or read), walking PATH
//! arguments, splitting lines, and lenient per-line JSON parsing. Nothing here knows about
//! Claude Code or Codex.

pub mod atomic;
pub mod json;
pub mod lines;
pub mod needles;
pub mod paths;
pub mod source;

pub use lines::{Line, LineStats, for_each_line};
pub use source::{Input, MmapChoice, Source};
