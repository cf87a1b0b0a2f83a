//! Integration tests: they run the `cctool` binary on the project's fixtures and on the
//! shared samples (`../shared/samples`, read in place, never copied) and assert exact output.

mod api_view;
mod compact;
mod compact_crash;
mod concurrency;
mod crash;
mod docs;
mod doctor;
mod extract_summary;
mod fuzz_targets;
mod hostile;
mod input;
mod migrate;
mod props;
mod rebuild_chain;
mod rewrites;
mod scan;
mod threads;
mod util;
