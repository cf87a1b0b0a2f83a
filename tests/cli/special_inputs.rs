//! Inputs that are not plain files in a plain tree: FIFOs, pipes, devices, symbolic links,
//! unreadable files, compressed rollouts, and the user's own stores. FIFOs and links cannot
//! be committed meaningfully, so the tests make them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::util::{cctool, fixture, records};

const SESSION: &str = "claude/parallel_tool_calls.jsonl";
const ROLLOUT: &str = "compact/codex-work.jsonl";

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().expect("mkfifo").success();
    assert!(ok, "mkfifo {}", path.display());
}

/// Runs cctool with a time limit (a hang fails the test instead of blocking it) and returns
/// the exit status, stdout and stderr.
fn run(args: &[&str], env: &[(&str, &Path)]) -> (i32, String, String) {
    let mut cmd = cctool();
    cmd.args(args).timeout(Duration::from_secs(60));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("{args:?}: ended by a signal"));
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn total(stdout: &str) -> Value {
    let last = stdout.lines().last().expect("a total record");
    let v: Value = serde_json::from_str(last).unwrap();
    assert_eq!(v["kind"], "total", "{last}");
    v
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A folder holding one Claude Code session, named as Claude Code names them.
fn tree_with_session() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("projects/-home-dev-app");
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::copy(
        fixture(SESSION),
        proj.join("5e551000-0000-4000-8000-000000000000.jsonl"),
    )
    .unwrap();
    (dir, proj)
}

#[test]
fn a_fifo_in_a_folder_is_never_opened() {
    // Named like a legacy subagent file beside its session, and like any session file: scan
    // used to wait forever on the first.
    let (dir, proj) = tree_with_session();
    mkfifo(&proj.join("agent-a1.jsonl"));
    mkfifo(&proj.join("5e551000-0000-4000-8000-000000000001.jsonl"));
    for args in [["scan", "--json"], ["doctor", "--json"], ["extract-summary", "--json"]] {
        let (code, stdout, stderr) = run(&[args[0], args[1], s(dir.path())], &[]);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_eq!(total(&stdout)["files"], 1, "{args:?}: the session alone");
    }
}

#[test]
fn a_fifo_named_explicitly_is_read_as_a_stream() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("live.jsonl");
    mkfifo(&fifo);
    let body = std::fs::read(fixture(SESSION)).unwrap();
    let writer = {
        let (fifo, body) = (fifo.clone(), body.clone());
        std::thread::spawn(move || std::fs::write(&fifo, &body).unwrap())
    };
    let (code, stdout, stderr) = run(&["rebuild-chain", s(&fifo)], &[]);
    writer.join().unwrap();
    assert_eq!(code, 0, "{stderr}");
    let (_, want, _) = run(&["rebuild-chain", s(&fixture(SESSION))], &[]);
    assert_eq!(stdout, want);
}

