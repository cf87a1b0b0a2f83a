//! Parsing a transcript into the index: one node per record, offsets and flags, never bodies
//! (`docs/claude-code.md#parse-and-index`); large files are cut and parsed on every core.

use super::*;

pub(super) fn read_inner(
    src: &Source,
    offset: u64,
    first_line: u64,
    progress: &mut dyn FnMut(u64),
    audit: bool,
    parallel_min: u64,
    each: &mut dyn FnMut(&Line<'_>),
) -> io::Result<Transcript> {
    let mut ix = Indexer {
        t: Transcript {
            file: src.name().to_string(),
            links: audit.then(Vec::new),
            ..Transcript::default()
        },
        bridge: FxHashMap::default(),
        unknown: FxHashMap::default(),
        last_written_line: 0,
        reported: offset,
        progress,
    };
    // A large file held as one slice is split and parsed on every core, a window each, and
    // indexed in file order: everything but the indexing (splitting, parsing, the page faults
    // of a mapping) happens in parallel, and each line parses on its own.
    let threads = rayon::current_num_threads();
    let mut stats = LineStats {
        lines: first_line.saturating_sub(1),
        ..LineStats::default()
    };
    let parallel = (src.len().saturating_sub(offset) >= parallel_min && threads > 1)
        .then(|| {
            src.par_rounds(
                offset,
                threads * 2,
                |at, chunk, last| {
                    let mut local = LineStats::default();
                    let mut parsed = Vec::new();
                    split_chunk(at, chunk, last, &mut local, &mut |l| {
                        // The timestamp is parsed here too, off the serial indexer.
                        let env = serde_json::from_slice::<Envelope<'_>>(l.bytes).ok();
                        let ts = env.as_ref().and_then(|e| e.timestamp.as_str().and_then(parse_ms));
                        parsed.push((l, env.map(|e| (e, ts))));
                    });
                    (parsed, local)
                },
                |(parsed, local)| {
                    let base = stats.lines;
                    stats.lines += local.lines;
                    stats.blank += local.blank;
                    stats.crlf += local.crlf;
                    stats.had_bom |= local.had_bom;
                    stats.unterminated_tail |= local.unterminated_tail;
                    for (mut line, env) in parsed {
                        line.no += base;
                        each(&line);
                        match env {
                            Some((env, ts)) => {
                                ix.report(&line);
                                ix.index(&line, &env, ts);
                            }
                            // Repaired or reported exactly as a sequential read would.
                            None => ix.line(&line),
                        }
                    }
                },
            )
        })
        .flatten();
    match parallel {
        Some(r) => r?,
        None => {
            stats = crate::io::lines::for_each_line_from(src, offset, first_line, |line| {
                each(&line);
                ix.line(&line)
            })?
        }
    }
    let mut t = ix.t;
    t.lines = stats.lines;
    t.unterminated = stats.unterminated_tail;
    let mut unknown: Vec<_> = ix.unknown.into_iter().collect();
    unknown.sort_by_key(|(_, (first, _))| *first);
    for (ty, (first, count)) in unknown {
        t.diagnostics.push(Diagnostic::new(
            &t.file,
            Some(first),
            Code::UnknownRecordType,
            Severity::Info,
            format!("{count} record(s) of unknown type {ty:?} (first here); not part of the conversation"),
        ));
    }
    Ok(t)
}

/// Files at least this large are split and parsed on every core.
pub(super) const PARALLEL_MIN: u64 = 32 * 1024 * 1024;

/// The state of a read: the transcript so far and what is needed to extend it line by line.
pub(super) struct Indexer<'p> {
    t: Transcript,
    bridge: FxHashMap<Id, Id>,
    unknown: FxHashMap<String, (u64, u64)>,
    last_written_line: u64,
    reported: u64,
    progress: &'p mut dyn FnMut(u64),
}

impl Indexer<'_> {
    fn report(&mut self, line: &Line<'_>) {
        if line.offset >= self.reported + PROGRESS_STEP {
            self.reported = line.offset;
            (self.progress)(self.reported);
        }
    }

    /// `ts`: the record's timestamp in milliseconds, parsed by the caller.
    fn index(&mut self, line: &Line<'_>, env: &Envelope<'_>, ts: Option<i64>) {
        index_line(
            &mut self.t,
            &mut self.bridge,
            &mut self.unknown,
            &mut self.last_written_line,
            line,
            env,
            ts,
        );
    }

    /// Parses and indexes one line.
    fn line(&mut self, line: &Line<'_>) {
        self.report(line);
        let r = with_parsed_borrowed::<Envelope<'_>, _>(line.bytes, line.terminated, |env, _| {
            let ts = env.timestamp.as_str().and_then(parse_ms);
            self.index(line, &env, ts)
        });
        match r {
            Ok(((), repaired)) => {
                if repaired {
                    self.t.diagnostics.push(Diagnostic::new(
                        &self.t.file,
                        Some(line.no),
                        Code::LoneSurrogate,
                        Severity::Info,
                        "lone UTF-16 surrogate escape; read as U+FFFD, as Claude Code does",
                    ));
                }
            }
            Err(bad) => {
                self.t.bad_lines += 1;
                self.t.diagnostics.push(Diagnostic::new(
                    &self.t.file,
                    Some(line.no),
                    bad.code,
                    bad.severity,
                    bad.message,
                ));
            }
        }
    }
}

