//! SHA-256 of a file while it is being parsed. The digest runs on its own
//! thread so that the parser (the other core of a small machine) never waits
//! for it; the file is read once.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use sha2::{Digest, Sha256};

pub struct HashingReader<'p, R> {
    inner: R,
    to_hasher: Option<SyncSender<Vec<u8>>>,
    /// Buffers the hasher is done with, reused for the next reads: a fresh
    /// megabyte per read costs page faults on the parser's core, and when
    /// the parser outruns the hasher, memory. At most `BUFFERS` exist.
    returned: Receiver<Vec<u8>>,
    buffers: usize,
    hasher: Option<JoinHandle<String>>,
    bytes: u64,
    progress: Option<&'p mut dyn FnMut(u64)>,
    reported: u64,
}

const PROGRESS_STEP: u64 = 4 << 20;

/// Copies of what was read that may be on their way to the hasher at once:
/// enough that neither side waits for the other while both keep pace.
const BUFFERS: usize = 4;

impl<'p, R: Read> HashingReader<'p, R> {
    pub fn new(inner: R, progress: Option<&'p mut dyn FnMut(u64)>) -> Self {
        let (tx, rx) = sync_channel::<Vec<u8>>(BUFFERS);
        let (give_back, returned) = sync_channel::<Vec<u8>>(BUFFERS);
        let hasher = std::thread::spawn(move || {
            let mut h = Sha256::new();
            for chunk in rx {
                h.update(&chunk);
                // The reader may already have stopped taking buffers back.
                let _ = give_back.send(chunk);
            }
            crate::archive::hex(&h.finalize())
        });
        Self {
            inner,
            to_hasher: Some(tx),
            returned,
            buffers: 0,
            hasher: Some(hasher),
            bytes: 0,
            progress,
            reported: 0,
        }
    }

    /// The hex SHA-256 of everything read, and how many bytes that was.
    /// Call after reading to the end.
    pub fn finish(mut self) -> io::Result<(String, u64)> {
        // Read what the parser left unread (it may stop early), so the hash
        // is always of the whole file.
        let mut rest = [0u8; 64 * 1024];
        while self.read(&mut rest)? > 0 {}
        drop(self.to_hasher.take());
        let digest = self
            .hasher
            .take()
            .map(|h| h.join())
            .transpose()
            .map_err(|_| io::Error::other("the hashing thread failed"))?
            .ok_or_else(|| io::Error::other("the file was already hashed"))?;
        Ok((digest, self.bytes))
    }
}

impl<R: Read> Read for HashingReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            if let Some(tx) = &self.to_hasher {
                let mut copy = match self.returned.try_recv() {
                    Ok(copy) => copy,
                    Err(_) if self.buffers < BUFFERS => {
                        self.buffers += 1;
                        Vec::new()
                    }
                    // Every buffer is with the hasher: wait for one.
                    Err(_) => self
                        .returned
                        .recv()
                        .map_err(|_| io::Error::other("the hashing thread stopped"))?,
                };
                copy.clear();
                copy.extend_from_slice(&buf[..n]);
                tx.send(copy)
                    .map_err(|_| io::Error::other("the hashing thread stopped"))?;
            }
            self.bytes += n as u64;
            if let Some(progress) = self.progress.as_mut()
                && self.bytes - self.reported >= PROGRESS_STEP
            {
                self.reported = self.bytes;
                progress(self.bytes);
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_everything_even_what_was_not_read() {
        let data = b"abc";
        let mut r = HashingReader::new(&data[..], None);
        let mut one = [0u8; 1];
        r.read_exact(&mut one).unwrap();
        assert_eq!(
            r.finish().unwrap(),
            (
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".to_string(),
                3
            )
        );
    }
}
