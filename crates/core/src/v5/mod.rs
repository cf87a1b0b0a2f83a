//! cctool's own session format, versions 1 to 5: the schema (`schema`: the types, reading
//! any version, the migration steps, writing v5) and the v5 messages every agent's import
//! builds from its own records (`build`).

pub mod build;
pub mod schema;
pub mod write;
