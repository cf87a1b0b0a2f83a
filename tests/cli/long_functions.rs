//! CONTRIBUTING.md says: no source file over 700 lines, and no function over 100 lines without
//! a reason written beside it. This reads the sources of every crate, counts each file's lines
//! that are not tests, and finds the functions whose text, from the `fn` line to its closing
//! brace, is longer than that, and which do not say "Long because" in the lines above the `fn`
//! (the doc comment and attributes) or at the top of the body.
//!
//! The scan works on lines, not on a parse: rustfmt puts a function's closing brace alone on a
//! line at the indentation of its `fn`, which is all the brace matching needs. Tests are left
//! out (files named `tests.rs` or `*_tests.rs`, `tests/` folders, `#[cfg(test)]` items and the
//! files of `#[cfg(test)] mod name;`), since a test's length is the length of what it checks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::util::root;

/// The longest a function may be without a reason beside it, in lines.
const LIMIT: usize = 100;
/// The words that give the reason.
const REASON: &str = "Long because";
/// How many lines above the `fn` line the reason may be (doc comment, attributes).
const ABOVE: usize = 8;
/// How many lines of the body, after its opening line, the reason may be in.
const BODY: usize = 5;

/// A function over the limit without a reason: the line of its `fn` (1-based), its name and
/// its length in lines.
#[derive(Debug, PartialEq, Eq)]
struct Long {
    line: usize,
    name: String,
    lines: usize,
}

fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// The name of the function a line declares, if it declares one.
fn fn_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    loop {
        let before = rest;
        if let Some(r) = rest.strip_prefix("pub(") {
            rest = r.split_once(')')?.1.trim_start();
        }
        for word in ["pub ", "const ", "async ", "unsafe ", "default ", "extern \"C\" "] {
            if let Some(r) = rest.strip_prefix(word) {
                rest = r.trim_start();
            }
        }
        if rest == before {
            break;
        }
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The line where the item starting at `start` ends: its closing brace at the item's
/// indentation (`};` for a `use` or a `static` in braces), or the line ending its declaration
/// with `;` when it has no body. `None` when the item is one line.
fn item_end(lines: &[&str], start: usize) -> Option<usize> {
    let ind = indent(lines[start]);
    let close = format!("{ind}}}");
    let mut opened = false;
    for (i, line) in lines.iter().enumerate().skip(start) {
        let code = line.trim_end();
        if !opened {
            if code.ends_with(';') {
                return None;
            }
            if code.ends_with('{') {
                opened = true;
            } else if i == start && code.ends_with('}') {
                return None;
            }
            continue;
        }
        if code == close || code.strip_suffix(';') == Some(close.as_str()) {
            return Some(i);
        }
    }
    None
}

/// The lines of `text` that are tests: each `#[cfg(test)]` item, from its attribute to its end.
/// Also the names of the modules declared `#[cfg(test)] mod name;`, whose files are tests.
fn test_lines(lines: &[&str]) -> (Vec<bool>, Vec<String>) {
    let mut test = vec![false; lines.len()];
    let mut modules = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "#[cfg(test)]" {
            i += 1;
            continue;
        }
        let mut item = i + 1;
        while item < lines.len() && lines[item].trim_start().starts_with("#[") {
            item += 1;
        }
        let Some(decl) = lines.get(item) else { break };
        let code = decl.trim();
        let end = if code.ends_with(';') {
            let name = code.trim_end_matches(';').rsplit(' ').next().unwrap_or("");
            if code.contains("mod ") {
                modules.push(name.to_string());
            }
            item
        } else {
            item_end(lines, item).unwrap_or(item)
        };
        for t in &mut test[i..=end] {
            *t = true;
        }
        i = end + 1;
    }
    (test, modules)
}

/// The functions of `text` over the limit that give no reason.
fn long_functions(text: &str) -> Vec<Long> {
    let lines: Vec<&str> = text.lines().collect();
    let (test, _) = test_lines(&lines);
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if test[i] {
            continue;
        }
        let Some(name) = fn_name(line) else { continue };
        let Some(end) = item_end(&lines, i) else {
            continue;
        };
        let length = end - i + 1;
        if length <= LIMIT {
            continue;
        }
        let open = (i..end).find(|&j| lines[j].trim_end().ends_with('{')).unwrap_or(i);
        let said = lines[i.saturating_sub(ABOVE)..=(open + BODY).min(end)]
            .iter()
            .any(|l| l.contains(REASON));
        if !said {
            long.push(Long {
                line: i + 1,
                name: name.to_string(),
                lines: length,
            });
        }
    }
    long
}

/// The folder that the modules a file declares live in.
fn module_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new(""));
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("mod" | "lib" | "main") | None => parent.to_path_buf(),
        Some(stem) => parent.join(stem),
    }
}

/// Whether a file is a test by its name or folder.
fn is_test_file(rel: &Path) -> bool {
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || name.ends_with("_tests.rs") || rel.components().any(|c| c.as_os_str() == "tests")
}

