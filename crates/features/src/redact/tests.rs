use super::*;

/// One secret of each kind the built-in rules catch (`fixtures/export/secrets.json`, made
/// with random characters in each documented format).
fn secrets() -> Vec<(String, String)> {
    let v: Value =
        serde_json::from_str(include_str!("../../../../fixtures/export/secrets.json")).expect("secrets.json");
    v.as_object()
        .expect("object")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("string").to_string()))
        .collect()
}

/// The text a secret of this kind stands in (its name, its URL, its header).
pub(crate) fn context(kind: &str, secret: &str) -> String {
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
        "input": {"api_key": "plainvalue9", "limit": "plainvalue8", "note": "set plainvalue9 first"},
        "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}]
    });
    assert!(r.redact_value(&mut v));
    assert_eq!(v["input"]["api_key"], "[REDACTED:secret-assignment#1]");
    assert_eq!(v["input"]["limit"], "plainvalue8");
    // Found once under its name, replaced wherever it occurs.
    assert_eq!(v["input"]["note"], "set [REDACTED:secret-assignment#1] first");
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
    assert!(matches!(&e, BadRule::Pattern { name, .. } if name == "bad"), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("redaction rule bad is not a valid regular expression: "),
        "{e}"
    );
}

/// One secret of each family added for the adversarial round, in the context it was planted
/// in, with the rule that must name it.
fn planted() -> Vec<(&'static str, String, String)> {
    let netrc = "machine api.example.com\n  login deploy\n  password N3trc-Passw0rd!";
    let basic = base64::engine::general_purpose::STANDARD.encode("deploy:B4sic-Passw0rd");
    vec![
        (
            "huggingface-token",
            "hf_kJqWmTzXbVnRpLsYdGhFcAeUiOoPtMwQzXy".into(),
            "my HF token is hf_kJqWmTzXbVnRpLsYdGhFcAeUiOoPtMwQzXy ok".into(),
        ),
        (
            "sendgrid-key",
            "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".into(),
            "mail via 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 today".into(),
        ),
        (
            "pypi-token",
            "pypi-AgEIcHlwaS5vcmcCJGE4ZWNkYjk2LTU1ZDItNGI3Ny1hNjU5LTlmYjM1NzMzMjU2YwACKlszLCJ".into(),
            "upload with pypi-AgEIcHlwaS5vcmcCJGE4ZWNkYjk2LTU1ZDItNGI3Ny1hNjU5LTlmYjM1NzMzMjU2YwACKlszLCJ please"
                .into(),
        ),
        (
            "vault-token",
            "hvs.CAESIJk2ZmQ0NzYxLWE5OTgtNGJmZi1i".into(),
            "vault login hvs.CAESIJk2ZmQ0NzYxLWE5OTgtNGJmZi1i".into(),
        ),
        (
            "docker-token",
            "dckr_pat_Xq3vB7nM1kL9pR5tW2yZ8aC4dF6".into(),
            "docker token dckr_pat_Xq3vB7nM1kL9pR5tW2yZ8aC4dF6 works".into(),
        ),
        (
            "twilio-token",
            "SK0123456789abcdef0123456789abcdef".into(),
            "twilio key SK0123456789abcdef0123456789abcdef here".into(),
        ),
        (
            "url-password",
            "Cl0ne-Passw0rd".into(),
            "git clone https://alice:Cl0ne-Passw0rd@git.example.com/shop.git".into(),
        ),
        (
            "basic-auth",
            basic.clone(),
            format!("curl -H 'Authorization: Basic {basic}' https://api.example.com"),
        ),
        (
            "cli-password",
            "Curl-Passw0rd9".into(),
            "curl -u deploy:Curl-Passw0rd9 https://api.example.com".into(),
        ),
        ("netrc-password", "N3trc-Passw0rd!".into(), netrc.into()),
        (
            "gcp-private-key-id",
            "3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a".into(),
            r#"{"type": "service_account", "private_key_id": "3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"}"#.into(),
        ),
        (
            "secret-assignment",
            "98765432".into(),
            r#"{"user": "svc", "password": 98765432}"#.into(),
        ),
        (
            "home-path",
            "-home-bob".into(),
            "projects/-home-bob-webapp/s.jsonl".into(),
        ),
    ]
}

use base64::Engine;

#[test]
fn the_adversarial_families_are_caught() {
    for (rule, secret, text) in planted() {
        let r = redactor();
        let out = r
            .redact_str(&text)
            .unwrap_or_else(|| panic!("{rule}: nothing matched in {text}"));
        assert!(!out.contains(&secret), "{rule}: survived in {out}");
        assert!(out.contains(&format!("[REDACTED:{rule}#")), "{rule}: {out}");
    }
}

#[test]
fn a_json_number_under_a_secret_name_is_replaced() {
    let r = redactor();
    let mut v = serde_json::json!({"db": {"password": 98765432}, "port": 5432});
    assert!(r.redact_value(&mut v));
    assert_eq!(v["db"]["password"], "[REDACTED:secret-assignment#1]");
    assert_eq!(v["port"], 5432);
}

