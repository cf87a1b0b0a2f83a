//! The byte layer every command shares: opening inputs (mmap or read, or from a backup
//! archive), walking PATH arguments, splitting lines, and lenient per-line JSON parsing. Nothing here knows about
//! Claude Code or Codex.

pub mod archive;
pub mod atomic;
pub mod json;
pub mod lines;
#[cfg(target_os = "linux")]
pub mod mapguard;
/// Elsewhere no mapping is guarded, so none is made: every file is read.
#[cfg(not(target_os = "linux"))]
pub mod mapguard {
    #[derive(Debug)]
    pub struct Guard;
    impl Guard {
        pub fn faulted(&self) -> bool {
            false
        }
    }
    pub fn register(_start: *const u8, _len: usize) -> Option<Guard> {
        None
    }
    pub fn any_fault() -> bool {
        false
    }
    pub fn quiet_panics() {}
    pub fn note(_message: String) {}
    pub fn notes() -> Vec<String> {
        Vec::new()
    }
}
pub mod member;
pub mod needles;
pub mod own;
pub mod paths;
pub mod source;
pub mod writers;

pub use lines::{Line, LineStats, for_each_line};
pub use source::{Input, MmapChoice, ReadMode, Source};
