//! The HTTP endpoint against HTTP/2 clients that misbehave, written frame by frame over TCP on
//! 127.0.0.1 (RFC 9113): a connection that only sends PINGs, one that trickles a request's
//! headers in CONTINUATION frames, and many such connections at once beside a health probe.
//! Each is closed, though bytes keep arriving, and `/healthz` is answered throughout; a client
//! that behaves (reqwest over HTTP/2 with prior knowledge) is served as before.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use factgate::config::HttpConfig;
use factgate::http::{Readiness, admin_router, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, sleep, timeout};

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const HEADERS: u8 = 0x1;
const SETTINGS: u8 = 0x4;
const PING: u8 = 0x6;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;

/// One frame: a 9-byte header (length, type, flags, stream) and its payload.
fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len()).expect("small payload");
    let mut out = len.to_be_bytes()[1..].to_vec();
    out.extend_from_slice(&[kind, flags]);
    out.extend_from_slice(&(stream & 0x7fff_ffff).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// The client's connection preface and its (empty) SETTINGS.
fn opening() -> Vec<u8> {
    let mut out = PREFACE.to_vec();
    out.extend(frame(SETTINGS, 0, 0, &[]));
    out
}

/// Serves factgate's router on a loopback port with these limits; returns its address.
async fn serve_with(header_read_ms: u64, idle_ms: u64, max_connections: usize) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("address");
    let config = HttpConfig {
        listen: addr,
        header_read_timeout_ms: header_read_ms,
        idle_timeout_ms: idle_ms,
        max_connections,
        ..HttpConfig::default()
    };
    let app = admin_router(Arc::new(Readiness::default()));
    tokio::spawn(async move { serve(listener, app, &config, std::future::pending()).await });
    addr
}

/// What a client saw of the server until the server closed the connection or `within` passed.
#[derive(Debug, Default)]
struct Seen {
    closed: bool,
    ping_acks: usize,
}

/// Reads frames until the server closes the connection (end of stream or an error) or `within`
/// passes, counting the PING acknowledgements.
async fn read_until_closed(reader: &mut (impl AsyncReadExt + Unpin), within: Duration) -> Seen {
    let until = Instant::now() + within;
    let mut seen = Seen::default();
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match timeout(
            until.saturating_duration_since(Instant::now()),
            reader.read(&mut chunk),
        )
        .await
        {
            Ok(Ok(0) | Err(_)) => {
                seen.closed = true;
                return seen;
            }
            Ok(Ok(n)) => buffer.extend_from_slice(&chunk[..n]),
            Err(_) => return seen,
        }
        // Whole frames only; the rest waits for more bytes.
        while buffer.len() >= 9 {
            let len =
                usize::from(buffer[0]) << 16 | usize::from(buffer[1]) << 8 | usize::from(buffer[2]);
            if buffer.len() < 9 + len {
                break;
            }
            if buffer[3] == PING && buffer[4] & ACK != 0 {
                seen.ping_acks += 1;
            }
            buffer.drain(..9 + len);
        }
    }
}

/// Sends a PING every `every` until the connection fails or `count` are sent.
async fn ping(mut writer: impl AsyncWriteExt + Unpin, every: Duration, count: u64) -> u64 {
    for n in 0..count {
        sleep(every).await;
        if writer
            .write_all(&frame(PING, 0, 0, &n.to_be_bytes()))
            .await
            .is_err()
        {
            return n;
        }
    }
    count
}

/// PINGs are answered, and keep nothing open: with no request, a connection that only pings is
/// closed once the time for a request's headers is up, though a frame arrives every 100 ms.
#[tokio::test]
async fn a_connection_that_only_pings_is_closed() {
    let addr = serve_with(300, 600, 64).await;
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    stream.write_all(&opening()).await.expect("preface");
    let (mut reader, writer) = stream.into_split();
    // 20 s of pings: the connection must close long before they stop.
    let pings = tokio::spawn(ping(writer, Duration::from_millis(100), 200));
    let seen = read_until_closed(&mut reader, Duration::from_secs(15)).await;
    assert!(
        seen.closed,
        "a connection sending only PINGs stays open: {seen:?}"
    );
    assert!(
        seen.ping_acks >= 1,
        "the pings were answered first: {seen:?}"
    );
    let sent = pings.await.expect("pinger");
    assert!(sent < 200, "closed while the pings went on ({sent} sent)");
}

