//! The pairing check's [`Row`] of one line, read in one pass without serde.
//!
//! [`super::ids`] reads a row through serde_json and asks for every value as a `Value` would,
//! so that a line is accepted exactly when serde_json parses it as a `Value`. That exactness
//! cost a third of `doctor`'s time: serde copies every escaped string it is asked for and
//! checks its UTF-8, when all the check needs is to know that the line is valid.
//!
//! [`row`] gets the same answer in one pass: the whole line is checked for UTF-8 and control
//! bytes once (SIMD), then a small JSON reader walks the structure, jumping over string
//! bodies to the next quote or backslash, and reads the few fields [`Row`] holds. What it does
//! not settle itself goes to serde_json, so the answer stays serde_json's:
//! - lines with invalid UTF-8 or a control byte, and lines with a surrogate escape (`\ud800`
//!   to `\udfff`, whose pairing rules serde_json applies): the whole line, through
//!   [`super::ids`];
//! - numbers with an exponent or over 300 characters (the only ones that can be out of the
//!   range of an `f64`): that number, through `serde_json::Value`;
//! - keys and strings kept that hold an escape: that string, through serde_json.
//!
//! Everything else follows serde_json's grammar: whitespace, literals, numbers, escapes, no
//! trailing comma, no trailing characters, nesting deeper than 127 refused. A repeated key
//! takes its last value, a field of another type reads as absent. The tests hold [`row`] to
//! serde_json on generated and damaged lines.

use super::ids::{Block, Fields, Row};

/// The row of `line` when serde_json accepts the line as a `Value`, None when it does not.
/// `maybe_surrogate`: the line may hold a surrogate escape (it holds `\ud` or `\uD`).
pub fn row(line: &[u8], maybe_surrogate: bool) -> Option<Row> {
    if !plain_bytes(line) {
        return serde_json::from_slice::<Row>(line).ok();
    }
    let mut r = Reader {
        b: line,
        i: 0,
        depth: 0,
        serde_skip: !maybe_surrogate,
    };
    match r.document() {
        Ok(row) => Some(row),
        Err(Stop::Invalid) => None,
        Err(Stop::Defer) => serde_json::from_slice::<Row>(line).ok(),
    }
}

/// Valid UTF-8 without a byte below 0x20: inside a string serde_json refuses such a byte,
/// outside one only whitespace may be one, and agents write none.
fn plain_bytes(line: &[u8]) -> bool {
    let mut chunks = line.chunks_exact(64);
    let mut low = 0u8;
    for c in &mut chunks {
        low |= c.iter().fold(0u8, |a, &b| a | u8::from(b < 0x20));
    }
    low |= chunks.remainder().iter().fold(0u8, |a, &b| a | u8::from(b < 0x20));
    low == 0 && simdutf8::basic::from_utf8(line).is_ok()
}

enum Stop {
    /// serde_json refuses the line.
    Invalid,
    /// Something this reader leaves to serde_json.
    Defer,
}

type Res<T> = Result<T, Stop>;

/// serde_json refuses a value nested this deep (its recursion limit of 128 levels).
const MAX_DEPTH: u32 = 128;

/// What a kept string holds: its body `start..end` in the line, and whether it has escapes.
#[derive(Clone, Copy)]
struct Str {
    start: usize,
    end: usize,
    escaped: bool,
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
    depth: u32,
    /// Strings with escapes that are not kept may be skipped by serde_json (whose skip does
    /// not pair surrogates up: only for lines without one).
    serde_skip: bool,
}

