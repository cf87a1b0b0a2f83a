//! The MCP server: rmcp's stdio transport and a handler that answers `tools/list` and
//! `tools/call` from the [`Catalog`]. Every answer is one text block holding a JSON object;
//! a tool that cannot answer (a session id that names no session, a bad pattern) says why in
//! an error result the model reads, as MCP asks.

use std::sync::{Arc, Mutex};

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::answer::{self, Scrub};
use crate::catalog::{Catalog, Filter, Search, ToolError};
use crate::tools::{self, HITS, ListArgs, PAGE, ReadArgs, SESSIONS, SearchArgs, SummaryArgs};
use cctool_features::search::{Case, Options, Query, Role, Scope};

/// The last conversation read, redacted: the pages of one session are read one call after
/// another, and rendering it again for each would cost the whole session each time.
struct Kept {
    session: String,
    about: Value,
    markdown: Arc<String>,
}

/// The handler: the catalog, the redactor, and the conversation last read.
pub(crate) struct Handler {
    catalog: Box<dyn Catalog>,
    scrub: Scrub,
    kept: Mutex<Option<Kept>>,
    version: String,
}

impl Handler {
    pub(crate) fn new(catalog: Box<dyn Catalog>, scrub: Scrub, version: &str) -> Handler {
        Handler {
            catalog,
            scrub,
            kept: Mutex::new(None),
            version: version.to_string(),
        }
    }

    /// Answers one `tools/call`: `None` when no tool has that name.
    pub(crate) fn call(&self, name: &str, args: Value) -> Option<Result<Value, ToolError>> {
        Some(match name {
            "list_sessions" => parse(args).and_then(|a| self.list(a)),
            "search" => parse(args).and_then(|a| self.search(a)),
            "read_session" => parse(args).and_then(|a| self.read(a)),
            "get_summaries" => parse(args).and_then(|a| self.summaries(a)),
            _ => return None,
        })
    }

    fn list(&self, a: ListArgs) -> Result<Value, ToolError> {
        let filter = Filter {
            agent: a.agent,
            project: a.project,
            since: a.since,
            until: a.until,
        };
        let mut sessions = self.catalog.sessions(&filter)?;
        sessions.sort_by(|a, b| b.last_ms.cmp(&a.last_ms).then(a.path.cmp(&b.path)));
        let limit = tools::bounded(a.limit, SESSIONS);
        let mut v = json!({
            "sessions": sessions.iter().take(limit).map(answer::session).collect::<Vec<_>>(),
            "total": sessions.len(),
            "truncated": sessions.len() > limit,
        });
        self.scrub.value(&mut v);
        Ok(v)
    }

    fn search(&self, a: SearchArgs) -> Result<Value, ToolError> {
        let search = Search {
            query: Query {
                patterns: std::iter::once(a.pattern).chain(a.and).collect(),
                regex: a.regex,
                case: match a.case.as_deref() {
                    None | Some("smart") => Case::Smart,
                    Some("sensitive") => Case::Sensitive,
                    Some("insensitive") => Case::Insensitive,
                    Some(other) => return Err(bad("case", other, "smart, sensitive or insensitive")),
                },
                word: a.word,
            },
            options: Options {
                scope: match a.scope.as_deref() {
                    None | Some("full") => Scope::Full,
                    Some("effective") => Scope::Effective,
                    Some(other) => return Err(bad("scope", other, "full or effective")),
                },
                thinking: a.thinking,
                tools: a.tools,
                roles: a.role.iter().map(|r| role(r)).collect::<Result<_, _>>()?,
                prefilter: true,
                ..Options::default()
            },
            filter: Filter {
                agent: a.agent,
                project: a.project,
                since: a.since,
                until: a.until,
            },
            session: a.session,
        };
        if search.query.patterns.iter().any(String::is_empty) {
            return Err(ToolError("a pattern is empty: give the text to look for".into()));
        }
        let matched = self.catalog.search(&search)?;
        let limit = tools::bounded(a.limit, HITS);
        let all: Vec<Value> = matched
            .iter()
            .flat_map(|m| m.found.hits.iter().map(|h| answer::hit(&m.session, h)))
            .collect();
        let total = all.len();
        let mut v = json!({
            "hits": all.into_iter().take(limit).collect::<Vec<_>>(),
            "sessions": matched.len(),
            "total": total,
            "truncated": total > limit,
        });
        self.scrub.value(&mut v);
        Ok(v)
    }

