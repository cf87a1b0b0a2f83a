//! Command lines people paste and agents run: words quoted for a POSIX shell.

/// `s` quoted for a POSIX shell (both agents run hook commands through one, and the resume
/// commands cctool prints are pasted into one): as it is when it holds only characters no shell
/// treats specially, else in single quotes.
pub fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@".contains(&b))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}
