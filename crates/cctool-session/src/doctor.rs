//! What `doctor` finds in a cctool session file.

use crate::io::Source;
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::findings::finding;

/// A cctool session file: findings are schema problems.
pub fn check(src: &Source) -> Vec<Diagnostic> {
    match super::file::for_each_message(src, |_| {}) {
        Ok(s) => match s.version {
            Some(1..=5) => Vec::new(),
            other => vec![finding(
                src.name(),
                None,
                Code::InvalidSession,
                Severity::Error,
                format!(
                    "unknown schema version {}",
                    other.map_or("(missing)".to_string(), |v| v.to_string())
                ),
            )],
        },
        Err(e) => vec![finding(
            src.name(),
            None,
            Code::InvalidSession,
            Severity::Error,
            e.to_string(),
        )],
    }
}
