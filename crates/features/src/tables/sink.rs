//! Where rows go: JSON Lines or Parquet on standard output, or hive-style partitions in a
//! folder (`agent=…/date=…/part-….jsonl.zst|.parquet`), one part per input file.
//!
//! A part's name is a hash of the file's path and a hash of its rows: a re-run over the same
//! files finds every part already there and writes nothing, a file that grew gets a new part
//! that replaces its older one, and a new file adds a part. Parts are written as every output
//! of cctool is (`io::atomic`: temporary file, fsync, rename), so a reader never sees half of
//! one.

use std::io::Write;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};

use super::build::FileRows;
use super::{Col, Row, RowFormat, Table, Val, columns};
use crate::model::time::format_ms;

/// Appends `row` to `out` as one JSON Lines record with every column, in order.
pub(crate) fn jsonl_row(cols: &[&Col], row: &Row, out: &mut Vec<u8>) {
    out.push(b'{');
    for (i, (c, v)) in cols.iter().zip(row).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(c.name.as_bytes());
        out.extend_from_slice(b"\":");
        // Writing into a Vec cannot fail.
        let _ = match v {
            Val::Null => out.write_all(b"null"),
            Val::Str(s) => serde_json::to_writer(&mut *out, s).map_err(std::io::Error::other),
            Val::Int(n) => write!(out, "{n}"),
            Val::Bool(b) => write!(out, "{b}"),
            Val::Time(ms) => write!(out, "\"{}\"", format_ms(*ms)),
        };
    }
    out.extend_from_slice(b"}\n");
}

/// Calls `f` with each of a file's rows as a JSON Lines record (one buffer, reused).
fn each_jsonl(table: Table, file: &FileRows, mut f: impl FnMut(&[u8]) -> std::io::Result<()>) -> std::io::Result<()> {
    let cols = columns(table);
    let mut line = Vec::new();
    file.each(|r| {
        line.clear();
        jsonl_row(&cols, &r, &mut line);
        f(&line)
    })
}

/// A part's JSON Lines compressed as `zstd::stream::encode_all(lines, 3)` compresses them
/// whole, without holding them: that function records the size in the frame of a text under
/// 128 KiB, and only there.
fn zstd_jsonl(table: Table, file: &FileRows, len: u64, w: impl Write) -> std::io::Result<()> {
    const RECORDED_BELOW: u64 = 128 << 10;
    let mut z = zstd::stream::Encoder::new(w, 3)?;
    if len < RECORDED_BELOW {
        z.set_pledged_src_size(Some(len))?;
    }
    each_jsonl(table, file, |line| z.write_all(line))?;
    z.finish()?;
    Ok(())
}

/// Why rows cannot be written where or as asked.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// What cannot be done in a build without the `parquet` feature.
    #[error(
        "this cctool was built without Parquet support: install it with `cargo install --locked --features parquet --path .` (see README), or use --format jsonl"
    )]
    NoParquet,
    /// The `--out-dir` folder could not be made or read.
    #[error("--out-dir {}: {cause}", .dir.display())]
    OutDir {
        /// The folder.
        dir: PathBuf,
        /// What the file system said.
        cause: std::io::Error,
    },
    /// The Parquet writer refused the table's schema or its first write.
    #[error(transparent)]
    Parquet(std::io::Error),
}

/// Rows on standard output.
pub enum StdoutSink {
    /// JSON Lines, written as they come.
    Jsonl(Table, std::io::BufWriter<std::io::Stdout>),
    /// Parquet, whose row groups are written as they fill and its footer at `finish`.
    #[cfg(feature = "parquet")]
    Parquet(Box<super::parquet::ParquetSink<std::io::BufWriter<std::io::Stdout>>>),
}

impl StdoutSink {
    /// A sink for `table`'s rows in `format`; Parquet is refused by a build without it.
    pub fn new(table: Table, format: RowFormat) -> Result<StdoutSink, SinkError> {
        let w = std::io::BufWriter::with_capacity(256 * 1024, std::io::stdout());
        match format {
            RowFormat::Jsonl => Ok(StdoutSink::Jsonl(table, w)),
            #[cfg(feature = "parquet")]
            RowFormat::Parquet => Ok(StdoutSink::Parquet(Box::new(
                super::parquet::ParquetSink::new(w, table).map_err(SinkError::Parquet)?,
            ))),
            #[cfg(not(feature = "parquet"))]
            RowFormat::Parquet => Err(SinkError::NoParquet),
        }
    }

    /// Writes the rows of one file.
    pub fn write(&mut self, file: &FileRows) -> std::io::Result<()> {
        match self {
            StdoutSink::Jsonl(table, w) => each_jsonl(*table, file, |line| w.write_all(line)),
            #[cfg(feature = "parquet")]
            StdoutSink::Parquet(p) => file.each(|r| p.push(r)),
        }
    }

    /// Writes what is still held (a Parquet footer) and flushes: the output is whole only
    /// once this has returned.
    pub fn finish(self) -> std::io::Result<()> {
        match self {
            StdoutSink::Jsonl(_, mut w) => w.flush(),
            #[cfg(feature = "parquet")]
            StdoutSink::Parquet(p) => p.finish()?.flush(),
        }
    }
}

