//! Finding every occurrence of a few fixed needles (the markers of compaction records) in
//! one pass where the needles allow it.
//!
//! A SIMD substring search costs a pass over the bytes per needle, and the bytes of a large
//! file come from memory, not the caches. Needles of one length that agree on two bytes at the
//! same offsets (`compact_boundary` and `isCompactSummary` have `u` at 10 and `y` at 15) share
//! a packed pair prefilter: one pass compares those two bytes at every position, and each
//! candidate is checked against every needle. On 218 MB of the benchmark corpus's Claude Code
//! files this takes about half the time of two memmem passes (10–15 ms against 21–28 ms in
//! the same runs), with 207,000 candidates.
//! Other needle sets of two or more are searched together by aho-corasick's packed (Teddy)
//! SIMD searcher, which reports the leftmost start of any needle from a position: asked again
//! from the next byte each time, it gives every start (Codex's three markers: one pass
//! instead of three memmem passes, 30 ms to 12 ms on 160 MiB). A single needle of two bytes
//! or more is its own shared pair (its first and last bytes); a set neither way can take gets
//! a memmem pass per needle. [`Needles::texts`] is for uuids, whose format's bytes are
//! everywhere in a transcript.

use memchr::memmem;

/// The needles, searched for together.
pub struct Needles<'n> {
    needles: Vec<&'n [u8]>,
    finders: Vec<memmem::Finder<'n>>,
    #[cfg(target_arch = "x86_64")]
    shared: Option<memchr::arch::x86_64::avx2::packedpair::Finder>,
    /// Needles without a shared pair, searched in one pass.
    packed: Option<aho_corasick::packed::Searcher>,
}