#[test]
fn a_secret_found_once_is_replaced_everywhere_keys_too() {
    let r = redactor();
    // Learned from the second record, replaced in the first, which no rule could read.
    let first: &[u8] =
        br#"{"text":"the token q7Zr9LmX2pW4tN8v goes here","cwd":"/home/alice/w","snapshot":{"/home/alice/w/.env":1}}"#;
    let second: &[u8] = br#"{"text":"MY_APP_SECRET=q7Zr9LmX2pW4tN8v"}"#;
    r.learn_line(first);
    r.learn_line(second);
    r.seal();
    let out = String::from_utf8(r.redact_line(first).into_owned()).unwrap();
    assert!(!out.contains("q7Zr9LmX2pW4tN8v"), "{out}");
    assert!(!out.contains("alice"), "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["snapshot"].get("[REDACTED:home-path#1]/w/.env").is_some(), "{out}");
}

#[test]
fn base64_of_a_secret_is_replaced_whole() {
    let r = redactor();
    let env = "DB_PASSWORD=Encod3d-Passw0rd\nSTRIPE=sk_live_MnIPm2wYtrTsBF6I8YIsv9Vb\n".repeat(3);
    let enc = base64::engine::general_purpose::STANDARD.encode(&env);
    // As `base64` prints it: lines of 76.
    let wrapped: Vec<&str> = enc
        .as_bytes()
        .chunks(76)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    let text = format!("$ base64 .env\n{}\n$ done", wrapped.join("\n"));
    let out = r.redact_str(&text).expect("matched");
    for line in &wrapped {
        assert!(!out.contains(line), "{out}");
    }
    assert!(out.starts_with("$ base64 .env\n[REDACTED:"), "{out}");
    assert!(out.ends_with("\n$ done"), "{out}");
}

#[test]
fn a_secret_split_across_two_text_blocks() {
    let r = redactor();
    let mut v = serde_json::json!({"content": [
        {"type": "text", "text": "deploy with ghp_VJ7VtD4Q9Oiwy"},
        {"type": "text", "text": "Xt17cFzwUnWPIknuABdcuVB now"}
    ]});
    assert!(r.redact_value(&mut v));
    let a = v["content"][0]["text"].as_str().unwrap();
    let b = v["content"][1]["text"].as_str().unwrap();
    assert_eq!(a, "deploy with [REDACTED:github-token#1]");
    assert_eq!(b, " now");
}

#[test]
fn binary_documents_are_dropped_text_ones_kept() {
    let r = redactor();
    let mut v = serde_json::json!({"content": [
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain notes"}},
        {"type": "input_file", "filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"}
    ]});
    assert!(r.redact_value(&mut v));
    assert_eq!(
        v["content"][0],
        serde_json::json!({"type": "text", "text": "[REDACTED:document#1]"})
    );
    assert_eq!(v["content"][1]["source"]["data"], "plain notes");
    assert_eq!(
        v["content"][2],
        serde_json::json!({"type": "input_text", "text": "[REDACTED:document#2]"})
    );
}

#[test]
fn github_tokens_glued_to_text_count_when_their_checksum_holds() {
    let random = "VJ7VtD4Q9OiwyXt17cFzwUnWPIknuA";
    let valid = format!("ghp_{random}{}", detect::base62_6(crc32fast::hash(random.as_bytes())));
    assert!(detect::github_checksum_ok(&valid));
    let r = redactor();
    let out = r.redact_str(&format!("token:{valid} and mytoken{valid}")).unwrap();
    assert!(!out.contains(&valid), "{out}");
    // Glued and without a valid checksum: an identifier, not a token.
    let fake = format!("ghp_{random}zzzzzz");
    assert!(!detect::github_checksum_ok(&fake));
    assert_eq!(redactor().redact_str(&format!("mytoken{fake}")), None);
}

/// Ordinary texts of a coding session that look a little like secrets: none is replaced.
/// (Each kind was checked by hand to be matched by no rule; adding a rule that catches one
/// of them fails here.)
#[test]
fn no_false_positive_on_ordinary_text() {
    let image = base64::engine::general_purpose::STANDARD.encode([
        0x89u8, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 250, 251, 252,
        253, 254, 255, 7, 8, 9,
    ]);
    let prose =
        base64::engine::general_purpose::STANDARD.encode("The quick brown fox jumps over the lazy dog, twice over.");
    let texts = [
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main)".to_string(),
        "Merge: 1a2b3c4d5e6f 0f9e8d7c6b5a; tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904".into(),
        "request id 3f2a9c4e-1b2d-4e5f-8a9b-0c1d2e3f4a5b failed; retry with 0195f3a2-7c1e-7d4b-9a8e-1f2e3d4c5b6a"
            .into(),
        format!("screenshot: data:image/png;base64,{image}"),
        format!("an example of base64: {prose}"),
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".into(),
        "integrity sha512-Vbx1cV8kYw3ZKx2jBTIgVyH1lg8dbPD5xFx9a7ZsWeCi3nQ==".into(),
        "docker run -u 1000:1000 -v /srv/data:/data image".into(),
        "The default password policy asks for twelve characters.".into(),
        "We need a basic understanding of the build first.".into(),
        "Use `task` and ask the disk skeleton; keyboard shortcuts help.".into(),
        "See https://docs.rs/regex/1.11.1/regex/#syntax and http://localhost:8080/api/v1".into(),
        "max_tokens: 4096, input_tokens 1200, cache_creation_input_tokens: 0".into(),
        "let api_key = std::env::var(\"API_KEY\")?;".into(),
        "The machine learning model was fine.".into(),
        "git push -u origin feature/login".into(),
        "src/agents/claude_code/chain/recovery.rs:120:5".into(),
        "version 2.1.332 of @anthropic-ai/claude-code, node v22.11.0".into(),
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin".into(),
        "The twilio integration docs say to create a key in the console.".into(),
    ];
    let r = redactor();
    for t in &texts {
        assert_eq!(r.redact_str(t), None, "{t}");
    }
}

/// The base64 spans as the plain reading finds them: every run of the alphabet, byte by byte,
/// the wrapped lines joined, then the spans of the right length kept.
fn base64_runs_byte_by_byte(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let is_b64 = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !is_b64(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_b64(b[i]) {
            i += 1;
        }
        let mut end = i;
        while end < b.len() && end - i < 2 && b[end] == b'=' {
            end += 1;
        }
        i = end;
        if matches!(start.checked_sub(1).map(|p| b[p]), Some(b'_' | b'-' | b'.' | b'%')) {
            continue;
        }
        lines.push((start, end));
    }
    let mut runs: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (start, end) in lines {
        if let Some(last) = runs.last_mut() {
            let gap = &b[last.1..start];
            if (gap == b"\n" || gap == b"\r\n") && last.2 >= 40 && last.3 == last.2 && end - start <= last.2 {
                last.1 = end;
                last.3 = end - start;
                continue;
            }
        }
        runs.push((start, end, end - start, end - start));
    }
    runs.into_iter()
        .map(|r| (r.0, r.1))
        .filter(|&(a, e)| (24..=1 << 20).contains(&(e - a)))
        .collect()
}

#[test]
fn base64_runs_of_wrapped_and_glued_text() {
    let line = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9w";
    let wrapped = format!("x {line}\n{line}\nQUJD==\nend");
    let cases = [
        wrapped.as_str(),
        "short words only, nothing long enough here at all",
        "path/_QUJDREVGR0hJSktMTU5PUFFSU1RVVldY and -QUJDREVGR0hJSktMTU5PUFFSU1RVVldY",
        "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo==QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=",
        "a\r\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9w\r\nQUJD\r\n",
    ];
    for s in cases {
        assert_eq!(detect::base64_runs(s), base64_runs_byte_by_byte(s), "{s:?}");
    }
    assert_eq!(detect::base64_runs(&wrapped).len(), 1);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

    #[test]
    fn base64_runs_as_read_byte_by_byte(
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                "[A-Za-z0-9+/]{0,60}",
                proptest::strategy::Just("\n".to_string()),
                proptest::strategy::Just("\r\n".to_string()),
                "[=_.%\\- ]{1,3}",
                "[A-Za-z0-9+/]{40}",
            ],
            0..24,
        )
    ) {
        let s = parts.concat();
        proptest::prop_assert_eq!(detect::base64_runs(&s), base64_runs_byte_by_byte(&s));
    }

    #[test]
    fn base64_runs_of_wrapped_lines_as_read_byte_by_byte(
        width in 38usize..46,
        lines in proptest::collection::vec((1usize..50, 0usize..3), 1..8),
        glue in "[\n =x]{0,2}",
    ) {
        let mut s = String::from(" ");
        for (n, pad) in lines {
            s.push_str(&"Qk".repeat(width).chars().take(n.min(width + 2)).collect::<String>());
            s.push_str(&"=".repeat(pad));
            s.push_str(if n % 3 == 0 { "\r\n" } else { "\n" });
        }
        s.push_str(&glue);
        proptest::prop_assert_eq!(detect::base64_runs(&s), base64_runs_byte_by_byte(&s));
    }
}

#[test]
fn placeholders_are_label_and_number() {
    let k = known::Known::new(vec!["token".into(), "home-path".into()]);
    for n in [0, 1, 9, 10, 99, 1234, u32::MAX] {
        assert_eq!(k.placeholder(1, n), format!("[REDACTED:home-path#{n}]"));
    }
    assert_eq!(k.counts(), vec![("home-path".to_string(), 7, 7)]);
}
