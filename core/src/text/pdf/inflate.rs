//! A PDF stream expanded through its filters without keeping the expansion.
//!
//! lopdf decompresses a stream whole, into one `Vec`, whenever pdf-extract asks for its content,
//! so a stream of a few kilobytes of zeros compressed a thousandfold asks for a gigabyte. Here the
//! same filters run as readers, chained, each stage's output charged to a [`Budget`] shared by the
//! whole document and then dropped: the bytes lopdf *would* allocate are counted before it
//! allocates any, in 64 KiB at a time.
//!
//! Each stage decodes at least what lopdf's would (the budget must never undercount):
//! - Flate is read as raw deflate after the two-byte zlib header. lopdf tries zlib first and, when
//!   that fails with nothing decoded, raw deflate from the same offset; both decode the same
//!   deflate data, and a checksum failure at the end changes nothing already decoded.
//! - LZW runs weezl, lopdf's decoder, in the same configuration (`/EarlyChange`), keeping what it
//!   decoded before an error as lopdf does.
//! - ASCII85 follows lopdf's loop, `z` for four zero bytes included.
//!
//! A filter lopdf does not know ends its chain: lopdf's decompression fails there and the stages
//! before it are all it expanded.

use std::cell::Cell;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};

use flate2::read::DeflateDecoder;
use weezl::{BitOrder, LzwStatus};

/// A decoding filter, as lopdf applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Filter {
    Flate,
    /// `early_change` is `/DecodeParms /EarlyChange` (default 1): weezl's TIFF size switch.
    Lzw {
        early_change: bool,
    },
    Ascii85,
}

impl Filter {
    /// The filters lopdf applies for a stream's `/Filter` names, in decoding order, up to the
    /// first it cannot decode (there its decompression fails, after expanding the ones before).
    pub(super) fn chain<'a>(
        names: impl IntoIterator<Item = &'a [u8]>,
        early_change: bool,
    ) -> Vec<Filter> {
        names
            .into_iter()
            .map_while(|name| match name {
                b"FlateDecode" => Some(Filter::Flate),
                b"LZWDecode" => Some(Filter::Lzw { early_change }),
                b"ASCII85Decode" => Some(Filter::Ascii85),
                _ => None,
            })
            .collect()
    }
}

/// Why an expansion stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// The budget's bytes are spent.
    OverLimit,
    /// The caller's cancel flag was raised.
    Cancelled,
}

/// How many expanded bytes a document's streams may add up to, shared by all of them.
pub(super) struct Budget<'a> {
    used: Cell<u64>,
    limit: u64,
    cancel: &'a AtomicBool,
    /// `used` at which the cancel flag is next read: often enough to stop within a few
    /// milliseconds, seldom enough to cost nothing.
    next_check: Cell<u64>,
    stopped: Cell<Option<Stop>>,
}

/// Expanded bytes between two looks at the cancel flag.
const CANCEL_CHECK_BYTES: u64 = 1 << 20;

impl<'a> Budget<'a> {
    pub(super) fn new(limit: u64, cancel: &'a AtomicBool) -> Self {
        Budget {
            used: Cell::new(0),
            limit,
            cancel,
            next_check: Cell::new(0),
            stopped: Cell::new(None),
        }
    }

    /// Why the budget stopped an expansion, once it has.
    pub(super) fn stopped(&self) -> Option<Stop> {
        self.stopped.get()
    }

    /// Charges `n` bytes; an error (which ends every reader it passes through) once the limit
    /// is passed or the read is cancelled.
    fn charge(&self, n: usize) -> io::Result<()> {
        if let Some(stop) = self.stopped.get() {
            return Err(stop_error(stop));
        }
        let used = self.used.get().saturating_add(n as u64);
        self.used.set(used);
        let stop = if used > self.limit {
            Some(Stop::OverLimit)
        } else if used >= self.next_check.get() {
            self.next_check.set(used.saturating_add(CANCEL_CHECK_BYTES));
            self.cancel
                .load(Ordering::Relaxed)
                .then_some(Stop::Cancelled)
        } else {
            None
        };
        match stop {
            Some(stop) => {
                self.stopped.set(Some(stop));
                Err(stop_error(stop))
            }
            None => Ok(()),
        }
    }
}

fn stop_error(stop: Stop) -> io::Error {
    io::Error::other(match stop {
        Stop::OverLimit => "expansion budget spent",
        Stop::Cancelled => "cancelled",
    })
}