/// What became of one file's part.
#[derive(Debug, PartialEq, Eq)]
pub enum Part {
    /// Written; `replaced` older parts of the same file were removed.
    Written {
        /// How many older parts of the same file were removed.
        replaced: usize,
    },
    /// The same part was there already.
    Kept,
    /// The file has no rows in this table.
    Empty,
}

/// A folder of partitions, with the parts found in it when the run began.
pub struct PartDir {
    root: PathBuf,
    table: Table,
    format: RowFormat,
    /// Hash of a source path → the parts of that file.
    existing: FxHashMap<String, Vec<PathBuf>>,
}

fn hex(bytes: &[u8], n: usize) -> String {
    bytes.iter().take(n / 2).map(|b| format!("{b:02x}")).collect()
}

/// A value safe as a path component of a partition (`agent=…`).
fn component(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl PartDir {
    /// The folder `root` of `table`'s parts in `format`, made if it is not there.
    pub fn open(root: &Path, table: Table, format: RowFormat) -> Result<PartDir, SinkError> {
        #[cfg(not(feature = "parquet"))]
        if format == RowFormat::Parquet {
            return Err(SinkError::NoParquet);
        }
        std::fs::create_dir_all(root).map_err(|cause| SinkError::OutDir {
            dir: root.to_path_buf(),
            cause,
        })?;
        let mut existing: FxHashMap<String, Vec<PathBuf>> = FxHashMap::default();
        for e in walkdir::WalkDir::new(root).into_iter().filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy();
            if let Some(rest) = name.strip_prefix("part-")
                && let Some((path_hash, _)) = rest.split_once('-')
                && e.file_type().is_file()
            {
                existing
                    .entry(path_hash.to_string())
                    .or_default()
                    .push(e.path().to_path_buf());
            }
        }
        Ok(PartDir {
            root: root.to_path_buf(),
            table,
            format,
            existing,
        })
    }

    /// Writes the part of one file, unless the same part is already there.
    pub fn write(&mut self, source: &str, file: &FileRows) -> std::io::Result<Part> {
        if file.is_empty() {
            return Ok(Part::Empty);
        }
        let path_hash = hex(&Sha256::digest(source.as_bytes()), 16);
        // The rows are read twice: once for the name, which hashes them, once to write them.
        let mut h = Sha256::new();
        h.update(self.table.name().as_bytes());
        let mut len = 0u64;
        each_jsonl(self.table, file, |line| {
            h.update(line);
            len += line.len() as u64;
            Ok(())
        })?;
        let content_hash = hex(&h.finalize(), 16);
        let date = file
            .first_ms
            .map_or_else(|| "unknown".to_string(), |ms| format_ms(ms)[..10].to_string());
        let ext = match self.format {
            RowFormat::Jsonl => "jsonl.zst",
            RowFormat::Parquet => "parquet",
        };
        let dir = self
            .root
            .join(format!("agent={}", component(file.agent)))
            .join(format!("date={date}"));
        let path = dir.join(format!("part-{path_hash}-{content_hash}.{ext}"));
        if path.is_file() {
            return Ok(Part::Kept);
        }
        let table = self.table;
        let write = |w: &mut crate::io::atomic::Output| match self.format {
            RowFormat::Jsonl => zstd_jsonl(table, file, len, w),
            #[cfg(feature = "parquet")]
            RowFormat::Parquet => {
                let mut p = super::parquet::ParquetSink::new(w, table)?;
                file.each(|r| p.push(r))?;
                p.finish().map(drop)
            }
            #[cfg(not(feature = "parquet"))]
            RowFormat::Parquet => Err(std::io::Error::other(SinkError::NoParquet)),
        };
        std::fs::create_dir_all(&dir)?;
        crate::io::atomic::write_new_file_by(&path, false, write)?;
        // The file's older parts go once the new one is in place: a reader sees the old rows
        // or the new ones, and for a moment both, never neither.
        let mut replaced = 0;
        for old in self.existing.remove(&path_hash).unwrap_or_default() {
            if old != path && std::fs::remove_file(&old).is_ok() {
                replaced += 1;
            }
        }
        self.existing.insert(path_hash, vec![path]);
        Ok(Part::Written { replaced })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part's bytes are those of the whole text compressed at once, whatever its size (under
    /// 128 KiB the frame records it), though the rows are compressed one at a time.
    #[test]
    fn a_part_compressed_row_by_row_is_the_text_compressed_whole() {
        let cols = columns(Table::Messages);
        for n in [1, 100, 1_000, 20_000] {
            let mut file = FileRows::new(&super::super::Options::default());
            let mut whole = Vec::new();
            for i in 0..n {
                let row: Row = cols
                    .iter()
                    .enumerate()
                    .map(|(c, _)| match c % 3 {
                        0 => Val::Int((i * c) as i64),
                        1 => Val::Str(format!("{i}-{c}-{}", "x".repeat(i % 17))),
                        _ => Val::Null,
                    })
                    .collect();
                jsonl_row(&cols, &row, &mut whole);
                file.rows.push(&row);
            }
            file.rows.finish();
            let mut streamed = Vec::new();
            zstd_jsonl(Table::Messages, &file, whole.len() as u64, &mut streamed).unwrap();
            assert!(streamed == zstd::stream::encode_all(&whole[..], 3).unwrap(), "{n} rows");
        }
    }
}
