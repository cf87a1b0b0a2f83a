//! `cctool rebuild-chain FILE`: the exact conversation an agent loads on resume.

use super::Error;
use super::error::Usage;
use crate::ExitStatus;
use crate::agents::view::Report;
use crate::cli::{ChainFormat, GlobalArgs, RebuildChainArgs};
use crate::output::Out;
use crate::output::progress::file_bar;
use crate::output::render::{Render, Style};

fn style(f: ChainFormat, paint: crate::output::style::Paint, full: bool) -> Option<Render> {
    match f {
        ChainFormat::Jsonl => None,
        ChainFormat::Text => Some(Render::new(Style::Text, paint, full)),
        ChainFormat::Markdown => Some(Render::new(Style::Markdown, paint, full)),
    }
}

pub fn run(g: &GlobalArgs, a: &RebuildChainArgs) -> super::Result<ExitStatus> {
    let input = super::file_input(&a.file).map_err(|e| match e {
        Error::Id(_) => e.about(a.file.display().to_string()),
        e => e,
    })?;
    let name = input.display_name();
    let (src, format) = super::open_session(&input, g).map_err(|e| e.about(name.clone()))?;
    if a.resume.any() && !a.api_view {
        return Err(Usage::ResumeWithoutApiView.into());
    }
    let opts = a.options();
    if let Some(why) = crate::agents::agent(format).refuse_chain_args(&opts) {
        return Err(Usage::ChainArgs { file: name, why }.into());
    }
    let mut out = Out::new(g.color);
    let st = style(a.format, out.paint(), a.full_output);
    let bar = file_bar(src.name(), src.len(), g.quiet);
    let (diags, summary) = crate::agents::agent(format)
        .rebuild_chain(&src, &opts, st, &mut out, &bar)
        .map_err(|e| match e {
            // What failed as the system says it (standard output closed, …) ends the run as
            // such an error of the command's own does.
            crate::error::Error::Io(e) => Error::Io(e),
            e => e.into(),
        })?;
    src.check().map_err(|e| crate::error::Error::Read(e).about(name))?;
    if g.json {
        for d in &diags {
            out.json(&super::record::Record::diagnostic(d))?;
        }
        match &summary {
            Report::Chain(c) => out.json(&super::record::Record::Chain(c))?,
            Report::ApiView(v) => out.json(&super::record::Record::ApiView(v))?,
        }
    }
    out.flush()?;
    let refused = matches!(&summary, Report::ApiView(v) if v.refused.is_some());
    let mut say = g.reporter();
    if a.loader.is_some() && !crate::agents::agent(format).about().loaders {
        say.note(crate::agents::LOADER_IGNORED);
    }
    if !g.json {
        say.diagnostics(&diags, 20);
        say.note(&summary.describe());
    }
    if refused {
        say.merge(ExitStatus::Negative);
    }
    Ok(say.status())
}
