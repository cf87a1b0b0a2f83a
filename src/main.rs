fn main() -> std::process::ExitCode {
    cctool::run(std::env::args_os()).into()
}

/// Memory the process may not have (`ulimit -v`, `prlimit --as`) ends the run with a sentence
/// and exit status 2, not with an abort and a core dump: a session that must be held whole
/// (a v5 file to compact, the full record of `decompress`) can need more than the limit.
#[global_allocator]
static ALLOCATOR: ReportingAllocator = ReportingAllocator;

struct ReportingAllocator;

#[allow(unsafe_code)]
// SAFETY: every call is passed to the system allocator unchanged; only a failure is acted on.
unsafe impl std::alloc::GlobalAlloc for ReportingAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is the system allocator's.
        let p = unsafe { std::alloc::System.alloc(layout) };
        if p.is_null() {
            out_of_memory();
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { std::alloc::System.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory();
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from this allocator, that is from the system allocator.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`.
        let p = unsafe { std::alloc::System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            out_of_memory();
        }
        p
    }
}

/// Says so and exits, allocating nothing. A temporary file being written stays behind; the
/// next run that writes into its folder removes it.
fn out_of_memory() -> ! {
    const MSG: &[u8] = b"cctool: out of memory: this input needs more memory than the process may use \
(see ulimit -v); nothing was replaced, and an unfinished output file is removed by the next run; \
free memory or raise the limit\n";
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    // SAFETY: write(2) and _exit(2) take plain values and are async-signal-safe.
    unsafe {
        libc::write(2, MSG.as_ptr().cast(), MSG.len());
        libc::_exit(2)
    }
    #[cfg(not(target_os = "linux"))]
    {
        use std::io::Write;
        let _ = std::io::stderr().write_all(MSG);
        std::process::exit(2)
    }
}
