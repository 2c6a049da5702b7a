//! The file behind an import: that it is a regular file, that it did not
//! change while it was read, whether it was imported before, and a reader
//! that can be cancelled.
//!
//! A log copied while it is still being written, or truncated by a rotation
//! mid-import, must not be stored as a complete run: its size and
//! modification time are taken when the import starts and compared with the
//! bytes actually read and with the file at the end.

use std::fs::{File, Metadata};
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use super::decode;

/// How much of the decoded text detection and the quick duplicate look read.
pub const HEAD_BYTES: u64 = 64 * 1024;

/// What a file was when its import began.
#[derive(Debug, Clone, PartialEq)]
pub struct FileState {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    identity: (u64, u64),
}

impl FileState {
    pub fn of(meta: &Metadata) -> Self {
        Self {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            identity: {
                use std::os::unix::fs::MetadataExt;
                (meta.dev(), meta.ino())
            },
        }
    }

    /// Why the file cannot be trusted to be what was read, if it cannot:
    /// `bytes_read` is how many bytes were hashed and parsed, `now` the
    /// file's state after reading.
    pub fn changed(&self, bytes_read: u64, now: Option<&FileState>) -> Option<String> {
        let advice = "import it again once nothing writes to it";
        if bytes_read != self.len {
            return Some(format!(
                "the file changed while it was read: it held {} bytes when the import \
                 began and {bytes_read} were read; {advice}",
                self.len
            ));
        }
        match now {
            None => Some(format!(
                "the file was removed or renamed while it was read; {advice}"
            )),
            Some(now) if now.len != self.len => Some(format!(
                "the file changed while it was read: {} bytes then, {} now; {advice}",
                self.len, now.len
            )),
            Some(now) if now != self => Some(format!(
                "the file was rewritten or replaced while it was read; {advice}"
            )),
            Some(_) => None,
        }
    }
}

/// The first `HEAD_BYTES` of a file's text, decompressed and transcoded as
/// the parsers will read it.
pub fn decoded_head(file: &File) -> io::Result<Vec<u8>> {
    let (text, _) = decode::decode(BufReader::with_capacity(1 << 16, file))?;
    let mut head = Vec::with_capacity(HEAD_BYTES as usize);
    // A read error after some text (a cut-off gzip) still leaves a head.
    if let Err(e) = text.take(HEAD_BYTES).read_to_end(&mut head)
        && head.is_empty()
    {
        return Err(e);
    }
    Ok(head)
}

pub use crate::archive::{hex, sha256_hex};

/// SHA-256 of a file's bytes and of the text they decode to (the same when
/// nothing needed decoding), read in one pass without parsing.
pub fn hash_both(file: &File) -> io::Result<(String, String)> {
    let mut raw = Sha256::new();
    let tee = Tee {
        inner: file,
        hasher: &mut raw,
    };
    let (mut text, wrapping) = decode::decode(BufReader::with_capacity(1 << 16, tee))?;
    let mut content = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = text.read(&mut buf)?;
        if n == 0 {
            break;
        }
        content.update(&buf[..n]);
    }
    drop(text);
    let raw = hex(&raw.finalize());
    let content = if wrapping.transformed() {
        hex(&content.finalize())
    } else {
        raw.clone()
    };
    Ok((raw, content))
}

struct Tee<'h, R> {
    inner: R,
    hasher: &'h mut Sha256,
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// SHA-256 of the text the parser reads, taken as it reads it: where the
/// text is the file's bytes as they are, their digest is taken already,
/// and the parser reads straight from the reader's buffer; otherwise each
/// piece is copied into a buffer of its own and hashed as it is read.
pub struct ContentHasher<R> {
    inner: R,
    hashing: Option<Hashing>,
}

struct Hashing {
    hasher: Sha256,
    buf: Box<[u8]>,
    pos: usize,
    filled: usize,
}