/// Expands `data` through `filters`, charging every byte each stage yields to `budget` and
/// handing the last stage's bytes to `sink`, a chunk at a time; nothing is kept. A stream
/// without filters is handed over as it is, uncharged: it expands nothing.
///
/// # Errors
///
/// The [`Stop`] that ended the expansion when the budget did. A decoding error is not one: the
/// stream ends there, as lopdf's decoding of it does.
pub(super) fn expand(
    data: &[u8],
    filters: &[Filter],
    budget: &Budget<'_>,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<(), Stop> {
    if let Some(stop) = budget.stopped() {
        return Err(stop);
    }
    if filters.is_empty() {
        sink(data);
        return Ok(());
    }
    let mut reader: Box<dyn Read + '_> = Box::new(data);
    for filter in filters {
        let stage: Box<dyn Read + '_> = match filter {
            Filter::Flate => Box::new(deflate_after_header(reader)),
            Filter::Lzw { early_change } => Box::new(Lzw::new(reader, *early_change)),
            Filter::Ascii85 => Box::new(Ascii85::new(reader)),
        };
        reader = Box::new(Charged {
            inner: stage,
            budget,
        });
    }
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => sink(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    budget.stopped().map_or(Ok(()), Err)
}

/// A stage whose output is charged to the budget as it is read.
struct Charged<'b, 'c, R> {
    inner: R,
    budget: &'b Budget<'c>,
}

impl<R: Read> Read for Charged<'_, '_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.budget.charge(n)?;
        Ok(n)
    }
}

/// Raw deflate after the two bytes of a zlib header: everything lopdf's zlib or raw-deflate
/// fallback decodes (see the module doc).
fn deflate_after_header<R: Read>(mut inner: R) -> DeflateDecoder<R> {
    let mut header = [0u8; 2];
    // Fewer than two bytes: lopdf decodes nothing from them either, and neither does deflate
    // from what is left.
    let _ = inner.read_exact(&mut header);
    DeflateDecoder::new(inner)
}

/// LZW through weezl's buffer API, so that it reads from the stage before and is read from.
struct Lzw<R> {
    inner: R,
    decoder: weezl::decode::Decoder,
    input: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    done: bool,
}

impl<R: Read> Lzw<R> {
    fn new(inner: R, early_change: bool) -> Self {
        // lopdf: eight-bit literals (a minimum code size of 9), most significant bit first.
        let decoder = if early_change {
            weezl::decode::Decoder::with_tiff_size_switch(BitOrder::Msb, 8)
        } else {
            weezl::decode::Decoder::new(BitOrder::Msb, 8)
        };
        Lzw {
            inner,
            decoder,
            input: vec![0u8; 8 * 1024],
            start: 0,
            end: 0,
            eof: false,
            done: false,
        }
    }
}

impl<R: Read> Read for Lzw<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.done || out.is_empty() {
            return Ok(0);
        }
        loop {
            if self.start == self.end && !self.eof {
                let n = self.inner.read(&mut self.input)?;
                self.eof = n == 0;
                self.start = 0;
                self.end = n;
            }
            let result = self
                .decoder
                .decode_bytes(&self.input[self.start..self.end], out);
            self.start += result.consumed_in;
            // No progress with input still to give, or none left to give: nothing more will
            // come out (with input used up and more to read, the loop reads it).
            let stuck = result.consumed_in == 0
                && result.consumed_out == 0
                && (self.eof || self.start < self.end);
            match result.status {
                // What was decoded before an invalid code is kept, as lopdf keeps it.
                Err(_) | Ok(LzwStatus::Done) => self.done = true,
                Ok(_) if stuck => self.done = true,
                Ok(_) => {}
            }
            if result.consumed_out > 0 || self.done {
                return Ok(result.consumed_out);
            }
        }
    }
}

/// ASCII85 as lopdf's loop decodes it: whitespace skipped, `z` for four zeros between groups,
/// and the first character outside `!`..`u` (the `~` of `~>` among them) ending the data, after
/// which a partial group gives its bytes.
struct Ascii85<R> {
    inner: io::Bytes<io::BufReader<R>>,
    group: u32,
    count: usize,
    pending: [u8; 4],
    pending_start: usize,
    pending_end: usize,
    done: bool,
}

impl<R: Read> Ascii85<R> {
    fn new(inner: R) -> Self {
        Ascii85 {
            inner: io::BufReader::new(inner).bytes(),
            group: 0,
            count: 0,
            pending: [0; 4],
            pending_start: 0,
            pending_end: 0,
            done: false,
        }
    }

