//! Everything cctool prints: stdout carries data only (records, rendered transcripts),
//! stderr carries diagnostics and progress. A closed stdout pipe ends the program quietly
//! (see `crate::run`).

pub mod names;
pub mod progress;
pub mod render;
pub mod report;
pub mod sanitize;
pub mod shell;
pub mod status;
pub mod style;
pub mod table;

use std::io::{self, BufWriter, IsTerminal, Stdout, Write};

/// When to colour (`--color`): `Auto` colours a terminal unless `NO_COLOR` is set or
/// `TERM=dumb`, `Always` colours even a pipe, `Never` colours nothing.
///
/// The variants are described here and not on themselves: clap would print a variant's doc
/// comment in `--help`.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether stderr-or-stdout output may carry ANSI colour, honouring `NO_COLOR`.
    pub fn enabled(self, terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                terminal
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var("TERM").map_or(true, |t| t != "dumb")
            }
        }
    }
}

/// Writes one JSON Lines record and its newline; on a `terminal`, C1 controls (which JSON
/// allows unescaped) are written as `\u00XX`, the value unchanged.
pub fn write_record(w: &mut impl Write, bytes: &[u8], terminal: bool) -> io::Result<()> {
    if terminal {
        w.write_all(&sanitize::escape_c1_in_json(bytes))?;
    } else {
        w.write_all(bytes)?;
    }
    w.write_all(b"\n")
}

/// Where an [`Out`] writes: stdout, or memory for a caller that hands the output on itself
/// (the MCP server, whose stdout carries its protocol).
enum Sink {
    Stdout(BufWriter<Stdout>),
    Memory(Vec<u8>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::Memory(v) => v.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.write_all(buf),
            Sink::Memory(v) => v.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::Memory(_) => Ok(()),
        }
    }
}

/// Buffered stdout plus what is known about it.
pub struct Out {
    w: Sink,
    /// Stdout is a terminal: records get C1 controls escaped (see [`write_record`]).
    pub terminal: bool,
    /// Colour is allowed on stdout (from `--color` and whether it is a terminal).
    pub color: bool,
}

impl Out {
    /// Stdout, coloured as `color` allows; nothing reaches it until the buffer fills or
    /// [`flush`](Self::flush).
    pub fn new(color: ColorChoice) -> Out {
        let terminal = io::stdout().is_terminal();
        Out {
            w: Sink::Stdout(BufWriter::with_capacity(256 * 1024, io::stdout())),
            terminal,
            color: color.enabled(terminal),
        }
    }

    /// An output kept in memory, uncoloured, as written to a pipe; [`take`](Self::take)
    /// hands it over.
    pub fn memory() -> Out {
        Out {
            w: Sink::Memory(Vec::new()),
            terminal: false,
            color: false,
        }
    }

    /// What an output made by [`memory`](Self::memory) holds so far, leaving it empty; an
    /// output to stdout holds nothing.
    pub fn take(&mut self) -> Vec<u8> {
        match &mut self.w {
            Sink::Memory(v) => std::mem::take(v),
            Sink::Stdout(_) => Vec::new(),
        }
    }

    /// Writes one JSON Lines record (the bytes must be one line of JSON).
    pub fn record(&mut self, bytes: &[u8]) -> io::Result<()> {
        write_record(&mut self.w, bytes, self.terminal)
    }

    /// Serialises `value` as one JSON Lines record.
    pub fn json<T: serde::Serialize>(&mut self, value: &T) -> io::Result<()> {
        let bytes = serde_json::to_vec(value).map_err(io::Error::other)?;
        self.record(&bytes)
    }

    /// Writes `s` as it is: transcript content in it must already be escaped
    /// ([`sanitize::escape_str`]).
    pub fn text(&mut self, s: &str) -> io::Result<()> {
        self.w.write_all(s.as_bytes())
    }

    /// Writes out what is buffered. Call it before the end: dropping the buffer would lose a
    /// write error (a closed pipe).
    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    /// Colour for stdout.
    pub fn paint(&self) -> style::Paint {
        style::Paint::new(self.color)
    }
}