impl<R: BufRead> ContentHasher<R> {
    /// `hash`: false where the text is the file's bytes as they are.
    pub fn new(inner: R, hash: bool) -> Self {
        Self {
            inner,
            hashing: hash.then(|| Hashing {
                hasher: Sha256::new(),
                buf: vec![0; 256 << 10].into_boxed_slice(),
                pos: 0,
                filled: 0,
            }),
        }
    }

    /// The text's digest, where it was taken (`hash`): of everything read,
    /// and of what was left unread, read now.
    pub fn finish(mut self) -> io::Result<Option<String>> {
        if self.hashing.is_none() {
            return Ok(None);
        }
        io::copy(&mut self, &mut io::sink())?;
        Ok(self.hashing.map(|h| hex(&h.hasher.finalize())))
    }
}

impl<R: BufRead> BufRead for ContentHasher<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let Some(h) = self.hashing.as_mut() else {
            return self.inner.fill_buf();
        };
        if h.pos == h.filled {
            let n = self.inner.read(&mut h.buf)?;
            h.hasher.update(&h.buf[..n]);
            (h.pos, h.filled) = (0, n);
        }
        Ok(&h.buf[h.pos..h.filled])
    }

    fn consume(&mut self, n: usize) {
        match self.hashing.as_mut() {
            Some(h) => h.pos = (h.pos + n).min(h.filled),
            None => self.inner.consume(n),
        }
    }
}

impl<R: BufRead> Read for ContentHasher<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// A reader that stops with an error once `cancel` is set.
pub struct Cancellable<R> {
    pub inner: R,
    pub cancel: Option<Arc<AtomicBool>>,
}

impl<R: Read> Read for Cancellable<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "cancelled; nothing was stored",
            ));
        }
        self.inner.read(buf)
    }
}

/// The state of the file at `path` now, if it is still there.
pub fn state_now(path: &Path) -> Option<FileState> {
    std::fs::metadata(path).ok().map(|m| FileState::of(&m))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_file_that_shrank_grew_or_was_replaced_is_named_as_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.csv");
        std::fs::write(&path, "0123456789").unwrap();
        let before = FileState::of(&std::fs::metadata(&path).unwrap());
        assert_eq!(before.changed(10, state_now(&path).as_ref()), None);
        let e = before.changed(4, state_now(&path).as_ref()).unwrap();
        assert!(
            e.contains("held 10 bytes when the import began and 4 were read"),
            "{e}"
        );
        std::fs::write(&path, "0123456789abc").unwrap();
        let e = before.changed(10, state_now(&path).as_ref()).unwrap();
        assert!(e.contains("10 bytes then, 13 now"), "{e}");
        std::fs::remove_file(&path).unwrap();
        let e = before.changed(10, state_now(&path).as_ref()).unwrap();
        assert!(e.contains("removed or renamed"), "{e}");
    }

    #[test]
    fn plain_and_gzipped_copies_share_their_content_hash() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let text = b"timestamp, index\n2024/06/01 00:00:00.000, 0\n".repeat(50);
        let plain = dir.path().join("a.csv");
        std::fs::write(&plain, &text).unwrap();
        let mut hashes = Vec::new();
        for level in [1, 6, 9] {
            let gz = dir.path().join(format!("a{level}.csv.gz"));
            let mut enc = flate2::write::GzEncoder::new(
                File::create(&gz).unwrap(),
                flate2::Compression::new(level),
            );
            enc.write_all(&text).unwrap();
            enc.finish().unwrap();
            hashes.push(hash_both(&File::open(&gz).unwrap()).unwrap());
        }
        let (raw, content) = hash_both(&File::open(&plain).unwrap()).unwrap();
        assert_eq!(raw, content);
        assert_eq!(raw, sha256_hex(&text));
        for (gz_raw, gz_content) in hashes {
            assert_ne!(gz_raw, raw);
            assert_eq!(gz_content, content);
        }
    }
}