/// Records a value the first time it is seen (session ids, agent versions: a handful).
pub(super) fn push_unique(list: &mut Vec<String>, value: Option<&str>) {
    if let Some(v) = value
        && !list.iter().any(|x| x == v)
    {
        list.push(v.to_string());
    }
}

pub(super) fn index_line(
    t: &mut Transcript,
    bridge: &mut FxHashMap<Id, Id>,
    unknown: &mut FxHashMap<String, (u64, u64)>,
    last_written_line: &mut u64,
    line: &Line<'_>,
    env: &Envelope<'_>,
    ts: Option<i64>,
) {
    if let Some(ts) = ts {
        t.span = Some(t.span.map_or((ts, ts), |(lo, hi)| (lo.min(ts), hi.max(ts))));
    }
    let Some(ty) = env.ty.as_str() else {
        let e = unknown.entry("<no type>".into()).or_insert((line.no, 0));
        e.1 += 1;
        return;
    };
    push_unique(&mut t.session_ids, env.session_id.as_str());
    push_unique(&mut t.versions, env.version.as_str());
    let kind = match ty {
        "user" => Kind::User,
        "assistant" => Kind::Assistant,
        "system" => Kind::System,
        "attachment" => Kind::Attachment,
        "progress" => {
            index_progress(t, bridge, line, env);
            return;
        }
        "summary" | "custom-title" | "ai-title" => {
            t.titles += u64::from(ty == "summary");
            t.title_rows.push((line.offset, line.bytes.len()));
            return;
        }
        other => {
            if !is_known_type(other) {
                let e = unknown.entry(other.to_string()).or_insert((line.no, 0));
                e.1 += 1;
            }
            return;
        }
    };
    let Some(uuid) = env.uuid.as_str() else {
        t.diagnostics.push(Diagnostic::new(
            &t.file,
            Some(line.no),
            Code::MissingUuid,
            Severity::Warning,
            format!("{ty} record without a string uuid; it cannot be linked and is ignored"),
        ));
        return;
    };
    let id = t.ids.intern(uuid);
    let parent = parent_of(t, bridge, env, id, line.no);
    let sub = sub_of(env, kind);
    let side = side_of(env);
    let flags = flags_of(env);
    let msg_id = msg_id_of(t, kind, env);
    let ts = env.timestamp.as_str().and_then(parse_ms).unwrap_or(NO_TS);
    if t.pos_of.len() < t.ids.len() {
        t.pos_of.resize(t.ids.len(), NONE);
    }
    let node = Node {
        uuid: id,
        parent,
        offset: line.offset,
        len: line.bytes.len() as u64,
        line: line.no,
        ts,
        msg_id,
        kind,
        sub,
        side,
        flags,
    };
    let pos = place(t, node, uuid, line.no);
    let main_row = side != Side::True && !matches!(sub, Sub::FileSnapshot | Sub::ForkBriefing);
    if main_row && line.no >= *last_written_line {
        *last_written_line = line.no;
        t.last_written = Some(pos);
    }
    if sub == Sub::CompactBoundary {
        index_boundary(t, env, pos);
    }
    if !env.snip_removed.is_empty() {
        let ids = env.snip_removed.iter().map(|s| t.ids.intern(s)).collect();
        t.snips.push((pos, ids));
    }
    if t.pos_of.len() < t.ids.len() {
        t.pos_of.resize(t.ids.len(), NONE);
    }
}

/// A row's parent: its `parentUuid` (linked, when links are kept), through any progress rows
/// between them.
fn parent_of(t: &mut Transcript, bridge: &FxHashMap<Id, Id>, env: &Envelope<'_>, id: Id, line_no: u64) -> Id {
    let mut parent = match &env.parent_uuid {
        LStr::Str(s) if !s.is_empty() => t.ids.intern(s),
        LStr::Other => INVALID,
        _ => ROOT,
    };
    if parent < INVALID
        && let Some(links) = &mut t.links
    {
        links.push(Link {
            line: line_no,
            uuid: id,
            parent,
        });
    }
    if let Some(&b) = bridge.get(&parent) {
        parent = b;
        t.progress_bridged += 1;
    }
    parent
}

/// The subtype of a row the loader tells apart.
fn sub_of(env: &Envelope<'_>, kind: Kind) -> Sub {
    match env.subtype.as_str() {
        None => Sub::None,
        Some("compact_boundary") if kind == Kind::System => Sub::CompactBoundary,
        Some("microcompact_boundary") => Sub::MicrocompactBoundary,
        Some("local_command") => Sub::LocalCommand,
        Some("file_snapshot") => Sub::FileSnapshot,
        Some("fork_briefing") => Sub::ForkBriefing,
        Some(_) => Sub::Other,
    }
}

