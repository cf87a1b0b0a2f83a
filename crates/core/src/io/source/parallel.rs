//! The two parallel readers of a source held as one slice: windows cut at line ends, mapped
//! in rounds across the cores, results in file order.

use super::*;

impl Source {
    /// Maps `f` over the content cut into windows that end on line boundaries, the windows
    /// spread over every core, results in file order: for scans that keep little per window
    /// (a substring search). See [`par_rounds`](Self::par_rounds); None for sources that are
    /// not one slice (the caller scans them in order).
    pub fn par_windows<'s, T: Send>(
        &'s self,
        f: impl Fn(u64, &'s [u8], bool) -> T + Sync,
    ) -> Option<io::Result<Vec<T>>> {
        let mut out = Vec::new();
        self.par_rounds(0, rayon::current_num_threads() * 2, f, |t| out.push(t))
            .map(|r| r.map(|()| out))
    }

    /// From byte `from` (a line start) on, cuts the content into windows that end on line
    /// boundaries and maps `f` over them on every core, at most `per_round` windows ahead of
    /// the one `sink` waits for; `sink` gets the results in file order before each window's
    /// mapped pages are released, so results may borrow the windows until then. The file's
    /// size is checked before each window is touched, as
    /// [`for_each_chunk`](Self::for_each_chunk) does, and the mapping after `f` and after
    /// `sink`: a window read on zeros (see [`check`](Self::check)) ends the read with an error
    /// before `sink` sees it, and a fault while `sink` reads ends it after. Only a source held
    /// as one slice (mapped, or small and read) is split: None for the others.
    pub fn par_rounds<'s, T: Send>(
        &'s self,
        from: u64,
        per_round: usize,
        f: impl Fn(u64, &'s [u8], bool) -> T + Sync,
        mut sink: impl FnMut(T),
    ) -> Option<io::Result<()>> {
        let bytes = self.as_slice()?;
        let total = bytes.len();
        let mut bounds = vec![(from as usize).min(total)];
        while let Some(&start) = bounds.last() {
            if start >= total {
                break;
            }
            bounds.push(window_end(bytes, start));
        }
        if bounds.len() == 1 {
            bounds.push(bounds[0]);
        }
        let windows: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
        let check = || self.check();
        let mut sink = |t: T| {
            sink(t);
            self.check_fault()
        };
        // On a pool thread (many files at once), nested parallel rounds share the pool by work
        // stealing; threads of its own would oversubscribe the cores and block a pool thread.
        let job = Windows {
            bytes,
            windows: &windows,
            per_round,
            f: &f,
            check: &check,
        };
        let done_with = |a, b| self.done_with(a, b);
        let result = if rayon::current_thread_index().is_some() {
            job.rounds_in_pool(&mut sink, done_with)
        } else {
            job.stream(&mut sink, done_with)
        };
        Some(result.and_then(|()| self.check()))
    }
}

/// What the two parallel readers of [`Source::par_rounds`] work on: the content, its windows,
/// how far ahead of `sink` they may map, the function mapped and the size check.
pub(super) struct Windows<'s, 'w, F, C> {
    pub(super) bytes: &'s [u8],
    pub(super) windows: &'w [(usize, usize)],
    pub(super) per_round: usize,
    pub(super) f: &'w F,
    pub(super) check: &'w C,
}

