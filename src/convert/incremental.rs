//! Converting a grown source again: what to append to the target written before.
//!
//! A writer's lines depend only on the conversation up to them (ids derived from the source,
//! timestamps from the source), so a target converted from the same session is a prefix of
//! the new conversion: the rest is what the source gained. Lines a writer adds at the end of
//! a turn (Codex's estimated `token_count`) may be in the old target where the new
//! conversion has none; they are passed over. Anything else that differs means the target
//! is not an earlier conversion of this source, or was changed since (resumed in the target
//! agent, say), and is left alone unless forced.

/// What a conversion does with an existing target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// There is no target yet: everything is written.
    New,
    /// The target already holds the whole conversion: nothing is written.
    UpToDate,
    /// The target holds an earlier conversion: the new lines from this index are appended.
    Append(usize),
    /// The target differs at this line (1-based): not an earlier conversion of the source.
    Differs(u64),
}

/// Compares the existing target's bytes with the conversion's lines; `passable` says which
/// lines of the target may be passed over.
pub fn plan(existing: Option<&[u8]>, new: &[Vec<u8>], passable: fn(&[u8]) -> bool) -> Plan {
    let Some(old) = existing else {
        return Plan::New;
    };
    let Some(body) = old.strip_suffix(b"\n") else {
        // An empty file takes everything; a last line without its newline was cut short.
        return if old.is_empty() {
            Plan::Append(0)
        } else {
            Plan::Differs(1 + old.iter().filter(|&&b| b == b'\n').count() as u64)
        };
    };
    let mut j = 0;
    for (i, l) in body.split(|&b| b == b'\n').enumerate() {
        if new.get(j).is_some_and(|n| n.as_slice() == l) {
            j += 1;
        } else if !passable(l) {
            return Plan::Differs(i as u64 + 1);
        }
    }
    if j == new.len() {
        Plan::UpToDate
    } else {
        Plan::Append(j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &[&str]) -> Vec<Vec<u8>> {
        s.iter().map(|l| l.as_bytes().to_vec()).collect()
    }

    fn tc(l: &[u8]) -> bool {
        l.starts_with(b"tc")
    }

    #[test]
    fn plans() {
        let new = lines(&["a", "b", "tc1", "c"]);
        assert_eq!(plan(None, &new, tc), Plan::New);
        assert_eq!(plan(Some(b""), &new, tc), Plan::Append(0));
        assert_eq!(plan(Some(b"a\nb\n"), &new, tc), Plan::Append(2));
        assert_eq!(plan(Some(b"a\nb\ntc0\n"), &new, tc), Plan::Append(2));
        assert_eq!(plan(Some(b"a\nb\ntc1\nc\n"), &new, tc), Plan::UpToDate);
        assert_eq!(plan(Some(b"a\nx\n"), &new, tc), Plan::Differs(2));
        assert_eq!(plan(Some(b"a\nb\ntc1\nc\nd\n"), &new, tc), Plan::Differs(5));
        assert_eq!(plan(Some(b"a\nb"), &new, tc), Plan::Differs(2));
    }
}