#[test]
fn the_scanner_finds_a_long_function_and_reads_its_reason() {
    let body = "    x += 1;\n".repeat(LIMIT);
    let long = format!("fn long(x: &mut u32) {{\n{body}}}\n");
    let found = long_functions(&long);
    assert_eq!(
        found,
        vec![Long {
            line: 1,
            name: "long".into(),
            lines: LIMIT + 2
        }]
    );

    let short = format!("fn short() {{\n{}}}\n", "    x += 1;\n".repeat(LIMIT - 2));
    assert_eq!(long_functions(&short), vec![]);

    let reasoned = format!("/// Long because it is one match.\n#[inline]\n{long}");
    assert_eq!(long_functions(&reasoned), vec![]);
    let inside = format!(
        "impl X {{\n    pub(crate) async fn long(\n        x: u32,\n    ) -> u32 {{\n        // Long because of the list.\n{body}    }}\n}}\n"
    );
    assert_eq!(long_functions(&inside), vec![]);
    let nested = inside.replace("// Long because of the list.", "let y = 1;");
    assert_eq!(
        long_functions(&nested),
        vec![Long {
            line: 2,
            name: "long".into(),
            lines: LIMIT + 5
        }]
    );

    let tested = format!(
        "#[cfg(test)]\nmod tests {{\n    {}\n}}\n",
        long.trim_end().replace('\n', "\n    ")
    );
    assert_eq!(long_functions(&tested), vec![]);
    let used = format!("#[cfg(test)]\nuse std::{{\n    io,\n}};\n{long}");
    assert_eq!(
        long_functions(&used).len(),
        1,
        "a test-only `use` hides nothing after it"
    );
    let declared = "trait T {\n    fn f(&self) -> u32;\n    fn g(&self) {}\n}\n";
    assert_eq!(long_functions(declared), vec![]);
    let (_, modules) = test_lines(&["#[cfg(test)]", "pub(crate) mod fixtures;"]);
    assert_eq!(modules, vec!["fixtures".to_string()]);
}

/// Every source file of the workspace's crates that is not a test: its path relative to the
/// root, and its text.
fn sources() -> Vec<(PathBuf, String)> {
    let root = root();
    let mut files: Vec<PathBuf> = vec![root.join("src")];
    for e in std::fs::read_dir(root.join("crates")).unwrap() {
        files.push(e.unwrap().path().join("src"));
    }
    files.sort();
    let mut sources = Vec::new();
    for dir in files {
        for e in walkdir::WalkDir::new(dir)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
        {
            let path = e.path();
            if path.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(path).unwrap();
                sources.push((path.to_path_buf(), text));
            }
        }
    }
    let mut test_only: BTreeSet<PathBuf> = BTreeSet::new();
    for (path, text) in &sources {
        let (_, modules) = test_lines(&text.lines().collect::<Vec<_>>());
        let dir = module_dir(path);
        for m in modules {
            test_only.insert(dir.join(format!("{m}.rs")));
            test_only.insert(dir.join(m));
        }
    }
    let sources: Vec<(PathBuf, String)> = sources
        .into_iter()
        .filter(|(path, _)| !test_only.iter().any(|t| path.starts_with(t)))
        .map(|(path, text)| (path.strip_prefix(&root).unwrap_or(&path).to_path_buf(), text))
        .filter(|(rel, _)| !is_test_file(rel))
        .collect();
    assert!(
        sources.len() > 100,
        "only {} source files found under {}",
        sources.len(),
        root.display()
    );
    sources
}

#[test]
fn no_function_is_over_100_lines_without_a_reason() {
    let mut wrong = Vec::new();
    for (rel, text) in &sources() {
        for f in long_functions(text) {
            wrong.push(format!("{}:{}: {} ({} lines)", rel.display(), f.line, f.name, f.lines));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} functions are over {LIMIT} lines with no \"{REASON}\" beside them (above the fn or at \
         the top of its body): split them, or say why their length is their shape:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The longest a source file may be, its tests aside, in lines.
const FILE_LIMIT: usize = 700;

/// The lines of `text` that are not tests.
fn code_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    test_lines(&lines).0.iter().filter(|t| !**t).count()
}

#[test]
fn the_file_measure_leaves_the_tests_out() {
    let code = "fn a() {}\n".repeat(3);
    let tests = "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
    assert_eq!(code_lines(&format!("{code}{tests}")), 3);
    assert_eq!(code_lines(&format!("{tests}{code}")), 3);
}

#[test]
fn no_source_file_is_over_700_lines() {
    let wrong: Vec<String> = sources()
        .iter()
        .map(|(rel, text)| (rel, code_lines(text)))
        .filter(|(_, n)| *n > FILE_LIMIT)
        .map(|(rel, n)| format!("{}: {n} lines", rel.display()))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} source files are over {FILE_LIMIT} lines, their tests aside: split them by what they do:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
