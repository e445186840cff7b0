//! Reading a response body within its caps, decompressing it as it streams.
//!
//! This is the one decompression path: reqwest is built without its gzip/brotli/deflate features,
//! since transparent decompression would hide the compressed size, so only one of the two caps
//! could be enforced. Here the bytes received count against `max_body_bytes` and the
//! bytes they expand to against `max_decompressed_bytes`, chunk by chunk, so a bomb is stopped
//! after at most one chunk's expansion past the cap and is never held in memory.
//! The compressed count needs its own cap: a stream of empty deflate blocks, or an endless gzip
//! header, costs bytes on the wire without ever producing output, so only `max_body_bytes` stops it.
//!
//! A document (a PDF, a CSV file) is read within `max_document_bytes` instead, both caps: the
//! caller knows which before the first byte is read, from the response's type and URL
//! ([`BodyCaps`]).

use std::io::{self, Write};

use super::settings::FetchSettings;
use factgate_core::fetched::FetchOutcome;

/// The caps one body is read within: the bytes received and the bytes they decode to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyCaps {
    /// Bytes on the wire (`fetch.max_body_bytes`, or `fetch.max_document_bytes`).
    pub received: u64,
    /// Bytes after decompression (`fetch.max_decompressed_bytes`, or
    /// `fetch.max_document_bytes`).
    pub decoded: u64,
}

impl BodyCaps {
    /// A web page's caps.
    pub fn page(settings: &FetchSettings) -> BodyCaps {
        BodyCaps {
            received: settings.max_body_bytes,
            decoded: settings.max_decompressed_bytes,
        }
    }

    /// A document's caps: `max_document_bytes` for both, since a document is held whole before
    /// it is read and what it decodes to is what must fit.
    pub fn document(settings: &FetchSettings) -> BodyCaps {
        BodyCaps {
            received: settings.max_document_bytes,
            decoded: settings.max_document_bytes,
        }
    }
}

/// Content codings the fetcher asks for and can decode.
pub const ACCEPT_ENCODING: &str = "gzip, deflate, br";

/// A Vec that refuses to grow past its cap.
struct CappedSink {
    buf: Vec<u8>,
    cap: u64,
    exceeded: bool,
}

impl Write for CappedSink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.buf.len() as u64 + data.len() as u64 > self.cap {
            self.exceeded = true;
            return Err(io::Error::other("decompressed body over its cap"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The decoder for one Content-Encoding, writing into a [`CappedSink`].
enum Decoder {
    Identity(CappedSink),
    Gzip(flate2::write::MultiGzDecoder<CappedSink>),
    Deflate(flate2::write::ZlibDecoder<CappedSink>),
    Brotli(Box<brotli_decompressor::DecompressorWriter<CappedSink>>),
}

impl Decoder {
    fn for_encoding(encoding: &str, caps: BodyCaps) -> Option<Self> {
        let sink = |cap| CappedSink {
            buf: Vec::new(),
            cap,
            exceeded: false,
        };
        let cap = caps.decoded;
        Some(match encoding {
            "" | "identity" => Self::Identity(sink(caps.received)),
            "gzip" | "x-gzip" => Self::Gzip(flate2::write::MultiGzDecoder::new(sink(cap))),
            "deflate" => Self::Deflate(flate2::write::ZlibDecoder::new(sink(cap))),
            "br" => Self::Brotli(Box::new(brotli_decompressor::DecompressorWriter::new(
                sink(cap),
                8 * 1024,
            ))),
            _ => return None,
        })
    }

    fn sink(&self) -> &CappedSink {
        match self {
            Self::Identity(s) => s,
            Self::Gzip(d) => d.get_ref(),
            Self::Deflate(d) => d.get_ref(),
            Self::Brotli(d) => d.get_ref(),
        }
    }

    fn write_all(&mut self, chunk: &[u8]) -> io::Result<()> {
        match self {
            Self::Identity(s) => s.write_all(chunk),
            Self::Gzip(d) => d.write_all(chunk),
            Self::Deflate(d) => d.write_all(chunk),
            Self::Brotli(d) => d.write_all(chunk),
        }
    }

    /// Flushes what the decoder still holds, so a cap crossed at the very end is seen.
    fn try_finish(&mut self) -> io::Result<()> {
        match self {
            Self::Identity(_) => Ok(()),
            Self::Gzip(d) => d.try_finish(),
            Self::Deflate(d) => d.try_finish(),
            Self::Brotli(d) => d.close(),
        }
    }

    fn into_bytes(self) -> Vec<u8> {
        match self {
            Self::Identity(s) => s.buf,
            // Called after `try_finish`, so the decoders hold nothing more to write.
            Self::Gzip(mut d) => std::mem::take(&mut d.get_mut().buf),
            Self::Deflate(mut d) => std::mem::take(&mut d.get_mut().buf),
            Self::Brotli(d) => match d.into_inner() {
                Ok(sink) | Err(sink) => sink.buf,
            },
        }
    }
}

/// Reads the body of `response` within `caps`, decoded, or the outcome that stops the read.
pub async fn read(
    mut response: reqwest::Response,
    caps: BodyCaps,
) -> Result<Vec<u8>, FetchOutcome> {
    let too_large = |limit| FetchOutcome::TooLarge { limit };
    if response
        .content_length()
        .is_some_and(|len| len > caps.received)
    {
        return Err(too_large(caps.received));
    }
    let encoding = response
        .headers()
        .get(reqwest::header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let mut decoder =
        Decoder::for_encoding(&encoding, caps).ok_or_else(|| FetchOutcome::UnsupportedContent {
            content_type: format!("content-encoding {encoding}"),
        })?;
    let mut received: u64 = 0;
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(err) => return Err(super::classify::network_outcome(&err)),
        };
        received += chunk.len() as u64;
        if received > caps.received {
            return Err(too_large(caps.received));
        }
        if let Err(err) = decoder.write_all(&chunk) {
            return Err(decode_failure(&decoder, &err, caps));
        }
    }
    if let Err(err) = decoder.try_finish() {
        return Err(decode_failure(&decoder, &err, caps));
    }
    Ok(decoder.into_bytes())
}

fn decode_failure(decoder: &Decoder, err: &io::Error, caps: BodyCaps) -> FetchOutcome {
    if decoder.sink().exceeded {
        let limit = match decoder {
            Decoder::Identity(_) => caps.received,
            _ => caps.decoded,
        };
        FetchOutcome::TooLarge { limit }
    } else {
        FetchOutcome::NetworkError {
            reason: format!("invalid compressed body: {err}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::GzEncoder;

    #[test]
    fn a_gzip_bomb_stops_at_the_cap() {
        let mut enc = GzEncoder::new(Vec::new(), Compression::best());
        let zeros = vec![0u8; 1024 * 1024];
        for _ in 0..20 {
            enc.write_all(&zeros).expect("compress");
        }
        let bomb = enc.finish().expect("compress");
        let settings = FetchSettings {
            max_decompressed_bytes: 1024 * 1024,
            ..FetchSettings::default()
        };
        let mut decoder =
            Decoder::for_encoding("gzip", BodyCaps::page(&settings)).expect("gzip supported");
        let result = bomb.chunks(4096).try_for_each(|c| decoder.write_all(c));
        assert!(result.is_err());
        assert!(decoder.sink().exceeded);
        assert!(decoder.sink().buf.len() as u64 <= settings.max_decompressed_bytes);
    }

    #[test]
    fn unknown_encodings_are_not_decoded() {
        let caps = BodyCaps::page(&FetchSettings::default());
        assert!(Decoder::for_encoding("zstd", caps).is_none());
    }
}