    /// Decodes input until a group's bytes are pending or the data ends.
    fn fill(&mut self) -> io::Result<()> {
        while !self.done && self.pending_start == self.pending_end {
            let Some(byte) = self.inner.next().transpose()? else {
                self.finish();
                break;
            };
            match byte {
                b'z' if self.count == 0 => self.emit(&[0; 4]),
                // lopdf fails the whole stream here; what came before was expanded.
                b'z' => self.done = true,
                b if b.is_ascii_whitespace() => {}
                b'!'..=b'u' => {
                    let Some(group) = self.group.checked_mul(85) else {
                        self.done = true;
                        break;
                    };
                    self.group = group.wrapping_add(u32::from(byte - b'!'));
                    self.count += 1;
                    if self.count == 5 {
                        let bytes = self.group.to_be_bytes();
                        self.emit(&bytes);
                        self.group = 0;
                        self.count = 0;
                    }
                }
                _ => self.finish(),
            }
        }
        Ok(())
    }

    /// The end of the data: a partial group padded with `u`, giving one byte fewer than its
    /// characters.
    fn finish(&mut self) {
        self.done = true;
        if self.count == 0 {
            return;
        }
        let mut group = self.group;
        for _ in self.count..5 {
            match group.checked_mul(85) {
                Some(g) => group = g.wrapping_add(84),
                None => return,
            }
        }
        let bytes = group.to_be_bytes();
        let n = self.count - 1;
        self.emit(&bytes[..n]);
    }

    fn emit(&mut self, bytes: &[u8]) {
        self.pending[..bytes.len()].copy_from_slice(bytes);
        self.pending_start = 0;
        self.pending_end = bytes.len();
    }
}

impl<R: Read> Read for Ascii85<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut written = 0;
        while written < out.len() {
            self.fill()?;
            if self.pending_start == self.pending_end {
                break;
            }
            let n = (self.pending_end - self.pending_start).min(out.len() - written);
            out[written..written + n]
                .copy_from_slice(&self.pending[self.pending_start..self.pending_start + n]);
            self.pending_start += n;
            written += n;
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::ZlibEncoder;
    use std::io::Write;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut encoder = ZlibEncoder::new(Vec::new(), Compression::default());
        encoder
            .write_all(data)
            .expect("writing to a Vec cannot fail");
        encoder.finish().expect("writing to a Vec cannot fail")
    }

    fn expanded(data: &[u8], filters: &[Filter], limit: u64) -> (Vec<u8>, Result<(), Stop>) {
        let go = AtomicBool::new(false);
        let budget = Budget::new(limit, &go);
        let mut out = Vec::new();
        let result = expand(data, filters, &budget, &mut |chunk| {
            out.extend_from_slice(chunk)
        });
        (out, result)
    }

    #[test]
    fn flate_expands_as_lopdf_decodes_it_and_a_bomb_stops_at_the_limit() {
        let text = b"BT /F1 10 Tf 56 786 Td (Hello) Tj ET\n".repeat(50);
        let (out, result) = expanded(&zlib(&text), &[Filter::Flate], 1 << 20);
        assert_eq!(result, Ok(()));
        assert_eq!(out, text);

        let bomb = zlib(&vec![0u8; 8 << 20]);
        let (_, result) = expanded(&bomb, &[Filter::Flate], 1 << 20);
        assert_eq!(result, Err(Stop::OverLimit));
        // Twice compressed: the inner stage alone passes the limit.
        let double = zlib(&bomb);
        let (_, result) = expanded(&double, &[Filter::Flate, Filter::Flate], 1 << 20);
        assert_eq!(result, Err(Stop::OverLimit));
    }

    #[test]
    fn lzw_and_ascii85_decode_as_lopdf_does() {
        let text = b"the quick brown fox jumps over the lazy dog ".repeat(20);
        let mut encoder = weezl::encode::Encoder::with_tiff_size_switch(BitOrder::Msb, 8);
        let lzw = encoder
            .encode(&text)
            .expect("encoding to a Vec cannot fail");
        let (out, result) = expanded(&lzw, &[Filter::Lzw { early_change: true }], 1 << 20);
        assert_eq!(result, Ok(()));
        assert_eq!(out, text);

        let (out, _) = expanded(b"87cURD]i,\"Ebo80~>", &[Filter::Ascii85], 1 << 20);
        assert_eq!(out, b"Hello World!");
        let (out, _) = expanded(b"zz!!~>", &[Filter::Ascii85], 1 << 20);
        assert_eq!(out, [0u8; 9]);
    }

    #[test]
    fn a_raised_cancel_flag_stops_a_long_expansion() {
        let go = AtomicBool::new(true);
        let budget = Budget::new(u64::MAX, &go);
        let data = zlib(&vec![0u8; 4 << 20]);
        let result = expand(&data, &[Filter::Flate], &budget, &mut |_| {});
        assert_eq!(result, Err(Stop::Cancelled));
    }
}
