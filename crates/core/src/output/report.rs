//! What cctool says on standard error, in one place: every line starts with `cctool: `, text
//! that came from an input is escaped so that it cannot drive the terminal, `--quiet` silences
//! what is not an error that stops the command, and the exit status is merged from what each
//! part of a command found.
//!
//! Standard output carries data only; nothing here writes to it.

use std::io::Write;

use crate::model::diag::{Code, Diagnostic};
use crate::output::ColorChoice;
use crate::output::sanitize::escape_str;
use crate::output::status::ExitStatus;
use crate::output::style::Paint;

/// The prefix of every line cctool writes on stderr, so that its words stand apart from an
/// agent's or a pipeline's.
pub const PREFIX: &str = "cctool: ";

/// Says `message` on stderr, escaped, whatever the options: for the errors that stop the
/// program before a command's own reporter exists.
pub fn say(message: &str) {
    line(&escape_str(message));
}

fn line(escaped: &str) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "{PREFIX}{escaped}");
}

/// One command's voice on stderr, and the exit status its parts merge into.
pub struct Reporter {
    quiet: bool,
    paint: Paint,
    status: ExitStatus,
}

impl Reporter {
    /// A reporter that says nothing but warnings and errors under `quiet`, in colour as
    /// `color` allows on standard error.
    pub fn new(quiet: bool, color: ColorChoice) -> Reporter {
        Reporter {
            quiet,
            paint: Paint::stderr(color),
            status: ExitStatus::Success,
        }
    }

    /// Whether `--quiet` is on: [`note`](Self::note)s are not said.
    pub fn quiet(&self) -> bool {
        self.quiet
    }

    /// A sentence about the run (a count, a choice made, a file swept up): not said under
    /// `--quiet`.
    pub fn note(&self, message: &str) {
        if !self.quiet {
            line(&escape_str(message));
        }
    }

    /// A detail of the note said before it, indented under it without the prefix: not said
    /// under `--quiet`.
    pub fn detail(&self, message: &str) {
        if !self.quiet {
            let mut e = std::io::stderr().lock();
            let _ = writeln!(e, "  {}", escape_str(message));
        }
    }

    /// One file's problem that does not stop the command, as `FILE: MESSAGE`: not said under
    /// `--quiet`, and the exit status becomes an error.
    pub fn file_error(&mut self, file: &str, message: &str) {
        self.merge(ExitStatus::Error);
        if !self.quiet {
            line(&format!("{}: {}", escape_str(file), escape_str(message)));
        }
    }

    /// An error that stops the command, as `FILE: MESSAGE`: said even under `--quiet`, and
    /// the exit status becomes an error.
    pub fn fatal_for(&mut self, file: &str, message: &str) {
        self.merge(ExitStatus::Error);
        line(&format!("{}: {}", escape_str(file), escape_str(message)));
    }

    /// A problem with what was asked (a session named that is not there, a file that could
    /// not be put back): said even under `--quiet`; the exit status is the caller's to merge.
    pub fn alert(&self, message: &str) {
        line(&escape_str(message));
    }

    /// A diagnostic as one line for people, coloured where stderr takes colour: not said
    /// under `--quiet`. The exit status is the caller's to decide (a warning is not a failure).
    pub fn diagnostic(&self, d: &Diagnostic) {
        if !self.quiet {
            line(&self.paint.diagnostic(d));
        }
    }

    /// A line built by the caller with colour (a table's row), every part of it taken from
    /// an input already escaped: not said under `--quiet`.
    pub fn note_painted(&self, escaped: &str) {
        if !self.quiet {
            line(escaped);
        }
    }

    /// The colour of stderr, for [`note_painted`](Self::note_painted) lines.
    pub fn paint(&self) -> Paint {
        self.paint
    }

    /// Diagnostics, at most `limit` of each code, then a count of the rest of each code.
    pub fn diagnostics(&self, diags: &[Diagnostic], limit: usize) {
        if self.quiet {
            return;
        }
        let mut shown: std::collections::HashMap<Code, usize> = std::collections::HashMap::new();
        let mut hidden: std::collections::BTreeMap<Code, usize> = std::collections::BTreeMap::new();
        for d in diags {
            let n = shown.entry(d.code).or_default();
            *n += 1;
            if *n <= limit {
                line(&self.paint.diagnostic(d));
            } else {
                *hidden.entry(d.code).or_default() += 1;
            }
        }
        for (code, n) in hidden {
            line(&format!("… and {n} more [{code}] (use --json to list all)"));
        }
    }

    /// A JSON Lines record on stderr, for commands whose stdout carries a document (`-o -`):
    /// said even under `--quiet`, as `--json` asked for it.
    pub fn record<T: serde::Serialize>(&self, record: &T) -> std::io::Result<()> {
        use std::io::IsTerminal;
        let bytes = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        let mut e = std::io::stderr().lock();
        let terminal = e.is_terminal();
        crate::output::write_record(&mut e, &bytes, terminal)
    }

    /// Says which temporary files of killed cctool runs this run removed: a user who saw one
    /// should know where it went.
    pub fn swept(&self) {
        for s in crate::io::atomic::take_swept() {
            self.note(&format!(
                "removed {} ({} bytes), the unfinished output of a cctool run (process {}) that was killed or crashed",
                s.path.display(),
                s.len,
                s.pid
            ));
        }
    }

    /// Takes the worse of the status so far and `status`: an error outranks a negative answer,
    /// which outranks success.
    pub fn merge(&mut self, status: ExitStatus) {
        self.status = self.status.max(status);
    }

    /// Whether something merged so far was an error.
    pub fn failed(&self) -> bool {
        self.status >= ExitStatus::Error
    }

    /// The worst status merged so far: what the command exits with.
    pub fn status(&self) -> ExitStatus {
        self.status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reporter() -> Reporter {
        Reporter {
            quiet: true,
            paint: Paint::OFF,
            status: ExitStatus::Success,
        }
    }

    #[test]
    fn the_worst_status_wins_whatever_the_order() {
        let mut r = reporter();
        r.merge(ExitStatus::Negative);
        assert_eq!(r.status(), ExitStatus::Negative);
        r.file_error("a.jsonl", "cannot read");
        r.merge(ExitStatus::Negative);
        r.merge(ExitStatus::Success);
        assert!(r.failed());
        assert_eq!(r.status(), ExitStatus::Error);
        let mut r = reporter();
        r.fatal_for("b.jsonl", "refused");
        assert_eq!(r.status(), ExitStatus::Error);
    }
}
