//! Golden files of what people read that no other test pins down whole: `--help` of every
//! command and the main error messages. A change to any of them shows as a diff of a file under
//! `tests/snapshots/`, reviewed like code. `UPDATE_SNAPSHOTS=1 cargo test --test cli snapshots`
//! rewrites the files after a deliberate change.

use crate::util::{cctool, fixture, root};

fn check(name: &str, got: &str) {
    let path = root().join("tests/snapshots").join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().expect("folder")).expect("snapshot folder");
        std::fs::write(&path, got).expect("snapshot written");
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_SNAPSHOTS=1 to create it", path.display()));
    assert_eq!(
        got, want,
        "{name} changed; run with UPDATE_SNAPSHOTS=1 if that was meant"
    );
}

/// Every visible subcommand, from the clap definition itself, so a new command gets its golden
/// file (and hooks' own subcommands theirs).
fn commands() -> Vec<Vec<String>> {
    fn walk(c: &clap::Command, path: &[String], out: &mut Vec<Vec<String>>) {
        for sub in c.get_subcommands().filter(|s| !s.is_hide_set()) {
            let mut p = path.to_vec();
            p.push(sub.get_name().to_string());
            out.push(p.clone());
            walk(sub, &p, out);
        }
    }
    let mut out = Vec::new();
    walk(&cctool::command(), &[], &mut out);
    out
}

#[test]
fn help_of_every_command() {
    let top = cctool().arg("--help").env("COLUMNS", "100").output().expect("run");
    assert!(top.status.success());
    check("help/cctool.txt", &String::from_utf8_lossy(&top.stdout));
    let commands = commands();
    assert!(commands.len() >= 12, "{commands:?}");
    for c in commands {
        let o = cctool()
            .args(&c)
            .arg("--help")
            .env("COLUMNS", "100")
            .output()
            .expect("run");
        assert!(o.status.success(), "{c:?} --help");
        check(
            &format!("help/{}.txt", c.join("-")),
            &String::from_utf8_lossy(&o.stdout),
        );
    }
}

/// What `doctor` prints by default: a line per file with findings, at 80 columns, then the
/// counts per code and the total on stderr.
#[test]
fn doctor_default_output() {
    let files = [
        "dangling-parent.jsonl",
        "dangling-parent-off-chain.jsonl",
        "cycle-stops-the-chain.jsonl",
        "duplicate-uuid.jsonl",
        "two-records-on-one-line.jsonl",
        "invalid-json.jsonl",
    ];
    let o = cctool()
        .current_dir(fixture("broken"))
        .arg("doctor")
        .args(files)
        .env("COLUMNS", "80")
        .output()
        .expect("run");
    let got = format!(
        "{}--- stderr\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    check("doctor-default.txt", &got);
}

/// The commands' main refusals, each as `exit status` and stderr, with the fixture folder's
/// path shown as `FIXTURES`.
#[test]
fn main_error_messages() {
    let fixtures = fixture("");
    let cases: &[&[&str]] = &[
        &["rebuild-chain", "missing.jsonl"],
        &["rebuild-chain", "broken/empty.jsonl"],
        &["rebuild-chain", "broken/binary-garbage.jsonl"],
        &["rebuild-chain", "--api-view", "session/refactor.v5.json"],
        &["rebuild-chain", "--tip", "no-such-uuid", "claude/render.jsonl"],
        &["compact", "-"],
        &["compact", "--tier", "1", "--force", "--dry-run", "claude/render.jsonl"],
        &["decompress", "claude/render.jsonl", "--from", "claude/render.jsonl"],
        &["migrate", "--to", "v9", "session/refactor.v5.json"],
        &["migrate", "--to", "v4", "claude/render.jsonl", "-o", "-"],
        &["extract-summary", "broken/not-an-object.jsonl"],
        &["doctor", "--code", "nope", "claude/render.jsonl"],
        &["scan", "missing-folder"],
    ];
    let mut got = String::new();
    for args in cases {
        let o = cctool().current_dir(&fixtures).args(*args).output().expect("run");
        let err = String::from_utf8_lossy(&o.stderr).replace(&*fixtures.to_string_lossy(), "FIXTURES/");
        got.push_str(&format!(
            "$ cctool {}\nexit {}\n{err}\n",
            args.join(" "),
            o.status.code().unwrap_or(-1)
        ));
    }
    check("errors.txt", &got);
}