impl Reader<'_> {
    fn document(&mut self) -> Res<Row> {
        self.ws();
        let row = if self.peek() == Some(b'{') {
            let mut row = Row::default();
            self.object(|r, key| {
                match key {
                    b"type" => row.item.ty = r.text()?,
                    b"call_id" => row.item.call_id = r.text()?,
                    b"payload" => row.payload = Some(r.fields()?),
                    b"message" => row.message_content = r.message()?,
                    _ => r.value()?,
                }
                Ok(())
            })?;
            row
        } else {
            self.value()?;
            Row::default()
        };
        self.ws();
        if self.i == self.b.len() {
            Ok(row)
        } else {
            Err(Stop::Invalid)
        }
    }

    fn fields(&mut self) -> Res<Fields> {
        let mut out = Fields::default();
        if self.peek() != Some(b'{') {
            self.value()?;
            return Ok(out);
        }
        self.object(|r, key| {
            match key {
                b"type" => out.ty = r.text()?,
                b"call_id" => out.call_id = r.text()?,
                _ => r.value()?,
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// `message.content` when it is an array.
    fn message(&mut self) -> Res<Option<Vec<Block>>> {
        let mut out = None;
        if self.peek() != Some(b'{') {
            self.value()?;
            return Ok(out);
        }
        self.object(|r, key| {
            if key == b"content" {
                out = r.content()?;
            } else {
                r.value()?;
            }
            Ok(())
        })?;
        Ok(out)
    }

    fn content(&mut self) -> Res<Option<Vec<Block>>> {
        if self.peek() != Some(b'[') {
            self.value()?;
            return Ok(None);
        }
        let mut blocks = Vec::new();
        self.array(|r| {
            blocks.push(r.block()?);
            Ok(())
        })?;
        Ok(Some(blocks))
    }

    fn block(&mut self) -> Res<Block> {
        let mut out = Block::default();
        if self.peek() != Some(b'{') {
            self.value()?;
            return Ok(out);
        }
        self.object(|r, key| {
            match key {
                b"type" => out.ty = r.text()?,
                b"id" => out.id = r.text()?,
                b"tool_use_id" => out.tool_use_id = r.text()?,
                _ => r.value()?,
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// A string value as text; any other value read and None.
    fn text(&mut self) -> Res<Option<String>> {
        if self.peek() != Some(b'"') {
            self.value()?;
            return Ok(None);
        }
        self.i += 1;
        let s = self.string()?;
        self.owned(s).map(Some)
    }

    fn owned(&self, s: Str) -> Res<String> {
        if !s.escaped {
            // The whole line is valid UTF-8 and a string ends at an ASCII quote.
            return std::str::from_utf8(&self.b[s.start..s.end])
                .map(str::to_owned)
                .map_err(|_| Stop::Defer);
        }
        serde_json::from_slice::<String>(&self.b[s.start - 1..=s.end]).map_err(|_| Stop::Defer)
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Res<()> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(Stop::Invalid)
        }
    }

    fn open(&mut self) -> Res<()> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(Stop::Invalid);
        }
        self.i += 1;
        Ok(())
    }

    /// An object at the cursor, `field` called for each key (escapes resolved) with the
    /// cursor on its value.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &[u8]) -> Res<()>) -> Res<()> {
        self.open()?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            self.eat(b'"')?;
            let k = self.string()?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            if k.escaped {
                let key = self.owned(k)?;
                field(self, key.as_bytes())?;
            } else {
                let b = self.b;
                field(self, &b[k.start..k.end])?;
            }
            self.ws();
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.ws();
                }
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Stop::Invalid),
            }
        }
    }

    /// An array at the cursor, `element` called with the cursor on each element.
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> Res<()>) -> Res<()> {
        self.open()?;
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            element(self)?;
            self.ws();
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.ws();
                }
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Stop::Invalid),
            }
        }
    }

    /// Any value at the cursor, read and dropped.
    fn value(&mut self) -> Res<()> {
        match self.peek() {
            Some(b'{') => self.object(|r, _| r.value()),
            Some(b'[') => self.array(|r| r.value()),
            Some(b'"') => {
                self.i += 1;
                self.skip_string()
            }
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(Stop::Invalid),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Res<()> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(Stop::Invalid)
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Res<()> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.i += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(Stop::Invalid);
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(Stop::Invalid),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(Stop::Invalid);
            }
        }
        let mut exponent = false;
        if let Some(b'e' | b'E') = self.peek() {
            exponent = true;
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(Stop::Invalid);
            }
        }
        // An f64 overflows only past 10^308: with an exponent, or over 300 digits.
        if exponent || self.i - start > 300 {
            return match serde_json::from_slice::<serde_json::Value>(&self.b[start..self.i]) {
                Ok(_) => Ok(()),
                Err(_) => Err(Stop::Invalid),
            };
        }
        Ok(())
    }

    /// A string whose opening quote is read, not kept. Agents' text escapes a byte in every
    /// few dozen: from the first escape on, serde_json's skip (which finds the closing quote
    /// 64 bytes at a time, see `vendor/serde_json/PATCH.md`) goes faster than a search from
    /// each escape to the next. It checks the escapes as [`Self::string`] does, but for the
    /// pairing of surrogates: `serde_skip` is off on lines that may hold one.
    fn skip_string(&mut self) -> Res<()> {
        let Some(at) = memchr::memchr2(b'"', b'\\', &self.b[self.i..]) else {
            return Err(Stop::Invalid);
        };
        if self.b[self.i + at] == b'"' {
            self.i += at + 1;
            return Ok(());
        }
        if !self.serde_skip {
            return self.string().map(|_| ());
        }
        let open = self.i - 1;
        let mut values = serde_json::Deserializer::from_slice(&self.b[open..]).into_iter::<serde::de::IgnoredAny>();
        match values.next() {
            Some(Ok(_)) => {
                self.i = open + values.byte_offset();
                Ok(())
            }
            _ => Err(Stop::Invalid),
        }
    }

    /// The body of a string whose opening quote is read; the cursor ends after its closing
    /// quote.
    fn string(&mut self) -> Res<Str> {
        let start = self.i;
        let mut escaped = false;
        loop {
            let Some(at) = memchr::memchr2(b'"', b'\\', &self.b[self.i..]) else {
                return Err(Stop::Invalid);
            };
            self.i += at;
            if self.b[self.i] == b'"' {
                let end = self.i;
                self.i += 1;
                return Ok(Str { start, end, escaped });
            }
            escaped = true;
            match self.b.get(self.i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 2,
                Some(b'u') => {
                    let hex = self.b.get(self.i + 2..self.i + 6).ok_or(Stop::Invalid)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return Err(Stop::Invalid);
                    }
                    // Surrogates pair up by serde_json's rules.
                    if matches!(hex[0], b'd' | b'D') && matches!(hex[1], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F') {
                        return Err(Stop::Defer);
                    }
                    self.i += 6;
                }
                _ => return Err(Stop::Invalid),
            }
        }
    }
}

#[cfg(test)]
mod tests;
