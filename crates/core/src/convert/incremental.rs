//! Converting a grown source again: what to append to the target written before.
//!
//! A writer's lines depend only on the conversation up to them (ids derived from the source,
//! timestamps from the source), so a target converted from the same session is a prefix of
//! the new conversion: the rest is what the source gained. Lines a writer adds at the end of
//! a turn (Codex's estimated `token_count`) may be in the old target where the new
//! conversion has none; they are passed over. Anything else that differs means the target
//! is not an earlier conversion of this source, or was changed since (resumed in the target
//! agent, say), and is left alone unless forced.

/// What a conversion does with an existing target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// There is no target yet: everything is written.
    New,
    /// The target already holds the whole conversion: nothing is written.
    UpToDate,
    /// The target holds an earlier conversion: the new lines from this index are appended.
    Append(usize),
    /// The target differs at this line (1-based): not an earlier conversion of the source.
    Differs(u64),
}

/// Compares the existing target's bytes with the conversion's lines; `passable` says which
/// lines of the target may be passed over.
pub fn plan(existing: Option<&[u8]>, new: &[Vec<u8>], passable: fn(&[u8]) -> bool) -> Plan {
    let Some(old) = existing else {
        return Plan::New;
    };
    let Some(body) = old.strip_suffix(b"\n") else {
        // An empty file takes everything; a last line without its newline was cut short.
        return if old.is_empty() {
            Plan::Append(0)
        } else {
            Plan::Differs(1 + old.iter().filter(|&&b| b == b'\n').count() as u64)
        };
    };
    let mut j = 0;
    for (i, l) in body.split(|&b| b == b'\n').enumerate() {
        if new.get(j).is_some_and(|n| n.as_slice() == l) {
            j += 1;
        } else if !passable(l) {
            return Plan::Differs(i as u64 + 1);
        }
    }
    if j == new.len() {
        Plan::UpToDate
    } else {
        Plan::Append(j)
    }
}

/// What [`Against`] says of one line of the new conversion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The target has it already.
    Same,
    /// The target ends before it: it and every later line are appended.
    New,
    /// The target differs at this line (1-based).
    Differs(u64),
}

/// [`plan`] of an existing target read line by line as the conversion streams, so neither
/// is held whole: only the target's current line is.
pub struct Against {
    old: std::io::BufReader<std::fs::File>,
    /// The target's size when it was opened: what an append keeps.
    pub len: u64,
    line: u64,
    buf: Vec<u8>,
    exhausted: bool,
    /// Set when the target is cut short (its last line without a newline).
    cut: Option<u64>,
    passable: fn(&[u8]) -> bool,
}

impl Against {
    /// Opens the existing target `f`; `passable` as for [`plan`]. Notes whether its last line
    /// lacks a newline (a target cut short).
    pub fn open(f: std::fs::File, passable: fn(&[u8]) -> bool) -> std::io::Result<Against> {
        use std::io::{BufRead, Read, Seek, SeekFrom};
        let len = f.metadata()?.len();
        let mut old = std::io::BufReader::with_capacity(1 << 20, f);
        let mut cut = None;
        if len > 0 {
            let mut last = [0u8];
            old.seek(SeekFrom::Start(len - 1))?;
            old.read_exact(&mut last)?;
            old.seek(SeekFrom::Start(0))?;
            if last[0] != b'\n' {
                // A last line without its newline was cut short.
                let mut n = 0u64;
                loop {
                    let chunk = old.fill_buf()?;
                    if chunk.is_empty() {
                        break;
                    }
                    n += memchr::memchr_iter(b'\n', chunk).count() as u64;
                    let k = chunk.len();
                    old.consume(k);
                }
                cut = Some(1 + n);
            }
        }
        Ok(Against {
            old,
            len,
            line: 0,
            buf: Vec::new(),
            // An empty file takes everything.
            exhausted: len == 0,
            cut,
            passable,
        })
    }

