use super::*;

/// One secret of each kind the built-in rules catch (`fixtures/export/secrets.json`, made
/// with random characters in each documented format).
fn secrets() -> Vec<(String, String)> {
    let v: Value = serde_json::from_str(include_str!("../../fixtures/export/secrets.json")).expect("secrets.json");
    v.as_object()
        .expect("object")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("string").to_string()))
        .collect()
}

/// The text a secret of this kind stands in (its name, its URL, its header).
pub fn context(kind: &str, secret: &str) -> String {
    match kind {
        "aws-secret-key" => format!("aws_secret_access_key = {secret}"),
        "azure-storage-key" => format!(
            "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey={secret};EndpointSuffix=core.windows.net"
        ),
        "database-password" => format!("psql postgres://app:{secret}@db.internal:5432/prod"),
        "secret-assignment" => format!("export PAYMENTS_TOKEN={secret}"),
        "high-entropy" => format!("export BUILD_SEED={secret}"),
        "bearer-token" => format!("curl -H 'Authorization: Bearer {secret}' https://api.example.com"),
        _ => format!("the value is {secret} as given"),
    }
}

fn redactor() -> Redactor {
    Redactor::new(&Config {
        home: Some("/home/alice".into()),
        user: Some("alice".into()),
        extra: Vec::new(),
        keep_images: false,
    })
    .expect("rules")
}

#[test]
fn every_kind_is_caught_under_its_own_name() {
    let r = redactor();
    for (kind, secret) in secrets() {
        let text = context(&kind, &secret);
        let out = r
            .redact_str(&text)
            .unwrap_or_else(|| panic!("{kind}: nothing matched in {text}"));
        assert!(!out.contains(&secret), "{kind}: survived in {out}");
        assert!(out.contains(&format!("[REDACTED:{kind}#")), "{kind}: {out}");
    }
}

#[test]
fn the_same_secret_gets_the_same_number() {
    let r = redactor();
    let a = r
        .redact_str("ghp_VJ7VtD4Q9OiwyXt17cFzwUnWPIknuABdcuVB and ghp_000000000000000000000000000000000000")
        .unwrap();
    let b = r.redact_str("again ghp_VJ7VtD4Q9OiwyXt17cFzwUnWPIknuABdcuVB").unwrap();
    assert_eq!(a, "[REDACTED:github-token#1] and [REDACTED:github-token#2]");
    assert_eq!(b, "again [REDACTED:github-token#1]");
    let report = r.report();
    assert_eq!(
        report.rules,
        vec![RuleCount {
            rule: "github-token".into(),
            count: 3,
            distinct: 2
        }]
    );
}

#[test]
fn context_stays_readable() {
    let r = redactor();
    assert_eq!(
        r.redact_str("postgres://app:hunter22@db:5432/x").unwrap(),
        "postgres://app:[REDACTED:database-password#1]@db:5432/x"
    );
    assert_eq!(
        r.redact_str("cat /home/alice/app/.env").unwrap(),
        "cat [REDACTED:home-path#1]/app/.env"
    );
    assert_eq!(r.redact_str("ls /home/bob/x").unwrap(), "ls [REDACTED:home-path#2]/x");
    assert_eq!(r.redact_str("Alice said hi").unwrap(), "[REDACTED:user-name#1] said hi");
    assert_eq!(
        r.redact_str("DB_PASSWORD=changeme9").unwrap(),
        "DB_PASSWORD=[REDACTED:secret-assignment#1]"
    );
}

#[test]
fn ordinary_text_is_left_alone() {
    let r = redactor();
    for s in [
        "max_tokens: 4096",
        "export PATH=/usr/local/bin:$PATH",
        "API_KEY=$API_KEY",
        "token = os.environ.get(\"TOKEN\")",
        "git clone git@github.com:org/repo.git",
        "uuid 3f2a9c4e-1b2d-4e5f-8a9b-0c1d2e3f4a5b",
        "the author of /home/alicex is bob",
        "fn main() { let key = compute(x); }",
        "Co-Authored-By: Claude <noreply@anthropic.com>",
        "password: ${{ secrets.DB_PASSWORD }}",
    ] {
        let got = r.redact_str(s);
        // `/home/alicex` is someone else's home: replaced as a home path, never as `alice`.
        if s.contains("/home/alicex") {
            assert_eq!(got.as_deref(), Some("the author of [REDACTED:home-path#1] is bob"));
            continue;
        }
        assert_eq!(got, None, "{s}");
    }
}

#[test]
fn json_strings_are_matched_decoded_and_stay_json() {
    let r = redactor();
    // `\u0067hp_…`: the token starts with an escaped `g`.
    let line =
        br#"{"type":"user","uuid":"u1","message":{"content":"key \u0067hp_VJ7VtD4Q9OiwyXt17cFzwUnWPIknuABdcuVB ok"}}"#;
    let out = r.redact_line(line);
    let v: Value = serde_json::from_slice(&out).expect("still JSON");
    assert_eq!(v["message"]["content"], "key [REDACTED:github-token#1] ok");
    assert_eq!(v["uuid"], "u1");
    // Codex arguments: JSON text inside a string, opened and redacted.
    let line = br#"{"type":"function_call","arguments":"{\"cmd\":[\"bash\",\"-lc\",\"export GH=\\u0067hp_VJ7VtD4Q9OiwyXt17cFzwUnWPIknuABdcuVB\"]}"}"#;
    let out = r.redact_line(line);
    let v: Value = serde_json::from_slice(&out).expect("still JSON");
    let args: Value = serde_json::from_str(v["arguments"].as_str().unwrap()).expect("arguments still JSON");
    assert_eq!(args["cmd"][2], "export GH=[REDACTED:github-token#1]");
    // Nothing to redact: the bytes as written.
    let plain = br#"{"a": "x",  "b":1.50}"#;
    assert!(matches!(r.redact_line(plain), std::borrow::Cow::Borrowed(_)));
}

#[test]
fn secret_keys_and_images() {
    let r = redactor();
    let mut v: Value = serde_json::json!({
        "input": {"api_key": "plainvalue9", "limit": "plainvalue9"},
        "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}]
    });
    assert!(r.redact_value(&mut v));
    assert_eq!(v["input"]["api_key"], "[REDACTED:secret-assignment#1]");
    assert_eq!(v["input"]["limit"], "plainvalue9");
    assert_eq!(
        v["content"][0],
        serde_json::json!({"type": "text", "text": "[REDACTED:image#1]"})
    );
}

#[test]
fn user_rules_come_first_and_bad_ones_are_named() {
    let r = Redactor::new(&Config {
        extra: vec!["ticket=TICKET-[0-9]+".into(), "internal\\.corp".into()],
        ..Config::default()
    })
    .unwrap();
    assert_eq!(
        r.redact_str("see TICKET-42 on wiki.internal.corp").unwrap(),
        "see [REDACTED:ticket#1] on wiki.[REDACTED:custom#1]"
    );
    let e = Redactor::new(&Config {
        extra: vec!["bad=(".into()],
        ..Config::default()
    })
    .err()
    .unwrap();
    assert!(
        e.0.starts_with("redaction rule bad is not a valid regular expression"),
        "{}",
        e.0
    );
}
