//! `cctool scan --rows TABLE`: a table of every input file, on standard output or in
//! partitions under `--out-dir` (the rows themselves are made in `tables`).

use super::FileOutcome;
use super::error::Usage;
use crate::ExitStatus;
use crate::cli::{GlobalArgs, ScanArgs};
use crate::model::diag::Severity;
use crate::tables::sink::{Part, PartDir, StdoutSink};
use crate::tables::{Options, RowFormat, Table, build};

/// Files read at once: the rows of this many files are held before they are written (each
/// past a small bound in a temporary file, `tables::spill`), so a corpus of any size costs
/// little more than one file's reading.
const FILES_AT_ONCE: usize = 64;

enum Dest {
    Stdout(StdoutSink),
    Dir(PartDir),
}

pub fn run(g: &GlobalArgs, a: &ScanArgs, table: Table) -> super::Result<ExitStatus> {
    use std::io::IsTerminal;
    let overrides = a.resume.overrides();
    let r = &a.rows;
    let mut dest = match &r.out_dir {
        Some(dir) => Dest::Dir(PartDir::open(dir, table, r.format).map_err(Usage::Rows)?),
        None if r.format == RowFormat::Parquet && std::io::stdout().is_terminal() => {
            return Err(Usage::ParquetOnTerminal.into());
        }
        None => Dest::Stdout(StdoutSink::new(table, r.format).map_err(Usage::Rows)?),
    };
    let outputs: Vec<std::path::PathBuf> = r.out_dir.iter().cloned().collect();
    let (expanded, named) = super::session_inputs_writing(&a.paths, &a.files, g, &outputs)?;
    let opts = Options {
        max_text: r.max_text,
        // Beside the parts they become; standard output's wait in the temporary folder.
        spill_dir: r.out_dir.clone(),
    };
    let mut diags = expanded.problems.clone();
    let mut errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    let mut skipped = 0;
    let (mut written, mut replaced, mut kept) = (0usize, 0usize, 0usize);
    for chunk in expanded.inputs.chunks(FILES_AT_ONCE) {
        let outcomes = super::each_session(chunk, &named, g, "scan", |src, format| {
            build::rows(table, src, format, &opts, &overrides)
        });
        for (input, o) in chunk.iter().zip(outcomes) {
            match o {
                FileOutcome::Done(file) => match &mut dest {
                    Dest::Stdout(s) => s.write(&file)?,
                    Dest::Dir(d) => match d.write(&input.display_name(), &file) {
                        Ok(Part::Written { replaced: n }) => {
                            written += 1;
                            replaced += n;
                        }
                        Ok(Part::Kept) => kept += 1,
                        Ok(Part::Empty) => {}
                        Err(e) => {
                            errors += 1;
                            diags.push(crate::model::diag::Diagnostic::new(
                                input.display_name(),
                                None,
                                crate::model::diag::Code::Unreadable,
                                Severity::Error,
                                format!("its part was not written under --out-dir: {e}"),
                            ));
                        }
                    },
                },
                other => {
                    if let Some(d) = other.problem_counted(input, &mut errors, &mut skipped) {
                        diags.push(d);
                    }
                }
            }
        }
    }
    if let Dest::Stdout(s) = dest {
        s.finish()?;
    }
    // Standard output holds the table alone: every diagnostic goes to stderr, --json or not.
    let mut say = g.reporter();
    for d in diags.iter().filter(|d| d.severity > Severity::Info) {
        say.diagnostic(d);
    }
    if skipped > 0 {
        say.note(&super::skipped_note(skipped));
    }
    if r.out_dir.is_some() {
        say.note(&format!(
            "{written} parts written ({replaced} older parts replaced), {kept} already there"
        ));
    }
    if errors > 0 {
        say.merge(ExitStatus::Error);
    }
    Ok(say.status())
}
