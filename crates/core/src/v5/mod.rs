//! cctool's own session format, versions 1 to 5: the schema (`schema`: the types, reading
//! any version, the migration steps, writing v5) and the v5 messages every agent's import
//! builds from its own records (`build`), read from the agent's session-model stream
//! (`import`).

pub mod build;
pub mod import;
pub mod schema;
pub mod write;