impl<'n> Needles<'n> {
    /// A searcher for `needles`, which must outlive it; the strategy is chosen here from what
    /// the needles allow (module docs).
    pub fn new(needles: &[&'n [u8]]) -> Needles<'n> {
        Needles::with_pair(needles, shared_pair(needles, None))
    }

    /// [`new`](Self::new) for texts that share their format's bytes with much of the text
    /// searched, as uuids do in a transcript (dashes, the version digit): those bytes match at
    /// every uuid, so a set of them is searched by the packed searcher, never by a shared
    /// pair, and a single one's pair is taken from bytes other than `common`. (A general
    /// substring search, which picks the bytes it compares by how rare they are in text at
    /// large, picks the dashes too.)
    pub fn texts(needles: &[&'n [u8]], common: u8) -> Needles<'n> {
        let pair = match needles {
            [_] => shared_pair(needles, Some(common)),
            _ => None,
        };
        Needles::with_pair(needles, pair)
    }

    fn with_pair(needles: &[&'n [u8]], pair: Option<(u8, u8)>) -> Needles<'n> {
        Needles {
            needles: needles.to_vec(),
            finders: needles.iter().map(|&n| memmem::Finder::new(n)).collect(),
            #[cfg(target_arch = "x86_64")]
            shared: pair.and_then(|(i, j)| {
                let pair = memchr::arch::all::packedpair::Pair::with_indices(needles[0], i, j)?;
                memchr::arch::x86_64::avx2::packedpair::Finder::with_pair(needles[0], pair)
            }),
            packed: (needles.len() > 1 && pair.is_none())
                .then(|| aho_corasick::packed::Searcher::new(needles.iter().copied()))
                .flatten(),
        }
    }

    /// The start of every occurrence of any needle in `hay` (overlapping ones included), in
    /// order, each once.
    pub fn find_all(&self, hay: &[u8]) -> Vec<usize> {
        let mut hits = Vec::new();
        let mut from = 0;
        #[cfg(target_arch = "x86_64")]
        if let Some(pre) = &self.shared {
            // A candidate is a position where the shared pair matches; the prefilter must be
            // given at least its minimum length, and the few bytes left after that are
            // searched needle by needle below.
            while hay.len() - from >= pre.min_haystack_len() {
                let Some(at) = pre.find_prefilter(&hay[from..]) else {
                    from = hay.len();
                    break;
                };
                let at = from + at;
                if self.needles.iter().any(|n| hay[at..].starts_with(n)) {
                    hits.push(at);
                }
                from = at + 1;
            }
        }
        if let Some(packed) = &self.packed {
            while let Some(m) = packed.find_in(hay, aho_corasick::Span::from(from..hay.len())) {
                hits.push(m.start());
                from = m.start() + 1;
            }
            return hits;
        }
        let rest = &hay[from..];
        let before = hits.len();
        for f in &self.finders {
            // Overlapping occurrences too (`find_iter` skips them), as the prefilter finds them.
            let mut at = 0;
            while let Some(i) = f.find(&rest[at..]) {
                hits.push(from + at + i);
                at += i + 1;
            }
        }
        hits[before..].sort_unstable();
        hits.dedup();
        hits
    }
}

/// Two offsets at which every needle has the same byte, other than `common`, as far apart as
/// possible (bytes next to each other in text are correlated, so a distant pair gives fewer
/// candidates), when the needles all have one length of at least two bytes and there are two
/// such offsets.
fn shared_pair(needles: &[&[u8]], common: Option<u8>) -> Option<(u8, u8)> {
    let first = needles.first()?;
    if first.len() < 2 || first.len() > usize::from(u8::MAX) || needles.iter().any(|n| n.len() != first.len()) {
        return None;
    }
    let mut agree = (0..first.len()).filter(|&i| Some(first[i]) != common && needles.iter().all(|n| n[i] == first[i]));
    let lo = agree.next()?;
    let hi = agree.next_back()?;
    Some((u8::try_from(lo).ok()?, u8::try_from(hi).ok()?))
}

/// Test text made of the needles' own bytes and `extra`, with needles planted at random
/// places (the first at the very end): where searches for them go wrong, if they do.
#[cfg(test)]
pub(crate) fn planted(needles: &[&[u8]], extra: &[u8], len: usize, seed: &mut u64) -> Vec<u8> {
    let alphabet: Vec<u8> = needles
        .iter()
        .flat_map(|n| n.iter().copied())
        .chain(extra.iter().copied())
        .collect();
    let mut hay: Vec<u8> = (0..len)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            alphabet[(*seed % alphabet.len() as u64) as usize]
        })
        .collect();
    for k in 0..len / 40 + 2 {
        let n = needles[k % needles.len()];
        if n.len() <= hay.len() {
            let at = if k == 0 {
                hay.len() - n.len()
            } else {
                (*seed as usize >> 3) % (hay.len() - n.len() + 1)
            };
            hay[at..at + n.len()].copy_from_slice(n);
            *seed = seed.rotate_left(17).wrapping_mul(31);
        }
    }
    hay
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every occurrence, the plain way.
    fn naive(needles: &[&[u8]], hay: &[u8]) -> Vec<usize> {
        (0..hay.len())
            .filter(|&i| needles.iter().any(|n| hay[i..].starts_with(n)))
            .collect()
    }

    #[test]
    fn the_shared_pair_is_the_farthest_apart_of_the_agreeing_offsets() {
        assert_eq!(
            shared_pair(&[b"compact_boundary", b"isCompactSummary"], None),
            Some((10, 15))
        );
        assert_eq!(shared_pair(&[b"abc", b"abd"], None), Some((0, 1)));
        assert_eq!(shared_pair(&[b"abc", b"xbd"], None), None);
        assert_eq!(shared_pair(&[b"\"compacted\"", b"\"session_meta\""], None), None);
        assert_eq!(shared_pair(&[b"a"], None), None);
        // A uuid alone pairs its first and last bytes; uuids together agree only on dashes.
        let (u1, u2) = (
            b"d4bc9207-0bd9-4d8c-bc53-1cfae5b4d060",
            b"b76569bf-0050-4c2e-9eb9-8fc1adf36f48",
        );
        assert_eq!(shared_pair(&[u1], Some(b'-')), Some((0, 35)));
        assert_eq!(shared_pair(&[u1, u2], None), Some((8, 23)));
        let both = Needles::texts(&[u1, u2], b'-');
        assert!(both.packed.is_some());
        #[cfg(target_arch = "x86_64")]
        assert!(both.shared.is_none());
    }

    #[test]
    fn finds_what_a_plain_search_finds() {
        let sets: &[&[&[u8]]] = &[
            &[b"compact_boundary", b"isCompactSummary"],
            &[b"\"session_meta\"", b"\"compacted\"", b"\"thread_rolled_back\""],
            &[b"aaaa", b"abaa"],
            &[b"x"],
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for needles in sets {
            let search = Needles::new(needles);
            for len in [0usize, 1, 15, 16, 31, 32, 33, 47, 64, 100, 1000, 5000] {
                let hay = planted(needles, b"", len, &mut seed);
                assert_eq!(
                    search.find_all(&hay),
                    naive(needles, &hay),
                    "{needles:?} in {len} bytes"
                );
            }
        }
    }

    /// [`Needles::texts`]: single needles of every shape, dashes at
    /// their ends and nothing else included, and sets of uuids and of other texts.
    #[test]
    fn texts_find_what_a_plain_search_finds() {
        let single: &[&str] = &[
            "d4bc9207-0bd9-4d8c-bc53-1cfae5b4d060",
            "aaaa",
            "a-a",
            "--x--",
            "---",
            "ab",
            "a",
            "é-ü",
        ];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for needle in single {
            let n = &[needle.as_bytes()];
            let search = Needles::texts(n, b'-');
            for len in [0usize, 1, 2, 5, 31, 32, 33, 36, 37, 64, 65, 200, 3000] {
                let hay = planted(n, b"-0a\n\"", len, &mut seed);
                assert_eq!(search.find_all(&hay), naive(n, &hay), "{needle:?} in {len} bytes");
            }
        }
        let sets: &[&[&str]] = &[
            &[
                "d4bc9207-0bd9-4d8c-bc53-1cfae5b4d060",
                "b76569bf-0050-4c2e-9eb9-8fc1adf36f48",
            ],
            &["ab", "abc", "b", "ca"],
            &["x"],
            &["aaaa", "aa-a", "a"],
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for texts in sets {
            let needles: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
            let search = Needles::texts(&needles, b'-');
            for len in [0usize, 1, 3, 16, 33, 36, 64, 100, 2000] {
                let hay = planted(&needles, b"\n-", len, &mut seed);
                assert_eq!(search.find_all(&hay), naive(&needles, &hay), "{texts:?} in {len} bytes");
            }
        }
    }
}
