//! What sits between a file's bytes and the parsers: logs arrive gzipped
//! (rotated, or compressed for the copy home), as UTF-16 when nvidia-smi ran
//! under Windows PowerShell (`nvidia-smi … > log.csv`), as GB18030 (GBK) when
//! a Chinese console's export was saved again by a spreadsheet, and wrapped by the
//! tool that captured them: a `script` transcript's banner lines and `^C`,
//! or the timestamp `kubectl logs --timestamps` / `docker logs -t` put in
//! front of every line. All of it is recognised from the first bytes and
//! lines, and turned into the plain UTF-8 text every parser reads; line
//! numbers stay those of the file. Everything else passes through
//! untouched. The file's identity (SHA-256) stays that of the bytes on disk.

use std::cell::Cell;
use std::io::{self, BufRead, BufReader, Read};
use std::rc::Rc;

use flate2::bufread::MultiGzDecoder;

/// How a file's bytes were wrapped, for the import report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrapping {
    pub gzip: bool,
    pub utf16: Option<Endian>,
    /// Read as GB18030: the bytes were not UTF-8, and are Chinese text in
    /// the encoding Chinese Windows and spreadsheets write.
    pub gb18030: bool,
    /// Set once the gzip stream is found to end early (a log copied while
    /// it was being compressed): what came before the cut is read.
    pub cut: Rc<Cell<bool>>,
    pub capture: Option<Capture>,
    /// Lines the capture tool added, blanked (its banners, `^C`), and line
    /// prefixes removed.
    pub unwrapped: Rc<Cell<(u64, u64)>>,
}

/// The tool a log was captured through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    /// `script -c "nvidia-smi …" log`: "Script started on …" first, "Script
    /// done on …" last, `^C` where the user stopped it.
    Script,
    /// `kubectl logs --timestamps`, `docker logs -t`: an RFC 3339 time and
    /// a space before every line.
    TimestampPrefix,
    /// A terminal's text pasted whole: a shell prompt and the command on
    /// the first line, more prompts and `^C` where the user stopped a loop.
    Terminal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

impl Wrapping {
    /// Whether the parsers read anything other than the file's bytes as
    /// they are.
    pub fn transformed(&self) -> bool {
        self.gzip || self.utf16.is_some() || self.gb18030 || self.capture.is_some()
    }

    /// What the import report should say: how the file was read, and
    /// whether its compressed stream was cut off.
    pub fn warnings(&self) -> Vec<String> {
        let mut out: Vec<String> = self.describe().into_iter().collect();
        let (blanked, stripped) = self.unwrapped.get();
        match self.capture {
            Some(Capture::Script) => out.push(format!(
                "a `script` transcript: {blanked} line(s) it added (banners, ^C) were ignored"
            )),
            Some(Capture::TimestampPrefix) => out.push(format!(
                "the capture tool's timestamp was removed from the start of {stripped} line(s)"
            )),
            Some(Capture::Terminal) => out.push(format!(
                "a terminal transcript: {blanked} line(s) of prompts, commands and ^C were ignored"
            )),
            None => {}
        }
        if self.cut.get() {
            out.push(
                "the gzip stream ends early (file cut off); read everything before the cut".into(),
            );
        }
        out
    }

    /// Words for a warning, or `None` for plain UTF-8 text.
    pub fn describe(&self) -> Option<String> {
        let utf16 = self
            .utf16
            .map(|e| match e {
                Endian::Little => "UTF-16LE",
                Endian::Big => "UTF-16BE",
            })
            .or(self.gb18030.then_some("GB18030 (GBK)"));
        match (self.gzip, utf16) {
            (false, None) => None,
            (true, None) => Some("gzip-compressed; read decompressed".into()),
            (false, Some(u)) => Some(format!("{u} text; read as UTF-8")),
            (true, Some(u)) => Some(format!(
                "gzip-compressed {u} text; read decompressed as UTF-8"
            )),
        }
    }
}

