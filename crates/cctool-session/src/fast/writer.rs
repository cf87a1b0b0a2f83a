//! The v5 document written directly, in serde_json's pretty layout, in windows rendered on all
//! cores while the window before is written.

use super::*;

/// Writes the v5 document of `doc` in serde_json's pretty layout.
pub fn write_v5(doc: &Doc<'_>, w: &mut dyn Write) -> io::Result<()> {
    w.write_all(b"{\n")?;
    let mut first = true;
    field(w, 1, &mut first, "schema_version", "5", false)?;
    let id = doc.id.map_or("null", RawValue::get);
    field(w, 1, &mut first, "session_id", id, doc.id.is_some_and(is_structured))?;
    let created = match (doc.version, doc.created_at) {
        (1, _) => doc.messages.min_ts().map(|ts| format!("\"{}\"", rfc3339_seconds(ts))),
        (_, Some(c)) => Some(token(c).into_owned()),
        _ => None,
    };
    field(
        w,
        1,
        &mut first,
        "created_at",
        created.as_deref().unwrap_or("null"),
        false,
    )?;
    if !std::mem::replace(&mut first, false) {
        w.write_all(b",\n")?;
    }
    indent(w, 1)?;
    if doc.messages.is_empty() {
        w.write_all(b"\"messages\": []")?;
    } else {
        w.write_all(b"\"messages\": [\n")?;
        write_messages(&doc.messages, w)?;
        w.write_all(b"\n")?;
        indent(w, 1)?;
        w.write_all(b"]")?;
    }
    for (k, v) in &doc.extra {
        field(w, 1, &mut first, k, v.get(), is_structured(v))?;
    }
    w.write_all(b"\n}\n")
}

/// The messages, rendered a window of parts at a time on all cores while this thread writes
/// the window before: output order and bytes are those of a sequential render, and memory
/// holds two windows, not the document.
pub(super) fn write_messages(parts: &Messages<'_>, w: &mut dyn Write) -> io::Result<()> {
    use rayon::prelude::*;
    // The id of each part's first message.
    let firsts: Vec<u64> = (0..parts.parts())
        .scan(1u64, |next, i| {
            let id = *next;
            *next += parts.count(i) as u64;
            Some(id)
        })
        .collect();
    let render = |i: usize, mut buf: Vec<u8>| -> io::Result<Vec<u8>> {
        buf.clear();
        parts.with_part(i, |msgs| -> io::Result<()> {
            for (k, m) in msgs.iter().enumerate() {
                let id = firsts[i] + k as u64;
                if id > 1 {
                    buf.extend_from_slice(b",\n");
                }
                message(&mut buf, m, id)?;
            }
            Ok(())
        })??;
        Ok(buf)
    };
    let window = 2 * rayon::current_num_threads();
    // A window of parts rendered on all cores, into buffers already written once when there
    // are some (their pages are mapped).
    let render_window = |lo: usize, mut spare: Vec<Vec<u8>>| -> io::Result<Vec<Vec<u8>>> {
        let hi = (lo + window).min(parts.parts());
        spare.resize_with(hi - lo, Vec::new);
        (lo..hi)
            .into_par_iter()
            .zip(spare)
            .map(|(i, buf)| render(i, buf))
            .collect()
    };
    if rayon::current_thread_index().is_some() {
        in_pool(parts.parts(), window, &render_window, w)
    } else {
        streamed(parts.parts(), window, &render_window, w)
    }
}

/// The windows rendered by a job of the pool while this pool thread (one of many files at
/// once) writes the window before. Never a thread of its own: a pool thread that blocked on
/// such a thread while it waited for the pool would deadlock once every pool thread did the
/// same (one core, or two large files on two).
pub(super) fn in_pool(
    parts: usize,
    window: usize,
    render_window: &(impl Fn(usize, Vec<Vec<u8>>) -> io::Result<Vec<Vec<u8>>> + Sync),
    w: &mut dyn Write,
) -> io::Result<()> {
    let mut current = render_window(0, Vec::new())?;
    let mut spare = Vec::new();
    let mut lo = 0;
    loop {
        lo += window;
        let mut next = None;
        rayon::in_place_scope(|scope| -> io::Result<()> {
            if lo < parts {
                let (bufs, slot) = (std::mem::take(&mut spare), &mut next);
                scope.spawn(move |_| *slot = Some(render_window(lo, bufs)));
            }
            current.iter().try_for_each(|buf| w.write_all(buf))
        })?;
        spare = std::mem::take(&mut current);
        match next {
            Some(rendered) => current = rendered?,
            None => return Ok(()),
        }
    }
}

