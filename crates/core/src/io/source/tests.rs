use super::*;

/// Windows of a few bytes each, so that many are in flight at once.
fn windows(bytes: &[u8], size: usize) -> Vec<(usize, usize)> {
    (0..bytes.len())
        .step_by(size)
        .map(|a| (a, (a + size).min(bytes.len())))
        .collect()
}

/// A mapped source cut after it was read: an error until an output made from it is
/// settled, none after.
#[test]
fn a_truncation_after_the_output_is_settled_is_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, vec![b'x'; MMAP_MIN as usize + 4096]).unwrap();
    let old = SystemTime::now() - COLD_AFTER * 2;
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    for settle_first in [false, true] {
        let src = Source::open_path(&path, MmapChoice::Auto).unwrap();
        assert!(matches!(src.backing, Backing::Mapped(_)), "the file is mapped");
        if settle_first {
            src.settle().unwrap();
        }
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(100)
            .unwrap();
        assert_eq!(src.check().is_ok(), settle_first);
        std::fs::write(&path, vec![b'x'; MMAP_MIN as usize + 4096]).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
}

#[test]
fn both_parallel_readers_give_every_window_in_order() {
    let bytes: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
    let w = windows(&bytes, 7);
    let f = |at: u64, chunk: &[u8], last: bool| (at, chunk.len(), last);
    for in_pool in [false, true] {
        let (mut got, released) = (Vec::new(), std::cell::RefCell::new(Vec::new()));
        let mut sink = |t| got.push(t);
        let done = |a: u64, n: u64| released.borrow_mut().push((a, n));
        let ok = || Ok(());
        let mut sink = |t| {
            sink(t);
            Ok(())
        };
        let job = Windows {
            bytes: &bytes,
            windows: &w,
            per_round: 3,
            f: &f,
            check: &ok,
        };
        let r = if in_pool {
            job.rounds_in_pool(&mut sink, done)
        } else {
            job.stream(&mut sink, done)
        };
        r.unwrap();
        let want: Vec<_> = w.iter().map(|&(a, b)| (a as u64, b - a, b == bytes.len())).collect();
        assert_eq!(got, want, "in pool: {in_pool}");
        // Pages are released in file order, all of them, each after its results.
        let covered: u64 = released.borrow().iter().map(|&(_, n)| n).sum();
        assert_eq!(covered, bytes.len() as u64);
        assert!(released.borrow().windows(2).all(|p| p[0].0 < p[1].0));
    }
}

#[test]
fn a_failed_size_check_stops_the_streaming_reader() {
    let bytes = vec![b'x'; 1000];
    let w = windows(&bytes, 10);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    // The file "shrinks" after a few windows.
    let check = || match calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
        0..5 => Ok(()),
        _ => Err(io::Error::other("shrank")),
    };
    let mut got = 0;
    let job = Windows {
        bytes: &bytes,
        windows: &w,
        per_round: 2,
        f: &|_, c: &[u8], _| c.len(),
        check: &check,
    };
    let r = job.stream(
        &mut |_| {
            got += 1;
            Ok(())
        },
        |_, _| {},
    );
    assert_eq!(r.unwrap_err().to_string(), "shrank");
    assert!(got < w.len());
}

/// Lines of every shape a session file has: CRLF, blank, long, a marker at any place, and
/// (when `tail`) a last line without its newline.
fn lines_of_every_shape(n: usize, tail: bool) -> Vec<u8> {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut out = Vec::new();
    for i in 0..n {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let pad = "y".repeat((seed % 300) as usize * if i % 97 == 5 { 50 } else { 1 });
        let line = match seed % 7 {
            0 => format!("{{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"pad\":\"{pad}\"}}"),
            1 => format!("{{\"pad\":\"{pad}\",\"isCompactSummary\":true}}"),
            2 => String::new(),
            _ => format!("{{\"type\":\"user\",\"pad\":\"{pad}\"}}"),
        };
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(if seed.is_multiple_of(5) { b"\r\n" } else { b"\n" });
    }
    if tail {
        out.extend_from_slice(b"{\"type\":\"system\",\"subtype\":\"compact_boundary\"}");
    }
    out
}

/// A line as the tests compare it: number, offset, bytes, terminated.
type SplitLine = (u64, u64, Vec<u8>, bool);

/// What the line splitter makes of the chunks a reader gives: every line, and the statistics.
fn split_all(chunks: &[(u64, Vec<u8>, bool)]) -> (Vec<SplitLine>, crate::io::LineStats) {
    let mut stats = crate::io::LineStats::default();
    let mut lines = Vec::new();
    for (at, chunk, last) in chunks {
        crate::io::lines::split_chunk(*at, chunk, *last, &mut stats, &mut |l| {
            lines.push((l.no, l.offset, l.bytes.to_vec(), l.terminated))
        });
    }
    (lines, stats)
}

