//! The built-in rules: documented token formats first, then the patterns that depend on where
//! a value stands (assignments, flags), then personal data. Order is priority: where two
//! rules match overlapping text, the earlier rule's match is kept (a `GITHUB_TOKEN=ghp_…`
//! assignment is reported as a GitHub token, not as an assignment).
//!
//! Each pattern's `s` group, when it has one, is the secret; the rest of the match is context
//! that stays readable (`postgres://app:[REDACTED:database-password#1]@db`). Sources of the
//! formats are listed in `docs/export.md`.

use super::Check;

/// A built-in rule: name (the placeholder's label), pattern, and the check its match must pass.
pub(crate) struct Builtin {
    pub(crate) name: &'static str,
    pub(crate) pattern: &'static str,
    pub(crate) check: Check,
    /// Words one of which every match holds (any case): a string holding none of any rule's
    /// words is passed over after one scan, and only the rules whose words it holds run.
    pub(crate) keywords: &'static [&'static str],
}

const fn rule(name: &'static str, pattern: &'static str, check: Check, keywords: &'static [&'static str]) -> Builtin {
    Builtin {
        name,
        pattern,
        check,
        keywords,
    }
}

pub(crate) static BUILTIN: &[Builtin] = &[
    rule(
        "private-key",
        r"(?s)-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z)",
        Check::None,
        &["private key"],
    ),
    rule(
        "anthropic-key",
        r"\bsk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{20,}",
        Check::None,
        &["sk-ant-"],
    ),
    rule(
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|\bsk-[A-Za-z0-9]{48}\b",
        Check::None,
        &["sk-"],
    ),
    // No word boundary in front: a token glued to other text is still one when its CRC32
    // checksum holds (see `Check::GithubToken`).
    rule(
        "github-token",
        r"(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})\b",
        Check::GithubToken,
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    ),
    rule(
        "gitlab-token",
        r"\bgl(?:pat|dt|rt|ptt|cbt|soat|ft|imt|agent|oas)-[A-Za-z0-9_-]{20,}",
        Check::None,
        &[
            "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glft-", "glimt-", "glagent-", "gloas-",
        ],
    ),
    rule(
        "slack-token",
        r"\bxox(?:[abposr]|e\.xox[bp])-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}",
        Check::None,
        &["xox", "hooks.slack.com"],
    ),
    rule(
        "stripe-key",
        r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{24,}\b",
        Check::None,
        &["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"],
    ),
    rule(
        "aws-access-key",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
        Check::None,
        &["akia", "asia", "abia", "acca", "a3t"],
    ),
    rule(
        "aws-secret-key",
        r#"(?i:aws_?secret_?(?:access_?)?key)["']?\s*[:=]\s*["']?(?P<s>[A-Za-z0-9/+=]{40})\b"#,
        Check::None,
        &["aws"],
    ),
    rule("gcp-api-key", r"\bAIza[0-9A-Za-z_-]{35}\b", Check::None, &["aiza"]),
    rule(
        "gcp-oauth-secret",
        r"\bGOCSPX-[A-Za-z0-9_-]{28}\b|\bya29\.[A-Za-z0-9_-]{20,}",
        Check::None,
        &["gocspx-", "ya29."],
    ),
    // A service account's key file: the key is a PEM block (`private-key`), its id 40 hex.
    rule(
        "gcp-private-key-id",
        r#"(?i:private_key_id)\\?["']?\s*[:=]\s*\\?["']?(?P<s>[0-9a-f]{40})\b"#,
        Check::None,
        &["private_key_id"],
    ),
    rule(
        "azure-storage-key",
        r"(?i:AccountKey|SharedAccessKey)=(?P<s>[A-Za-z0-9+/]{20,}={0,2})",
        Check::None,
        &["accountkey", "sharedaccesskey"],
    ),
    rule(
        "azure-client-secret",
        r"\b[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}\b",
        Check::None,
        &["q~"],
    ),
    rule(
        "huggingface-token",
        r"\b(?:hf_|api_org_)[A-Za-z0-9]{30,}\b",
        Check::None,
        &["hf_", "api_org_"],
    ),
    rule(
        "sendgrid-key",
        r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
        Check::None,
        &["sg."],
    ),
    rule(
        "pypi-token",
        r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
        Check::None,
        &["pypi-ageichlwas5vcmc"],
    ),
    rule(
        "vault-token",
        r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}",
        Check::None,
        &["hvs.", "hvb.", "hvr."],
    ),
    rule(
        "docker-token",
        r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}",
        Check::None,
        &["dckr_"],
    ),
    // API keys (`SK` + 32 hex) and auth tokens (32 hex) named as Twilio's.
    rule(
        "twilio-token",
        r"\bSK[0-9a-fA-F]{32}\b|(?i:twilio)[^\n]{0,40}?\b(?P<s>[0-9a-f]{32})\b",
        Check::None,
        &["sk", "twilio"],
    ),
    rule(
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}",
        Check::None,
        &["eyj"],
    ),
    rule(
        "database-password",
        r#"\b(?i:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|jdbc:[a-z]+)://[^\s:/@"'<>]*:(?P<s>[^\s@"'<>/]+)@"#,
        Check::NotReference,
        &["://"],
    ),
    // The password of any other URL (`https://user:pass@host`, `git clone`, proxies).
    rule(
        "url-password",
        r#"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'<>]+:(?P<s>[^\s@"'<>/]+)@"#,
        Check::NotReference,
        &["://"],
    ),
    rule(
        "bearer-token",
        r"(?i:\bbearer)\s+(?P<s>[A-Za-z0-9._~+/-]{16,}=*)",
        Check::NotReference,
        &["bearer"],
    ),
    // `Authorization: Basic …`: base64 of `user:password` (checked when decoded).
    rule(
        "basic-auth",
        r"(?i:\bbasic)\s+(?P<s>[A-Za-z0-9+/]{6,}={0,2})",
        Check::BasicAuth,
        &["basic"],
    ),
    // `curl -u user:password`, `--user user:password`.
    rule(
        "cli-password",
        r#"(?:^|\s)(?:-u|--user|--proxy-user)(?:=|[ \t]*)["']?[^\s:"']+:(?P<s>[^\s"']+)"#,
        Check::CliPassword,
        &["-u", "--user", "--proxy-user"],
    ),
    // `.netrc`: `machine HOST login USER password PASSWORD`, on one line or several.
    rule(
        "netrc-password",
        r"\b(?:machine\s+\S+|default)\s+login\s+\S+(?:\s+account\s+\S+)?\s+password\s+(?P<s>\S+)",
        Check::SecretValue,
        &["machine", "default"],
    ),
    // `NAME=value`, `NAME: value`, `"name": "value"`, `--name value` where NAME says it
    // holds a secret; shell, env files, YAML, JSON and code alike.
    rule(
        "secret-assignment",
        concat!(
            r#"(?:^|[^A-Za-z0-9_])["']?(?:"#,
            // The name: `*_KEY`, `*_TOKEN`, `*_SECRET`, `PASSWORD`, … in any case (`api_key`,
            // `ApiKey`, `DB_PASSWORD`, `client_secret`).
            r"[A-Za-z0-9_.-]*(?i:key|token|secret|passw(?:or)?d|pwd|credentials?|auth)",
            r#")\\?["']?[ \t]*(?::=|=|:)[ \t]*\\?["']?(?P<s>[^\s"'`;&|,)}\]<>\\]{6,})"#,
            r#"|--(?:[a-z0-9-]*(?:token|secret|password|passwd|api-key|apikey))(?:=|[ \t]+)["']?(?P<s2>[^\s"'`;&|]{6,})"#
        ),
        Check::SecretValue,
        &["key", "token", "secret", "passw", "pwd", "credential", "auth"],
    ),
    // Any other assignment in an env file or an `export`: its value is a secret only when it
    // looks like one (long, varied, random).
    rule(
        "high-entropy",
        r#"(?m)(?:^[ \t]*(?:export[ \t]+)?|\bexport[ \t]+|\benv[ \t]+|-e[ \t]+)[A-Za-z_][A-Za-z0-9_]*=["']?(?P<s>[A-Za-z0-9+/=_.~-]{20,})"#,
        Check::Entropy,
        &["="],
    ),
    rule(
        "email",
        r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b",
        Check::Email,
        &["@"],
    ),
    // A home folder, and its name in a Claude Code project folder (`-home-NAME-project`: the
    // path with every other character made `-`).
    rule(
        "home-path",
        r"(?:/home|/Users|(?i:[a-z]:\\{1,2}Users))(?:/|\\{1,2})[A-Za-z0-9._-]+|(?:^|[/\\])(?P<s>(?:[A-Za-z]-)?-(?:home|Users)-[A-Za-z0-9_]+)",
        Check::HomePath,
        &["/home", "/users", "\\users", "-home-", "-users-"],
    ),
];
