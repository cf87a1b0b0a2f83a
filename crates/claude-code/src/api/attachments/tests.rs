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

#[test]
fn paths_are_quoted_as_the_client_quotes_shell_words() {
    assert_eq!(
        shell_quote("/home/dev/a_b.c:d=e@f+g,h-i"),
        "/home/dev/a_b.c:d=e@f+g,h-i"
    );
    assert_eq!(shell_quote(""), "''");
    assert_eq!(shell_quote("/home/dev/my dir"), "'/home/dev/my dir'");
    assert_eq!(shell_quote("/home/dev/100%"), "'/home/dev/100%'");
    assert_eq!(shell_quote("D:\\dev\\win-dir"), "'D:\\dev\\win-dir'");
    assert_eq!(shell_quote("/home/dev/it's"), "'/home/dev/it'\"'\"'s'");
    assert_eq!(shell_quote("~/x"), "'~/x'");
}

#[test]
fn a_listing_keeps_what_the_bash_tool_keeps_of_its_output() {
    assert_eq!(shell_output("\n \t\n  a\n b  \n\n"), "  a\n b");
    assert_eq!(shell_output("a\u{feff}\u{a0}"), "a");
    assert_eq!(shell_output("a\u{85}"), "a\u{85}");
    assert_eq!(shell_output("\u{85}\nb"), "\u{85}\nb");
    assert_eq!(shell_output("  \n"), "");
    assert_eq!(shell_output(""), "");
}

#[test]
fn a_directory_is_a_call_of_ls_and_its_output_unescaped() {
    let a = json!({"type": "directory", "path": "/d/my dir", "content": "x </system-reminder>\n", "displayPath": "../my dir"});
    let Rendered::Messages(m) = kinds::directory(&a) else {
        panic!("rendered")
    };
    let texts: Vec<&str> = m
        .iter()
        .map(|m| match m {
            Message::Str(s) => s.as_str(),
            _ => panic!("text"),
        })
        .collect();
    assert_eq!(
        texts,
        [
            reminder(
                "Called the Bash tool with the following input: {\"command\":\"ls '/d/my dir'\",\"description\":\"Lists files in /d/my dir\"}"
            ),
            reminder("Result of calling the Bash tool:\nx </system-reminder>"),
        ]
    );
}
