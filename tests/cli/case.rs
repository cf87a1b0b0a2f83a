//! `Case`: one run of the binary, described declaratively and shown whole (command, exit status,
//! stdout, stderr, and any files it wrote that the case names) for a snapshot.
//!
//! ```ignore
//! let run = Case::new("scan").fixture("claude/render.jsonl").args(["--json", "claude/render.jsonl"]).run();
//! insta::assert_snapshot!(run.shown());
//! ```
//!
//! Each case gets a scratch folder that is both its working folder (unless [`Case::cwd`]) and,
//! under `home/`, its `HOME`; fixtures named with [`Case::fixture`] are copied there (aged, so they do not look
//! live) at the same relative path, so outputs name them as `claude/render.jsonl`. Only what
//! must be is normalised: the scratch folder's path (`[SCRATCH]`), the checkout's (`[ROOT]`), the
//! binary's path and version (`[CCTOOL]`, `[VERSION]`), a UTC time of the run itself (`[NOW]`: a
//! record written "now"), and whatever a case adds with [`Case::filter`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::util::{age, copy_tree, fixture, root};

/// A command line to run in a scratch folder, with its environment, stdin and what to show.
pub struct Case {
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    env_paths: Vec<(OsString, String)>,
    cwd: String,
    stdin: Option<Vec<u8>>,
    fixtures: Vec<(String, String)>,
    files: Vec<(String, Vec<u8>, bool)>,
    show: Vec<String>,
    list: Vec<String>,
    filters: Vec<(regex::Regex, String)>,
}

impl Case {
    /// A run of `cctool <command>`; an empty `command` runs the bare binary.
    pub fn new(command: &str) -> Case {
        Case {
            args: command.split_whitespace().map(OsString::from).collect(),
            env: Vec::new(),
            env_paths: Vec::new(),
            cwd: String::new(),
            stdin: None,
            fixtures: Vec::new(),
            files: Vec::new(),
            show: Vec::new(),
            list: Vec::new(),
            filters: Vec::new(),
        }
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Case
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable (after the isolating defaults, so it can override them).
    pub fn env(mut self, key: &str, value: impl Into<OsString>) -> Case {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets an environment variable to the path of `rel` in the scratch folder.
    pub fn env_path(mut self, key: &str, rel: &str) -> Case {
        self.env_paths.push((key.into(), rel.to_string()));
        self
    }

    /// Runs the command in `rel` of the scratch folder (created) instead of the folder itself.
    pub fn cwd(mut self, rel: &str) -> Case {
        self.cwd = rel.to_string();
        self
    }

    /// What the command reads on stdin (nothing, by default).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Case {
        self.stdin = Some(bytes.into());
        self
    }

    /// Copies `fixtures/<rel>` (a file or a folder) to the same relative path in the scratch folder.
    pub fn fixture(self, rel: &str) -> Case {
        self.fixture_at(rel, rel)
    }

    /// Copies `fixtures/<rel>` to `dest` in the scratch folder (`home/…` is in `HOME`).
    pub fn fixture_at(mut self, rel: &str, dest: &str) -> Case {
        self.fixtures.push((rel.to_string(), dest.to_string()));
        self
    }

    /// Writes `bytes` at `rel` in the scratch folder (aged) before the run; `home/…` is in `HOME`.
    pub fn file(mut self, rel: &str, bytes: impl Into<Vec<u8>>) -> Case {
        self.files.push((rel.to_string(), bytes.into(), true));
        self
    }

    /// Writes `bytes` at `rel` as [`Case::file`] does, but just modified: a file that looks live.
    pub fn fresh_file(mut self, rel: &str, bytes: impl Into<Vec<u8>>) -> Case {
        self.files.push((rel.to_string(), bytes.into(), false));
        self
    }

    /// Shows the file at `rel` (relative to the scratch folder) after the run, or that it is absent.
    pub fn show(mut self, rel: &str) -> Case {
        self.show.push(rel.to_string());
        self
    }

    /// Lists the files under the folder `rel` after the run, one relative path a line (for
    /// outputs whose names are the point, or whose content is not text).
    pub fn list(mut self, rel: &str) -> Case {
        self.list.push(rel.to_string());
        self
    }

    /// Replaces every match of `pattern` in what is shown by `replacement` (for what differs
    /// from run to run: a time the command reads from the clock).
    pub fn filter(mut self, pattern: &str, replacement: &str) -> Case {
        let re = regex::Regex::new(pattern).unwrap_or_else(|e| panic!("filter {pattern}: {e}"));
        self.filters.push((re, replacement.to_string()));
        self
    }

    /// Runs the command in a fresh scratch folder.
    pub fn run(self) -> Run {
        self.run_in(tempfile::tempdir().expect("scratch folder"))
    }

    fn run_in(self, scratch: tempfile::TempDir) -> Run {
        let dir = scratch.path();
        std::fs::create_dir_all(dir.join("home")).expect("scratch HOME");
        for (rel, dest) in &self.fixtures {
            let (from, to) = (fixture(rel), dir.join(dest));
            std::fs::create_dir_all(to.parent().expect("parent")).expect("fixture folder");
            if from.is_dir() {
                copy_tree(&from, &to);
            } else {
                std::fs::copy(&from, &to).unwrap_or_else(|e| panic!("fixtures/{rel}: {e}"));
                age(&to);
            }
        }
        for (rel, bytes, aged) in &self.files {
            let to = dir.join(rel);
            std::fs::create_dir_all(to.parent().expect("parent")).expect("file folder");
            std::fs::write(&to, bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
            if *aged {
                age(&to);
            }
        }
        std::fs::create_dir_all(dir.join(&self.cwd)).expect("working folder");
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("cctool"));
        cmd.args(&self.args)
            .current_dir(dir.join(&self.cwd))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", dir.join("home"))
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .env("TZ", "UTC")
            .envs(self.env_paths.iter().map(|(k, rel)| (k, dir.join(rel))))
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        let started = jiff::Timestamp::now();
        let out = assert_cmd::Command::from_std(cmd)
            .write_stdin(self.stdin.clone().unwrap_or_default())
            .output()
            .expect("run cctool");
        Run {
            during: (started, jiff::Timestamp::now()),
            case: self,
            status: out.status.code(),
            stdout: out.stdout,
            stderr: out.stderr,
            scratch,
        }
    }
}

/// What one [`Case`] did; the scratch folder lives as long as this.
pub struct Run {
    case: Case,
    /// When the command started and ended, for [`Run::shown`]'s `[NOW]`.
    during: (jiff::Timestamp, jiff::Timestamp),
    /// The exit status (`None` when killed by a signal).
    pub status: Option<i32>,
    /// Stdout, raw.
    pub stdout: Vec<u8>,
    /// Stderr, raw.
    pub stderr: Vec<u8>,
    scratch: tempfile::TempDir,
}

impl Run {
    /// The scratch folder (working folder; `HOME` is its `home/`).
    pub fn dir(&self) -> &Path {
        self.scratch.path()
    }