/// From outside the pool (one file): a thread of its own asks the pool for window after window
/// while this thread writes, up to two windows ahead. Writing and rendering each go at their
/// own pace, which measured faster than taking turns window by window.
pub(super) fn streamed(
    parts: usize,
    window: usize,
    render_window: &(impl Fn(usize, Vec<Vec<u8>>) -> io::Result<Vec<Vec<u8>>> + Sync),
    w: &mut dyn Write,
) -> io::Result<()> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<Vec<u8>>>>(1);
        let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Vec<u8>>();
        scope.spawn(move || {
            for lo in (0..parts).step_by(window) {
                // A closed channel: the writer failed and has its error.
                if tx.send(render_window(lo, spare_rx.try_iter().collect())).is_err() {
                    return;
                }
            }
        });
        for bufs in rx {
            for buf in bufs? {
                w.write_all(&buf)?;
                let _ = spare_tx.send(buf);
            }
        }
        Ok(())
    })
}

pub(super) fn open_key(buf: &mut Vec<u8>, depth: usize, first: &mut bool, key: &[u8]) {
    if !std::mem::replace(first, false) {
        buf.extend_from_slice(b",\n");
    }
    buf.resize(buf.len() + 2 * depth, b' ');
    buf.push(b'"');
    buf.extend_from_slice(key);
    buf.extend_from_slice(b"\": ");
}

/// Starts the next element of the `items` array (depth 3) and opens it.
pub(super) fn open_item(buf: &mut Vec<u8>, count: &mut usize) {
    buf.extend_from_slice(if *count == 0 { b"[\n" } else { b",\n" });
    *count += 1;
    buf.extend_from_slice(b"        {\n");
}

pub(super) fn close_item(buf: &mut Vec<u8>) {
    buf.extend_from_slice(b"\n        }");
}

/// An item whose values are all tokens written as they are.
pub(super) fn item(buf: &mut Vec<u8>, count: &mut usize, fields: &[(&[u8], &[u8])]) {
    open_item(buf, count);
    let mut first = true;
    for (key, value) in fields {
        open_key(buf, 5, &mut first, key);
        buf.extend_from_slice(value);
    }
    close_item(buf);
}

/// One v5 message at depth 2: its items in the v2 → v3 order (reasoning, text or tool result,
/// tool calls), then the id and timestamp the later steps add. Values are the file's own
/// tokens, borrowed: a tool output is copied once, into the buffer.
pub(super) fn message(buf: &mut Vec<u8>, m: &Message<'_>, id: u64) -> io::Result<()> {
    buf.extend_from_slice(b"    {\n");
    let mut first = true;
    let role = token(m.role);
    open_key(buf, 3, &mut first, b"role");
    buf.extend_from_slice(role.as_bytes());
    if let Some(t) = m.tool_call_id {
        open_key(buf, 3, &mut first, b"tool_call_id");
        buf.extend_from_slice(token(t).as_bytes());
    }
    open_key(buf, 3, &mut first, b"items");
    let mut items = 0;
    if let Some(t) = m.thinking.filter(|t| t.raw != "\"\"") {
        item(
            buf,
            &mut items,
            &[(b"type", b"\"reasoning\""), (b"text", token(t).as_bytes())],
        );
    }
    if role == "\"tool\"" {
        let (content, size) = m.content.map_or((Cow::Borrowed("\"\""), 0), token_and_len);
        let size = size.to_string();
        let fields: [(&[u8], &[u8]); 3] = [
            (b"type", b"\"tool_result\""),
            (b"content", content.as_bytes()),
            (b"original_size", size.as_bytes()),
        ];
        item(buf, &mut items, &fields);
    } else if let Some(content) = m.content.map(token).filter(|c| c != "\"\"") {
        item(
            buf,
            &mut items,
            &[(b"type", b"\"text\""), (b"text", content.as_bytes())],
        );
    }
    for c in &m.tool_calls {
        open_item(buf, &mut items);
        let mut f = true;
        open_key(buf, 5, &mut f, b"type");
        buf.extend_from_slice(b"\"tool_call\"");
        open_key(buf, 5, &mut f, b"id");
        buf.extend_from_slice(token(c.id).as_bytes());
        open_key(buf, 5, &mut f, b"name");
        buf.extend_from_slice(token(c.name).as_bytes());
        open_key(buf, 5, &mut f, b"args");
        let text: String = serde_json::from_str(c.arguments.raw).unwrap_or_default();
        write_pretty(buf, 5, &parse_arguments(&text))?;
        for (k, v) in &c.extra {
            field(buf, 5, &mut f, k, v.get(), is_structured(v))?;
        }
        close_item(buf);
    }
    buf.extend_from_slice(if items == 0 { b"[]" } else { b"\n      ]" });
    open_key(buf, 3, &mut first, b"id");
    write!(buf, "{id}")?;
    if let Some(ts) = m.ts {
        open_key(buf, 3, &mut first, b"timestamp");
        match crate::model::time::seconds_text(ts) {
            Some(text) => {
                buf.push(b'"');
                buf.extend_from_slice(&text);
                buf.push(b'"');
            }
            None => serde_json::to_writer(&mut *buf, &rfc3339_seconds(ts))?,
        }
    }
    for (k, v) in &m.extra {
        field(buf, 3, &mut first, k, v.get(), is_structured(v))?;
    }
    buf.extend_from_slice(b"\n    }");
    Ok(())
}
