//! `scan --rows` and `--files-from`: the tables against their committed schemas, against
//! cctool's own totals, split runs against one run, partitions written once.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{TRANSCRIPT_FIXTURE_DIRS, cctool, fixture, fixture_files, root};

const TABLES: [&str; 4] = ["sessions", "messages", "compactions", "tool-calls"];

/// Every fixture that is a session of one of the three formats (a list names sessions: a
/// file listed that is not one is an error, as a file named on the command line is).
fn corpus() -> Vec<PathBuf> {
    let mut dirs: Vec<&str> = TRANSCRIPT_FIXTURE_DIRS.to_vec();
    dirs.push("session");
    fixture_files(&dirs)
        .into_iter()
        .filter(|p| {
            // The file's name, not its path: a checkout under a folder whose name holds "sent"
            // would otherwise lose every fixture.
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            (n.ends_with(".jsonl") || n.ends_with(".v5.json") || n.ends_with("_2025_05.json")) && !n.contains("sent")
        })
        .collect()
}

fn list_file(dir: &Path, name: &str, paths: &[PathBuf], sep: u8) -> PathBuf {
    let mut bytes = Vec::new();
    for p in paths {
        bytes.extend_from_slice(p.to_str().expect("utf-8 path").as_bytes());
        bytes.push(sep);
    }
    let f = dir.join(name);
    std::fs::write(&f, bytes).expect("write list");
    f
}

fn rows_of(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8(stdout.to_vec())
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn run_rows(table: &str, args: &[&str]) -> Vec<Value> {
    let out = cctool()
        .args(["scan", "--rows", table, "-q", "--max-text", "40"])
        .args(args)
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    rows_of(&out.stdout)
}

fn schema(table: &str) -> Value {
    let text = std::fs::read_to_string(root().join(format!("schemas/{table}.json"))).expect("schema file");
    serde_json::from_str(&text).expect("schema JSON")
}

fn sort_by_key(rows: &mut [Value], key: &[Value]) {
    let k = |r: &Value| {
        key.iter()
            .map(|c| r[c.as_str().unwrap()].to_string())
            .collect::<Vec<_>>()
    };
    rows.sort_by_key(k);
}

/// Whether `v` is a value of the schema's `ty`.
fn has_type(v: &Value, ty: &str) -> bool {
    match ty {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "boolean" => v.is_boolean(),
        "timestamp" => v
            .as_str()
            .is_some_and(|s| s.len() == 24 && s.ends_with('Z') && s.parse::<jiff::Timestamp>().is_ok()),
        other => panic!("unknown type {other} in a schema"),
    }
}

#[test]
fn every_row_has_every_column_of_its_schema_with_its_type() {
    let files = corpus();
    let list = tempfile::tempdir().expect("tempdir");
    let l = list_file(list.path(), "all", &files, b'\n');
    for table in TABLES {
        let schema = schema(table);
        assert_eq!(schema["table"], table);
        let cols = schema["columns"].as_array().expect("columns");
        let rows = run_rows(table, &["--files-from", l.to_str().unwrap()]);
        assert!(!rows.is_empty(), "{table}: no rows from the fixtures");
        let mut nulls = vec![0usize; cols.len()];
        for r in &rows {
            let obj = r.as_object().expect("object");
            let names: Vec<&str> = obj.keys().map(String::as_str).collect();
            let want: Vec<&str> = cols.iter().map(|c| c["name"].as_str().unwrap()).collect();
            assert_eq!(names, want, "{table}: columns of {r}");
            for (i, c) in cols.iter().enumerate() {
                let v = &r[c["name"].as_str().unwrap()];
                if v.is_null() {
                    assert!(c["nullable"] == true, "{table}.{} is null in {r}", c["name"]);
                    nulls[i] += 1;
                } else {
                    assert!(
                        has_type(v, c["type"].as_str().unwrap()),
                        "{table}.{} is not a {}: {v}",
                        c["name"],
                        c["type"]
                    );
                }
            }
            assert_eq!(r["schema_version"], schema["schema_version"]);
        }
        // The key orders the rows whatever the inputs' order: no two rows share it.
        let key = schema["key"].as_array().expect("key");
        let mut keys: Vec<String> = rows
            .iter()
            .map(|r| {
                key.iter()
                    .map(|c| r[c.as_str().unwrap()].to_string())
                    .collect::<Vec<_>>()
                    .join("\t")
            })
            .collect();
        keys.sort();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n, "{table}: the key is not unique");
    }
}

