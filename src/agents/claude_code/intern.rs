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

#[derive(Default, Debug)]
pub struct Interner {
    uuids: FxHashMap<Packed, Id>,
    others: FxHashMap<Arc<str>, Id>,
    rev: Vec<Key>,
}

fn pack(s: &str) -> Option<Packed> {
    let b = s.as_bytes();
    if b.len() != 36 {
        return None;
    }
    let mut v: u128 = 0;
    for (i, &c) in b.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if c != b'-' {
                return None;
            }
            continue;
        }
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return None,
        };
        v = (v << 4) | u128::from(d);
    }
    Some([(v >> 64) as u64, v as u64])
}

impl Interner {
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

    pub fn get(&self, s: &str) -> Option<Id> {
        match pack(s) {
            Some(v) => self.uuids.get(&v).copied(),
            None => self.others.get(s).copied(),
        }
    }

    pub fn len(&self) -> usize {
        self.rev.len()
    }

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
}