/// A request's headers begun and never finished, a CONTINUATION frame now and then, are closed
/// as HTTP/1's half-sent headers are. (h2 itself refuses a sixth CONTINUATION frame; four, each
/// well within the idle timeout, held a connection for minutes.)
#[tokio::test]
async fn headers_trickled_in_continuation_frames_are_closed() {
    let addr = serve_with(200, 5_000, 64).await;
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    // GET / over http, then `:authority: x`, in HPACK: indexed :method GET, :scheme http,
    // :path /, and a literal :authority. END_STREAM without END_HEADERS: more headers to come.
    let mut start = opening();
    start.extend(frame(
        HEADERS,
        END_STREAM,
        1,
        &[0x82, 0x86, 0x84, 0x41, 0x01, b'x'],
    ));
    stream.write_all(&start).await.expect("headers begun");
    let (mut reader, mut writer) = stream.into_split();
    let trickle = tokio::spawn(async move {
        // A literal header `a: b`, not indexed, a frame a second.
        for sent in 0..4u32 {
            sleep(Duration::from_secs(1)).await;
            let more = frame(CONTINUATION, 0, 1, &[0x00, 0x01, b'a', 0x01, b'b']);
            if writer.write_all(&more).await.is_err() {
                return sent;
            }
        }
        4
    });
    let seen = read_until_closed(&mut reader, Duration::from_secs(4)).await;
    assert!(
        seen.closed,
        "headers trickled in CONTINUATION frames hold the connection: {seen:?}"
    );
    let sent = trickle.await.expect("trickle");
    assert!(
        sent < 4,
        "closed while the headers went on ({sent} frames sent)"
    );
}

/// Forty connections that ping and never ask, against a cap of eight: the endpoint closes the
/// ones idle for longest to make room, and a health probe is answered each time, over HTTP/1
/// and HTTP/2. Nothing here waits for a timeout: they are a minute long.
#[tokio::test]
async fn at_the_cap_idle_connections_make_room_and_healthz_answers() {
    let addr = serve_with(60_000, 60_000, 8).await;
    let closed = Arc::new(AtomicUsize::new(0));
    let mut holders = Vec::new();
    for _ in 0..40 {
        let mut stream = TcpStream::connect(addr).await.expect("connects");
        stream.write_all(&opening()).await.expect("preface");
        let (mut reader, writer) = stream.into_split();
        let closed = Arc::clone(&closed);
        holders.push(tokio::spawn(async move {
            let pinger = tokio::spawn(ping(writer, Duration::from_millis(200), 300));
            let seen = read_until_closed(&mut reader, Duration::from_secs(60)).await;
            if seen.closed {
                closed.fetch_add(1, Ordering::SeqCst);
            }
            pinger.abort();
        }));
        // In order, so "idle for longest" is well defined.
        sleep(Duration::from_millis(5)).await;
    }
    let until = Instant::now() + Duration::from_secs(20);
    while closed.load(Ordering::SeqCst) < 32 && Instant::now() < until {
        sleep(Duration::from_millis(50)).await;
    }
    assert!(
        closed.load(Ordering::SeqCst) >= 32,
        "{} of 40 idle connections closed with 8 allowed",
        closed.load(Ordering::SeqCst)
    );

    let http1 = reqwest::Client::new();
    let http2 = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .expect("client");
    for (name, client) in [("HTTP/1.1", &http1), ("HTTP/2", &http2)] {
        for _ in 0..3 {
            let response = timeout(
                Duration::from_secs(10),
                client.get(format!("http://{addr}/healthz")).send(),
            )
            .await
            .unwrap_or_else(|_| panic!("/healthz over {name} waits at the cap"))
            .unwrap_or_else(|e| panic!("/healthz over {name}: {e}"));
            assert_eq!(response.status(), 200, "{name}");
            let version = response.version();
            assert_eq!(
                version == reqwest::Version::HTTP_2,
                name == "HTTP/2",
                "{name}: {version:?}"
            );
        }
    }
    for holder in holders {
        holder.abort();
    }
}
