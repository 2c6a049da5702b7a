//! Line-by-line reading of a log with line numbers, in constant memory.
//!
//! Real logs end in the middle of a line when the instance died while
//! writing; the reader says whether each line was terminated so that a parser
//! can accept a cut-off last line with a warning. Windows line endings and a
//! UTF-8 byte-order mark are removed here, once, for every format.

use std::io::{self, BufRead, Read};

pub struct LineReader<R> {
    inner: R,
    /// Where a line is assembled when it straddles the reader's buffer.
    buf: Vec<u8>,
    line_no: u64,
    /// Bytes of the last line returned straight from the reader's buffer,
    /// consumed on the next call (the line borrowed them until then).
    pending: usize,
}

/// One line, without its end-of-line bytes.
pub struct Line<'a> {
    pub number: u64,
    pub text: &'a str,
    /// False for a last line that ends without a newline.
    pub terminated: bool,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            buf: Vec::with_capacity(4096),
            line_no: 0,
            pending: 0,
        }
    }

    /// The next line, or `None` at the end. Invalid UTF-8 is an error that
    /// names the line.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.inner.consume(std::mem::take(&mut self.pending));
        self.buf.clear();
        // Most lines lie whole in the reader's buffer: borrow them there
        // rather than copy each one (the bulk path reads 1.4 M lines).
        let whole = loop {
            match self.inner.fill_buf() {
                Ok(available) => break memchr::memchr(b'\n', available),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(numbered(e, self.line_no + 1)),
            }
        };
        let bytes: &[u8] = match whole {
            Some(end) => {
                self.pending = end + 1;
                &self.inner.fill_buf()?[..=end]
            }
            None => {
                let n = read_line_bounded(&mut self.inner, &mut self.buf)
                    .map_err(|e| numbered(e, self.line_no + 1))?;
                if n == 0 {
                    return Ok(None);
                }
                &self.buf
            }
        };
        self.line_no += 1;
        let mut bytes = bytes;
        let terminated = bytes.last() == Some(&b'\n');
        if terminated {
            bytes = &bytes[..bytes.len() - 1];
        }
        if bytes.last() == Some(&b'\r') {
            bytes = &bytes[..bytes.len() - 1];
        }
        if self.line_no == 1 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        let text =
            std::str::from_utf8(bytes).map_err(|e| not_utf8(self.line_no, e.valid_up_to()))?;
        Ok(Some(Line {
            number: self.line_no,
            text,
            terminated,
        }))
    }
}

/// A text whose lines may end in a carriage return alone — an old Mac
/// file, or a terminal's output saved with its `\r` — with each lone CR
/// made a line feed, for a `LineReader` to read. CRLF stays one line break
/// (and so does a terminal's doubled `\r\r\n`): only CRs not followed by
/// LF break lines. Without it a file of CR-ended lines is one line, read
/// as its first entry with the rest lost in its text (or refused past the
/// 1 MiB a line may hold). Line numbers count these breaks, as an editor
/// that honours them does.
pub struct LoneCrBreaks<R> {
    inner: R,
    out: Vec<u8>,
    at: usize,
    /// CRs read and not yet written: whether they break lines depends on
    /// the byte after them, which may lie in the next chunk.
    crs: usize,
}

/// How much translated text is held at once, even for a file of nothing
/// but CRs.
const CR_CHUNK: usize = 64 << 10;

impl<R: BufRead> LoneCrBreaks<R> {
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            out: Vec::new(),
            at: 0,
            crs: 0,
        }
    }

    /// Translates the next piece of input into `out`, which is empty
    /// afterwards only at the end.
    fn refill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.at = 0;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                // CRs that end the text end lines.
                let n = self.crs.min(CR_CHUNK);
                self.crs -= n;
                self.out.resize(n, b'\n');
                return Ok(());
            }
            let mut used = 0;
            while used < available.len() && self.out.len() < CR_CHUNK {
                let rest = &available[used..];
                if self.crs == 0 {
                    // Up to the next CR in one copy.
                    match memchr::memchr(b'\r', rest) {
                        Some(i) => {
                            self.out.extend_from_slice(&rest[..i]);
                            used += i + 1;
                            self.crs = 1;
                        }
                        None => {
                            self.out.extend_from_slice(rest);
                            used += rest.len();
                        }
                    }
                    continue;
                }
                match rest[0] {
                    b'\r' => {
                        self.crs += 1;
                        used += 1;
                    }
                    // CRs before an LF: one line break, the LF's.
                    b'\n' => self.crs = 0,
                    // Lone CRs: a line break each.
                    _ => {
                        let n = self.crs.min(CR_CHUNK - self.out.len());
                        self.out.resize(self.out.len() + n, b'\n');
                        self.crs -= n;
                    }
                }
            }
            self.inner.consume(used);
            if !self.out.is_empty() {
                return Ok(());
            }
        }
    }
}

impl<R: BufRead> Read for LoneCrBreaks<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for LoneCrBreaks<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at == self.out.len() {
            self.refill()?;
        }
        Ok(&self.out[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.out.len());
    }
}