impl<'s, F, C, T> Windows<'s, '_, F, C>
where
    F: Fn(u64, &'s [u8], bool) -> T + Sync,
    C: Fn() -> io::Result<()> + Sync,
    T: Send,
{
    /// `f` over the window `(a, b)`.
    pub(super) fn map(&self, (a, b): (usize, usize)) -> T {
        (self.f)(a as u64, &self.bytes[a..b], b == self.bytes.len())
    }

    /// On a pool thread: rounds of `per_round` windows, the next round mapped over while `sink`
    /// takes this one.
    pub(super) fn rounds_in_pool(
        &self,
        sink: &mut impl FnMut(T) -> io::Result<()>,
        done_with: impl Fn(u64, u64),
    ) -> io::Result<()> {
        use rayon::prelude::*;
        let check = self.check;
        // Two rounds are resident at once (this one taken, the next one mapped): rounds of
        // half of `per_round` keep as many windows in flight as the stream does, and the
        // peak memory of a large file read on the pool with it (twice that was 12% of a
        // 1 GiB transcript for `doctor`).
        let rounds: Vec<&[(usize, usize)]> = self.windows.chunks((self.per_round / 2).max(1)).collect();
        let compute = |round: &[(usize, usize)]| -> Vec<T> { round.par_iter().map(|&w| self.map(w)).collect() };
        // The next round is mapped over while `sink` takes this one: the caller's serial work
        // overlaps the parallel part instead of leaving the cores idle. The next round is a job
        // of the pool, never a thread of its own: a pool thread that blocked on such a thread
        // while it waited for the pool would deadlock once every pool thread did the same (one
        // core, or two large files on two).
        let compute_checked = |round: &[(usize, usize)]| -> io::Result<Vec<T>> {
            check()?;
            let r = compute(round);
            check()?;
            Ok(r)
        };
        let mut results = match rounds.first() {
            Some(round) => compute_checked(round)?,
            None => return Ok(()),
        };
        for (i, round) in rounds.iter().enumerate() {
            let mut next: Option<io::Result<Vec<T>>> = None;
            let mut taken: io::Result<()> = Ok(());
            rayon::in_place_scope(|scope| {
                if let Some(following) = rounds.get(i + 1) {
                    let (compute, slot) = (&compute_checked, &mut next);
                    scope.spawn(move |_| *slot = Some(compute(following)));
                }
                // Each window is released as soon as its result is taken.
                taken = std::mem::take(&mut results)
                    .into_iter()
                    .zip(round.iter())
                    .try_for_each(|(t, &(a, b))| {
                        sink(t)?;
                        done_with(a as u64, (b - a) as u64);
                        Ok(())
                    });
            });
            taken?;
            match next {
                Some(r) => results = r?,
                None => break,
            }
        }
        Ok(())
    }

    /// From outside the pool: a worker thread per core streams windows.
    pub(super) fn stream(
        &self,
        sink: &mut impl FnMut(T) -> io::Result<()>,
        done_with: impl Fn(u64, u64),
    ) -> io::Result<()> {
        let (windows, check) = (self.windows, self.check);
        // Workers take windows in file order, up to `ahead` past the one `sink` waits for;
        // `sink` takes results in order as they come. Nothing waits for a round's slowest
        // window, and the caller's serial work overlaps the parsing throughout. (Further ahead
        // measured slower: the windows in flight no longer fit the caches.)
        let ahead = self.per_round.max(1);
        let workers = rayon::current_num_threads().clamp(1, windows.len().max(1));
        let next = std::sync::atomic::AtomicUsize::new(0);
        // The index of the window `sink` takes next, and whether to stop.
        let gate = (std::sync::Mutex::new((0usize, false)), std::sync::Condvar::new());
        let stop_all = || {
            if let Ok(mut g) = gate.0.lock() {
                g.1 = true;
            }
            gate.1.notify_all();
        };
        std::thread::scope(|scope| -> io::Result<()> {
            let (tx, rx) = std::sync::mpsc::channel::<(usize, io::Result<T>)>();
            for _ in 0..workers {
                let (tx, next, gate) = (tx.clone(), &next, &gate);
                scope.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(a, b)) = windows.get(i) else { return };
                        {
                            let Ok(mut g) = gate.0.lock() else { return };
                            while !g.1 && i >= g.0 + ahead {
                                let Ok(w) = gate.1.wait(g) else { return };
                                g = w;
                            }
                            if g.1 {
                                return;
                            }
                        }
                        let r = check().map(|()| self.map((a, b))).and_then(|t| check().map(|()| t));
                        if tx.send((i, r)).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(tx);
            let mut pending = std::collections::BTreeMap::new();
            let mut want = 0usize;
            let outcome = (|| -> io::Result<()> {
                for (i, r) in &rx {
                    pending.insert(i, r);
                    while let Some(r) = pending.remove(&want) {
                        sink(r?)?;
                        let (a, b) = windows[want];
                        done_with(a as u64, (b - a) as u64);
                        want += 1;
                        if let Ok(mut g) = gate.0.lock() {
                            g.0 = want;
                        }
                        gate.1.notify_all();
                    }
                }
                // Workers only stop early when something failed; a window must never go missing.
                if want < windows.len() {
                    return Err(io::Error::other(StoppedEarly));
                }
                Ok(())
            })();
            // On an error the workers still waiting at the gate are let go.
            stop_all();
            drop(rx);
            outcome
        })
    }
}

/// The end of the window that starts at `start`: [`RELEASE_EVERY`] bytes on, moved to the end
/// of the line there, so that lines are never split between windows and stay borrowed.
pub(super) fn window_end(bytes: &[u8], start: usize) -> usize {
    let total = bytes.len();
    let end = (start + RELEASE_EVERY).min(total);
    if end < total {
        memchr::memchr(b'\n', &bytes[end..]).map_or(total, |i| end + i + 1)
    } else {
        end
    }
}

/// Workers of a parallel read that stopped before the last window, with no error of their own.
#[derive(Debug, thiserror::Error)]
#[error("a parallel read stopped before the end of the file")]
struct StoppedEarly;
