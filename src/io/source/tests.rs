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
