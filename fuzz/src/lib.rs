//! The bodies of the fuzz targets. They live in `targets_common.rs` so that the stable test
//! `tests/cli/fuzz_targets.rs` runs exactly the same code over the fixtures without nightly.

include!("../targets_common.rs");
