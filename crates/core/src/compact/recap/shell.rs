//! Just enough of POSIX shell words to tell which files a command read, and to show a command
//! as one line.

use super::*;

/// A command as the agent gave it: one shell string, or an argument vector run without a shell.
pub(super) enum Command {
    Script(String),
    Argv(Vec<String>),
}

impl Command {
    /// The command a vocabulary read, a `bash -lc SCRIPT` vector as its script; `None` for
    /// no words at all.
    pub(super) fn of(c: crate::convert::tools::Command) -> Option<Command> {
        use crate::convert::tools::Command as Neutral;
        Some(match c {
            Neutral::Line(s) => Command::Script(s),
            Neutral::Argv(argv) if argv.is_empty() => return None,
            Neutral::Argv(argv) => match unwrap_shell(&argv) {
                Some(script) => Command::Script(script.to_string()),
                None => Command::Argv(argv),
            },
        })
    }
}

/// The script of `bash -lc SCRIPT` (or `sh -c`, `zsh -lc`, …), the way Codex wraps commands.
pub(super) fn unwrap_shell(argv: &[String]) -> Option<&str> {
    let [prog, flags, script] = argv else { return None };
    let base = prog.rsplit('/').next().unwrap_or(prog);
    let is_shell = matches!(base, "bash" | "sh" | "zsh" | "dash");
    (is_shell && flags.starts_with('-') && flags.ends_with('c')).then_some(script.as_str())
}

impl Command {
    /// What the recap quotes: the command as given, its first line only when it has several.
    pub(super) fn display(&self) -> String {
        let full = match self {
            Command::Script(s) => s.trim().to_string(),
            Command::Argv(a) => a.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" "),
        };
        let mut lines = full.lines();
        let first = lines.next().unwrap_or_default().trim_end();
        let more = lines.next().is_some();
        let shown = cap(first, COMMAND_CAP);
        if more && !shown.ends_with('…') {
            format!("{shown} …")
        } else {
            shown
        }
    }

    /// Files the command reads, when that is unambiguous.
    pub(super) fn reads(&self) -> Vec<String> {
        let words = match self {
            Command::Script(s) => simple_command(s, 0),
            Command::Argv(a) => match unwrap_shell(a) {
                Some(s) => simple_command(s, 0),
                None => Some(
                    a.iter()
                        .map(|w| Word {
                            text: w.clone(),
                            literal: true,
                        })
                        .collect(),
                ),
            },
        };
        words.map(|w| read_operands(&w)).unwrap_or_default()
    }
}

pub(super) fn shell_quote(w: &str) -> String {
    let plain = !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || "-_./=:,+@%^".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// A word of a shell command; `literal` is false when the shell would expand it (globs, `~`).
pub(super) struct Word {
    text: String,
    literal: bool,
}

/// The words of a single simple command, `None` for anything else (pipes, lists, redirections,
/// substitutions, variables, several lines): only then is what it reads certain.
pub(super) fn simple_command(script: &str, depth: usize) -> Option<Vec<Word>> {
    let words = split_words(script)?;
    let argv: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
    if depth < 3
        && let Some(inner) = unwrap_shell(&argv)
        && words.iter().all(|w| w.literal)
    {
        return simple_command(inner, depth + 1);
    }
    Some(words)
}

pub(super) fn split_words(s: &str) -> Option<Vec<Word>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut literal = true;
    let mut chars = s.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        x => cur.push(x),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' => return None,
                        '\\' => {
                            let x = chars.next()?;
                            if !matches!(x, '"' | '\\' | '$' | '`') {
                                cur.push('\\');
                            }
                            cur.push(x);
                        }
                        x => cur.push(x),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next()? {
                    '\n' => {}
                    x => cur.push(x),
                }
            }
            '|' | ';' | '&' | '<' | '>' | '`' | '$' | '(' | ')' | '\n' | '\r' => return None,
            // A comment ends the command; what follows is not an operand.
            '#' if !in_word => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(Word {
                        text: std::mem::take(&mut cur),
                        literal,
                    });
                    in_word = false;
                    literal = true;
                }
            }
            c => {
                if matches!(c, '*' | '?' | '[' | '{') || (c == '~' && !in_word) {
                    literal = false;
                }
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(Word { text: cur, literal });
    }
    Some(words)
}