    fn read(&self, a: ReadArgs) -> Result<Value, ToolError> {
        let max = tools::bounded(a.max_bytes, PAGE);
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        // The first page reads the session again: it may have grown since.
        if a.offset == 0 || kept.as_ref().is_none_or(|k| k.session != a.session) {
            let c = self.catalog.conversation(&a.session)?;
            let mut about =
                json!({"session_id": c.session.session_id, "agent": c.session.format, "file": c.session.path});
            self.scrub.value(&mut about);
            *kept = Some(Kept {
                session: a.session.clone(),
                about,
                markdown: Arc::new(self.scrub.text(c.markdown)),
            });
        }
        let k = kept.as_ref().ok_or_else(|| ToolError("no conversation read".into()))?;
        let p = crate::page::page(&k.markdown, a.offset, max)?;
        let mut v = k.about.clone();
        if let Value::Object(m) = &mut v {
            m.insert("offset".into(), a.offset.into());
            m.insert("next_offset".into(), p.next.into());
            m.insert("total_bytes".into(), k.markdown.len().into());
            m.insert("markdown".into(), p.text.into());
        }
        Ok(v)
    }

    fn summaries(&self, a: SummaryArgs) -> Result<Value, ToolError> {
        let (session, records) = self.catalog.summaries(&a.session)?;
        let mut v = json!({
            "session_id": session.session_id,
            "agent": session.format,
            "file": session.path,
            "summaries": records.iter().map(answer::summary).collect::<Vec<_>>(),
        });
        self.scrub.value(&mut v);
        Ok(v)
    }
}

fn parse<T: DeserializeOwned>(args: Value) -> Result<T, ToolError> {
    serde_json::from_value(args).map_err(|e| ToolError(format!("bad arguments: {e}")))
}

fn bad(name: &str, value: &str, want: &str) -> ToolError {
    ToolError(format!("{name} {value:?}: give {want}"))
}

fn role(r: &str) -> Result<Role, ToolError> {
    Ok(match r {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        "summary" => Role::Summary,
        other => return Err(bad("role", other, "user, assistant, tool or summary")),
    })
}

/// What rmcp serves: the handler behind an `Arc`, as the transport's tasks share it.
#[derive(Clone)]
pub(crate) struct Server(pub(crate) Arc<Handler>);

fn tool_list() -> Vec<Tool> {
    tools::specs()
        .into_iter()
        .map(|s| {
            let schema = match s.schema {
                Value::Object(m) => m,
                _ => Default::default(),
            };
            let mut t = Tool::new(s.name, s.description, schema);
            t.annotations = Some(
                ToolAnnotations::new()
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true),
            );
            t
        })
        .collect()
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("cctool", self.0.version.clone()))
            .with_instructions(format!(
                "Read-only access to the user's past coding-agent sessions ({}): list_sessions, \
                 search (what was said, in which session), read_session (a conversation as Markdown, paged), \
                 get_summaries (compaction summaries). Secrets in the answers are replaced by placeholders.",
                tools::agents()
            ))
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, rmcp::ErrorData>> + Send + '_ {
        std::future::ready(Ok(ListToolsResult::with_all_items(tool_list())))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tool_list().into_iter().find(|t| t.name == name)
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, rmcp::ErrorData>> + Send + '_ {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let answer = match self.0.call(&request.name, args) {
            None => Err(rmcp::ErrorData::invalid_params(
                format!("no tool named {:?}", request.name),
                None,
            )),
            Some(Ok(v)) => Ok(CallToolResult::success(vec![ContentBlock::text(v.to_string())]).into()),
            // An error names what it could not read: a path of the user's, as any answer.
            Some(Err(e)) => Ok(CallToolResult::error(vec![ContentBlock::text(self.0.scrub.text(e.0))]).into()),
        };
        std::future::ready(answer)
    }
}
