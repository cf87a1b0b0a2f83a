//! Diagnostics: one problem, with the file, the line and a stable code.
//!
//! Commands collect them instead of printing as they go, so the same finding can be shown
//! as text on stderr or as a `{"kind":"diagnostic",…}` record with `--json`.

use std::fmt;

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub kind: &'static str,
    pub file: String,
    pub line: Option<u64>,
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
}

impl Diagnostic {
    pub fn new(
        file: impl Into<String>,
        line: Option<u64>,
        code: &'static str,
        severity: Severity,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            kind: "diagnostic",
            file: file.into(),
            line,
            code,
            severity,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(
                f,
                "{}:{}: {}: {} [{}]",
                self.file, l, self.severity, self.message, self.code
            ),
            None => write!(f, "{}: {}: {} [{}]", self.file, self.severity, self.message, self.code),
        }
    }
}
