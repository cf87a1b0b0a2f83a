//! The rows of one file, held until the file has been read whole: a file's rows are written
//! only once its reading has succeeded (a file that fails or is truncated under its mapping
//! half-way gives no row, `commands::each_session`), and a part under `--out-dir` is named by
//! a hash of all its rows. Held as `Vec<Row>`, the rows of one large session cost several
//! times its size; here they are encoded compactly, and past a small bound go to an unnamed
//! temporary file, so that a file of any size costs the same memory.
//!
//! A temporary file that cannot be made or written leaves the rows in memory, as they were
//! held before: the table is the same, only larger to hold.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use super::{Row, Val};

/// Encoded bytes held in memory before they go to the temporary file: a few files' worth at
/// once is small (`scan --rows` keeps the finished files of a batch until the batch is done).
const HELD: usize = 256 * 1024;

/// The tags of the encoding: one byte, then the value's bytes (little-endian).
const NULL: u8 = 0;
const STR: u8 = 1;
const INT: u8 = 2;
const FALSE: u8 = 3;
const TRUE: u8 = 4;
const TIME: u8 = 5;

/// Rows, in the order they were pushed.
#[derive(Debug, Default)]
pub struct Rows {
    /// Where the temporary file goes; the system's temporary folder when `None`.
    dir: Option<PathBuf>,
    /// The encoded rows after those in `file`.
    buf: Vec<u8>,
    /// The rows before `buf`, once they outgrew it.
    file: Option<File>,
    /// Bytes of `file` written whole (a failed write leaves its rows in `buf`).
    in_file: u64,
    /// No temporary file is tried again after one failed.
    failed: bool,
    len: usize,
}

impl Rows {
    /// No rows yet; a temporary file, if one is needed, goes in `dir`.
    pub fn new(dir: Option<PathBuf>) -> Rows {
        Rows { dir, ..Rows::default() }
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `row` after the others.
    pub fn push(&mut self, row: &Row) {
        encode(row, &mut self.buf);
        self.len += 1;
        if self.buf.len() >= HELD {
            self.spill();
        }
    }

    /// Sends what is held in memory to the temporary file, if there is one: called once the
    /// file's rows are all made, so that a finished file waiting for its turn holds nothing.
    pub fn finish(&mut self) {
        if self.file.is_some() && !self.buf.is_empty() {
            self.spill();
        }
    }

    fn spill(&mut self) {
        if self.failed {
            return;
        }
        if self.file.is_none() {
            let made = match &self.dir {
                Some(dir) => tempfile::tempfile_in(dir),
                None => tempfile::tempfile(),
            };
            match made {
                Ok(f) => self.file = Some(f),
                Err(_) => {
                    self.failed = true;
                    return;
                }
            }
        }
        let Some(f) = &mut self.file else { return };
        match f.write_all(&self.buf) {
            Ok(()) => {
                self.in_file += self.buf.len() as u64;
                self.buf.clear();
            }
            // What the failed write left in the file is past `in_file`, and never read.
            Err(_) => self.failed = true,
        }
    }

    /// Calls `f` with each row, in order; the rows stay, to be read again.
    pub fn each(&self, mut f: impl FnMut(Row) -> io::Result<()>) -> io::Result<()> {
        let mut left = self.len;
        if let Some(mut file) = self.file.as_ref() {
            file.seek(SeekFrom::Start(0))?;
            let mut r = BufReader::with_capacity(64 * 1024, file.take(self.in_file));
            while left > 0 && has_more(&mut r)? {
                f(decode(&mut r)?)?;
                left -= 1;
            }
        }
        let mut r = &self.buf[..];
        while left > 0 {
            f(decode(&mut r)?)?;
            left -= 1;
        }
        Ok(())
    }
}

fn has_more(r: &mut impl io::BufRead) -> io::Result<bool> {
    Ok(!r.fill_buf()?.is_empty())
}

fn encode(row: &Row, out: &mut Vec<u8>) {
    out.extend_from_slice(&(row.len() as u32).to_le_bytes());
    for v in row {
        match v {
            Val::Null => out.push(NULL),
            Val::Str(s) => {
                out.push(STR);
                out.extend_from_slice(&(s.len() as u64).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
            }
            Val::Int(n) => {
                out.push(INT);
                out.extend_from_slice(&n.to_le_bytes());
            }
            Val::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
            Val::Time(ms) => {
                out.push(TIME);
                out.extend_from_slice(&ms.to_le_bytes());
            }
        }
    }
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("held rows: {what}"))
}

fn bytes<const N: usize>(r: &mut impl Read) -> io::Result<[u8; N]> {
    let mut b = [0; N];
    r.read_exact(&mut b)?;
    Ok(b)
}

fn decode(r: &mut impl Read) -> io::Result<Row> {
    let n = u32::from_le_bytes(bytes(r)?) as usize;
    let mut row = Vec::with_capacity(n.min(64));
    for _ in 0..n {
        let [tag] = bytes(r)?;
        row.push(match tag {
            NULL => Val::Null,
            STR => {
                let len = u64::from_le_bytes(bytes(r)?);
                let mut s = Vec::new();
                r.take(len).read_to_end(&mut s)?;
                if s.len() as u64 != len {
                    return Err(invalid("a string is cut short"));
                }
                Val::Str(String::from_utf8(s).map_err(|_| invalid("a string is not UTF-8"))?)
            }
            INT => Val::Int(i64::from_le_bytes(bytes(r)?)),
            FALSE => Val::Bool(false),
            TRUE => Val::Bool(true),
            TIME => Val::Time(i64::from_le_bytes(bytes(r)?)),
            _ => return Err(invalid("an unknown value")),
        });
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: usize) -> Row {
        vec![
            Val::Int(i as i64),
            Val::Null,
            Val::Str(format!("row {i} é")),
            Val::Bool(i.is_multiple_of(2)),
            Val::Time(-(i as i64)),
            Val::Str(String::new()),
        ]
    }

    fn all(rows: &Rows) -> Vec<Row> {
        let mut out = Vec::new();
        rows.each(|r| {
            out.push(r);
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn rows_come_back_in_order_from_memory_and_from_the_temporary_file() {
        for n in [0, 1, 10, 40_000] {
            let mut rows = Rows::new(None);
            let want: Vec<Row> = (0..n).map(row).collect();
            want.iter().for_each(|r| rows.push(r));
            rows.finish();
            assert_eq!(rows.len(), n);
            assert_eq!(rows.file.is_some(), n == 40_000, "{n}");
            assert_eq!(all(&rows), want, "{n}");
            // Read twice (a part is hashed, then written).
            assert_eq!(all(&rows), want, "{n}");
        }
    }

    #[test]
    fn rows_stay_in_memory_where_no_temporary_file_can_be_made() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        let mut rows = Rows::new(Some(gone));
        let want: Vec<Row> = (0..40_000).map(row).collect();
        want.iter().for_each(|r| rows.push(r));
        rows.finish();
        assert!(rows.file.is_none() && rows.failed);
        assert_eq!(all(&rows), want);
    }
}
