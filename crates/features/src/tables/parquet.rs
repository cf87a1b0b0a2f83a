//! Parquet output through arrow-rs: rows gathered into Arrow batches, written in row groups
//! of DuckDB's own size, strings dictionary-encoded (agent, source_path, type, model repeat
//! on every row of a file).

use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int64Builder, StringBuilder, TimestampMillisecondBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::{Col, Row, Table, Ty, Val, columns};

/// Rows per row group: DuckDB's row group size (Polars and Spark read any size; Spark
/// splits work by row group, and this keeps each in the tens of MiB for message rows).
const ROW_GROUP_ROWS: usize = 122_880;
/// Rows gathered before they become an Arrow batch: bounds the memory of a large table.
const BATCH_ROWS: usize = 16_384;

pub struct ParquetSink<W: Write + Send> {
    writer: ArrowWriter<W>,
    schema: SchemaRef,
    cols: Vec<&'static Col>,
    buf: Vec<Row>,
}

fn arrow_type(ty: Ty) -> DataType {
    match ty {
        Ty::Str => DataType::Utf8,
        Ty::Int => DataType::Int64,
        Ty::Bool => DataType::Boolean,
        Ty::Time => DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
    }
}

fn err(e: impl Into<WriteError>) -> std::io::Error {
    std::io::Error::other(e.into())
}

/// What the Parquet writer or the Arrow batches under it refused; the sinks' signatures carry
/// it inside an io error. The cause is said in the sentence, not exposed as `source()`.
#[derive(Debug, thiserror::Error)]
enum WriteError {
    #[error("Parquet: {0}")]
    Parquet(parquet::errors::ParquetError),
    #[error("Parquet: {0}")]
    Arrow(arrow_schema::ArrowError),
}

impl From<parquet::errors::ParquetError> for WriteError {
    fn from(e: parquet::errors::ParquetError) -> Self {
        WriteError::Parquet(e)
    }
}

impl From<arrow_schema::ArrowError> for WriteError {
    fn from(e: arrow_schema::ArrowError) -> Self {
        WriteError::Arrow(e)
    }
}

impl<W: Write + Send> ParquetSink<W> {
    pub(crate) fn new(w: W, table: Table) -> std::io::Result<Self> {
        let cols = columns(table);
        let schema: SchemaRef = Arc::new(Schema::new(
            cols.iter()
                .map(|c| Field::new(c.name, arrow_type(c.ty), c.nullable))
                .collect::<Vec<_>>(),
        ));
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_dictionary_enabled(true)
            .set_compression(Compression::SNAPPY)
            .set_created_by(format!("cctool {}", env!("CARGO_PKG_VERSION")))
            .build();
        let writer = ArrowWriter::try_new(w, schema.clone(), Some(props)).map_err(err)?;
        Ok(ParquetSink {
            writer,
            schema,
            cols,
            buf: Vec::new(),
        })
    }

    pub(crate) fn push(&mut self, row: Row) -> std::io::Result<()> {
        self.buf.push(row);
        if self.buf.len() >= BATCH_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn flush_batch(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let rows = std::mem::take(&mut self.buf);
        let arrays: Vec<ArrayRef> = self
            .cols
            .iter()
            .enumerate()
            .map(|(i, c)| column_array(c.ty, rows.iter().map(|r| &r[i]), rows.len()))
            .collect();
        let batch = RecordBatch::try_new(self.schema.clone(), arrays).map_err(err)?;
        self.writer.write(&batch).map_err(err)
    }

    /// Writes what is left and the footer; returns the writer.
    pub(crate) fn finish(mut self) -> std::io::Result<W> {
        self.flush_batch()?;
        self.writer.into_inner().map_err(err)
    }
}

/// One column of a batch. A value of another type than the column's is a bug of the row
/// builders, written as null rather than as a panic in the middle of a run.
fn column_array<'a>(ty: Ty, vals: impl Iterator<Item = &'a Val>, n: usize) -> ArrayRef {
    match ty {
        Ty::Str => {
            let mut b = StringBuilder::with_capacity(n, n * 16);
            for v in vals {
                b.append_option(match v {
                    Val::Str(s) => Some(s.as_str()),
                    _ => None,
                });
            }
            Arc::new(b.finish())
        }
        Ty::Int => {
            let mut b = Int64Builder::with_capacity(n);
            for v in vals {
                b.append_option(match v {
                    Val::Int(i) => Some(*i),
                    _ => None,
                });
            }
            Arc::new(b.finish())
        }
        Ty::Bool => {
            let mut b = BooleanBuilder::with_capacity(n);
            for v in vals {
                b.append_option(match v {
                    Val::Bool(x) => Some(*x),
                    _ => None,
                });
            }
            Arc::new(b.finish())
        }
        Ty::Time => {
            let mut b = TimestampMillisecondBuilder::with_capacity(n).with_timezone("UTC");
            for v in vals {
                b.append_option(match v {
                    Val::Time(ms) => Some(*ms),
                    _ => None,
                });
            }
            Arc::new(b.finish())
        }
    }
}
