//! SHA-256 of a file while it is being parsed. The digest runs on its own
//! thread so that the parser (the other core of a small machine) never waits
//! for it; the file is read once, and never copied for the digest: the
//! reader is the parser's buffer (`BufRead`), and each buffer, once the
//! parser has taken what it holds, moves to the hashing thread and comes
//! back to be filled again.

use std::io::{self, BufRead, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use breakpoint_formats::timings::thread_cpu;
use sha2::{Digest, Sha256};

/// Bytes read at a time: few reads, and a buffer stays in the cache
/// between the read and the parser's copy of it.
const BUFFER_BYTES: usize = 256 << 10;

/// Buffers that may exist at once (one being read, the rest with the
/// hasher or waiting for it). While both sides keep pace, two or three go
/// round, the one handed back last reused first (still in the cache); more
/// are made only when the hasher falls behind — its core taken by another
/// thread, or given little time by the machine — so that the parser does
/// not wait for it: with four at most, an import on a core shared with a
/// busy process took 5–7 % longer.
const BUFFERS: usize = 16;

const PROGRESS_STEP: u64 = 4 << 20;

/// A filled buffer on its way to the hasher: the buffer and how much of it
/// the read filled.
type Filled = (Vec<u8>, usize);

/// What reading a file through a `HashingReader` found.
#[derive(Debug, PartialEq)]
pub struct Hashed {
    pub sha256: String,
    pub bytes: u64,
    /// The hashing thread's processor time (`import --timings`).
    pub cpu: Option<Duration>,
}

pub struct HashingReader<'p, R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    filled: usize,
    to_hasher: Option<SyncSender<Filled>>,
    /// Buffers the hasher is done with, to be filled again: as it hands
    /// them back, and taken from there, the last one on top.
    returned: Receiver<Vec<u8>>,
    free: Vec<Vec<u8>>,
    buffers: usize,
    /// The digest, and the processor time the thread took for it.
    hasher: Option<JoinHandle<(String, Option<Duration>)>>,
    bytes: u64,
    progress: Option<&'p mut dyn FnMut(u64)>,
    reported: u64,
}

impl<'p, R: Read> HashingReader<'p, R> {
    pub fn new(inner: R, progress: Option<&'p mut dyn FnMut(u64)>) -> Self {
        let (tx, rx) = sync_channel::<Filled>(BUFFERS);
        let (give_back, returned) = sync_channel::<Vec<u8>>(BUFFERS);
        let hasher = std::thread::spawn(move || {
            let mut h = Sha256::new();
            for (buffer, filled) in rx {
                h.update(&buffer[..filled]);
                // The reader may already have stopped taking buffers back.
                let _ = give_back.send(buffer);
            }
            (crate::archive::hex(&h.finalize()), thread_cpu())
        });
        Self {
            inner,
            buf: Vec::new(),
            pos: 0,
            filled: 0,
            to_hasher: Some(tx),
            returned,
            free: Vec::new(),
            buffers: 0,
            hasher: Some(hasher),
            bytes: 0,
            progress,
            reported: 0,
        }
    }

    /// The hex SHA-256 of everything read, how many bytes that was, and
    /// the hashing thread's processor time. Call after reading to the end.
    pub fn finish(mut self) -> io::Result<Hashed> {
        // Read what the parser left unread (it may stop early), so the hash
        // is always of the whole file.
        loop {
            let n = self.fill_buf()?.len();
            if n == 0 {
                break;
            }
            self.consume(n);
        }
        drop(self.to_hasher.take());
        let (sha256, cpu) = self
            .hasher
            .take()
            .map(|h| h.join())
            .transpose()
            .map_err(|_| io::Error::other("the hashing thread failed"))?
            .ok_or_else(|| io::Error::other("the file was already hashed"))?;
        Ok(Hashed {
            sha256,
            bytes: self.bytes,
            cpu,
        })
    }

    /// Hand the buffer the parser has finished with to the hasher, and
    /// fill another.
    fn refill(&mut self) -> io::Result<()> {
        let stopped = || io::Error::other("the hashing thread stopped");
        if self.filled > 0 {
            self.free.extend(self.returned.try_iter());
            let next = match self.free.pop() {
                Some(buffer) => buffer,
                None if self.buffers < BUFFERS => {
                    self.buffers += 1;
                    vec![0; BUFFER_BYTES]
                }
                // Every other buffer is with the hasher: wait for one.
                None => self.returned.recv().map_err(|_| stopped())?,
            };
            let done = std::mem::replace(&mut self.buf, next);
            let tx = self.to_hasher.as_ref().ok_or_else(stopped)?;
            tx.send((done, self.filled)).map_err(|_| stopped())?;
        } else if self.buf.is_empty() {
            // The first read. A read of nothing (the end, read again and
            // again) keeps its buffer.
            self.buffers += 1;
            self.buf = vec![0; BUFFER_BYTES];
        }
        (self.pos, self.filled) = (0, 0);
        let n = loop {
            match self.inner.read(&mut self.buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                read => break read?,
            }
        };
        self.filled = n;
        self.bytes += n as u64;
        if let Some(progress) = self.progress.as_mut()
            && self.bytes - self.reported >= PROGRESS_STEP
        {
            self.reported = self.bytes;
            progress(self.bytes);
        }
        Ok(())
    }
}

impl<R: Read> BufRead for HashingReader<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.filled {
            self.refill()?;
        }
        Ok(&self.buf[self.pos..self.filled])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.filled);
    }
}

impl<R: Read> Read for HashingReader<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
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
        let hashed = r.finish().unwrap();
        assert_eq!(
            (hashed.sha256.as_str(), hashed.bytes),
            (
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                3
            )
        );
    }

    #[test]
    fn the_end_read_again_and_again_is_still_the_end() {
        let mut r = HashingReader::new(&b"xy"[..], None);
        assert_eq!(r.fill_buf().unwrap(), b"xy");
        r.consume(2);
        for _ in 0..3 * BUFFERS {
            assert!(r.fill_buf().unwrap().is_empty());
        }
        assert_eq!(r.finish().unwrap().bytes, 2);
    }

    #[test]
    fn many_buffers_read_in_pieces_hash_as_the_whole() {
        // More than every buffer holds at once, read in odd pieces through
        // both faces, as a parser and a decoder would.
        let data: Vec<u8> = (0..BUFFER_BYTES * BUFFERS * 2 + 12_345)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let mut r = HashingReader::new(&data[..], None);
        let mut seen = Vec::new();
        let mut piece = vec![0u8; 70_001];
        loop {
            let n = r.read(&mut piece).unwrap();
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&piece[..n]);
            let take = r.fill_buf().unwrap().len().min(33_333);
            seen.extend_from_slice(&r.fill_buf().unwrap()[..take]);
            r.consume(take);
        }
        assert_eq!(seen, data);
        let hashed = r.finish().unwrap();
        assert_eq!(hashed.bytes, data.len() as u64);
        assert_eq!(hashed.sha256, crate::archive::sha256_hex(&data));
    }
}
