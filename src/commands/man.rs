//! Man pages generated from the clap definitions (`cctool generate-man DIR`, hidden).
//! The committed pages in `man/` are checked against this output by a test, so they can
//! never drift from `--help`.
//!
//! clap_mangen prints a command's extra help (`after_long_help`: codes, JSON records, exit
//! status, examples) as one filled paragraph, which joins its lists into a run of text. It
//! is rendered here instead, section by section (see [`extra_sections`]).

use std::path::Path;

use crate::ExitStatus;

/// Every page: file name and content.
pub fn pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let cmd = crate::cli::command();
    let mut out = vec![("cctool.1".to_string(), page(cmd.clone())?)];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("cctool-{}", sub.get_name());
        let sub = sub
            .clone()
            .name(name.clone())
            .version(cmd.get_version().unwrap_or_default().to_string());
        out.push((format!("{name}.1"), page(sub)?));
    }
    Ok(out)
}

fn page(cmd: clap::Command) -> std::io::Result<Vec<u8>> {
    let extra = cmd
        .get_after_long_help()
        .or_else(|| cmd.get_after_help())
        .map(ToString::to_string);
    let bare = cmd.after_help(None::<&str>).after_long_help(None::<&str>);
    let mut buf = Vec::new();
    clap_mangen::Man::new(bare).render(&mut buf)?;
    let Some(extra) = extra else { return Ok(buf) };
    let mut text = String::from_utf8(buf).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    let at = text.find("\n.SH VERSION").map_or(text.len(), |i| i + 1);
    text.insert_str(at, &extra_sections(&extra));
    Ok(text.into_bytes())
}

/// Roff for extra help text written as `HEADING` lines followed by their body:
/// - a line indented by two spaces followed by lines indented by six is a term and its
///   description (`.TP`), as in the `CODES` list;
/// - other lines indented by two keep their line breaks and their indentation when roff
///   wraps them (commands, records);
/// - unindented lines are filled as a paragraph; a blank line ends one.
pub fn extra_sections(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut in_block = false;
    let mut i = 0;
    let end_block = |out: &mut String, in_block: &mut bool| {
        if *in_block {
            out.push_str(".RE\n");
            *in_block = false;
        }
    };
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let next_indent = lines.get(i + 1).map(|l| {
            if l.trim().is_empty() {
                0
            } else {
                l.len() - l.trim_start().len()
            }
        });
        if line.trim().is_empty() {
            end_block(&mut out, &mut in_block);
            out.push_str(".PP\n");
        } else if indent == 0 && is_heading(line) {
            end_block(&mut out, &mut in_block);
            out.push_str(&format!(".SH \"{}\"\n", escape(line.trim())));
        } else if indent == 2 && next_indent == Some(6) {
            end_block(&mut out, &mut in_block);
            let term = line.trim();
            let (name, rest) = term.split_once(' ').unwrap_or((term, ""));
            out.push_str(&format!(".TP\n\\fB{}\\fR {}\n", escape(name), escape(rest)));
            i += 1;
            let mut desc = Vec::new();
            while let Some(d) = lines.get(i).filter(|l| l.starts_with("      ")) {
                desc.push(d.trim());
                i += 1;
            }
            out.push_str(&format!("{}\n", escape_line(&desc.join(" "))));
            continue;
        } else if indent >= 2 {
            if !in_block {
                out.push_str(".RS 2\n");
                in_block = true;
            }
            out.push_str(&format!("{}\n.br\n", escape_line(line.trim())));
        } else {
            end_block(&mut out, &mut in_block);
            out.push_str(&format!("{}\n", escape_line(line)));
        }
        i += 1;
    }
    end_block(&mut out, &mut in_block);
    out
}

/// `CODES (severity)`, `JSON RECORDS`, `EXIT STATUS`: capitals, digits and punctuation.
fn is_heading(line: &str) -> bool {
    let head = line.split(" (").next().unwrap_or(line);
    head.chars().any(|c| c.is_ascii_uppercase()) && head.chars().all(|c| c.is_ascii_uppercase() || c == ' ' || c == '-')
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\e").replace('-', "\\-").replace('\'', "\\*(Aq")
}

/// [`escape`], and a line that would start with a control character made plain text.
fn escape_line(s: &str) -> String {
    let e = escape(s);
    if e.starts_with('.') || e.starts_with("\\*(Aq") {
        format!("\\&{e}")
    } else {
        e
    }
}

pub fn run(dir: &Path) -> super::Result<ExitStatus> {
    std::fs::create_dir_all(dir)?;
    for (name, content) in pages()? {
        std::fs::write(dir.join(&name), content)?;
    }
    Ok(ExitStatus::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_blocks_keep_their_shape() {
        let roff = extra_sections(
            "CODES (severity)\n  dangling-parent (error|info)\n      a parent\n      that names nothing\n\nEXAMPLES\n  cctool doctor --json | jq -r '.code'\n  .hidden\n",
        );
        assert_eq!(
            roff,
            ".SH \"CODES (severity)\"\n.TP\n\\fBdangling\\-parent\\fR (error|info)\na parent that names nothing\n.PP\n\
             .SH \"EXAMPLES\"\n.RS 2\ncctool doctor \\-\\-json | jq \\-r \\*(Aq.code\\*(Aq\n.br\n\\&.hidden\n.br\n.RE\n"
        );
    }
}
