//! Integration tests: they run the `cctool` binary on the project's fixtures and assert exact
//! output. Where a `../shared/samples` folder sits beside the checkout, tests also compare
//! against it (read in place, never copied); elsewhere those checks say they were skipped, one
//! line each (`util::shared`). Tests that run the real clients do the same when the clients are
//! not installed (`util::realclient`, `scripts/realclient/`).

mod api_fixtures;
mod api_model;
mod api_view;
mod architecture;
mod backup;
mod backup_read;
mod case;
mod chain_fixtures;
mod codex_api;
mod compact;
mod compact_budget;
mod compact_crash;
mod compact_output;
mod compact_store;
mod concurrency;
mod convert;
mod convert_clients;
mod convert_ecosystem;
mod convert_memory;
mod convert_props;
mod crash;
mod docs;
mod doctor;
mod doctor_effects;
mod escapes;
mod export;
mod export_pages;
mod export_safe;
mod extract_summary;
mod fuzz_targets;
mod hooks;
mod hooks_safe;
mod hostile;
mod ids;
mod imports;
mod input;
mod json_types;
mod long_functions;
mod lost_writes;
mod memory_read;
mod memory_rows;
mod memory_share;
mod migrate;
mod non_session;
mod props;
mod readme;
mod rebuild_chain;
mod redact_corpus;
mod restore_safe;
mod rewrites;
mod rows;
mod rows_engines;
mod scan;
mod scan_table;
mod slim;
mod snap;
mod snapshots;
mod special_inputs;
mod store;
mod threads;
mod util;
mod views;
