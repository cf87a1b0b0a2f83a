//! `search`: hits grouped by session, sessions only, counts, messages around a hit, records,
//! colour, nothing found and a bad pattern.

use super::{Case, on_sessions};

#[test]
fn grouped_by_session() {
    snap!(on_sessions("search", &["the"]).env("COLUMNS", "80"));
}

#[test]
fn sessions_only() {
    snap!(on_sessions("search", &["-l", "the"]));
}

#[test]
fn counts_with_tools() {
    snap!(on_sessions("search", &["-c", "--tools", "the"]));
}

#[test]
fn context_of_effective_hits() {
    snap!(on_sessions("search", &["--context", "1", "--scope", "effective", "faster"]).env("COLUMNS", "100"));
}

#[test]
fn json() {
    snap!(on_sessions("search", &["--json", "--scope", "effective", "faster"]));
}

#[test]
fn colour() {
    snap!(on_sessions("search", &["--color", "always", "faster"]).env("COLUMNS", "80"));
}

#[test]
fn nothing_found() {
    snap!(on_sessions("search", &["no such words"]));
}

#[test]
fn bad_regex() {
    snap!(Case::new("search").args(["-e", "(", "."]));
}
