//! Every `--json` record of scan, doctor, extract-summary and rebuild-chain keeps one type per
//! field name (null aside, where a format does not have the field), and every record of one
//! kind has the same fields.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::Value;

use crate::util::{cctool, fixture};

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    }
}

fn files_under(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl" || x == "json") {
            out.push(p);
        }
    }
}

/// Records by command, from runs over every fixture (and the shared samples when present).
fn records() -> BTreeMap<&'static str, Vec<Value>> {
    let mut roots = vec![fixture("")];
    roots.extend(crate::util::shared_dir());
    let mut files = Vec::new();
    for r in &roots {
        files_under(r, &mut files);
    }
    let mut out: BTreeMap<&'static str, Vec<Value>> = BTreeMap::new();
    let parse = |bytes: &[u8]| -> Vec<Value> {
        String::from_utf8_lossy(bytes)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v.get("kind").is_some())
            .collect()
    };
    for (name, args) in [
        ("scan", &["scan", "--json"][..]),
        ("doctor", &["doctor", "--json"]),
        ("extract-summary", &["extract-summary", "--json", "--all-events"]),
        ("search", &["search", "--json", "--tools", "--thinking", "-e", "."]),
        ("search -c", &["search", "--json", "-c", "e"]),
    ] {
        let o = cctool().args(args).args(&roots).output().unwrap();
        out.entry(name).or_default().extend(parse(&o.stdout));
    }
    for f in &files {
        for (name, args) in [
            ("rebuild-chain", &["rebuild-chain", "--json"][..]),
            ("rebuild-chain --api-view", &["rebuild-chain", "--json", "--api-view"]),
        ] {
            let o = cctool().args(args).arg(f).output().unwrap();
            // The chain itself is the file's own records: only cctool's records (with a kind
            // cctool writes) are checked.
            let recs = parse(&o.stdout)
                .into_iter()
                .filter(|r| matches!(r["kind"].as_str(), Some("chain" | "api_view" | "diagnostic")));
            out.entry(name).or_default().extend(recs);
        }
    }
    out
}

#[test]
fn every_field_keeps_one_type_and_every_kind_one_set_of_fields() {
    let all = records();
    let mut problems = Vec::new();
    for (cmd, recs) in &all {
        assert!(recs.len() > 10, "{cmd}: {} records", recs.len());
        let mut types: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut keys: BTreeMap<&str, BTreeSet<Vec<&str>>> = BTreeMap::new();
        let mut elements: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for r in recs {
            let obj = r.as_object().unwrap();
            for (k, v) in obj {
                types.entry(k).or_default().insert(type_of(v));
                if let Value::Array(items) = v {
                    for i in items {
                        elements.entry(k).or_default().insert(type_of(i));
                    }
                }
            }
            keys.entry(r["kind"].as_str().unwrap())
                .or_default()
                .insert(obj.keys().map(String::as_str).collect());
        }
        for (k, ts) in &types {
            let real: Vec<&&str> = ts.iter().filter(|t| **t != "null").collect();
            if real.len() > 1 {
                problems.push(format!("{cmd}: field {k} is {ts:?}"));
            }
        }
        for (k, ts) in &elements {
            if ts.len() > 1 {
                problems.push(format!("{cmd}: the items of {k} are {ts:?}"));
            }
        }
        for (kind, sets) in &keys {
            if sets.len() > 1 {
                problems.push(format!("{cmd}: records of kind {kind} have different fields: {sets:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every field of every record a command prints is named in that command's `--help` (and so
/// in its man page, generated from the same text): a field added without its documentation
/// fails here.
#[test]
fn every_field_is_documented_in_the_command_s_help() {
    let all = records();
    let mut problems = Vec::new();
    for (cmd, recs) in &all {
        let sub = cmd.split(' ').next().unwrap();
        let help = String::from_utf8(cctool().args([sub, "--help"]).output().unwrap().stdout).unwrap();
        let mut fields: BTreeSet<(String, String)> = BTreeSet::new();
        for r in recs {
            let kind = r["kind"].as_str().unwrap_or("").to_string();
            for k in r.as_object().unwrap().keys() {
                fields.insert((kind.clone(), k.clone()));
            }
        }
        for (kind, k) in fields {
            if !help.contains(&format!("\"{k}\"")) {
                problems.push(format!("{cmd}: field {k} of {kind} records is not in `{sub} --help`"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
