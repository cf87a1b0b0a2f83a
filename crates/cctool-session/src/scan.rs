//! What `scan` reports of a cctool session file (v5 and earlier): its messages, their times
//! and compactions, its first prompt.

mod message;

use message::MessageFacts;

use crate::io::Source;
use crate::model::project;
use crate::model::session::{SessionRecord, parse, prompt_text, title};
use crate::model::time::format_ms;

/// A cctool session file at a glance, its messages streamed once; a file whose messages
/// cannot be read is reported with its size alone.
pub fn scan(src: &Source) -> SessionRecord {
    let mut r = SessionRecord {
        path: src.name().to_string(),
        format: crate::ID.name(),
        bytes: src.len(),
        lines: src
            .as_slice()
            .map_or(0, |b| memchr::memchr_iter(b'\n', b).count() as u64),
        chain_end: Some("start".into()),
        role: "session",
        ..SessionRecord::default()
    };
    let unread = r.clone();
    let mut span: Option<(i64, i64)> = None;
    let mut bytes = 0usize;
    // The request size counts each message minified, as it is sent.
    let mut minified = Vec::new();
    let streamed = super::file::for_each_message(src, |m| {
        minified.clear();
        crate::io::json::minify_into(m, &mut minified);
        bytes += minified.len() + 1;
        let want_title = r.title.is_none();
        let facts = MessageFacts::read(&minified, want_title)
            .or_else(|| parse(&minified).map(|v| MessageFacts::of_value(&v, want_title)));
        let Some(f) = facts else { return };
        if let Some(ts) = f.time {
            span = Some(span.map_or((ts, ts), |(lo, hi)| (lo.min(ts), hi.max(ts))));
        }
        // A compaction is a `summary` item (v5); earlier versions have none.
        for origin in f.summaries {
            r.compactions += 1;
            *r.compaction_origins.entry(origin).or_default() += 1;
        }
        if r.title.is_none() && f.user {
            (r.title, r.title_source) = title(None, f.title_text.as_deref().and_then(prompt_text));
        }
    });
    let Ok(s) = streamed else {
        return unread;
    };
    r.chain_messages = s.messages;
    r.resume_tokens = bytes.div_ceil(4);
    r.session_id = s.session_id;
    r.project = project::name(None, src.name());
    r.first_timestamp = span.map(|s| format_ms(s.0));
    r.last_timestamp = span.map(|s| format_ms(s.1));
    r.last_ms = span.map(|s| s.1);
    r
}
