use super::*;
use serde_json::json;

#[test]
fn reminder_tags_are_escaped_as_the_client_does() {
    assert_eq!(
        escape_reminder_tags("a <system-reminder> b </ system-reminder> <system-reminders>"),
        "a &lt;system-reminder> b &lt;/ system-reminder> <system-reminders>"
    );
    assert_eq!(escape_hook_text("ends with <"), "ends with &lt;");
    assert_eq!(escape_hook_text("a < b"), "a < b");
    assert_eq!(
        escape_reminder_close("x </system-reminder> y < /SYSTEM-REMINDER >"),
        "x &lt;/system-reminder&gt; y &lt;/system-reminder&gt;"
    );
    assert_eq!(unwrap_reminder(&reminder("body")), "body");
    assert_eq!(
        neutralize_signal_tags("<command-name>x</command-name> <b>"),
        "<\\command-name>x<\\/command-name> <b>"
    );
}

#[test]
fn hook_success_is_sent_only_for_prompt_and_session_hooks() {
    let ok = json!({"attachment": {"type": "hook_success", "hookName": "SessionStart:startup",
        "hookEvent": "SessionStart", "content": "hi"}});
    assert_eq!(
        render(&ok, Context::default()),
        Rendered::Messages(vec![Message::Str(reminder("SessionStart:startup hook success: hi"))])
    );
    let stop = json!({"attachment": {"type": "hook_success", "hookName": "Stop",
        "hookEvent": "Stop", "content": "hi"}});
    assert_eq!(render(&stop, Context::default()), Rendered::Messages(vec![]));
}

#[test]
fn recorded_texts_win_over_the_table() {
    let r = json!({"attachment": {"type": "date_change", "newDate": "2026-07-02"},
        "rendered": [{"content": "as written"}]});
    assert_eq!(
        render(&r, Context::default()),
        Rendered::Messages(vec![Message::Str("as written".into())])
    );
    let bad = json!({"attachment": {"type": "date_change", "newDate": "2026-07-02"},
        "rendered": [{"content": ""}]});
    assert!(
        matches!(render(&bad, Context::default()), Rendered::Messages(m) if m.len() == 1 && m[0].texts().unwrap()[0].contains("2026-07-02"))
    );
}