/// The UTF-8 text of `reader`, decompressed and transcoded as its first
/// bytes say. Plain UTF-8 is `reader` itself: read from its own buffer,
/// never copied into another.
pub fn decode<'a, R: BufRead + 'a>(
    mut buffered: R,
) -> io::Result<(Box<dyn BufRead + 'a>, Wrapping)> {
    let gzip = buffered.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    let cut = Rc::new(Cell::new(false));
    let mut text: Box<dyn BufRead + 'a> = if gzip {
        Box::new(BufReader::with_capacity(
            1 << 16,
            UpToTheCut {
                inner: MultiGzDecoder::new(buffered),
                cut: cut.clone(),
            },
        ))
    } else {
        Box::new(buffered)
    };
    let utf16 = utf16_of(text.fill_buf()?);
    let mut text: Box<dyn BufRead + 'a> = match utf16 {
        Some(endian) => Box::new(BufReader::with_capacity(
            1 << 16,
            Utf16ToUtf8::new(text, endian),
        )),
        None => text,
    };
    let gb18030 = utf16.is_none() && is_gb18030(text.fill_buf()?);
    let mut text: Box<dyn BufRead + 'a> = if gb18030 {
        Box::new(BufReader::with_capacity(1 << 16, Gb18030ToUtf8::new(text)))
    } else {
        text
    };
    let capture = capture_of(text.fill_buf()?);
    let unwrapped = Rc::new(Cell::new((0, 0)));
    let wrapping = Wrapping {
        gzip,
        utf16,
        gb18030,
        cut,
        capture,
        unwrapped: unwrapped.clone(),
    };
    Ok(match capture {
        // Only a captured log pays for the line-by-line pass.
        Some(capture) => (
            Box::new(BufReader::with_capacity(
                1 << 16,
                Unwrap {
                    inner: text,
                    capture,
                    line: Vec::new(),
                    at: 0,
                    counts: unwrapped,
                },
            )),
            wrapping,
        ),
        None => (Box::new(text), wrapping),
    })
}

/// The capture tool, from the first line.
fn capture_of(head: &[u8]) -> Option<Capture> {
    let first = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let first_line = first.split(|b| *b == b'\n').next().unwrap_or(first);
    if first.starts_with(b"Script started on ") {
        Some(Capture::Script)
    } else if time_prefix_len(first_line).is_some() && !times_are_the_lines_own(first) {
        Some(Capture::TimestampPrefix)
    } else if crate::transcript::is_prompt(&String::from_utf8_lossy(first_line)) {
        Some(Capture::Terminal)
    } else {
        None
    }
}

/// Whether the RFC 3339 times that open the first lines of `head` are the
/// lines' own rather than a capture tool's, judged by what follows them:
/// rsyslog's RFC 3339 format and `journalctl -o short-iso` put the time
/// before the host and the program's tag ("node1 kernel: NVRM: …");
/// kubectl and docker put theirs before whatever the program printed — a
/// CSV row, a table, a kernel line with its own time — which is not that.
/// Most of the first lines decide, so that one odd line (rsyslog's "--
/// MARK --") does not.
fn times_are_the_lines_own(head: &[u8]) -> bool {
    let (mut timed, mut own) = (0, 0);
    for line in head.split(|b| *b == b'\n').take(16) {
        let Some(n) = time_prefix_len(line) else {
            continue;
        };
        timed += 1;
        let rest = String::from_utf8_lossy(&line[n..]);
        own += usize::from(crate::parsers::kernel_log::is_syslog_body(rest.trim_end()));
    }
    own * 2 > timed
}

