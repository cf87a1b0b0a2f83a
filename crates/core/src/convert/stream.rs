//! A conversion streamed: the source's reader runs on its own thread and hands its entries
//! over a bounded channel; the target's writer turns each into lines as it arrives. Memory is
//! the reader's index of the file and a few entries in flight, whatever the file's size.

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use super::model::{Conversation, Counts, Entry, Msg};
use super::{EntryWriter, Tally};

/// Entries in flight between the reader and the writer.
const IN_FLIGHT: usize = 64;

/// A channel for [`Lines`], and the sink a reader sends into.
pub fn channel() -> (SyncSender<Msg>, Receiver<Msg>) {
    sync_channel(IN_FLIGHT)
}

/// Runs `read` into `tx`, ending with [`Msg::End`] when it read everything: a reader that
/// fails (or whose receiver went away) ends without it, and the lines are not complete.
pub fn send_all(
    tx: SyncSender<Msg>,
    read: impl FnOnce(super::model::Sink<'_>) -> std::io::Result<Conversation>,
) -> std::io::Result<()> {
    let send = |m: Msg| {
        tx.send(m)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the conversion stopped"))
    };
    // Entries go a batch at a time, a batch handed over when it holds `BATCH` entries or
    // `BATCH_BYTES` of text (so the entries in flight stay a few MiB).
    let (mut batch, mut bytes) = (Vec::new(), 0usize);
    let flush = |batch: &mut Vec<Entry>, bytes: &mut usize| {
        *bytes = 0;
        match batch.len() {
            0 => Ok(()),
            _ => send(Msg::Entries(std::mem::take(batch))),
        }
    };
    let read = read(&mut |m: Msg| match m {
        Msg::Entry(e) => {
            bytes += weight(&e);
            batch.push(e);
            if batch.len() >= BATCH || bytes >= BATCH_BYTES {
                flush(&mut batch, &mut bytes)?;
            }
            Ok(())
        }
        m => {
            flush(&mut batch, &mut bytes)?;
            send(m)
        }
    });
    // The entries read before a failure are written, as they were one at a time.
    flush(&mut batch, &mut bytes)?;
    send(Msg::End(read?))
}

const BATCH: usize = 64;
const BATCH_BYTES: usize = 64 << 10;

/// About the bytes an entry holds, for the size of a batch.
fn weight(e: &Entry) -> usize {
    use super::model::{Block, Body, written_len};
    match &e.body {
        Body::User(ps) => written_len(ps),
        Body::ToolResult(r) => written_len(&r.output),
        Body::Assistant(bs) => bs
            .iter()
            .map(|b| match b {
                Block::Text(t) | Block::Reasoning(t) => t.len(),
                Block::Call(_) => 256,
            })
            .sum(),
        Body::Compaction(s) => s.len(),
    }
}

/// The head a reader sends first; `None` if it failed before.
pub fn head(rx: &Receiver<Msg>) -> Option<Conversation> {
    match rx.recv() {
        Ok(Msg::Head(h)) => Some(h),
        _ => None,
    }
}

type MakeWriter<'a> = Box<dyn FnOnce(Option<&str>, &mut Vec<Vec<u8>>) -> Box<dyn EntryWriter> + 'a>;

/// The target's lines, pulled one at a time from a streaming reader's entries.
pub struct Lines<'a> {
    rx: Receiver<Msg>,
    make: Option<MakeWriter<'a>>,
    writer: Option<Box<dyn EntryWriter>>,
    /// Entries before the first with a timestamp: the writer starts its clock from it.
    waiting: Vec<Entry>,
    out: Vec<Vec<u8>>,
    /// Entries of a batch received and not yet written.
    inbox: VecDeque<Entry>,
    ready: VecDeque<Vec<u8>>,
    end: Option<Conversation>,
    reasoning_as_text: bool,
    /// What was converted so far, for the report.
    pub counts: Counts,
    /// What the writer mapped and left out so far.
    pub tally: Tally,
}

impl<'a> Lines<'a> {
    /// `make`: the writer, from the conversation's first timestamp.
    pub fn new(rx: Receiver<Msg>, reasoning_as_text: bool, make: MakeWriter<'a>) -> Lines<'a> {
        Lines {
            rx,
            make: Some(make),
            writer: None,
            waiting: Vec::new(),
            out: Vec::new(),
            inbox: VecDeque::new(),
            ready: VecDeque::new(),
            end: None,
            reasoning_as_text,
            counts: Counts::default(),
            tally: Tally::default(),
        }
    }

    fn start(&mut self, first: Option<&str>) {
        if let Some(make) = self.make.take() {
            let mut w = make(first, &mut self.out);
            for e in std::mem::take(&mut self.waiting) {
                w.entry(&e, &mut self.out);
            }
            self.writer = Some(w);
        }
    }

    /// The next line, `None` after the last. An error: the reader failed, the lines are
    /// not the whole conversion (the reader's own error says why).
    pub fn next_line(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(l) = self.ready.pop_front() {
                return Ok(Some(l));
            }
            if self.end.is_some() {
                return Ok(None);
            }
            match self.recv() {
                Ok(Msg::Entry(e)) => {
                    self.counts.add(&e, self.reasoning_as_text);
                    if self.writer.is_none() && e.timestamp.is_some() {
                        let first = e.timestamp.clone();
                        self.start(first.as_deref());
                    }
                    match &mut self.writer {
                        Some(w) => w.entry(&e, &mut self.out),
                        None => self.waiting.push(e),
                    }
                }
                Ok(Msg::End(c)) => {
                    self.start(None);
                    if let Some(w) = &mut self.writer {
                        w.finish(&mut self.out);
                        self.tally = w.tally();
                    }
                    self.end = Some(c);
                }
                Ok(Msg::Head(_) | Msg::Entries(_)) => {}
                Err(_) => {
                    return Err(std::io::Error::other(SourceCutShort));
                }
            }
            self.ready.extend(self.out.drain(..));
        }
    }

    /// The next message, an entry of a batch received one at a time.
    fn recv(&mut self) -> Result<Msg, std::sync::mpsc::RecvError> {
        loop {
            if let Some(e) = self.inbox.pop_front() {
                return Ok(Msg::Entry(e));
            }
            match self.rx.recv()? {
                Msg::Entries(es) => self.inbox.extend(es),
                m => return Ok(m),
            }
        }
    }

    /// Puts a line back: the next [`Lines::next_line`] returns it.
    pub fn unread(&mut self, l: Vec<u8>) {
        self.ready.push_front(l);
    }

    /// After the last line: the conversation's metadata and what the reader left out.
    pub fn conversation(&mut self) -> Option<Conversation> {
        self.end.take()
    }
}

/// The reader's channel closed before the conversation's end.
#[derive(Debug, thiserror::Error)]
#[error("the source was not read to its end")]
struct SourceCutShort;
