//! `cctool mcp`: a read-only [Model Context Protocol](https://modelcontextprotocol.io) server
//! over stdio, so that an agent can consult the user's past sessions: `list_sessions`,
//! `search`, `read_session` (the effective conversation as Markdown, a page at a time) and
//! `get_summaries`.
//!
//! The protocol is the official Rust SDK's (`rmcp`), which runs on tokio; this crate is the
//! only one that links either, so every other command stays a plain synchronous program. The
//! answers come from a [`Catalog`] the CLI implements with what its commands share (the
//! stores, session ids, files read in parallel), and pass through the export's redactor
//! before they leave. Nothing here writes a file.

#![deny(missing_docs)]

mod answer;
pub mod catalog;
mod page;
mod server;
mod tools;

use std::sync::Arc;

pub use catalog::{Catalog, Conversation, Filter, Matched, Search, ToolError};
use cctool_features::redact::Redactor;

/// Why the server stopped other than by its client closing the connection.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The runtime could not be started.
    #[error("cannot start the MCP server: {0}")]
    Runtime(std::io::Error),
    /// The connection failed before the client had initialised it.
    #[error("the MCP client did not initialise the connection: {0}")]
    Initialize(String),
    /// The connection ended with an error.
    #[error("the MCP connection failed: {0}")]
    Connection(String),
}

/// Serves `catalog` over stdin and stdout until the client closes the connection.
/// `redactor`: what replaces secrets in every answer (`None`: nothing is replaced).
/// `version`: cctool's, as the server names itself.
pub fn serve(catalog: Box<dyn Catalog>, redactor: Option<Redactor>, version: &str) -> Result<(), Error> {
    use rmcp::ServiceExt;
    let handler = server::Server(Arc::new(server::Handler::new(
        catalog,
        answer::Scrub(redactor),
        version,
    )));
    // One thread: the catalog's reads run in parallel on rayon's threads, and a client
    // waits for each answer anyway.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    rt.block_on(async {
        let running = handler
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Initialize(e.to_string()))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| Error::Connection(e.to_string()))
    })
}