/// The length of an RFC 3339 time and the space after it at the start of
/// `line` ("2024-06-01T11:27:05.123456789Z "), if there is one.
fn time_prefix_len(line: &[u8]) -> Option<usize> {
    let digits = |r: std::ops::Range<usize>| {
        line.get(r)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let shape = digits(0..4)
        && line.get(4) == Some(&b'-')
        && digits(5..7)
        && line.get(7) == Some(&b'-')
        && digits(8..10)
        && line.get(10) == Some(&b'T')
        && digits(11..13)
        && line.get(13) == Some(&b':')
        && digits(14..16)
        && line.get(16) == Some(&b':')
        && digits(17..19);
    if !shape {
        return None;
    }
    let mut i = 19;
    if line.get(i) == Some(&b'.') {
        i += 1;
        while line.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    match line.get(i) {
        Some(b'Z') => i += 1,
        Some(b'+' | b'-')
            if digits(i + 1..i + 3) && line.get(i + 3) == Some(&b':') && digits(i + 4..i + 6) =>
        {
            i += 6
        }
        _ => return None,
    }
    (line.get(i) == Some(&b' ')).then_some(i + 1)
}

/// Takes out what the capture tool added, a line at a time. A line that is
/// wholly the tool's becomes an empty line, so the parsers' line numbers
/// stay those of the file.
struct Unwrap<R> {
    inner: R,
    capture: Capture,
    line: Vec<u8>,
    at: usize,
    counts: Rc<Cell<(u64, u64)>>,
}

impl<R: BufRead> Unwrap<R> {
    fn next_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        self.at = 0;
        if super::lines::read_line_bounded(&mut self.inner, &mut self.line)? == 0 {
            return Ok(false);
        }
        let (mut blanked, mut stripped) = self.counts.get();
        let body_end = self.line.len()
            - self
                .line
                .iter()
                .rev()
                .take_while(|b| matches!(b, b'\n' | b'\r'))
                .count();
        match self.capture {
            Capture::Script => {
                let body = &self.line[..body_end];
                let added = body.starts_with(b"Script started on ")
                    || body.starts_with(b"Script done on ")
                    || body.iter().all(|b| matches!(b, b'^' | b'C' | b' '));
                if added && body_end > 0 {
                    self.line.drain(..body_end);
                    blanked += 1;
                } else if body.starts_with(b"^C") {
                    self.line.drain(..2);
                    blanked += 1;
                }
            }
            Capture::TimestampPrefix => {
                if let Some(n) = time_prefix_len(&self.line[..body_end]) {
                    self.line.drain(..n);
                    stripped += 1;
                }
            }
            Capture::Terminal => {
                let body = String::from_utf8_lossy(&self.line[..body_end]);
                if body_end > 0 && (crate::transcript::is_prompt(&body) || body.trim() == "^C") {
                    self.line.drain(..body_end);
                    blanked += 1;
                } else if body.starts_with("^C") {
                    self.line.drain(..2);
                    blanked += 1;
                }
            }
        }
        self.counts.set((blanked, stripped));
        Ok(true)
    }
}

impl<R: BufRead> Read for Unwrap<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.line.len() && !self.next_line()? {
            return Ok(0);
        }
        let n = buf.len().min(self.line.len() - self.at);
        buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A gzip stream that ends early reads as ending there; the flag says so.
struct UpToTheCut<R> {
    inner: R,
    cut: Rc<Cell<bool>>,
}

impl<R: Read> Read for UpToTheCut<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                self.cut.set(true);
                Ok(0)
            }
            other => other,
        }
    }
}

/// UTF-16 from its byte-order mark, or, without one, from text whose every
/// other byte is zero (ASCII such as a CSV header, written as UTF-16).
fn utf16_of(head: &[u8]) -> Option<Endian> {
    match head {
        [0xff, 0xfe, ..] => Some(Endian::Little),
        [0xfe, 0xff, ..] => Some(Endian::Big),
        [a, 0, b, 0, ..] if a.is_ascii_graphic() && b.is_ascii() && *b != 0 => Some(Endian::Little),
        [0, a, 0, b, ..] if a.is_ascii_graphic() && b.is_ascii() && *b != 0 => Some(Endian::Big),
        _ => None,
    }
}

/// Whether the head of a file is GB18030 rather than UTF-8: not valid UTF-8
/// (a character cut at the end of the head aside), bytes above ASCII, and
/// every one of them part of a GB18030 character.
fn is_gb18030(head: &[u8]) -> bool {
    let invalid = match std::str::from_utf8(head) {
        Ok(_) => false,
        // Cut at the end of the head: valid as far as it goes.
        Err(e) => e.error_len().is_some(),
    };
    if !invalid {
        return false;
    }
    // The head may end inside a two- or four-byte character.
    let whole = (0..4).rev().find_map(|cut| {
        let end = head.len().saturating_sub(cut);
        encoding_rs::GB18030.decode_without_bom_handling_and_without_replacement(&head[..end])
    });
    whole.is_some_and(|text| !text.is_ascii())
}

/// A streaming GB18030 → UTF-8 transcoder; a byte that is no character
/// becomes U+FFFD, so the line holding it is still there to be reported.
struct Gb18030ToUtf8<R> {
    inner: R,
    decoder: encoding_rs::Decoder,
    input: Vec<u8>,
    out: String,
    start: usize,
    done: bool,
}

impl<R: Read> Gb18030ToUtf8<R> {
    fn new(inner: R) -> Self {
        Self {
            inner,
            decoder: encoding_rs::GB18030.new_decoder_without_bom_handling(),
            input: vec![0; 1 << 16],
            out: String::new(),
            start: 0,
            done: false,
        }
    }
}