    /// The target's next line, `None` at its end.
    fn next_old(&mut self) -> std::io::Result<Option<&[u8]>> {
        use std::io::BufRead;
        self.buf.clear();
        if self.old.read_until(b'\n', &mut self.buf)? == 0 {
            return Ok(None);
        }
        self.line += 1;
        Ok(Some(self.buf.strip_suffix(b"\n").unwrap_or(&self.buf)))
    }

    /// Compares the conversion's next line.
    pub fn next(&mut self, new: &[u8]) -> std::io::Result<Step> {
        if let Some(l) = self.cut {
            return Ok(Step::Differs(l));
        }
        if self.exhausted {
            return Ok(Step::New);
        }
        let passable = self.passable;
        loop {
            match self.next_old()? {
                None => {
                    self.exhausted = true;
                    return Ok(Step::New);
                }
                Some(old) if old == new => return Ok(Step::Same),
                Some(old) if passable(old) => {}
                Some(_) => return Ok(Step::Differs(self.line)),
            }
        }
    }

    /// After the conversion's last line: the target is up to date, or differs at a line
    /// (`None`: lines were appended, or the target was empty).
    pub fn end(&mut self) -> std::io::Result<Option<Plan>> {
        if let Some(l) = self.cut {
            return Ok(Some(Plan::Differs(l)));
        }
        if self.exhausted {
            return Ok(None);
        }
        let passable = self.passable;
        while let Some(old) = self.next_old()? {
            if !passable(old) {
                return Ok(Some(Plan::Differs(self.line)));
            }
        }
        Ok(Some(Plan::UpToDate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &[&str]) -> Vec<Vec<u8>> {
        s.iter().map(|l| l.as_bytes().to_vec()).collect()
    }

    fn tc(l: &[u8]) -> bool {
        l.starts_with(b"tc")
    }

    #[test]
    fn plans() {
        let new = lines(&["a", "b", "tc1", "c"]);
        assert_eq!(plan(None, &new, tc), Plan::New);
        assert_eq!(plan(Some(b""), &new, tc), Plan::Append(0));
        assert_eq!(plan(Some(b"a\nb\n"), &new, tc), Plan::Append(2));
        assert_eq!(plan(Some(b"a\nb\ntc0\n"), &new, tc), Plan::Append(2));
        assert_eq!(plan(Some(b"a\nb\ntc1\nc\n"), &new, tc), Plan::UpToDate);
        assert_eq!(plan(Some(b"a\nx\n"), &new, tc), Plan::Differs(2));
        assert_eq!(plan(Some(b"a\nb\ntc1\nc\nd\n"), &new, tc), Plan::Differs(5));
        assert_eq!(plan(Some(b"a\nb"), &new, tc), Plan::Differs(2));
    }

    /// The streamed comparison plans as [`plan`] does, for targets of every shape.
    #[test]
    fn against_plans_as_plan_does() {
        let new = lines(&["a", "b", "tc1", "c"]);
        let dir = tempfile::tempdir().unwrap();
        for old in [
            &b""[..],
            b"a\nb\n",
            b"a\nb\ntc0\n",
            b"a\nb\ntc1\nc\n",
            b"a\nx\n",
            b"a\nb\ntc1\nc\nd\n",
            b"a\nb\ntc1\nc\ntc2\n",
            b"a\nb",
            b"\n",
            b"a\n\nb\n",
        ] {
            let p = dir.path().join("t");
            std::fs::write(&p, old).unwrap();
            let mut a = Against::open(std::fs::File::open(&p).unwrap(), tc).unwrap();
            let mut got = None;
            let mut same = 0;
            for n in &new {
                match a.next(n).unwrap() {
                    Step::Same => same += 1,
                    Step::New => {
                        got = Some(Plan::Append(same));
                        break;
                    }
                    Step::Differs(l) => {
                        got = Some(Plan::Differs(l));
                        break;
                    }
                }
            }
            let got = match got {
                Some(p) => p,
                None => a.end().unwrap().unwrap_or(Plan::Append(same)),
            };
            assert_eq!(got, plan(Some(old), &new, tc), "{:?}", String::from_utf8_lossy(old));
        }
    }
}