#[test]
fn tables_add_up_to_the_scan_totals() {
    let dirs: Vec<PathBuf> = ["claude", "codex", "session", "compact"]
        .iter()
        .map(|d| fixture(d))
        .collect();
    let dirs: Vec<&str> = dirs.iter().map(|d| d.to_str().unwrap()).collect();
    let out = cctool().args(["scan", "--json"]).args(&dirs).output().expect("run");
    let total = rows_of(&out.stdout)
        .into_iter()
        .find(|r| r["kind"] == "total")
        .expect("total");
    let sessions = run_rows("sessions", &dirs);
    let messages = run_rows("messages", &dirs);
    let compactions = run_rows("compactions", &dirs);
    assert_eq!(sessions.len() as u64, total["files"].as_u64().unwrap());
    let sum = |rows: &[Value], c: &str| rows.iter().map(|r| r[c].as_u64().unwrap()).sum::<u64>();
    assert_eq!(
        sum(&sessions, "resume_tokens"),
        total["resume_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        sum(&sessions, "chain_messages"),
        total["chain_messages"].as_u64().unwrap()
    );
    let on_chain = messages.iter().filter(|m| m["on_resume_chain"] == true).count() as u64;
    assert_eq!(on_chain, total["chain_messages"].as_u64().unwrap());
    assert_eq!(compactions.len() as u64, total["compactions"].as_u64().unwrap());
    assert!(
        compactions.iter().any(|c| c["origin"] == "remote"),
        "no remote compaction among the fixtures"
    );
    // Each file's own rows add up too, not only the sums of all.
    for s in &sessions {
        let path = &s["source_path"];
        let n = messages
            .iter()
            .filter(|m| &m["source_path"] == path && m["on_resume_chain"] == true)
            .count();
        assert_eq!(n as u64, s["chain_messages"].as_u64().unwrap(), "{path}");
        let c = compactions.iter().filter(|m| &m["source_path"] == path).count();
        assert_eq!(c as u64, s["compactions"].as_u64().unwrap(), "{path}");
    }
}

/// Both tables read a session once, through the session model: every call the messages table
/// counts is a row of the tool-calls table, of every agent's fixtures and of cctool's own
/// sessions of every version (before version 3 a call was a `tool_calls` entry and its result a
/// `tool` message: they are calls and results too).
#[test]
fn every_call_the_messages_count_is_a_tool_call_row() {
    let dirs: Vec<PathBuf> = ["claude", "codex", "session", "compact", "migrate"]
        .iter()
        .map(|d| fixture(d))
        .collect();
    let dirs: Vec<&str> = dirs.iter().map(|d| d.to_str().unwrap()).collect();
    let messages = run_rows("messages", &dirs);
    let calls = run_rows("tool-calls", &dirs);
    let mut counted: std::collections::BTreeMap<String, u64> = Default::default();
    for m in &messages {
        *counted.entry(m["source_path"].to_string()).or_default() += m["tool_calls"].as_u64().unwrap();
    }
    let mut listed: std::collections::BTreeMap<String, u64> = Default::default();
    for c in &calls {
        *listed.entry(c["source_path"].to_string()).or_default() += 1;
    }
    counted.retain(|_, n| *n > 0);
    assert_eq!(counted, listed);
    let v1: Vec<&Value> = calls
        .iter()
        .filter(|c| {
            c["source_path"]
                .as_str()
                .is_some_and(|p| p.ends_with("migrate/v1.json"))
        })
        .collect();
    let named: Vec<(&str, bool)> = v1
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["has_result"] == true))
        .collect();
    assert_eq!(named, [("read_file", true), ("grep", true)]);
}

#[test]
fn a_list_split_in_four_parts_gives_one_runs_rows() {
    let files = corpus();
    let dir = tempfile::tempdir().expect("tempdir");
    let all = list_file(dir.path(), "all", &files, b'\n');
    // Dealt like cards, so that every part holds files of every folder.
    let parts: Vec<PathBuf> = (0..4)
        .map(|i| {
            let part: Vec<PathBuf> = files.iter().skip(i).step_by(4).cloned().collect();
            list_file(dir.path(), &format!("part{i}"), &part, b'\0')
        })
        .collect();
    for table in TABLES {
        let key = schema(table)["key"].as_array().expect("key").clone();
        let mut one = run_rows(table, &["--files-from", all.to_str().unwrap()]);
        let mut joined = Vec::new();
        for p in &parts {
            joined.extend(run_rows(table, &["-0", "--files-from", p.to_str().unwrap()]));
        }
        assert!(!one.is_empty());
        sort_by_key(&mut one, &key);
        sort_by_key(&mut joined, &key);
        assert_eq!(joined, one, "{table}");
    }
}