/// `cctool CMD <(cat FILE)`: the shell hands over a pipe as `/dev/fd/N`; `/dev/stdin` of a
/// piped standard input is the same kind of path.
fn through_a_pipe(args: &[&str], body: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("cctool"))
        .args(args)
        .arg("/dev/stdin")
        .env("NO_COLOR", "1")
        .env("HOME", "/nonexistent-home")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let body = body.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = std::io::Write::write_all(&mut stdin, &body);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    (
        out.status.code().expect("no signal"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_pipe_given_as_file_is_read_whole() {
    let body = std::fs::read(fixture(SESSION)).unwrap();
    let (code, _, stderr) = through_a_pipe(&["doctor"], &body);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 files checked"), "{stderr}");
    // The same findings as from the file, for a file with errors.
    let broken = std::fs::read(fixture("broken/dangling-parent.jsonl")).unwrap();
    let (code, stdout, _) = through_a_pipe(&["doctor", "--json"], &broken);
    let (want_code, want, _) = run(&["doctor", "--json", s(&fixture("broken/dangling-parent.jsonl"))], &[]);
    assert_eq!(code, want_code);
    let codes = |out: &str| -> Vec<String> {
        records(out)
            .iter()
            .filter(|r| r["kind"] == "finding")
            .map(|r| r["code"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(codes(&stdout), codes(&want));
    assert!(!codes(&want).is_empty());
    for args in [
        &["rebuild-chain"][..],
        &["rebuild-chain", "--api-view"],
        &["extract-summary"],
    ] {
        let (code, stdout, stderr) = through_a_pipe(args, &body);
        let mut full = args.to_vec();
        let f = fixture(SESSION);
        full.push(s(&f));
        let (want_code, want, _) = run(&full, &[]);
        assert_eq!((code, stdout), (want_code, want), "{args:?}: {stderr}");
    }
}

#[test]
fn a_pipe_larger_than_memory_holds_is_kept_in_a_temporary_file() {
    // Over 4 MiB: held in an unlinked temporary file, read back like any file (mapped, and
    // with --mmap never in chunks).
    let body = crate::concurrency::big_transcript(6);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("big.jsonl");
    std::fs::write(&f, &body).unwrap();
    crate::util::age(&f);
    let (_, want, _) = run(&["rebuild-chain", "--json", s(&f)], &[]);
    let (_, want_scan, _) = run(&["scan", "--json", s(&f)], &[]);
    for mmap in ["auto", "never"] {
        let (code, stdout, stderr) = through_a_pipe(&["--mmap", mmap, "rebuild-chain", "--json"], &body);
        assert_eq!(code, 0, "{stderr}");
        let name = |out: &str, from: &str| out.replace(from, "FILE");
        assert_eq!(name(&stdout, "/dev/stdin"), name(&want, s(&f)), "--mmap {mmap}");
        let (_, scan, _) = through_a_pipe(&["--mmap", mmap, "scan", "--json"], &body);
        // The project of a file without a recorded cwd is its folder's name; a pipe has none.
        let unfoldered = |out: &str| {
            out.lines()
                .map(|l| {
                    let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                    v.as_object_mut().unwrap().remove("project");
                    v.to_string()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            unfoldered(&name(&scan, "/dev/stdin")),
            unfoldered(&name(&want_scan, s(&f)))
        );
        assert!(scan.contains(r#""project":null"#), "{scan}");
    }
}

#[test]
fn devices_named_explicitly_are_input_errors_like_an_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    for args in [&["doctor"][..], &["scan"], &["extract-summary"], &["rebuild-chain"]] {
        for (path, says) in [("/dev/null", "character device"), (s(&empty), "empty file")] {
            let mut full = args.to_vec();
            full.push(path);
            let (code, stdout, stderr) = run(&full, &[]);
            assert_eq!(code, 2, "{full:?}: {stdout}{stderr}");
            assert!(stderr.contains(path) && stderr.contains(says), "{full:?}: {stderr}");
        }
    }
}

/// Runs cctool as an unprivileged user where the tests run as root (root reads any file);
/// None when that is not possible here.
fn unprivileged(args: &[&str]) -> Option<(i32, String, String)> {
    let bin = assert_cmd::cargo::cargo_bin("cctool");
    let root = Command::new("id").arg("-u").output().ok()?.stdout == b"0\n";
    let mut cmd = if root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    let out = cmd
        .args(args)
        .env("NO_COLOR", "1")
        .env("HOME", "/nonexistent-home")
        .output()
        .ok()?;
    let code = out.status.code()?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if root && code == 127 || stderr.starts_with("setpriv:") {
        return None;
    }
    Some((code, String::from_utf8_lossy(&out.stdout).into_owned(), stderr))
}

#[test]
#[cfg(unix)]
fn an_unreadable_file_in_a_folder_is_an_error_with_its_path() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, proj) = tree_with_session();
    let locked = proj.join("5e551000-0000-4000-8000-000000000009.jsonl");
    std::fs::copy(fixture(SESSION), &locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Every folder on the way open to the unprivileged user.
    for d in [dir.path(), &dir.path().join("projects"), &proj] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for args in [["doctor", "--json"], ["scan", "--json"], ["extract-summary", "--json"]] {
        let Some((code, stdout, stderr)) = unprivileged(&[args[0], args[1], s(dir.path())]) else {
            crate::util::skip_notice("cannot run as an unprivileged user here");
            return;
        };
        assert_eq!(
            code, 2,
            "{args:?}: could not check a file, so not a success: {stdout}{stderr}"
        );
        let problem = records(&stdout)
            .into_iter()
            .find(|r| r["file"].as_str() == Some(s(&locked)))
            .unwrap_or_else(|| panic!("{args:?}: the unreadable file is not named: {stdout}"));
        assert_eq!(problem["severity"], "error", "{problem}");
        assert!(
            problem["message"].as_str().unwrap().contains("Permission denied"),
            "{problem}"
        );
        let t = total(&stdout);
        assert_eq!(t["skipped"], 0, "{args:?}: not counted as 'not a session': {t}");
    }
}

#[test]
#[cfg(unix)]
fn symbolic_links_out_of_the_folder_are_not_followed_unless_asked() {
    let (dir, proj) = tree_with_session();
    // A folder of sessions outside the tree, linked into it; a link to the root of the disk;
    // a link back up the tree; a link to a file inside the tree.
    let outside = tempfile::tempdir().unwrap();
    std::fs::copy(fixture(ROLLOUT), outside.path().join("rollout-x.jsonl")).unwrap();
    std::os::unix::fs::symlink(outside.path(), proj.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink("/", proj.join("root")).unwrap();
    std::os::unix::fs::symlink(dir.path(), proj.join("up")).unwrap();
    std::os::unix::fs::symlink(
        proj.join("5e551000-0000-4000-8000-000000000000.jsonl"),
        proj.join("again.jsonl"),
    )
    .unwrap();
    for cmd in ["scan", "doctor", "extract-summary"] {
        let (code, stdout, stderr) = run(&[cmd, "--json", s(dir.path())], &[]);
        assert_eq!(code, 0, "{cmd}: {stderr}");
        assert_eq!(total(&stdout)["files"], 1, "{cmd}: only the file inside the tree");
        let recs = records(&stdout);
        let note = |code: &str, name: &str| {
            recs.iter()
                .any(|r| r["code"] == code && r["file"].as_str().is_some_and(|f| f.ends_with(name)))
        };
        assert!(note("symlink-not-followed", "elsewhere"), "{cmd}: {stdout}");
        assert!(
            note("symlink-loop", "up") && note("symlink-loop", "root"),
            "{cmd}: {stdout}"
        );
        // --follow: the outside folder too, each file once, the loops named and not walked.
        let (code, stdout, stderr) = run(&["--follow", cmd, "--json", s(dir.path())], &[]);
        assert_eq!(code, 0, "{cmd} --follow: {stderr}");
        assert_eq!(total(&stdout)["files"], 2, "{cmd} --follow: {stdout}");
        assert!(stdout.contains("symlink-loop"), "{cmd} --follow");
    }
}

#[test]
#[cfg(unix)]
fn migrate_of_a_folder_never_rewrites_a_file_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir(&sessions).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let foreign = outside.path().join("theirs.json");
    let v1 = std::fs::read(fixture("migrate/v1.json")).unwrap();
    crate::util::write_aged(&foreign, &v1);
    crate::util::write_aged(&sessions.join("mine.json"), &v1);
    std::os::unix::fs::symlink(outside.path(), sessions.join("linked")).unwrap();
    std::os::unix::fs::symlink(&foreign, sessions.join("theirs.json")).unwrap();
    let (code, _, stderr) = run(&["migrate", s(&sessions)], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_ne!(
        std::fs::read(sessions.join("mine.json")).unwrap(),
        v1,
        "the file inside is migrated"
    );
    assert_eq!(std::fs::read(&foreign).unwrap(), v1, "the file outside is untouched");
    let names: Vec<_> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "nothing written outside: {names:?}");
}

/// A home folder with the given Claude Code and Codex stores, each holding one session.
fn home_with(claude: &[&str], codex: &[&str]) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for (i, c) in claude.iter().enumerate() {
        let proj = home.path().join(c).join("projects/-home-dev-app");
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::copy(
            fixture(SESSION),
            proj.join(format!("5e551000-0000-4000-8000-00000000000{i}.jsonl")),
        )
        .unwrap();
    }
    for c in codex {
        let day = home.path().join(c).join("sessions/2026/06/02");
        std::fs::create_dir_all(&day).unwrap();
        std::fs::copy(fixture(ROLLOUT), day.join("rollout-x.jsonl")).unwrap();
    }
    home
}

#[test]
fn stores_in_every_place_claude_code_and_codex_keep_them() {
    // ~/.config/claude as well as ~/.claude; no word about the Codex store a Claude-only user
    // does not have.
    let home = home_with(&[".claude", ".config/claude"], &[]);
    let (code, stdout, stderr) = run(&["scan", "--json"], &[("HOME", home.path())]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(total(&stdout)["files"], 2);
    assert!(!stderr.contains("Codex"), "{stderr}");
    // CLAUDE_CONFIG_DIR with several folders, one missing: that one is named.
    let missing = home.path().join("gone");
    let list = format!(
        "{}, {},{}",
        s(&home.path().join(".claude")),
        s(&home.path().join(".config/claude")),
        s(&missing)
    );
    let (code, stdout, stderr) = run(
        &["scan", "--json"],
        &[("HOME", home.path()), ("CLAUDE_CONFIG_DIR", Path::new(&list))],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(total(&stdout)["files"], 2);
    assert!(
        stderr.contains(&format!("no Claude Code store at {}", s(&missing.join("projects")))),
        "{stderr}"
    );
    // A Codex store asked for by CODEX_HOME and missing is named; one that is there is read.
    let (_, _, stderr) = run(&["scan", "--json"], &[("HOME", home.path()), ("CODEX_HOME", &missing)]);
    assert!(stderr.contains("no Codex store at"), "{stderr}");
    let both = home_with(&[".claude"], &[".codex"]);
    let (_, stdout, stderr) = run(&["scan", "--json"], &[("HOME", both.path())]);
    assert_eq!(total(&stdout)["files"], 2, "{stderr}");
    // Nothing anywhere: an error that says where it looked.
    let none = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(&["scan"], &[("HOME", none.path())]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no session stores found") && stderr.contains(".config/claude"),
        "{stderr}"
    );
}

/// The compressed fixture: the plain rollout `compact/codex-work.jsonl` as Codex compresses
/// old rollouts (zstd, level 3).
fn compressed() -> PathBuf {
    let dir = fixture("codex/compressed");
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".jsonl.zst"))
        .expect("a .jsonl.zst fixture")
}

#[test]
fn a_compressed_rollout_reads_as_its_plain_file_in_every_command() {
    let zst = compressed();
    let plain = fixture(ROLLOUT);
    assert_eq!(
        zstd::decode_all(std::fs::File::open(&zst).unwrap()).unwrap(),
        std::fs::read(&plain).unwrap(),
        "the fixture is the plain rollout compressed"
    );
    for args in [
        &["rebuild-chain"][..],
        &["rebuild-chain", "--json", "--replay", "legacy"],
        &["scan", "--json"],
        &["doctor", "--json"],
        &["extract-summary", "--json"],
        &["compact", "--dry-run", "--json", "--keep-recent", "100"],
        &["migrate", "--dry-run", "--json"],
    ] {
        let on = |p: &Path| {
            let mut full = args.to_vec();
            full.push(s(p));
            let (code, stdout, stderr) = run(&full, &[]);
            (code, stdout.replace(s(p), "FILE"), stderr.replace(s(p), "FILE"))
        };
        // Outputs are named after the input, in its folder: the same name for both.
        let rename = |(code, out, err): (i32, String, String), dir: &Path, stem: &str| {
            let at = format!("{}/{stem}", s(dir));
            (code, out.replace(&at, "OUT"), err.replace(&at, "OUT"))
        };
        let got = rename(
            on(&zst),
            zst.parent().unwrap(),
            "rollout-2026-06-02T10-00-00-0197a1b2-0000-7000-8000-000000000001",
        );
        let want = rename(on(&plain), plain.parent().unwrap(), "codex-work");
        assert_eq!(got, want, "{args:?}");
    }
    // Found in a folder, and read from a pipe.
    let (_, stdout, _) = run(&["scan", "--json", s(&fixture("codex/compressed"))], &[]);
    assert_eq!(total(&stdout)["files"], 1);
    let (code, stdout, _) = through_a_pipe(&["rebuild-chain"], &std::fs::read(&zst).unwrap());
    assert_eq!(code, 0);
    assert_eq!(stdout, run(&["rebuild-chain", s(&plain)], &[]).1);
}

#[test]
fn a_compressed_rollout_is_written_elsewhere_never_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let zst = dir.path().join("rollout-x.jsonl.zst");
    let bytes = std::fs::read(compressed()).unwrap();
    crate::util::write_aged(&zst, &bytes);
    let (code, _, stderr) = run(&["compact", "--in-place", "--keep-recent", "100", s(&zst)], &[]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("compressed (zstd)") && stderr.contains("-o"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&zst).unwrap(), bytes, "left as it was");
    // -o: the same recap as from the plain file.
    let out = dir.path().join("out.jsonl");
    let (code, _, stderr) = run(&["compact", "--keep-recent", "100", "-o", s(&out), s(&zst)], &[]);
    assert_eq!(code, 0, "{stderr}");
    let plain_out = dir.path().join("plain-out.jsonl");
    run(
        &[
            "compact",
            "--keep-recent",
            "100",
            "-o",
            s(&plain_out),
            s(&fixture(ROLLOUT)),
        ],
        &[],
    );
    let summary =
        |p: &Path| records(&run(&["extract-summary", "--json", "--current", s(p)], &[]).1)[0]["summary"].clone();
    assert_eq!(summary(&out), summary(&plain_out));
    assert!(summary(&out).is_string());
}

#[test]
fn a_large_compressed_rollout_is_decompressed_in_bounded_memory() {
    // 64 MiB decompressed: kept in a temporary file and read as a mapped file is, its pages
    // released behind the reader, not held in memory.
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("big.jsonl");
    let body = crate::concurrency::big_transcript(64);
    std::fs::write(&plain, &body).unwrap();
    let zst = dir.path().join("big.jsonl.zst");
    std::fs::write(&zst, zstd::encode_all(&body[..], 3).unwrap()).unwrap();
    let (_, want, _) = run(&["rebuild-chain", "--json", s(&plain)], &[]);
    let (code, got, stderr) = run(&["rebuild-chain", "--json", s(&zst)], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(got.replace(s(&zst), "F"), want.replace(s(&plain), "F"));
    let Some(rss) = peak_rss_kib(&["rebuild-chain", "--json", s(&zst)]) else {
        return;
    };
    // What the file costs, above what the binary costs on a one-line file: held in memory it
    // would be at least its 64 MiB. (An absolute bound failed as the debug binary grew.)
    let Some(base) = peak_rss_kib(&["rebuild-chain", "--json", s(&fixture("claude/render.jsonl"))]) else {
        return;
    };
    let cost = rss.saturating_sub(base);
    assert!(cost < 48 * 1024, "{cost} KiB resident (of {rss}) for a 64 MiB rollout");
}

/// The peak resident memory of a run, in KiB, from `/usr/bin/time`; None (after a notice)
/// where it is missing.
pub fn peak_rss_kib(args: &[&str]) -> Option<u64> {
    let bin = assert_cmd::cargo::cargo_bin("cctool");
    let Ok(out) = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(&bin)
        .args(args)
        .output()
    else {
        crate::util::skip_notice("/usr/bin/time is not installed");
        return None;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr.lines().last().and_then(|l| l.trim().parse().ok())
}

#[test]
fn a_broken_compressed_file_is_an_error_naming_it() {
    let broken = fixture("broken/truncated-frame.jsonl.zst");
    for args in [&["rebuild-chain"][..], &["doctor"], &["scan"], &["extract-summary"]] {
        let mut full = args.to_vec();
        full.push(s(&broken));
        let (code, _, stderr) = run(&full, &[]);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains(s(&broken)) && stderr.contains("cannot decompress"),
            "{args:?}: {stderr}"
        );
    }
}
