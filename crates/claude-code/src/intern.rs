//! Interning uuids and message ids as dense `u32`s.
//!
//! A multi-GB transcript has hundreds of thousands of uuids; keeping them as strings in
//! every node and map would cost more than the rest of the index together. Canonical
//! lowercase uuids are packed into a `u128`; anything else (hand-edited files, other tools)
//! is kept as a string so that no value is ever confused with another.

use std::sync::Arc;

use rustc_hash::FxHashMap;

/// A packed uuid as two words: 8-byte alignment keeps a map slot at 24 bytes (a `u128` key
/// would pad it to 32).
type Packed = [u64; 2];

#[derive(Clone, Debug)]
enum Key {
    Uuid(Packed),
    /// Shared with the map key, so each text is stored once.
    Text(Arc<str>),
}

/// An interned uuid (or other id text). It numbers the distinct ids of a transcript, which is
/// not the numbering of its messages: a message's place in the index is a position (`u32`,
/// into `Transcript::nodes`), and the two must never be mixed up, hence a type of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(pub(crate) u32);

impl Id {
    /// Its place in the interner's tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Interns a transcript's uuids (packed, without their text) and its other ids into dense [`Id`]s.
#[derive(Default, Debug)]
pub struct Interner {
    uuids: FxHashMap<Packed, Id>,
    others: FxHashMap<Arc<str>, Id>,
    rev: Vec<Key>,
}

/// The value of each lowercase hex digit; 0x80 for every other byte.
const HEX: [u8; 256] = {
    let mut t = [0x80u8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

fn pack(s: &str) -> Option<Packed> {
    let b: &[u8; 36] = s.as_bytes().try_into().ok()?;
    if b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    // Without a branch per digit: an interned id is packed for every uuid of every row, and
    // the byte loop with its checks was 2% of `scan`.
    let (mut v, mut bad) = (0u128, 0u8);
    for range in [0..8, 9..13, 14..18, 19..23, 24..36] {
        for &c in &b[range] {
            let d = HEX[c as usize];
            bad |= d;
            v = (v << 4) | u128::from(d & 0xf);
        }
    }
    (bad & 0x80 == 0).then_some([(v >> 64) as u64, v as u64])
}

impl Interner {
    /// The id of `s`, interning it if new.
    pub fn intern(&mut self, s: &str) -> Id {
        let next = Id(self.rev.len() as u32);
        match pack(s) {
            Some(v) => *self.uuids.entry(v).or_insert_with(|| {
                self.rev.push(Key::Uuid(v));
                next
            }),
            None => {
                if let Some(&id) = self.others.get(s) {
                    return id;
                }
                let text: Arc<str> = Arc::from(s);
                self.others.insert(Arc::clone(&text), next);
                self.rev.push(Key::Text(text));
                next
            }
        }
    }

    /// The id of `s`, if interned.
    pub fn get(&self, s: &str) -> Option<Id> {
        match pack(s) {
            Some(v) => self.uuids.get(&v).copied(),
            None => self.others.get(s).copied(),
        }
    }

    /// How many distinct strings are interned.
    pub fn len(&self) -> usize {
        self.rev.len()
    }

    /// Whether nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.rev.is_empty()
    }

    /// The original text of an id.
    pub fn text(&self, id: Id) -> String {
        match &self.rev[id.index()] {
            Key::Text(s) => s.to_string(),
            Key::Uuid([hi, lo]) => {
                let h = format!("{hi:016x}{lo:016x}");
                format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_both_kinds() {
        let mut i = Interner::default();
        let a = i.intern("0a1b2c3d-0000-4000-8000-00000000abcd");
        let b = i.intern("not-a-uuid");
        let c = i.intern("0A1B2C3D-0000-4000-8000-00000000ABCD");
        assert_eq!(i.intern("0a1b2c3d-0000-4000-8000-00000000abcd"), a);
        assert_ne!(a, c, "uuids differing in case are different strings to JavaScript");
        assert_eq!(i.text(a), "0a1b2c3d-0000-4000-8000-00000000abcd");
        assert_eq!(i.text(b), "not-a-uuid");
        assert_eq!(i.text(c), "0A1B2C3D-0000-4000-8000-00000000ABCD");
        assert_eq!(i.get("missing"), None);
    }

    /// The packed form is kept only for what it gives back exactly: canonical lowercase uuids.
    #[test]
    fn packs_lowercase_canonical_uuids_only() {
        let u = "0a1b2c3d-4e5f-6789-abcd-ef0123456789";
        assert_eq!(pack(u), Some([0x0a1b_2c3d_4e5f_6789, 0xabcd_ef01_2345_6789]));
        for bad in [
            "0a1b2c3d-4e5f-6789-abcd-ef012345678",
            "0a1b2c3d-4e5f-6789-abcd-ef01234567890",
            "0a1b2c3d-4e5f-6789-abcd-Ef0123456789",
            "0a1b2c3d-4e5f-6789-abcdaef0123456789",
            "0a1b2c3d4-e5f-6789-abcd-ef0123456789",
            "0a1b2c3d-4e5f-6789-abcd-ef012345678g",
            "0a1b2c3d-4e5f-6789-abcd-ef01234567-9",
            "g0a1b2c3-4e5f-6789-abcd-ef0123456789",
        ] {
            assert_eq!(pack(bad), None, "{bad}");
        }
        // Every byte at every digit place: only the lowercase hex digits pack.
        for at in (0..36).filter(|i| ![8, 13, 18, 23].contains(i)) {
            for c in 0..=255u8 {
                let mut b = u.as_bytes().to_vec();
                b[at] = c;
                let Ok(s) = std::str::from_utf8(&b) else { continue };
                assert_eq!(
                    pack(s).is_some(),
                    c.is_ascii_digit() || (b'a'..=b'f').contains(&c),
                    "{s}"
                );
            }
        }
    }
}
