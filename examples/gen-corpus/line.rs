//! Line building: JSON pieces written by hand in the real key order, and the file they go to.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::ids::Uuid;

pub(crate) fn raw(b: &mut Vec<u8>, s: &str) {
    b.extend_from_slice(s.as_bytes());
}

/// A JSON string literal, escaped by serde_json.
pub(crate) fn js(b: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *b, s).expect("writing to a Vec cannot fail");
}

pub(crate) fn num(b: &mut Vec<u8>, n: u64) {
    let _ = write!(b, "{n}");
}

pub(crate) fn uuid(b: &mut Vec<u8>, u: &Uuid) {
    b.push(b'"');
    b.extend_from_slice(&u.0);
    b.push(b'"');
}

pub(crate) struct Sink {
    w: BufWriter<File>,
    pub(crate) bytes: u64,
    lines: u64,
}

impl Sink {
    pub(crate) fn create(path: &Path) -> io::Result<Sink> {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        Ok(Sink {
            w: BufWriter::with_capacity(1 << 20, File::create(path)?),
            bytes: 0,
            lines: 0,
        })
    }

    /// Writes the line in `b` plus a newline, and clears `b`.
    pub(crate) fn emit(&mut self, b: &mut Vec<u8>) -> io::Result<()> {
        b.push(b'\n');
        self.w.write_all(b)?;
        self.bytes += b.len() as u64;
        self.lines += 1;
        b.clear();
        Ok(())
    }

    pub(crate) fn finish(mut self) -> io::Result<(u64, u64)> {
        self.w.flush()?;
        Ok((self.bytes, self.lines))
    }
}
