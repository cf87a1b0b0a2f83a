//! Tool outputs cut to the model's budget, the middle replaced by a marker (X3-X5).

use super::*;

/// Codex's middle cut: the first and last halves of `max_bytes` (on character boundaries)
/// around `…N chars truncated…` or `…N tokens truncated…`. Unchanged when it fits.
pub(super) fn cut_middle(s: &str, max_bytes: usize, tokens: bool) -> String {
    let (head, marker, tail) = cut_middle_parts(s, max_bytes, tokens);
    format!("{head}{marker}{tail}")
}

/// [`cut_middle`] as its three pieces: head, marker (empty when nothing is cut) and tail.
pub fn cut_middle_parts(s: &str, max_bytes: usize, tokens: bool) -> (&str, String, &str) {
    if s.is_empty() {
        return ("", String::new(), "");
    }
    if max_bytes == 0 {
        let removed = if tokens {
            crate::model::approx_tokens(s.len())
        } else {
            s.chars().count()
        };
        return ("", marker(tokens, removed), "");
    }
    if s.len() <= max_bytes {
        return (s, String::new(), "");
    }
    let left = max_bytes / 2;
    let tail_target = s.len() - (max_bytes - left);
    let mut prefix_end = 0;
    let mut suffix_start = s.len();
    let mut removed_chars = 0;
    let mut in_suffix = false;
    for (i, c) in s.char_indices() {
        let end = i + c.len_utf8();
        if end <= left {
            prefix_end = end;
        } else if i >= tail_target {
            if !in_suffix {
                suffix_start = i;
                in_suffix = true;
            }
        } else {
            removed_chars += 1;
        }
    }
    let suffix_start = suffix_start.max(prefix_end);
    let removed = if tokens {
        crate::model::approx_tokens(s.len() - max_bytes)
    } else {
        removed_chars
    };
    (&s[..prefix_end], marker(tokens, removed), &s[suffix_start..])
}

pub(super) fn marker(tokens: bool, n: usize) -> String {
    if tokens {
        format!("…{n} tokens truncated…")
    } else {
        format!("…{n} chars truncated…")
    }
}

/// `text` cut to `budget`, as Codex cuts a tool output it records.
pub fn truncate_text(text: &str, budget: Budget) -> String {
    match budget {
        Budget::Bytes(n) => cut_middle(text, n, false),
        Budget::Tokens(n) => truncate_tokens(text, n),
    }
}

/// Keeps the head and tail of `text` within `tokens` (4 bytes each) around Codex's
/// `…N tokens truncated…` marker; unchanged when it fits.
pub fn truncate_tokens(text: &str, tokens: usize) -> String {
    if text.is_empty() || (tokens > 0 && text.len() <= tokens * 4) {
        return text.to_string();
    }
    cut_middle(text, tokens.saturating_mul(4), true)
}

/// What recording did to one list output.
#[derive(Default)]
pub(super) struct ListCut {
    pub(super) cut: bool,
    pub(super) omitted: usize,
    pub(super) empty: usize,
}

/// A list output as Codex records it: empty text parts dropped, text parts kept while the
/// budget lasts, the first that does not fit cut, the rest omitted and counted at the end.
pub(super) fn truncate_parts(parts: Vec<OutPart>, budget: Budget) -> (Vec<OutPart>, ListCut) {
    let mut out = Vec::with_capacity(parts.len());
    let mut remaining = budget.amount();
    let mut r = ListCut::default();
    let mut omitted_audio = 0;
    for p in parts {
        match p {
            OutPart::InputText { text } if text.is_empty() => r.empty += 1,
            OutPart::InputText { text } => {
                if remaining == 0 {
                    r.omitted += 1;
                    continue;
                }
                let cost = budget.cost(&text);
                if cost <= remaining {
                    remaining -= cost;
                    out.push(OutPart::InputText { text });
                } else {
                    let snippet = truncate_text(&text, budget.with(remaining));
                    if snippet.is_empty() {
                        r.omitted += 1;
                    } else {
                        r.cut = true;
                        out.push(OutPart::InputText { text: snippet });
                    }
                    remaining = 0;
                }
            }
            OutPart::InputAudio { audio_url } => {
                // Codex estimates audio from its decoded duration when it can; cctool uses its
                // fallback, the size of the URL.
                let tokens = crate::model::approx_tokens(audio_url.len());
                let cost = match budget {
                    Budget::Bytes(_) => tokens * 4,
                    Budget::Tokens(_) => tokens,
                };
                if cost <= remaining {
                    remaining -= cost;
                    out.push(OutPart::InputAudio { audio_url });
                } else {
                    omitted_audio += 1;
                }
            }
            other => out.push(other),
        }
    }
    if r.omitted > 0 {
        out.push(OutPart::InputText {
            text: format!("[omitted {} text items ...]", r.omitted),
        });
    }
    if omitted_audio > 0 {
        r.omitted += omitted_audio;
        out.push(OutPart::InputText {
            text: format!("[omitted {omitted_audio} audio items ...]"),
        });
    }
    (out, r)
}

/// Recording: a tool output cut to the budget (X3–X5).
pub(super) fn record(item: &mut Wire, budget: Budget, fired: &mut BTreeMap<&'static str, usize>) {
    let output = match item {
        Wire::FunctionCallOutput { output, .. } | Wire::CustomToolCallOutput { output, .. } => output,
        _ => return,
    };
    match std::mem::replace(output, Output::Text(String::new())) {
        Output::Text(t) => {
            let cut = truncate_text(&t, budget);
            if cut != t {
                bump(fired, "X3");
            }
            *output = Output::Text(cut);
        }
        Output::Parts(parts) => {
            let (parts, r) = truncate_parts(parts, budget);
            if r.cut {
                bump(fired, "X3");
            }
            if r.omitted > 0 {
                bump(fired, "X4");
            }
            if r.empty > 0 {
                bump(fired, "X5");
            }
            *output = Output::Parts(parts);
        }
    }
}

pub(super) fn bump(fired: &mut BTreeMap<&'static str, usize>, rule: &'static str) {
    *fired.entry(rule).or_default() += 1;
}
