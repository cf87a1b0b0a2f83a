use super::*;

#[test]
fn backups_are_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.json");
    fs::write(&f, "one").unwrap();
    let b1 = replace_with_backup(&f, b"two", "v1").unwrap();
    let b2 = replace_with_backup(&f, b"three", "v1").unwrap();
    assert_eq!(b1.file_name().unwrap(), "s.json.v1.bak");
    assert_eq!(b2.file_name().unwrap(), "s.json.v1.1.bak");
    assert_eq!(fs::read_to_string(&b1).unwrap(), "one");
    assert_eq!(fs::read_to_string(&b2).unwrap(), "two");
    assert_eq!(fs::read_to_string(&f).unwrap(), "three");
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn temporary_files_say_whose_they_are() {
    let t = temp_path(Path::new("/x/s.jsonl"));
    let name = t.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(name, format!(".s.jsonl.cctool-unfinished-{}.tmp", std::process::id()));
    assert_eq!(temp_pid(&name), Some(std::process::id()));
    assert_eq!(temp_pid(".s.jsonl.cctool-4242.tmp"), Some(4242));
    assert_eq!(temp_pid("s.jsonl.cctool-4242.tmp"), None);
    assert_eq!(temp_pid(".s.jsonl.tmp"), None);
    let long = temp_path(&Path::new("/x").join("é".repeat(200)));
    assert!(long.file_name().unwrap().len() <= 255);
}

#[test]
fn a_panic_while_writing_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.json");
    fs::write(&f, "one").unwrap();
    let r = std::panic::catch_unwind(|| {
        let _ = write_new_file_by(&dir.path().join("new.json"), false, |w| {
            w.write_all(b"partial")?;
            panic!("the writer panicked");
        });
    });
    assert!(r.is_err());
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["s.json"]);
}

#[test]
fn a_file_that_changed_since_it_was_read_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.json");
    fs::write(&f, "one").unwrap();
    let m = fs::metadata(&f).unwrap();
    let seen = Seen {
        len: m.len(),
        modified: m.modified().ok(),
    };
    let how = InPlace {
        tag: "v1",
        seen,
        force: false,
    };
    // Grows while the new content is written.
    let e = replace_with_backup_by(&f, &how, |w| {
        fs::OpenOptions::new().append(true).open(&f)?.write_all(b" more")?;
        w.write_all(b"two")
    })
    .unwrap_err();
    assert!(refusal(&e).is_some(), "{e}");
    assert_eq!(fs::read_to_string(&f).unwrap(), "one more");
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["s.json"], "no backup, no temporary file");
    // Changed before: refused at once.
    let e = replace_with_backup_by(&f, &how, |w| w.write_all(b"two")).unwrap_err();
    assert!(
        refusal(&e).unwrap().to_string().contains("size went from 3 to 8"),
        "{e}"
    );
}

#[test]
fn a_writer_that_gives_up_puts_nothing_in_place_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.json");
    fs::write(&f, "one").unwrap();
    let names = || {
        let mut n: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    let new = dir.path().join("new.json");
    let end = write_new_file_until(&new, false, |w| {
        w.write_all(b"partial")?;
        Ok(Ending::GaveUp("no more lines"))
    })
    .unwrap();
    assert_eq!(end, Ending::GaveUp("no more lines"));
    assert_eq!(names(), ["s.json"]);

    let m = fs::metadata(&f).unwrap();
    let seen = Seen {
        len: m.len(),
        modified: m.modified().ok(),
    };
    let end = extend_until(&f, seen, false, |w| {
        w.write_all(b"one more")?;
        Ok(Ending::GaveUp(7))
    })
    .unwrap();
    assert_eq!(end, Ending::GaveUp(7));
    assert_eq!(fs::read_to_string(&f).unwrap(), "one");
    assert_eq!(names(), ["s.json"]);

    let end = extend_until(&f, seen, false, |w| {
        w.write_all(b"one more")?;
        Ok(Ending::<()>::Kept)
    })
    .unwrap();
    assert_eq!(end, Ending::Kept);
    assert_eq!(fs::read_to_string(&f).unwrap(), "one more");
}
