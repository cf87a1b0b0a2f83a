//! Turning the SIGBUS of a truncated mapping into an I/O error for that file.
//!
//! Touching a page of a file mapping that now lies past the file's end raises SIGBUS, and
//! the default action kills the process. Checking the file's size before each window does not
//! close the gap: another process can truncate the file between the check and the read, or
//! while a window is parsed. So every mapping cctool makes is registered here, and a
//! process-wide SIGBUS handler looks the fault address up: inside a registered mapping, it
//! marks that mapping as faulted and maps anonymous zero pages over the rest of it (from the
//! faulting page to its end), so the read resumes on zeros instead of dying. The owner of the
//! mapping ([`crate::io::Source`]) checks [`Guard::faulted`] after each window and after every
//! copy out of the mapping, and turns it into an error naming the file, so nothing computed
//! from the zeros is used.
//!
//! A fault outside every registered mapping is not ours: the previous disposition is restored
//! and the fault happens again under it (the default action, or Rust's own handler).
//!
//! The handler only reads atomics and calls `mmap` and `sigaction`, both async-signal-safe
//! system calls. The registry is a fixed table of slots, each guarded by a sequence number
//! (odd while it changes), so the handler never takes a lock.

#![allow(unsafe_code)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Mutex, OnceLock};

/// How many mappings may be live at once: one per file read in parallel, and a few more.
const SLOTS: usize = 64;

struct Slot {
    /// Odd while `start`/`len` are being changed; the handler skips the slot then.
    seq: AtomicUsize,
    /// 0 when the slot is free.
    start: AtomicUsize,
    len: AtomicUsize,
    faulted: AtomicBool,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            seq: AtomicUsize::new(0),
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            faulted: AtomicBool::new(false),
        }
    }

    /// The mapping held by the slot, read without a lock; None while it changes or when free.
    fn read(&self) -> Option<(usize, usize)> {
        let before = self.seq.load(SeqCst);
        if before & 1 == 1 {
            return None;
        }
        let (start, len) = (self.start.load(SeqCst), self.len.load(SeqCst));
        (self.seq.load(SeqCst) == before && start != 0).then_some((start, len))
    }

    /// Changes the slot; the caller holds [`WRITERS`].
    fn set(&self, start: usize, len: usize) {
        self.seq.fetch_add(1, SeqCst);
        self.start.store(start, SeqCst);
        self.len.store(len, SeqCst);
        self.faulted.store(false, SeqCst);
        self.seq.fetch_add(1, SeqCst);
    }
}

static TABLE: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];
/// Whether any mapping faulted in this process: set by the handler, never cleared.
static ANY_FAULT: AtomicBool = AtomicBool::new(false);
/// What was said of each faulted input, once its reader was dropped (see [`note`]).
static NOTES: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// Serialises registration; the handler never takes it.
static WRITERS: Mutex<()> = Mutex::new(());
static PAGE: AtomicUsize = AtomicUsize::new(4096);
/// The SIGBUS disposition before ours, restored for faults that are not ours.
static PREVIOUS: OnceLock<Previous> = OnceLock::new();
/// Whether the handler is in place.
static INSTALLED: OnceLock<bool> = OnceLock::new();

struct Previous(libc::sigaction);
// SAFETY: a `sigaction` is plain data (a handler address, flags and a signal mask); it is
// written once before the handler is installed and only read afterwards.
unsafe impl Sync for Previous {}
unsafe impl Send for Previous {}

/// A registered mapping. Drop it before the mapping is unmapped, so that a later mapping at
/// the same address is never taken for this one.
#[derive(Debug)]
pub struct Guard {
    slot: usize,
}

impl Guard {
    /// Whether a page of the mapping faulted (the file was truncated under it, or the page
    /// could not be read) and was replaced by zeros.
    pub fn faulted(&self) -> bool {
        TABLE[self.slot].faulted.load(SeqCst)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _w = WRITERS.lock().unwrap_or_else(|e| e.into_inner());
        TABLE[self.slot].set(0, 0);
    }
}

/// Whether a page of any mapping of this process faulted since it started. Code that read a
/// mapped page while another thread's fault replaced it may have seen a byte change between
/// two reads of it (a newline that is there, then gone), which can make it panic where the
/// bytes of a file cannot change: such a panic is the truncation's, not a bug, and is
/// reported as the truncation (see [`quiet_panics`], `commands::each_session` and `run`).
pub fn any_fault() -> bool {
    ANY_FAULT.load(SeqCst)
}

