//! The records of a rollout from its last compaction on: all a resume's history needs when
//! nothing before that compaction changes it (`docs/convert.md#performance`).
//!
//! A resume starts from the newest `compacted` record that survives the rollbacks after it
//! (`history.rs`). With no rollback anywhere in the file every record survives, and when the
//! last `compacted` record has a `replacement_history` Codex can read, the history is that
//! replacement and the items after it — in every era, as the forward replay of older files
//! gives the same without rollbacks — and the gigabytes before it need not be read into
//! records at all. Whether a file
//! qualifies is told by its lines ([`Marks`], from the pass every reader of a whole rollout
//! makes over its lines anyway, [`TailCheck`]); the candidate is found from the end with a
//! substring search and read while that pass runs, and kept only if the pass agrees.

use super::*;

/// What one line says about reading the history from the last compaction: each flag is set
/// for every line whose record could make it wrong (it may be set for more).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// A `compacted` line: the history may start here.
    pub compacted: bool,
    /// A `thread_rolled_back` event: records before it may not survive.
    pub rollback: bool,
}

impl Marks {
    /// The marks of a JSON object read as [`EnvelopeLine`] reads it: its `type` and its
    /// payload's `type` (`None` without a payload), each the single key of its name.
    pub fn of_envelope(ty: Option<&str>, payload: Option<Option<&str>>) -> Marks {
        Marks {
            compacted: ty == Some("compacted"),
            rollback: ty == Some("event_msg") && payload == Some(Some("thread_rolled_back")),
        }
    }

    /// The marks of any line, from its record as [`read_records`] reads it ([`one_line`]).
    pub fn of_line(one: &Rollout) -> Marks {
        let any = |f: fn(&Record) -> bool| one.records.iter().any(|(_, r)| f(r));
        Marks {
            compacted: any(|r| matches!(r, Record::Compacted(_))),
            rollback: any(|r| matches!(r, Record::Event(Event::RolledBack(_)))),
        }
    }
}

/// The record of one line, as [`read_records`] reads it (as if it were the first).
pub fn one_line(line: &Line<'_>) -> Rollout {
    let mut one = Rollout::default();
    ingest(&mut one, line, true);
    one
}

/// The marks of a whole file, taken line by line in file order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TailCheck {
    /// The number and offset of the last line marked `compacted`.
    pub last_compacted: Option<(u64, u64)>,
    /// Some line is marked as rolling back turns.
    pub rollback: bool,
}

impl TailCheck {
    /// Takes in the marks `m` of line `no`, which starts at byte `offset`.
    pub fn add(&mut self, no: u64, offset: u64, m: Marks) {
        if m.compacted {
            self.last_compacted = Some((no, offset));
        }
        self.rollback |= m.rollback;
    }
}

/// The records a resume's history is reconstructed from, read before the pass over the
/// lines tells which of them stand.
pub enum Candidate {
    /// Every record of the file.
    Whole(Rollout),
    /// The records from the line at `offset` on (the last compaction, as the search from the
    /// end found it), their lines numbered from 1 there.
    Tail {
        /// Byte offset of that line in the file.
        offset: u64,
        /// The records from it on.
        rollout: Rollout,
    },
}

/// Reads the records from the last line holding `"compacted"` that `marks` marks compacted
/// (searched from the end), or every record when there is none or the file cannot be read
/// so (a 2025 document, a source not held as one slice).
pub fn read_candidate(src: &Source, marks: impl Fn(&Line<'_>) -> Marks) -> std::io::Result<Candidate> {
    let Some(bytes) = src.as_slice() else {
        return read_records(src).map(Candidate::Whole);
    };
    if !first_line_is_a_record(src)? {
        return read_records(src).map(Candidate::Whole);
    }
    let Some(offset) = last_compacted_line(bytes, marks) else {
        return read_records(src).map(Candidate::Whole);
    };
    // The search read the mapping: a truncation under it would have shown zeros.
    src.check()?;
    let mut rollout = Rollout {
        file: src.name().to_string(),
        ..Rollout::default()
    };
    let stats = crate::io::lines::for_each_line_from(src, offset, 1, |line| ingest(&mut rollout, &line, false))?;
    rollout.lines = stats.lines;
    Ok(Candidate::Tail { offset, rollout })
}

/// The offset of the last line of `bytes` holding the JSON string `"compacted"` that `marks`
/// marks compacted.
fn last_compacted_line(bytes: &[u8], marks: impl Fn(&Line<'_>) -> Marks) -> Option<u64> {
    let finder = memchr::memmem::FinderRev::new(b"\"compacted\"");
    let mut end = bytes.len();
    while let Some(hit) = finder.rfind(&bytes[..end]) {
        let start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |i| i + 1);
        let nl = memchr::memchr(b'\n', &bytes[hit..]).map(|i| hit + i);
        let mut line = &bytes[start..nl.unwrap_or(bytes.len())];
        line = line.strip_suffix(b"\r").unwrap_or(line);
        let mut at = start;
        if start == 0 && line.starts_with(b"\xEF\xBB\xBF") {
            line = &line[3..];
            at = 3;
        }
        let l = Line {
            no: 0,
            offset: at as u64,
            bytes: line,
            terminated: nl.is_some(),
        };
        if marks(&l).compacted {
            return Some(at as u64);
        }
        end = start;
    }
    None
}

impl Candidate {
    /// The records the history is reconstructed from: the tail read, when `check` (the marks
    /// of every line) says it gives the history of the whole file; else every record, read
    /// now if they were not.
    pub fn resolve(self, src: &Source, check: &TailCheck) -> std::io::Result<Rollout> {
        match (self.tail_from(check), self) {
            (Some(no), Candidate::Tail { mut rollout, .. }) => {
                rollout.shift_lines(no - 1);
                Ok(rollout)
            }
            (_, Candidate::Whole(r)) => Ok(r),
            (None, Candidate::Tail { .. }) => read_records(src),
        }
    }

    /// The line the tail read starts at, when it gives the history of the whole file.
    pub fn tail_from(&self, check: &TailCheck) -> Option<u64> {
        let Candidate::Tail { offset, rollout } = self else {
            return None;
        };
        let starts_usable = matches!(
            rollout.records.first(),
            Some((1, Record::Compacted(c))) if c.replacement_history.is_some() && !c.skipped_by_codex
        );
        match check.last_compacted {
            Some((no, at)) if at == *offset && starts_usable && !check.rollback => Some(no),
            _ => None,
        }
    }
}

impl Rollout {
    /// Adds `by` to every line number held, for records read from a line other than the first.
    fn shift_lines(&mut self, by: u64) {
        let item = |i: &mut Item| {
            if let ItemSrc::Raw { line, .. } = &mut i.src {
                *line += by;
            }
        };
        for (no, rec) in &mut self.records {
            *no += by;
            match rec {
                Record::Response(i) | Record::InterAgent(i) => item(i),
                Record::Compacted(c) => {
                    c.line += by;
                    c.replacement_history.iter_mut().flatten().for_each(item);
                }
                Record::SessionMeta { .. } | Record::TurnContext { .. } | Record::Event(_) | Record::Other => {}
            }
        }
        for d in &mut self.diagnostics {
            d.line = d.line.map(|l| l + by);
        }
        for l in &mut self.unreadable_lines {
            *l += by;
        }
        self.lines += by;
    }
}