    /// A path in the scratch folder.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir().join(rel)
    }

    /// Runs `next` in this run's scratch folder (its fixtures and files added there): for a
    /// command that reads what an earlier one wrote. Its [`Run`] shows only `next`.
    pub fn then(self, next: Case) -> Run {
        next.run_in(self.scratch)
    }

    /// Stdout, normalised.
    pub fn stdout(&self) -> String {
        self.normalise(&String::from_utf8_lossy(&self.stdout))
    }

    /// Stderr, normalised.
    pub fn stderr(&self) -> String {
        self.normalise(&String::from_utf8_lossy(&self.stderr))
    }

    /// Asserts the exit status.
    pub fn code(self, want: i32) -> Run {
        assert_eq!(self.status, Some(want), "{}", self.shown());
        self
    }

    /// The command line, exit status, stdout, stderr and the files named by [`Case::show`],
    /// normalised: what a snapshot holds.
    pub fn shown(&self) -> String {
        let mut s = String::from("$ cctool");
        for a in &self.case.args {
            s.push(' ');
            s.push_str(&quote(&a.to_string_lossy()));
        }
        s.push('\n');
        if let Some(stdin) = &self.case.stdin {
            s.push_str(&format!("(stdin: {} bytes)\n", stdin.len()));
        }
        match self.status {
            Some(code) => s.push_str(&format!("exit {code}\n")),
            None => s.push_str("killed by a signal\n"),
        }
        section(&mut s, "stdout", &self.stdout());
        section(&mut s, "stderr", &self.stderr());
        for rel in &self.case.show {
            let shown = match std::fs::read(self.path(rel)) {
                Ok(bytes) => self.normalise(&String::from_utf8_lossy(&bytes)),
                Err(e) => format!("({})\n", e.kind()),
            };
            section(&mut s, &format!("file {rel}"), &shown);
        }
        for rel in &self.case.list {
            let mut names: Vec<String> = walkdir::WalkDir::new(self.path(rel))
                .into_iter()
                .flatten()
                .filter(|e| e.file_type().is_file())
                .map(|e| format!("{}\n", e.path().strip_prefix(self.dir()).expect("inside").display()))
                .collect();
            names.sort();
            section(&mut s, &format!("files under {rel}"), &names.concat());
        }
        s
    }

    fn normalise(&self, text: &str) -> String {
        let mut out = text.to_string();
        let dir = self.dir();
        let mut scratch = vec![dir.to_path_buf()];
        if let Ok(real) = dir.canonicalize() {
            scratch.insert(0, real);
        }
        for d in scratch {
            out = out.replace(&*d.to_string_lossy(), "[SCRATCH]");
        }
        let bin = assert_cmd::cargo::cargo_bin("cctool");
        out = out.replace(&*bin.to_string_lossy(), "[CCTOOL]");
        out = out.replace(&*root().to_string_lossy(), "[ROOT]");
        out = out.replace(concat!("cctool ", env!("CARGO_PKG_VERSION")), "cctool [VERSION]");
        out = self.now(&out);
        for (re, with) in &self.case.filters {
            out = re.replace_all(&out, with.as_str()).into_owned();
        }
        out
    }
}

impl Run {
    /// Replaces each UTC timestamp of the time the command ran (a record it wrote "now") by
    /// `[NOW]`; the fixtures' own times are years away from it.
    fn now(&self, text: &str) -> String {
        static ISO: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z").expect("pattern")
        });
        let second = jiff::SignedDuration::from_secs(1);
        let (from, to) = (self.during.0 - second, self.during.1 + second);
        ISO.replace_all(text, |c: &regex::Captures| match c[0].parse::<jiff::Timestamp>() {
            Ok(t) if from <= t && t <= to => "[NOW]".to_string(),
            _ => c[0].to_string(),
        })
        .into_owned()
    }
}

fn section(s: &mut String, name: &str, body: &str) {
    if body.is_empty() {
        return;
    }
    s.push_str(&format!("--- {name}\n{body}"));
    if !body.ends_with('\n') {
        s.push_str("\n(no newline at end)\n");
    }
}

/// An argument as a shell would need it, so the shown command line can be pasted.
fn quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}