/// The chunked reader of a search, with buffers far smaller than a line, a marker or a CRLF,
/// gives the lines one slice gives: the same bytes at the same offsets, every chunk but the
/// last ending a line, from the start and from a line start, on an empty file too.
#[test]
fn chunked_reads_give_the_lines_of_one_slice() {
    let dir = tempfile::tempdir().unwrap();
    for (n, tail) in [(0, false), (0, true), (1, false), (60, false), (60, true)] {
        let bytes = lines_of_every_shape(n, tail);
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, &bytes).unwrap();
        let file = File::open(&path).unwrap();
        let starts: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', &bytes).map(|i| i + 1).step_by(13))
            .collect();
        for &from in &starts {
            let want = split_all(&[(from as u64, bytes[from..].to_vec(), true)]);
            for size in [1usize, 2, 3, 7, 16, 17, 64, 1000, 1 << 16] {
                let mut chunks = Vec::new();
                let mut buf = vec![0u8; size];
                reuse::chunks_of(&file, from as u64, bytes.len() as u64, &mut buf, &mut |at, c, last| {
                    chunks.push((at, c.to_vec(), last))
                })
                .unwrap();
                let (last, rest) = chunks.split_last().unwrap();
                assert!(last.2 && rest.iter().all(|c| !c.2 && c.1.ends_with(b"\n")));
                let joined: Vec<u8> = chunks.iter().flat_map(|c| c.1.iter().copied()).collect();
                assert_eq!(joined, &bytes[from..], "{n} lines from {from}, buffer {size}");
                let (mut got, mut want) = (split_all(&chunks), want.clone());
                // Numbers count from the first line read, as a reader from a line start does.
                got.0.iter_mut().for_each(|l| l.0 = 0);
                want.0.iter_mut().for_each(|l| l.0 = 0);
                assert_eq!(got, want, "{n} lines from {from}, buffer {size}");
            }
        }
    }
}

/// Opens `bytes` written to `path` as a search reads it.
fn open_search(path: &Path, bytes: &[u8], cold: bool) -> Source {
    std::fs::write(path, bytes).unwrap();
    if cold {
        let old = SystemTime::now() - COLD_AFTER * 2;
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    Source::open_reading(&Input::Path(path.to_path_buf()), MmapChoice::Auto, ReadMode::Search).unwrap()
}

/// The marker lines a search finds, and every line it reads, are those of the file read the
/// plain way: small files (read into the reused buffer), and large ones mapped or read in
/// chunks of the reused buffer, whose boundaries fall inside lines and markers.
#[test]
fn a_search_reads_what_the_plain_reader_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let small = lines_of_every_shape(300, true);
    let mut large = lines_of_every_shape(40_000, false);
    large.extend_from_slice(&lines_of_every_shape(60, true));
    assert!(large.len() as u64 > MMAP_MIN);
    let needles: &[&[u8]] = &[b"compact_boundary", b"isCompactSummary"];
    for (bytes, cold, mapped) in [(&small, false, false), (&large, false, false), (&large, true, true)] {
        let plain = Source::from_bytes("s.jsonl", bytes.clone());
        let search = open_search(&path, bytes, cold);
        assert_eq!(search.is_mapped(), mapped);
        let marker_lines = |src: &Source| {
            let mut out = Vec::new();
            crate::io::lines::for_each_marker_line(src, needles, |l| {
                out.push((l.no, l.offset, l.bytes.to_vec(), l.terminated))
            })
            .unwrap();
            out
        };
        let want = marker_lines(&plain);
        assert!(want.len() > 50);
        assert_eq!(marker_lines(&search), want);
        let every_line = |src: &Source| {
            let mut out = Vec::new();
            let stats = crate::io::for_each_line(src, |l| out.push((l.no, l.offset, l.bytes.len()))).unwrap();
            (out, stats)
        };
        assert_eq!(every_line(&search), every_line(&plain));
    }
}

/// A file read into the reused buffer after a larger one shows its own bytes only, however
/// it is read.
#[test]
fn the_reused_buffer_shows_only_the_file_read_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    drop(open_search(&a, &[b'a'; 5000], false));
    for bytes in [&b"{\"b\":1}\n{\"b\":2}"[..], b""] {
        let src = open_search(&b, bytes, false);
        assert_eq!(src.len(), bytes.len() as u64);
        assert_eq!(src.as_slice().unwrap(), bytes);
        assert_eq!(&src.whole().unwrap()[..], bytes);
        let mut read = Vec::new();
        src.reader().unwrap().read_to_end(&mut read).unwrap();
        assert_eq!(read, bytes);
        let mut chunks = Vec::new();
        src.for_each_chunk(|_, c, last| chunks.push((c.to_vec(), last)))
            .unwrap();
        assert_eq!(chunks, [(bytes.to_vec(), true)]);
        assert!(src.read_range(0, bytes.len() + 1).is_err());
    }
}

/// A large file that grows while a search reads it is read up to its size at open; one that
/// shrinks is an error naming the change, never a panic or a short answer.
#[test]
fn a_search_of_a_file_that_changes_reads_what_was_there_or_fails() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let bytes = lines_of_every_shape(40_000, false);
    let src = open_search(&path, &bytes, false);
    assert!(!src.is_mapped());
    let mut f = File::options().append(true).open(&path).unwrap();
    f.write_all(b"{\"type\":\"system\",\"subtype\":\"compact_boundary\"}\n")
        .unwrap();
    let mut got = Vec::new();
    src.for_each_chunk(|_, c, _| got.extend_from_slice(c)).unwrap();
    assert_eq!(got, bytes);
    f.set_len(bytes.len() as u64 / 2).unwrap();
    let err = src.for_each_chunk(|_, _, _| {}).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
}