#[test]
fn files_from_standard_input_and_an_empty_list() {
    let files = corpus();
    let dir = tempfile::tempdir().expect("tempdir");
    let list = list_file(dir.path(), "all", &files, b'\n');
    let from_file = run_rows("sessions", &["--files-from", list.to_str().unwrap()]);
    let crlf: String = files.iter().map(|f| format!("{}\r\n", f.display())).collect();
    let out = cctool()
        .args([
            "scan",
            "--rows",
            "sessions",
            "-q",
            "--max-text",
            "40",
            "--files-from",
            "-",
        ])
        .write_stdin(crlf)
        .output()
        .expect("run");
    assert_eq!(rows_of(&out.stdout), from_file);
    // An empty part is no work: nothing out, and never the user's own stores.
    let out = cctool()
        .args(["scan", "--rows", "messages", "--files-from", "/dev/null"])
        .env("HOME", dir.path())
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // The other batch commands take the list too.
    let one = fixture("claude/parallel_tool_calls.jsonl");
    let l = list_file(dir.path(), "one", std::slice::from_ref(&one), b'\n');
    for cmd in ["doctor", "extract-summary", "scan"] {
        let by_list = cctool()
            .args([cmd, "--json", "--files-from", l.to_str().unwrap()])
            .output()
            .expect("run");
        let by_arg = cctool().args([cmd, "--json"]).arg(&one).output().expect("run");
        assert_eq!(by_list.stdout, by_arg.stdout, "{cmd}");
    }
    let out = cctool()
        .args(["migrate", "--dry-run", "--files-from", l.to_str().unwrap()])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    // A list that cannot be read stops the run, naming it.
    let out = cctool()
        .args(["scan", "--files-from", "/nonexistent/list"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the list of paths /nonexistent/list"));
}

#[test]
fn bodies_are_hashed_and_cut_at_max_text() {
    let f = fixture("claude/parallel_tool_calls.jsonl");
    let f = f.to_str().unwrap();
    let none = cctool()
        .args(["scan", "--rows", "tool-calls", f])
        .output()
        .expect("run");
    let rows = rows_of(&none.stdout);
    assert_eq!(rows[0]["output"], Value::Null);
    assert_eq!(rows[0]["output_len"], 5);
    // sha256("a = 1")
    assert_eq!(
        rows[0]["output_sha256"],
        "b5bc1ffd90912fb18bef6e7d80909192c7a6492896320156d67fbaf104c6544a"
    );
    let cut = run_rows("tool-calls", &[f]);
    assert_eq!(cut[0]["input"], "{\"file_path\":\"/home/dev/app/a.toml\"}");
    let short = cctool()
        .args(["scan", "--rows", "tool-calls", "--max-text", "5", f])
        .output()
        .expect("run");
    assert_eq!(rows_of(&short.stdout)[0]["input"], "{\"fil");
    assert_eq!(cut[0]["input_len"], 36);
}

/// Rows of every `part-*.jsonl.zst` under `dir`, and the parts' paths.
fn parts_under(dir: &Path) -> (Vec<Value>, Vec<PathBuf>) {
    let mut rows = Vec::new();
    let mut parts = Vec::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.expect("entry");
        if e.file_type().is_file() {
            let bytes = zstd::stream::decode_all(std::fs::File::open(e.path()).expect("open")).expect("zstd");
            rows.extend(rows_of(&bytes));
            parts.push(e.path().strip_prefix(dir).unwrap().to_path_buf());
        }
    }
    (rows, parts)
}

#[test]
fn out_dir_adds_parts_and_never_rewrites_one() {
    let work = tempfile::tempdir().expect("tempdir");
    let src = work.path().join("in");
    std::fs::create_dir(&src).unwrap();
    for f in [
        "claude/parallel_tool_calls.jsonl",
        "codex/rollback_across_replacement_history.jsonl",
        "session/with_summary.v5.json",
    ] {
        let from = fixture(f);
        std::fs::copy(&from, src.join(from.file_name().unwrap())).unwrap();
    }
    let out = work.path().join("messages");
    let run = || {
        let o = cctool()
            .args(["scan", "--rows", "messages", "--out-dir"])
            .arg(&out)
            .arg(&src)
            .output()
            .expect("run");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stderr).unwrap()
    };
    assert_eq!(
        run(),
        "cctool: 3 parts written (0 older parts replaced), 0 already there\n"
    );
    let (rows, parts) = parts_under(&out);
    let mut stdout = rows_of(
        &cctool()
            .args(["scan", "--rows", "messages"])
            .arg(&src)
            .output()
            .expect("run")
            .stdout,
    );
    let mut rows = rows;
    let key = schema("messages")["key"].as_array().unwrap().clone();
    sort_by_key(&mut rows, &key);
    sort_by_key(&mut stdout, &key);
    assert_eq!(rows, stdout);
    let names: Vec<String> = parts
        .iter()
        .map(|p| p.parent().unwrap().display().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "agent=cctool-session/date=2026-07-16",
            "agent=claude-code/date=2026-03-01",
            "agent=codex/date=2026-03-02"
        ]
    );
    let mtime = |p: &Path| std::fs::metadata(out.join(p)).unwrap().modified().unwrap();
    let before: Vec<_> = parts.iter().map(|p| mtime(p)).collect();
    // Again: every part is there already, none is written.
    assert_eq!(
        run(),
        "cctool: 0 parts written (0 older parts replaced), 3 already there\n"
    );
    assert_eq!(parts_under(&out).1, parts);
    assert_eq!(parts.iter().map(|p| mtime(p)).collect::<Vec<_>>(), before);
    // A session that grew replaces its own part only; a new one adds a part.
    let grown = src.join("parallel_tool_calls.jsonl");
    let mut text = std::fs::read_to_string(&grown).unwrap();
    let last = text.lines().last().unwrap().to_string();
    text.push_str(&last.replace(
        "00000000-0000-4000-8000-000000000007",
        "00000000-0000-4000-8000-000000000099",
    ));
    text.push('\n');
    std::fs::write(&grown, text).unwrap();
    std::fs::copy(fixture("session/refactor.v5.json"), src.join("refactor.v5.json")).unwrap();
    assert_eq!(
        run(),
        "cctool: 2 parts written (1 older parts replaced), 2 already there\n"
    );
    let (_, after) = parts_under(&out);
    assert_eq!(after.len(), 4);
    assert!(after.contains(&parts[0]) && after.contains(&parts[2]));
    assert!(!after.contains(&parts[1]));
}