/// A line's bytes that are not UTF-8, from byte `valid_up_to` (0-based) on.
pub fn not_utf8(line: u64, valid_up_to: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("line {line} is not UTF-8 text (byte {})", valid_up_to + 1),
    )
}

impl<R: BufRead> LineReader<R> {
    /// Whole lines, about `target` bytes of them and at most `max_lines`
    /// (a line is never cut), copied into `block` as they are, ends of line
    /// included; the number of the first, or `None` at the end of the
    /// input. A last line without a newline ends the last block. The lines
    /// are counted, so that `next_line` and `next_block` can take turns.
    pub fn next_block(
        &mut self,
        target: usize,
        max_lines: usize,
        block: &mut Vec<u8>,
    ) -> io::Result<Option<u64>> {
        self.inner.consume(std::mem::take(&mut self.pending));
        block.clear();
        let first = self.line_no + 1;
        let max_lines = max_lines.max(1);
        // Ends of line copied so far, and where the line being copied
        // began (to bound its length).
        let (mut lines, mut line_start) = (0, 0);
        loop {
            if block.len() >= target && block.last() == Some(&b'\n') {
                break;
            }
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(numbered(e, self.line_no + lines as u64 + 1)),
            };
            if available.is_empty() {
                break;
            }
            // Up to the target or the last line allowed, then to the end of
            // the line the target falls in.
            let (take, done, ends) = if block.len() < target {
                let take = available.len().min(target - block.len());
                let room = max_lines - lines;
                // Counted in one vectorised pass (`count` is memchr's own);
                // the line the block must end at is looked for only when
                // there are too many.
                let ends = memchr::memchr_iter(b'\n', &available[..take]).count();
                let cut = if ends >= room {
                    memchr::memchr_iter(b'\n', &available[..take]).nth(room - 1)
                } else {
                    None
                };
                match cut {
                    Some(i) => (i + 1, true, room),
                    None => (take, false, ends),
                }
            } else {
                match memchr::memchr(b'\n', available) {
                    Some(i) => (i + 1, true, 1),
                    None => (available.len(), false, 0),
                }
            };
            block.extend_from_slice(&available[..take]);
            self.inner.consume(take);
            if ends > 0 {
                lines += ends;
                line_start = memchr::memrchr(b'\n', block).map_or(0, |i| i + 1);
            }
            if block.len() - line_start > MAX_LINE_BYTES {
                return Err(numbered(too_long(), first + lines as u64));
            }
            if done {
                break;
            }
        }
        if block.is_empty() {
            return Ok(None);
        }
        if block.last() != Some(&b'\n') {
            lines += 1;
        }
        self.line_no += lines as u64;
        Ok(Some(first))
    }
}

fn too_long() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "is longer than {} MiB without a line break; this is not a log line \
             (a binary file, or one filled with zeros?)",
            MAX_LINE_BYTES >> 20
        ),
    )
}

/// The longest line any reader accepts. Real log lines are at most a few
/// kilobytes (a 200-column nvidia-smi row); a longer "line" is a binary
/// file, a file of zeros or an attack, and reading it whole could take all
/// the memory there is.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// `read_until(b'\n')` that stops with an error instead of growing `buf`
/// past `MAX_LINE_BYTES`.
pub fn read_line_bounded<R: BufRead + ?Sized>(
    inner: &mut R,
    buf: &mut Vec<u8>,
) -> io::Result<usize> {
    let mut read = 0;
    loop {
        let available = match inner.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(read);
        }
        let (take, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        if buf.len() + take > MAX_LINE_BYTES {
            return Err(too_long());
        }
        buf.extend_from_slice(&available[..take]);
        inner.consume(take);
        read += take;
        if done {
            return Ok(read);
        }
    }
}

/// A whole JSON document read into memory, refused past `limit` bytes
/// (a fleet's `query_range` answer can be large; a file of zeros forced to
/// this format must not take all the memory there is).
pub fn read_document<R: io::Read>(input: R, limit: u64, what: &str) -> io::Result<String> {
    let mut raw = String::new();
    input.take(limit + 1).read_to_string(&mut raw)?;
    if raw.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{what} is larger than {} MiB; split it", limit >> 20),
        ));
    }
    Ok(raw)
}

