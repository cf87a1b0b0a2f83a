//! Keeping transcript text from controlling the terminal.
//!
//! Tool output in transcripts holds raw ANSI and OSC sequences (colours, titles, even
//! hyperlinks); printed as-is they would restyle or retitle the user's terminal. Text
//! output escapes every C0 and C1 control character except newline and tab, and JSON
//! output on a terminal escapes C1 characters, which JSON allows unescaped.

/// Escapes control characters other than `\n` and `\t` as `\x1b`-style or `\u{9b}` text.
pub fn escape_str(s: &str) -> String {
    if !s.chars().any(needs_escape) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
            if (c as u32) < 0x100 {
                out.push_str(&format!("\\x{:02x}", c as u32));
            } else {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Rewrites UTF-8 encoded C1 controls (U+0080–U+009F) inside JSON text as `\u00XX`
/// escapes: the JSON value is unchanged, the terminal is safe.
pub fn escape_c1_in_json(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let has_c1 = bytes.windows(2).any(|w| w[0] == 0xC2 && (0x80..=0x9F).contains(&w[1]));
    if !has_c1 {
        return std::borrow::Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() + 16);
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0xC2 && i + 1 < bytes.len() && (0x80..=0x9F).contains(&bytes[i + 1]) {
            out.extend_from_slice(format!("\\u{:04x}", bytes[i + 1]).as_bytes());
            i += 2;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls_only() {
        assert_eq!(escape_str("a\x1b[31mred\x07\nb\tc"), "a\\x1b[31mred\\x07\nb\tc");
        assert_eq!(escape_str("plain ✓"), "plain ✓");
        assert_eq!(escape_str("\u{9b}x"), "\\x9bx");
        assert_eq!(escape_str("a\u{202e}b"), "a\\u{202e}b");
    }

    #[test]
    fn c1_in_json_becomes_escapes() {
        let s = "{\"a\":\"x\u{9b}y\"}";
        let out = escape_c1_in_json(s.as_bytes());
        assert_eq!(&*out, br#"{"a":"x\u009by"}"#);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["a"], "x\u{9b}y");
    }
}
