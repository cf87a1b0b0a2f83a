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
pub struct Builtin {
    pub name: &'static str,
    pub pattern: &'static str,
    pub check: Check,
}

const fn rule(name: &'static str, pattern: &'static str, check: Check) -> Builtin {
    Builtin { name, pattern, check }
}

pub static BUILTIN: &[Builtin] = &[
    rule(
        "private-key",
        r"(?s)-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z)",
        Check::None,
    ),
    rule(
        "anthropic-key",
        r"\bsk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{20,}",
        Check::None,
    ),
    rule(
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|\bsk-[A-Za-z0-9]{48}\b",
        Check::None,
    ),
    rule(
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})\b",
        Check::None,
    ),
    rule(
        "gitlab-token",
        r"\bgl(?:pat|dt|rt|ptt|cbt|soat|ft|imt|agent|oas)-[A-Za-z0-9_-]{20,}",
        Check::None,
    ),
    rule(
        "slack-token",
        r"\bxox(?:[abposr]|e\.xox[bp])-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}",
        Check::None,
    ),
    rule(
        "stripe-key",
        r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{24,}\b",
        Check::None,
    ),
    rule(
        "aws-access-key",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
        Check::None,
    ),
    rule(
        "aws-secret-key",
        r#"(?i:aws_?secret_?(?:access_?)?key)["']?\s*[:=]\s*["']?(?P<s>[A-Za-z0-9/+=]{40})\b"#,
        Check::None,
    ),
    rule("gcp-api-key", r"\bAIza[0-9A-Za-z_-]{35}\b", Check::None),
    rule(
        "gcp-oauth-secret",
        r"\bGOCSPX-[A-Za-z0-9_-]{28}\b|\bya29\.[A-Za-z0-9_-]{20,}",
        Check::None,
    ),
    rule(
        "azure-storage-key",
        r"(?i:AccountKey|SharedAccessKey)=(?P<s>[A-Za-z0-9+/]{20,}={0,2})",
        Check::None,
    ),
    rule(
        "azure-client-secret",
        r"\b[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}\b",
        Check::None,
    ),
    rule(
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}",
        Check::None,
    ),
    rule(
        "database-password",
        r#"\b(?i:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|jdbc:[a-z]+)://[^\s:/@"'<>]*:(?P<s>[^\s@"'<>/]+)@"#,
        Check::NotReference,
    ),
    rule(
        "bearer-token",
        r"(?i:\bbearer)\s+(?P<s>[A-Za-z0-9._~+/-]{16,}=*)",
        Check::NotReference,
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
            r#")["']?[ \t]*(?::=|=|:)[ \t]*["']?(?P<s>[^\s"'`;&|,)}\]<>]{6,})"#,
            r#"|--(?:[a-z0-9-]*(?:token|secret|password|passwd|api-key|apikey))(?:=|[ \t]+)["']?(?P<s2>[^\s"'`;&|]{6,})"#
        ),
        Check::SecretValue,
    ),
    // Any other assignment in an env file or an `export`: its value is a secret only when it
    // looks like one (long, varied, random).
    rule(
        "high-entropy",
        r#"(?m)(?:^[ \t]*(?:export[ \t]+)?|\bexport[ \t]+|\benv[ \t]+|-e[ \t]+)[A-Za-z_][A-Za-z0-9_]*=["']?(?P<s>[A-Za-z0-9+/=_.~-]{20,})"#,
        Check::Entropy,
    ),
    rule(
        "email",
        r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b",
        Check::Email,
    ),
    rule(
        "home-path",
        r"(?:/home|/Users|(?i:[a-z]:\\{1,2}Users))(?:/|\\{1,2})[A-Za-z0-9._-]+",
        Check::HomePath,
    ),
];