/// An error of line `number`, said as "line N …".
fn numbered(e: io::Error, number: u64) -> io::Error {
    if e.kind() == io::ErrorKind::InvalidData {
        io::Error::new(e.kind(), format!("line {number} {e}"))
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lines_strips_crlf_and_bom_and_flags_a_cut_last_line() {
        let mut r = LineReader::new(&b"\xEF\xBB\xBFa,b\r\n\nc,d"[..]);
        let l = r.next_line().unwrap().unwrap();
        assert_eq!((l.number, l.text, l.terminated), (1, "a,b", true));
        let l = r.next_line().unwrap().unwrap();
        assert_eq!((l.number, l.text), (2, ""));
        let l = r.next_line().unwrap().unwrap();
        assert_eq!((l.number, l.text, l.terminated), (3, "c,d", false));
        assert!(r.next_line().unwrap().is_none());
    }

    /// Every line `LoneCrBreaks` gives, read through a `LineReader` whose
    /// input arrives `chunk` bytes at a time.
    fn cr_lines(bytes: &[u8], chunk: usize) -> Vec<(u64, String, bool)> {
        let inner = std::io::BufReader::with_capacity(chunk, bytes);
        let mut r = LineReader::new(LoneCrBreaks::new(inner));
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.number, l.text.to_string(), l.terminated));
        }
        out
    }

    #[test]
    fn lone_carriage_returns_break_lines_and_crlf_stays_one_break() {
        let line = |n: u64, t: &str| (n, t.to_string(), true);
        for chunk in [1, 2, 3, 4096] {
            // Old Mac: CR alone, a blank line as two.
            assert_eq!(
                cr_lines(b"a\rb\r\rc\r", chunk),
                vec![line(1, "a"), line(2, "b"), line(3, ""), line(4, "c")],
                "{chunk}"
            );
            // CRLF, a terminal's CRCRLF, LF and CR mixed.
            assert_eq!(
                cr_lines(b"a\r\nb\r\r\nc\nd\re", chunk),
                vec![
                    line(1, "a"),
                    line(2, "b"),
                    line(3, "c"),
                    line(4, "d"),
                    (5, "e".to_string(), false)
                ],
                "{chunk}"
            );
        }
        // Nothing to change: the bytes pass as they are.
        assert_eq!(cr_lines(b"", 8), vec![]);
        assert_eq!(
            cr_lines(b"x\ny", 8),
            vec![line(1, "x"), (2, "y".into(), false)]
        );
        // A file of nothing but CRs is lines, not one held in memory whole.
        let crs = vec![b'\r'; 3 * CR_CHUNK + 5];
        let lines = cr_lines(&crs, 8192);
        assert_eq!(lines.len(), crs.len());
        assert!(lines.iter().all(|(_, t, end)| t.is_empty() && *end));
        let mut r = LoneCrBreaks::new(&crs[..]);
        assert!(r.fill_buf().unwrap().len() <= CR_CHUNK);
    }

    #[test]
    fn blocks_hold_whole_lines_and_count_them() {
        let text = b"a\nbb\r\nccc\n\n\nd";
        let mut r = LineReader::new(std::io::BufReader::with_capacity(3, &text[..]));
        assert_eq!(r.next_line().unwrap().unwrap().text, "a");
        let mut block = Vec::new();
        // Two bytes wanted: the line they fall in is finished.
        assert_eq!(r.next_block(2, 100, &mut block).unwrap(), Some(2));
        assert_eq!(block, b"bb\r\n");
        // At most two lines, however many bytes are wanted.
        assert_eq!(r.next_block(100, 2, &mut block).unwrap(), Some(3));
        assert_eq!(block, b"ccc\n\n");
        // Line by line again, then the cut-off end as a block of its own.
        let l = r.next_line().unwrap().unwrap();
        assert_eq!((l.number, l.text), (5, ""));
        assert_eq!(r.next_block(100, 100, &mut block).unwrap(), Some(6));
        assert_eq!(block, b"d");
        assert_eq!(r.next_block(100, 100, &mut block).unwrap(), None);
        assert!(r.next_line().unwrap().is_none());
    }

    #[test]
    fn a_block_refuses_a_line_longer_than_the_bound() {
        let mut data = b"ok\nok\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        let mut r = LineReader::new(std::io::BufReader::new(&data[..]));
        let mut block = Vec::new();
        assert_eq!(r.next_block(4, 100, &mut block).unwrap(), Some(1));
        let e = r.next_block(4, 100, &mut block).unwrap_err().to_string();
        assert!(e.starts_with("line 3 is longer than 1 MiB"), "{e}");
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let mut r = LineReader::new(&b"ok\n\xff\xfe\n"[..]);
        r.next_line().unwrap();
        let e = r.next_line().err().unwrap();
        assert!(e.to_string().contains("line 2"), "{e}");
    }

    #[test]
    fn a_line_longer_than_the_bound_is_refused_without_reading_it_whole() {
        let mut data = b"ok\n".to_vec();
        data.extend(std::iter::repeat_n(0u8, MAX_LINE_BYTES + 10));
        let mut r = LineReader::new(std::io::BufReader::new(&data[..]));
        r.next_line().unwrap();
        let e = r.next_line().err().unwrap().to_string();
        assert!(e.starts_with("line 2 is longer than 1 MiB"), "{e}");
        assert!(e.len() < 200, "{e}");
        assert!(r.buf.capacity() <= 2 * MAX_LINE_BYTES);
        // Just under the bound is a line like any other.
        let mut long = vec![b'x'; MAX_LINE_BYTES - 1];
        long.push(b'\n');
        let mut r = LineReader::new(&long[..]);
        assert_eq!(
            r.next_line().unwrap().unwrap().text.len(),
            MAX_LINE_BYTES - 1
        );
    }
}
