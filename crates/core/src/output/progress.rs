//! Progress on stderr, only when stderr is a terminal and the work is long enough to need it.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Files smaller than this load too fast for a bar to be worth drawing.
pub const BAR_MIN_BYTES: u64 = 64 * 1024 * 1024;

/// A byte-count bar for reading one file, or a hidden one.
pub fn file_bar(name: &str, len: u64, quiet: bool) -> ProgressBar {
    if quiet || len < BAR_MIN_BYTES || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(crate::output::sanitize::escape_str(name));
    bar
}