/// Records what to say of an input whose mapping faulted, for the one message a command that
/// ended in a panic prints (see [`notes`]).
pub fn note(message: String) {
    NOTES.lock().unwrap_or_else(|e| e.into_inner()).push(message);
}

/// The messages recorded by [`note`].
pub fn notes() -> Vec<String> {
    NOTES.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Installs a panic hook that prints nothing once a mapping faulted (the panic is then
/// reported as the truncation it came from), and the previous hook's message otherwise. For
/// the program to call once at its start; a library user keeps its own hook.
pub fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !any_fault() {
                previous(info);
            }
        }));
    });
}

/// Registers the mapping `[start, start+len)`. None when the handler cannot be installed or
/// every slot is taken: the caller must not map then.
pub fn register(start: *const u8, len: usize) -> Option<Guard> {
    if !install() || start.is_null() || len == 0 {
        return None;
    }
    let _w = WRITERS.lock().unwrap_or_else(|e| e.into_inner());
    let slot = TABLE.iter().position(|s| s.start.load(SeqCst) == 0)?;
    TABLE[slot].set(start as usize, len);
    Some(Guard { slot })
}

/// Installs the handler once; false if that failed.
fn install() -> bool {
    *INSTALLED.get_or_init(|| {
        // SAFETY: sysconf, sigemptyset and sigaction are called with valid pointers to local
        // values; the previous disposition is stored before the new handler can run.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE);
            if page > 0 {
                PAGE.store(page as usize, SeqCst);
            }
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
                return false;
            }
            let _ = PREVIOUS.set(Previous(old));
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_sigbus as *const () as usize;
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut new.sa_mask);
            libc::sigaction(libc::SIGBUS, &new, std::ptr::null_mut()) == 0
        }
    })
}

extern "C" fn on_sigbus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let (addr, code) = unsafe { ((*info).si_addr() as usize, (*info).si_code) };
    // si_code > 0: raised by the kernel for a fault (BUS_ADRERR for a page past the end of
    // the file); kill() and tkill() give 0 or less, and carry no address worth trusting.
    if code > 0 {
        for slot in &TABLE {
            let Some((start, len)) = slot.read() else { continue };
            if addr < start || addr - start >= len {
                continue;
            }
            // Marked before the zeros are mapped: a thread that reads a zero page without
            // faulting itself (mapped here for another thread's fault) then finds the mark
            // when it checks after its read.
            slot.faulted.store(true, SeqCst);
            ANY_FAULT.store(true, SeqCst);
            let page = PAGE.load(SeqCst);
            let from = addr & !(page - 1);
            let end = (start + len).div_ceil(page) * page;
            // SAFETY: `[from, end)` lies within the registered mapping, which stays mapped
            // while its Guard lives (the Guard is dropped before the unmap), and the faulting
            // page past the file's end holds nothing readable: replacing it and the pages
            // after it with private zero pages only changes what this process reads there.
            // mmap is async-signal-safe.
            let p = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    end - from,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                return;
            }
            break;
        }
    }
    // Not ours (or the zeros could not be mapped): the disposition from before, under which
    // the fault happens again when this returns; a signal sent by kill() is raised again.
    // SAFETY: sigaction and raise are async-signal-safe; the pointer is to a static.
    unsafe {
        match PREVIOUS.get() {
            Some(p) => libc::sigaction(libc::SIGBUS, &p.0, std::ptr::null_mut()),
            None => {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
                0
            }
        };
        if code <= 0 {
            libc::raise(libc::SIGBUS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_in_a_registered_mapping_reads_zeros_and_is_reported() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let page = PAGE.load(SeqCst).max(4096);
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&vec![b'x'; 8 * page]).unwrap();
        let f = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        // SAFETY (test): the file is ours; its truncation below is the point of the test.
        let m = unsafe { memmap2::Mmap::map(&f) }.unwrap();
        let guard = register(m.as_ptr(), m.len()).expect("registered");
        assert_eq!(m[5 * page], b'x');
        assert!(!guard.faulted());
        f.set_len(2 * page as u64).unwrap();
        // Past the new end: zeros instead of a crash, and the mapping is marked.
        let tail: u64 = m[3 * page..].iter().map(|&b| u64::from(b)).sum();
        assert_eq!(tail, 0);
        assert!(guard.faulted());
        assert_eq!(m[page], b'x', "pages before the cut keep their bytes");
        drop(guard);
        drop(m);
    }
}
