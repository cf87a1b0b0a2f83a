//! The wrapper text Claude Code puts around a compaction summary, per era, and how
//! `--strip-template` removes it to leave the summary body (`docs/summaries.md#template-eras`).
//!
//! - ≤ 2.1.0: "This session is being continued … The conversation is summarized below:\n",
//!   an `Analysis:` section, `Summary:`, then "Please continue the conversation from where
//!   we left it off …".
//! - 2.1.x: "… The summary below covers the earlier portion of the conversation.\n\n",
//!   `Analysis:` … `Summary:` …, then "If you need specific details from before compaction
//!   … read the full transcript at: …" and, for auto compactions, the continue trailer.
//! - 2.1.88: no `Analysis:` (stripped by the client), optional "Recent messages are preserved
//!   verbatim." and the "Continue the conversation from where it left off …" trailer.

const HEADER_START: &str = "This session is being continued from a previous conversation";
const HEADER_ENDS: &[&str] = &["summarized below:\n", "earlier portion of the conversation.\n"];
const TRAILERS: &[&str] = &[
    "If you need specific details from before compaction",
    "Please continue the conversation from where we left it off",
    "Continue the conversation from where it left off",
    "Recent messages are preserved verbatim.",
];

/// The summary body without header, `Analysis:` section and trailers.
pub fn strip(text: &str) -> String {
    let mut s = text;
    if s.starts_with(HEADER_START)
        && let Some((i, end)) = HEADER_ENDS.iter().filter_map(|e| s.find(e).map(|i| (i, e))).min()
    {
        s = &s[i + end.len()..];
    }
    // Trailers start on a line of their own; cut at the first one.
    let cut = TRAILERS
        .iter()
        .filter_map(|t| {
            s.match_indices(t)
                .map(|(i, _)| i)
                .find(|&i| i == 0 || s.as_bytes()[i - 1] == b'\n')
        })
        .min();
    if let Some(i) = cut {
        s = &s[..i];
    }
    let trimmed = s.trim_start();
    if (trimmed.starts_with("Analysis:") || trimmed.starts_with("<analysis>"))
        && let Some(i) = line_start(s, "Summary:").or_else(|| s.find("<summary>"))
    {
        s = &s[i..];
    }
    let t = s.trim_start();
    let t = t
        .strip_prefix("Summary:")
        .or_else(|| t.strip_prefix("<summary>"))
        .unwrap_or(t);
    let t = t.trim();
    t.strip_suffix("</summary>").unwrap_or(t).trim().to_string()
}

/// Byte index of the first line that starts with `prefix`.
fn line_start(s: &str, prefix: &str) -> Option<usize> {
    s.match_indices(prefix)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || s.as_bytes()[i - 1] == b'\n')
}

#[cfg(test)]
mod tests {
    use super::strip;

    #[test]
    fn era_2_0_with_analysis_and_continue_trailer() {
        let t = "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis:\nthinking about it\n\nSummary:\n1. Primary Request: fix it\n2. Next: test\nPlease continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on.";
        assert_eq!(strip(t), "1. Primary Request: fix it\n2. Next: test");
    }

    #[test]
    fn era_2_1_with_transcript_trailer() {
        let t = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nAnalysis:\nA\n\nSummary:\n1. Do X\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: /x.jsonl\nPlease continue the conversation from where we left it off without asking the user any further questions.";
        assert_eq!(strip(t), "1. Do X");
    }

    #[test]
    fn era_2_1_88_without_analysis() {
        let t = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Do Y\n\nRecent messages are preserved verbatim.\n\nContinue the conversation from where it left off without asking the user any further questions. Resume directly.";
        assert_eq!(strip(t), "1. Do Y");
    }

    #[test]
    fn unknown_text_is_only_trimmed() {
        assert_eq!(strip("  just a note \n"), "just a note");
        // A trailer phrase inside a line is content, not a trailer.
        assert_eq!(
            strip("say: Please continue the conversation from where we left it off"),
            "say: Please continue the conversation from where we left it off"
        );
    }
}
