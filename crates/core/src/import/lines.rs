//! Line-by-line reading of a log with line numbers, in constant memory.
//!
//! Real logs end in the middle of a line when the instance died while
//! writing; the reader says whether each line was terminated so that a parser
//! can accept a cut-off last line with a warning. Windows line endings and a
//! UTF-8 byte-order mark are removed here, once, for every format.

use std::io::{self, BufRead};

pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    line_no: u64,
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
        }
    }

    /// The next line, or `None` at the end. Invalid UTF-8 is an error that
    /// names the line.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        let n = self.inner.read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        let mut bytes = &self.buf[..];
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
        let text = std::str::from_utf8(bytes).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "line {} is not UTF-8 text (byte {})",
                    self.line_no,
                    e.valid_up_to() + 1
                ),
            )
        })?;
        Ok(Some(Line {
            number: self.line_no,
            text,
            terminated,
        }))
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

    #[test]
    fn invalid_utf8_names_the_line() {
        let mut r = LineReader::new(&b"ok\n\xff\xfe\n"[..]);
        r.next_line().unwrap();
        let e = r.next_line().err().unwrap();
        assert!(e.to_string().contains("line 2"), "{e}");
    }
}