/// Whether a row is on a side chain, as written.
fn side_of(env: &Envelope<'_>) -> Side {
    match env.is_sidechain {
        LBool::Absent => Side::Absent,
        LBool::Bool(false) => Side::False,
        LBool::Bool(true) => Side::True,
        LBool::Other => Side::Other,
    }
}

/// The number of an assistant row's message id, or `NONE`. Message ids only group split rows;
/// their text is never needed again.
fn msg_id_of(t: &mut Transcript, kind: Kind, env: &Envelope<'_>) -> u32 {
    match (kind, env.message.id.as_str()) {
        (Kind::Assistant, Some(m)) => match t.msg_ids.get(m) {
            Some(&id) => id,
            None => {
                let id = t.msg_ids.len() as u32;
                t.msg_ids.insert(m.into(), id);
                id
            }
        },
        _ => NONE,
    }
}

/// A legacy progress row: never a message, its children re-parented to the nearest
/// non-progress ancestor (runs of progress collapse).
fn index_progress(t: &mut Transcript, bridge: &mut FxHashMap<Id, Id>, line: &Line<'_>, env: &Envelope<'_>) {
    if let Some(u) = env.uuid.as_str() {
        let id = t.ids.intern(u);
        let p = match env.parent_uuid.truthy_str() {
            Some(p) => {
                let pid = t.ids.intern(p);
                if let Some(links) = &mut t.links {
                    links.push(Link {
                        line: line.no,
                        uuid: id,
                        parent: pid,
                    });
                }
                bridge.get(&pid).copied().unwrap_or(pid)
            }
            None => ROOT,
        };
        bridge.insert(id, p);
        if t.links.is_some() {
            t.progress_ids.insert(id);
        }
    }
}

/// The flags of a message row, from its envelope and what its content holds.
fn flags_of(env: &Envelope<'_>) -> u16 {
    let c = &env.message.content;
    let mut flags = 0u16;
    let set = |flags: &mut u16, cond: bool, f: u16| {
        if cond {
            *flags |= f;
        }
    };
    set(&mut flags, env.is_meta.is_true(), flag::META);
    set(&mut flags, env.is_compact_summary.is_true(), flag::COMPACT_SUMMARY);
    set(&mut flags, c.tool_result, flag::TOOL_RESULT);
    set(&mut flags, c.tool_use, flag::TOOL_USE);
    set(&mut flags, c.server_tool_use, flag::SERVER_TOOL_USE);
    set(&mut flags, c.is_string, flag::STRING_CONTENT);
    set(&mut flags, c.thinking, flag::THINKING);
    set(&mut flags, c.text, flag::TEXT);
    set(&mut flags, env.is_api_error_message.is_true(), flag::API_ERROR);
    set(
        &mut flags,
        env.message.model.as_str() == Some("<synthetic>"),
        flag::SYNTHETIC,
    );
    flags
}

/// Puts `node` in the transcript and returns its position. A uuid seen before is `Map.set` on
/// an existing key: the content is replaced, the position is kept.
fn place(t: &mut Transcript, node: Node, uuid: &str, line_no: u64) -> u32 {
    let id = node.uuid;
    match t.pos_of[id.index()] {
        NONE => {
            let pos = t.nodes.len() as u32;
            t.pos_of[id.index()] = pos;
            t.nodes.push(node);
            pos
        }
        pos => {
            t.duplicate_uuids += 1;
            let first_line = *t.first_lines.entry(pos).or_insert(t.nodes[pos as usize].line);
            t.diagnostics.push(Diagnostic::new(
                &t.file,
                Some(line_no),
                Code::DuplicateUuid,
                Severity::Warning,
                format!("uuid {uuid} first written at line {first_line}; this later copy's content is used at the first position, as Claude Code does"),
            ));
            t.nodes[pos as usize] = node;
            t.segments.retain(|s| s.pos != pos);
            t.snips.retain(|s| s.0 != pos);
            t.boundaries.retain(|b| b.pos != pos);
            pos
        }
    }
}

/// A compact boundary's preserved segment and what else the loader reads of it.
fn index_boundary(t: &mut Transcript, env: &Envelope<'_>, pos: u32) {
    let meta = env.compact.as_ref();
    let seg = meta.and_then(|m| m.preserved_segment.as_ref());
    if let Some(seg) = seg {
        let mut id_of = |s: &LStr<'_>| s.as_str().map_or(INVALID, |s| t.ids.intern(s));
        let (head, anchor, tail) = (id_of(&seg.head), id_of(&seg.anchor), id_of(&seg.tail));
        t.segments.push(Segment {
            pos,
            head,
            anchor,
            tail,
        });
    }
    let logical_parent = env.logical_parent_uuid.truthy_str().map(|s| t.ids.intern(s));
    t.boundaries.push(BoundaryInfo {
        pos,
        logical_parent,
        trigger: meta.and_then(|m| m.trigger.as_str().map(str::to_string)),
        pre_tokens: meta.and_then(|m| m.pre_tokens.as_i64()),
        has_segment: seg.is_some(),
    });
}