/// The file operands of a reading program: `cat`, `sed -n`, `head`, `tail`, `nl`, `less`, and
/// the files after the pattern of `rg` / `grep`.
pub(super) fn read_operands(words: &[Word]) -> Vec<String> {
    let Some((prog, rest)) = words.split_first() else {
        return Vec::new();
    };
    if !prog.literal {
        return Vec::new();
    }
    let base = prog.text.rsplit('/').next().unwrap_or(&prog.text);
    let Some((valued, long_valued, pattern_first)) = options(base, rest) else {
        return Vec::new();
    };
    let mut operands: Vec<&Word> = Vec::new();
    let mut pattern_given = false;
    let mut i = 0;
    let mut options_done = false;
    while i < rest.len() {
        let w = &rest[i];
        let t = w.text.as_str();
        i += 1;
        if options_done || !t.starts_with('-') || t == "-" {
            operands.push(w);
        } else if t == "--" {
            options_done = true;
        } else if let Some(long) = t.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            let takes = long_valued.iter().any(|l| l.trim_start_matches('-') == name);
            if takes && !long.contains('=') {
                i += 1;
            }
            if matches!(name, "regexp" | "file" | "expression") {
                pattern_given = true;
            }
        } else {
            // A cluster of short options; the first valued one takes the rest of the word or
            // the next word.
            for (j, c) in t.char_indices().skip(1) {
                if valued.contains(c) {
                    if matches!(c, 'e' | 'f') {
                        pattern_given = true;
                    }
                    if j + c.len_utf8() == t.len() {
                        i += 1;
                    }
                    break;
                }
            }
        }
    }
    let files = if pattern_first && !pattern_given {
        operands.get(1..).unwrap_or_default()
    } else {
        &operands[..]
    };
    files
        .iter()
        .filter(|w| w.literal && w.text != "-" && !w.text.is_empty())
        .map(|w| w.text.clone())
        .collect()
}

/// The options of a reading program that take the next word as their value (short ones as
/// letters, long ones by name), and whether a pattern comes before its files; `None` for a
/// program that is not one, or `sed` that does not only print.
fn options(base: &str, rest: &[Word]) -> Option<(&'static str, &'static [&'static str], bool)> {
    match base {
        "cat" | "less" => Some(("", &[], false)),
        "head" | "tail" => Some(("nc", &["--lines", "--bytes"], false)),
        "nl" => Some(("bdfhilnsvw", &[], false)),
        "sed" => {
            let quiet = rest
                .iter()
                .any(|w| w.text == "-n" || w.text == "--quiet" || w.text == "--silent");
            let edits = rest
                .iter()
                .any(|w| w.text.starts_with("-i") || w.text.starts_with("--in-place"));
            if !quiet || edits {
                return None;
            }
            Some(("ef", &["--expression", "--file"], true))
        }
        "rg" => Some((
            "efgtTABCmjMrE",
            &[
                "--regexp",
                "--file",
                "--glob",
                "--iglob",
                "--type",
                "--type-not",
                "--after-context",
                "--before-context",
                "--context",
                "--max-count",
                "--threads",
                "--max-columns",
                "--replace",
                "--encoding",
                "--max-depth",
                "--type-add",
            ],
            true,
        )),
        "grep" => Some((
            "efABCmd",
            &[
                "--regexp",
                "--file",
                "--after-context",
                "--before-context",
                "--context",
                "--max-count",
                "--include",
                "--exclude",
                "--exclude-dir",
            ],
            true,
        )),
        _ => None,
    }
}