impl<R: Read> Read for Gb18030ToUtf8<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.start == self.out.len() {
            if self.done {
                return Ok(0);
            }
            let n = self.inner.read(&mut self.input)?;
            self.done = n == 0;
            self.out.clear();
            self.start = 0;
            self.out
                .reserve(self.decoder.max_utf8_buffer_length(n).unwrap_or(n * 3 + 16));
            let (_, read, _) =
                self.decoder
                    .decode_to_string(&self.input[..n], &mut self.out, self.done);
            debug_assert_eq!(read, n, "the output was reserved for the whole input");
        }
        let bytes = self.out.as_bytes();
        let n = buf.len().min(bytes.len() - self.start);
        buf[..n].copy_from_slice(&bytes[self.start..self.start + n]);
        self.start += n;
        Ok(n)
    }
}

/// A streaming UTF-16 → UTF-8 transcoder. The byte-order mark is dropped;
/// an unpaired surrogate becomes U+FFFD, so the line holding it is still
/// there to be reported.
struct Utf16ToUtf8<R> {
    inner: R,
    endian: Endian,
    /// Transcoded bytes not yet handed out, from `start`.
    out: Vec<u8>,
    start: usize,
    /// An odd byte, or a high surrogate, left over from the last chunk.
    carry: Vec<u8>,
    at_start: bool,
    done: bool,
}

impl<R: Read> Utf16ToUtf8<R> {
    fn new(inner: R, endian: Endian) -> Self {
        Self {
            inner,
            endian,
            out: Vec::new(),
            start: 0,
            carry: Vec::new(),
            at_start: true,
            done: false,
        }
    }

    fn unit(&self, pair: &[u8]) -> u16 {
        match self.endian {
            Endian::Little => u16::from_le_bytes([pair[0], pair[1]]),
            Endian::Big => u16::from_be_bytes([pair[0], pair[1]]),
        }
    }

    /// Transcode the next chunk into `out`.
    fn refill(&mut self) -> io::Result<()> {
        let mut bytes = std::mem::take(&mut self.carry);
        let had = bytes.len();
        bytes.resize(had + (1 << 16), 0);
        let n = self.inner.read(&mut bytes[had..])?;
        bytes.truncate(had + n);
        if n == 0 {
            self.done = true;
        }
        let mut units: Vec<u16> = bytes.chunks_exact(2).map(|p| self.unit(p)).collect();
        let mut keep = bytes.len() % 2;
        // A high surrogate at the end waits for its partner in the next chunk.
        if !self.done && units.last().is_some_and(|u| (0xd800..0xdc00).contains(u)) {
            units.pop();
            keep += 2;
        }
        self.carry = bytes[bytes.len() - keep..].to_vec();
        if self.done && !self.carry.is_empty() {
            // A file cut in the middle of a character.
            self.carry.clear();
            units.push(0xfffd);
        }
        if self.at_start && units.first() == Some(&0xfeff) {
            units.remove(0);
        }
        if !units.is_empty() {
            self.at_start = false;
        }
        self.out.clear();
        self.start = 0;
        let mut utf8 = [0u8; 4];
        for c in char::decode_utf16(units) {
            let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
            self.out
                .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        }
        Ok(())
    }
}