#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_without_the_feature_says_how_to_get_it() {
    let out = cctool()
        .args(["scan", "--rows", "sessions", "--format", "parquet"])
        .arg(fixture("claude/parallel_tool_calls.jsonl"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("built without Parquet support: install it with `cargo install --locked --features parquet"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The Parquet file has the schema's columns, types and nullability, and as many rows as the
/// JSON Lines.
#[cfg(feature = "parquet")]
#[test]
fn parquet_has_the_schemas_columns_and_the_rows_of_json_lines() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let dirs: Vec<PathBuf> = ["claude", "codex", "session"].iter().map(|d| fixture(d)).collect();
    for table in TABLES {
        let out = cctool()
            .args(["scan", "-q", "--rows", table, "--format", "parquet"])
            .args(&dirs)
            .output()
            .expect("run");
        assert!(out.status.success());
        let file = tempfile::NamedTempFile::new().expect("tempfile");
        std::fs::write(file.path(), &out.stdout).expect("write");
        let reader =
            SerializedFileReader::new(std::fs::File::open(file.path()).expect("open")).expect("a Parquet file");
        let meta = reader.metadata().file_metadata();
        let jsonl = cctool()
            .args(["scan", "-q", "--rows", table])
            .args(&dirs)
            .output()
            .expect("run");
        assert_eq!(meta.num_rows() as usize, rows_of(&jsonl.stdout).len(), "{table}");
        let schema = schema(table);
        let cols = schema["columns"].as_array().unwrap();
        let fields = meta.schema_descr();
        assert_eq!(fields.num_columns(), cols.len());
        for (i, c) in cols.iter().enumerate() {
            let f = fields.column(i);
            assert_eq!(f.name(), c["name"].as_str().unwrap());
            assert_eq!(
                f.self_type().is_optional(),
                c["nullable"] == true,
                "{table}.{}",
                f.name()
            );
            let physical = format!("{:?}", f.physical_type());
            let want = match c["type"].as_str().unwrap() {
                "string" => "BYTE_ARRAY",
                "integer" | "timestamp" => "INT64",
                "boolean" => "BOOLEAN",
                other => panic!("{other}"),
            };
            assert_eq!(physical, want, "{table}.{}", f.name());
        }
    }
}
