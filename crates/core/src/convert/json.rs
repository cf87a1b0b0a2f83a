//! JSON strings written directly into a line, byte for byte as serde_json's compact writer
//! writes them: the writers of `convert` write their lines without building JSON values.

/// `s` as a JSON string, escaped as serde_json escapes it (`"`, `\\`, and the control
/// characters: `\b \t \n \f \r` by name, the others as `\u00xx`), and nothing else.
/// Runs of eight bytes with nothing to escape are passed over at once: the text and tool
/// output of a conversation escape one byte in tens, and serde_json looks at each.
pub fn json_str(out: &mut Vec<u8>, s: &str) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    json_str_inner(out, s);
    out.push(b'"');
}

/// [`json_str`] without the quotes: the escaped text.
pub fn json_str_inner(out: &mut Vec<u8>, s: &str) {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    // The bytes of `w` below 0x20, `"` or a backslash, each flagged by its high bit: the lowest
    // flag is exact (a borrow only flags bytes above a true one).
    let special = |w: u64| {
        let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
        (w.wrapping_sub(ONES * 0x20) & !w & HIGH)
            | zero(w ^ (ONES * u64::from(b'"')))
            | zero(w ^ (ONES * u64::from(b'\\')))
    };
    let b = s.as_bytes();
    let (mut run, mut i) = (0, 0);
    while i < b.len() {
        if let Some(w) = b.get(i..i + 8) {
            match special(u64::from_le_bytes(w.try_into().unwrap_or_default())) {
                0 => {
                    i += 8;
                    continue;
                }
                m => i += (m.trailing_zeros() / 8) as usize,
            }
        }
        let c = b[i];
        let named = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            b'\t' => b't',
            b'\n' => b'n',
            0x0c => b'f',
            b'\r' => b'r',
            0..0x20 => b'u',
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&b[run..i]);
        out.extend_from_slice(&[b'\\', named]);
        if named == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[b'0', b'0', HEX[usize::from(c >> 4)], HEX[usize::from(c & 0xf)]]);
        }
        i += 1;
        run = i;
    }
    out.extend_from_slice(&b[run..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`json_str`] is serde_json's string: on every byte alone, in every place of a run of
    /// eight, and on any text.
    #[test]
    fn json_str_is_serde_jsons() {
        let theirs = |s: &str| serde_json::to_vec(s).unwrap();
        let ours = |s: &str| {
            let mut v = Vec::new();
            json_str(&mut v, s);
            v
        };
        for c in (0u32..0x800).filter_map(char::from_u32).chain(['\u{ffff}', '😀']) {
            for at in 0..20 {
                let s: String = "abcdefghijklmnopqrst"
                    .chars()
                    .take(at)
                    .chain([c])
                    .chain("xyz".chars())
                    .collect();
                assert_eq!(ours(&s), theirs(&s), "{s:?}");
            }
        }
        proptest::proptest!(|(s in "(?s).{0,200}", t in "[ -~\\x00-\\x1f\"\\\\é😀]{0,100}")| {
            proptest::prop_assert_eq!(ours(&s), theirs(&s));
            proptest::prop_assert_eq!(ours(&t), theirs(&t));
        });
    }
}