impl<R: Read> Read for Utf16ToUtf8<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.start == self.out.len() {
            if self.done {
                return Ok(0);
            }
            self.refill()?;
        }
        let n = buf.len().min(self.out.len() - self.start);
        buf[..n].copy_from_slice(&self.out[self.start..self.start + n]);
        self.start += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn read_all(bytes: &[u8]) -> (String, Wrapping) {
        let (mut r, w) = decode(bytes).unwrap();
        let mut s = String::new();
        r.read_to_string(&mut s).unwrap();
        (s, w)
    }

    #[test]
    fn a_gbk_export_is_read_as_chinese_text_and_utf8_is_left_alone() {
        let text = "实例ID,开始时间,应付金额\ni-1,2026-11-20 16:00:00,130.00\n";
        let (gbk, _, had_errors) = encoding_rs::GB18030.encode(text);
        assert!(!had_errors);
        let (read, w) = read_all(&gbk);
        assert_eq!(read, text);
        assert!(w.gb18030 && w.describe().unwrap().contains("GB18030"));
        // The same text in UTF-8 passes through untouched.
        let (read, w) = read_all(text.as_bytes());
        assert_eq!(read, text);
        assert!(!w.gb18030 && w.describe().is_none());
        // Latin-1 bytes that are no GB18030 text are not taken for it.
        assert!(!is_gb18030(b"caf\xe9,\xff\xff\n"));
    }

    fn utf16le(text: &str, bom: bool) -> Vec<u8> {
        let mut out = if bom { vec![0xff, 0xfe] } else { Vec::new() };
        for u in text.encode_utf16() {
            out.extend_from_slice(&u.to_le_bytes());
        }
        out
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    const TEXT: &str =
        "timestamp, name, power.draw [W]\n2024/06/01 10:00:00.000, NVIDIA A100 显卡 🚀, 250.12 W\n";

    #[test]
    fn plain_text_passes_through_untouched() {
        let (s, w) = read_all(TEXT.as_bytes());
        assert_eq!(s, TEXT);
        assert_eq!(w.describe(), None);
        assert!(w.warnings().is_empty());
    }

    #[test]
    fn utf16_with_or_without_a_mark_and_either_endianness_reads_as_utf8() {
        let (s, w) = read_all(&utf16le(TEXT, true));
        assert_eq!(s, TEXT);
        assert_eq!(w.utf16, Some(Endian::Little));
        let (s, _) = read_all(&utf16le(TEXT, false));
        assert_eq!(s, TEXT);
        let mut be = vec![0xfe, 0xff];
        for u in TEXT.encode_utf16() {
            be.extend_from_slice(&u.to_be_bytes());
        }
        let (s, w) = read_all(&be);
        assert_eq!(s, TEXT);
        assert_eq!(w.utf16, Some(Endian::Big));
    }

    #[test]
    fn a_surrogate_pair_split_across_chunks_survives() {
        // Put the emoji's two units on either side of the 64 KiB boundary.
        let filler = "a".repeat((1 << 15) - 2);
        let text = format!("{filler}🚀\n");
        let mut bytes = utf16le(&text, true);
        assert_eq!(bytes.len() % 2, 0);
        let (s, _) = read_all(&bytes);
        assert_eq!(s, text);
        // Cut in the middle of a character: the rest is kept, the stub marked.
        bytes.pop();
        let (s, _) = read_all(&bytes);
        assert!(
            s.starts_with(&filler) && s.ends_with('\u{fffd}'),
            "{}",
            &s[s.len() - 8..]
        );
    }

    #[test]
    fn gzip_and_concatenated_gzip_members_decompress() {
        let (s, w) = read_all(&gzip(TEXT.as_bytes()));
        assert_eq!(s, TEXT);
        assert_eq!(
            w.describe().as_deref(),
            Some("gzip-compressed; read decompressed")
        );
        // `cat a.gz b.gz` (rotated logs joined) is one stream of both.
        let mut two = gzip(b"first\n");
        two.extend(gzip(b"second\n"));
        assert_eq!(read_all(&two).0, "first\nsecond\n");
        // PowerShell output, then gzipped.
        let (s, w) = read_all(&gzip(&utf16le(TEXT, true)));
        assert_eq!(s, TEXT);
        assert!(w.gzip && w.utf16 == Some(Endian::Little));
    }

    #[test]
    fn a_script_transcript_loses_its_banners_and_ctrl_c_but_keeps_its_line_numbers() {
        let log = "Script started on 2024-06-01 11:27:04+00:00 [COMMAND=\"nvidia-smi -l 1\"]\r\n\
                   timestamp, index\r\n\
                   2024/06/01 11:27:05.177, 0\r\n\
                   ^C\r\n\
                   \r\n\
                   Script done on 2024-06-01 11:27:11+00:00 [COMMAND_EXIT_CODE=\"130\"]\n";
        let (s, w) = read_all(log.as_bytes());
        assert_eq!(
            s,
            "\r\ntimestamp, index\r\n2024/06/01 11:27:05.177, 0\r\n\r\n\r\n\n"
        );
        assert_eq!(w.capture, Some(Capture::Script));
        assert_eq!(w.unwrapped.get(), (3, 0));
    }

    #[test]
    fn a_pasted_terminal_loses_its_prompts_and_ctrl_c_but_keeps_its_line_numbers() {
        let log = "root@node1:~# nvidia-smi --query-gpu=timestamp,power.draw --format=csv -l 1\n\
                   timestamp, power.draw [W]\n\
                   2024/06/01 11:27:05.177, 61.25 W\n\
                   ^C\n\
                   root@node1:~# \n";
        let (text, w) = read_all(log.as_bytes());
        assert_eq!(w.capture, Some(Capture::Terminal));
        assert_eq!(
            text,
            "\ntimestamp, power.draw [W]\n2024/06/01 11:27:05.177, 61.25 W\n\n\n"
        );
        assert_eq!(w.unwrapped.get().0, 3);
        // Not a transcript: passed through as it is.
        let (_, w) = read_all(b"timestamp, power.draw [W]\n");
        assert_eq!(w.capture, None);
    }

    #[test]
    fn kubectl_and_docker_timestamps_are_taken_off_every_line() {
        let log = "2024-06-01T11:27:05.123456789Z timestamp, index\n\
                   2024-06-01T11:27:05.200000000Z 2024/06/01 11:27:05.177, 0\n\
                   2024-06-01T19:27:06+08:00 2024/06/01 11:27:06.180, 0\n";
        let (s, w) = read_all(log.as_bytes());
        assert_eq!(
            s,
            "timestamp, index\n2024/06/01 11:27:05.177, 0\n2024/06/01 11:27:06.180, 0\n"
        );
        assert_eq!(w.capture, Some(Capture::TimestampPrefix));
        assert_eq!(w.unwrapped.get(), (0, 3));
        // Our own tables put ISO times first too, followed by a comma: untouched.
        let table = "2024-06-01T11:27:05Z,ok\n";
        assert_eq!(read_all(table.as_bytes()).0, table);
    }

    /// rsyslog's RFC 3339 file format (`RSYSLOG_FileFormat`), as
    /// /var/log/kern.log holds it on a UTC+8 machine.
    const RSYSLOG_ISO: &str = "\
2026-11-30T08:12:40.517204+08:00 node1 kernel: nvidia 0000:17:00.0: enabling device (0000 -> 0002)
2026-11-30T08:12:44.123456+08:00 node1 kernel: NVRM: Xid (PCI:0000:17:00): 79, pid=0, GPU has fallen off the bus.
2026-11-30T08:12:44.123902+08:00 node1 kernel: NVRM: GPU 0000:17:00.0: GPU has fallen off the bus.
2026-11-30T08:12:44.200000+08:00 node1 -- MARK --
2026-11-30T08:12:45.001337+08:00 node1 systemd[1]: nvidia-persistenced.service: Main process exited, code=exited, status=1/FAILURE
";

    #[test]
    fn a_syslog_lines_own_iso_time_is_not_taken_for_a_capture_tools() {
        let (text, w) = read_all(RSYSLOG_ISO.as_bytes());
        assert_eq!(text, RSYSLOG_ISO);
        assert_eq!(w.capture, None);
        assert_eq!(crate::detect(text.as_bytes()), Ok(crate::Format::KernelLog));
        // The kernel log parser reads the times the lines carry.
        let (events, _) = crate::blocks::testing::with_builder(false, |ctx, mut b| {
            crate::parse(crate::Format::KernelLog, text.as_bytes(), ctx, &mut b).unwrap();
            b.finish().events
        });
        let xid = events
            .iter()
            .find(|e| e.kind == crate::domain::EventKind::Xid)
            .unwrap();
        assert_eq!((xid.code, xid.gpu), (Some(79), Some(0)));
        assert_eq!(
            xid.at,
            "2026-11-30T00:12:44.123Z"
                .parse::<jiff::Timestamp>()
                .unwrap()
        );
        // The same lines as `kubectl logs --timestamps` shows them from a
        // pod that tails the file: the pod's time goes, the line's stays.
        let kubectl: String = RSYSLOG_ISO
            .lines()
            .map(|l| format!("2026-11-30T00:12:46.000000000Z {l}\n"))
            .collect();
        let (text, w) = read_all(kubectl.as_bytes());
        assert_eq!(w.capture, Some(Capture::TimestampPrefix));
        assert_eq!(text, RSYSLOG_ISO);
    }

    #[test]
    fn a_gzip_cut_off_reads_up_to_the_cut_and_says_so() {
        let text = TEXT.repeat(2000);
        let mut bytes = gzip(text.as_bytes());
        bytes.truncate(bytes.len() / 2);
        let (mut r, w) = decode(&bytes[..]).unwrap();
        let mut s = Vec::new();
        r.read_to_end(&mut s).unwrap();
        assert!(!s.is_empty() && s.len() < text.len());
        assert!(text.as_bytes().starts_with(&s));
        assert!(w.cut.get());
        assert_eq!(w.warnings().len(), 2, "{:?}", w.warnings());
    }
}
