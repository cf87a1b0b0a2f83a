//! A rewrite killed (SIGKILL) at random points leaves the original or the new file whole,
//! and the backup whenever the new file is in place. CI runs a short loop; `tests/kill-loop.sh`
//! runs a long one by hand.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{big_v1_session, cctool, kill_after, next_random, write_aged};

#[test]
fn sigkill_during_migrate_never_loses_the_file() {
    let original = big_v1_session();
    let dir = tempfile::tempdir().unwrap();
    // The expected result, and how long a clean run takes.
    let clean = dir.path().join("clean.json");
    write_aged(&clean, &original);
    let t0 = Instant::now();
    cctool().args(["migrate"]).arg(&clean).assert().success();
    let took = t0.elapsed().as_micros().max(1000) as u64;
    let migrated = std::fs::read(&clean).unwrap();
    let mut seed = u64::from(std::process::id()) ^ (t0.elapsed().as_nanos() as u64);
    let bin = assert_cmd::cargo::cargo_bin("cctool");
    let (mut old, mut new) = (0, 0);
    for round in 0..12 {
        let f = dir.path().join(format!("s{round}.json"));
        write_aged(&f, &original);
        let delay = Duration::from_micros(next_random(&mut seed) % (took * 3 / 2));
        kill_after(Command::new(&bin).arg("migrate").arg(&f), delay);
        let now = std::fs::read(&f).unwrap();
        let backup = dir.path().join(format!("s{round}.json.v1.bak"));
        if now == original {
            old += 1;
        } else if now == migrated {
            new += 1;
            assert_eq!(
                std::fs::read(&backup).unwrap(),
                original,
                "round {round}: the new file without its backup"
            );
        } else {
            panic!("round {round} (killed after {delay:?}): the file is neither the original nor the migration");
        }
    }
    eprintln!("12 kills: {old} left the original, {new} the migrated file");
}
