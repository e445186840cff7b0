//! factgate on a Kafka that requires TLS and SASL/SCRAM, as a managed cluster does.
//!
//! The broker is tansu (an independent Kafka-protocol broker, `cargo install tansu --features
//! dynostore`, installed by `.ci/test.sh`), in front of which the test puts what a managed
//! cluster's listener does: TLS with a certificate the test makes with the `openssl` command, and
//! SASL SCRAM-SHA-256 (RFC 5802/7677) that must succeed before any other request is passed on.
//! tansu advertises that front door's port, so every connection factgate makes goes through it.
//! Why not tansu's own: tansu 0.6 takes `--cert`/`--key` but does not serve TLS with them yet,
//! and its `--authentication` refuses every request before authentication, including the one
//! that would create the first SCRAM user (its in-memory storage cannot be seeded).
//!
//! factgate's Kafka clients connect with `security.protocol = SASL_SSL`, the password given the
//! way an operator would (`FACTGATE_KAFKA__PROPERTIES__SASL_PASSWORD`), create factgate's topics,
//! produce and read back a record. A wrong password, and a client that does not trust the test's
//! certificate, are refused. Nothing logged (librdkafka's own security and broker debug logs
//! included), nor any error, holds the password.
//!
//! Everything listens on and connects to 127.0.0.1.

// The tansu starter alone; the rest serves the integration suite.
#[allow(dead_code)]
mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use factgate::config::Config;
use factgate::kafka::{EventHeaders, EventProducer, close_consumer, consumer, ensure_topics};
use factgate_core::events::DRAFT_V1;
use rdkafka::Message;
use rdkafka::consumer::Consumer;
use support::pipeline::free_port;
use support::tansu::tansu_binary;
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};
use tokio::time::{Instant, sleep, timeout};

const USER: &str = "factgate";
const PASSWORD: &str = "s3cret-scram-p4ssword-2d9f";
const BROKER_START: Duration = Duration::from_secs(30);

/// A self-signed certificate for 127.0.0.1 and localhost, made with the `openssl` command:
/// (certificate, private key), PEM files in `dir`.
fn make_certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let cert = dir.join("broker.pem");
    let key = dir.join("broker-key.pem");
    let status = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
        .arg("ec_paramgen_curve:prime256v1")
        .args(["-nodes", "-days", "1", "-subj", "/CN=localhost"])
        .args(["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the openssl command runs (Debian's openssl package; .ci/test.sh installs it)");
    assert!(status.success(), "openssl could not make a certificate");
    (cert, key)
}

/// The broker's front door on 127.0.0.1:`port`: TLS, then SASL SCRAM-SHA-256 for [`USER`] with
/// [`PASSWORD`], then every request passed to the plaintext broker at `upstream`.
async fn start_front_door(port: u16, upstream: u16, cert: &Path, key: &Path) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .expect("certificate file")
        .collect::<Result<_, _>>()
        .expect("certificate PEM");
    let key = PrivateKeyDer::from_pem_file(key).expect("private key PEM");
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .expect("server certificate");
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("bind the front door's port");
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                // A client that fails the TLS handshake (it does not trust the certificate) or
                // SASL is dropped, as a broker drops it.
                let Ok(tls) = acceptor.accept(client).await else {
                    return;
                };
                let Ok(broker) = TcpStream::connect(("127.0.0.1", upstream)).await else {
                    return;
                };
                let _ = sasl::serve(tls, broker).await;
            });
        }
    });
}

/// The SASL part of the front door: the Kafka framing of SaslHandshake and SaslAuthenticate
/// (KIP-43, KIP-152) and a SCRAM-SHA-256 server.
mod sasl {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD as B64;
    use hmac::{KeyInit, Mac};
    use sha2::{Digest, Sha256};
    use std::io;
    use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

    const API_VERSIONS: i16 = 18;
    const SASL_HANDSHAKE: i16 = 17;
    const SASL_AUTHENTICATE: i16 = 36;
    const UNSUPPORTED_SASL_MECHANISM: i16 = 33;
    const SASL_AUTHENTICATION_FAILED: i16 = 58;
    const ITERATIONS: u32 = 4096;
    const SALT: &[u8] = b"factgate-test-salt";

    async fn read_frame<R: AsyncRead + Unpin>(r: &mut R) -> io::Result<Vec<u8>> {
        let len = r.read_i32().await?;
        let len = usize::try_from(len).map_err(|_| io::Error::other("negative frame size"))?;
        let mut frame = vec![0; len];
        r.read_exact(&mut frame).await?;
        Ok(frame)
    }

    async fn write_frame<W: AsyncWrite + Unpin>(w: &mut W, body: &[u8]) -> io::Result<()> {
        let len = i32::try_from(body.len()).map_err(io::Error::other)?;
        w.write_i32(len).await?;
        w.write_all(body).await?;
        w.flush().await
    }

    fn i16_at(b: &[u8], at: usize) -> io::Result<i16> {
        b.get(at..at + 2)
            .map(|s| i16::from_be_bytes([s[0], s[1]]))
            .ok_or_else(|| io::Error::other("short frame"))
    }

    /// The body of a non-flexible request: after api key, version, correlation id, client id.
    fn body(frame: &[u8]) -> io::Result<&[u8]> {
        let client_id = i16_at(frame, 8)?;
        let start = 10 + usize::try_from(client_id.max(0)).unwrap_or(0);
        frame
            .get(start..)
            .ok_or_else(|| io::Error::other("short frame"))
    }

    /// Serves one connection: ApiVersions passed on until SASL succeeds, then everything.
    pub async fn serve<C, B>(mut client: C, mut broker: B) -> io::Result<()>
    where
        C: AsyncRead + AsyncWrite + Unpin,
        B: AsyncRead + AsyncWrite + Unpin,
    {
        let mut scram = Scram::default();
        loop {
            let frame = read_frame(&mut client).await?;
            let api_key = i16_at(&frame, 0)?;
            let version = i16_at(&frame, 2)?;
            let correlation = &frame[4..8];
            match api_key {
                API_VERSIONS => {
                    write_frame(&mut broker, &frame).await?;
                    let answer = read_frame(&mut broker).await?;
                    write_frame(&mut client, &answer).await?;
                }
                SASL_HANDSHAKE => {
                    let body = body(&frame)?;
                    let len = usize::try_from(i16_at(body, 0)?).unwrap_or(0);
                    let mechanism = body.get(2..2 + len).unwrap_or_default();
                    let error = if mechanism == b"SCRAM-SHA-256" {
                        0
                    } else {
                        UNSUPPORTED_SASL_MECHANISM
                    };
                    let mut out = correlation.to_vec();
                    out.extend_from_slice(&error.to_be_bytes());
                    out.extend_from_slice(&1i32.to_be_bytes());
                    out.extend_from_slice(&13i16.to_be_bytes());
                    out.extend_from_slice(b"SCRAM-SHA-256");
                    write_frame(&mut client, &out).await?;
                }
                SASL_AUTHENTICATE if version <= 1 => {
                    let body = body(&frame)?;
                    let len = body
                        .get(..4)
                        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
                        .unwrap_or(0);
                    let token = body
                        .get(4..4 + usize::try_from(len).unwrap_or(0))
                        .unwrap_or_default();
                    let (reply, outcome) = scram.step(token);
                    let error = if outcome == Step::Failed {
                        SASL_AUTHENTICATION_FAILED
                    } else {
                        0
                    };
                    let mut out = correlation.to_vec();
                    out.extend_from_slice(&error.to_be_bytes());
                    if error == 0 {
                        out.extend_from_slice(&(-1i16).to_be_bytes());
                    } else {
                        let message = b"SCRAM authentication failed";
                        out.extend_from_slice(&(message.len() as i16).to_be_bytes());
                        out.extend_from_slice(message);
                    }
                    out.extend_from_slice(&(reply.len() as i32).to_be_bytes());
                    out.extend_from_slice(&reply);
                    if version >= 1 {
                        out.extend_from_slice(&0i64.to_be_bytes());
                    }
                    write_frame(&mut client, &out).await?;
                    match outcome {
                        Step::Failed => return Ok(()),
                        Step::Done => {
                            tokio::io::copy_bidirectional(&mut client, &mut broker).await?;
                            return Ok(());
                        }
                        Step::Continue => {}
                    }
                }
                // Anything else before authentication: refused, as a SASL listener refuses it.
                _ => return Ok(()),
            }
        }
    }

    #[derive(Debug, PartialEq, Eq)]
    enum Step {
        Continue,
        Done,
        Failed,
    }

    /// The server side of SCRAM-SHA-256 for one client.
    #[derive(Default)]
    struct Scram {
        /// client-first-message-bare, server-first-message, gs2 header, full nonce.
        first: Option<(String, String, String, String)>,
    }

    fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
        let mut mac = hmac::Hmac::<Sha256>::new_from_slice(key).expect("any key length");
        mac.update(data);
        mac.finalize().into_bytes().to_vec()
    }

    fn attribute<'a>(message: &'a str, name: &str) -> Option<&'a str> {
        message
            .split(',')
            .find_map(|part| part.strip_prefix(name)?.strip_prefix('='))
    }

    impl Scram {
        fn step(&mut self, token: &[u8]) -> (Vec<u8>, Step) {
            let Ok(message) = std::str::from_utf8(token) else {
                return (Vec::new(), Step::Failed);
            };
            match self.first.take() {
                None => {
                    // gs2-header ("n,," or "n,a=…,") then client-first-message-bare.
                    let mut parts = message.splitn(3, ',');
                    let (Some(cb), Some(authz), Some(bare)) =
                        (parts.next(), parts.next(), parts.next())
                    else {
                        return (Vec::new(), Step::Failed);
                    };
                    let (Some(user), Some(nonce)) = (attribute(bare, "n"), attribute(bare, "r"))
                    else {
                        return (Vec::new(), Step::Failed);
                    };
                    if user != super::USER {
                        return (b"e=unknown-user".to_vec(), Step::Failed);
                    }
                    let server_nonce = format!("{nonce}{:x}", rand_u64());
                    let server_first =
                        format!("r={server_nonce},s={},i={ITERATIONS}", B64.encode(SALT));
                    let reply = server_first.clone().into_bytes();
                    self.first = Some((
                        bare.to_owned(),
                        server_first,
                        format!("{cb},{authz},"),
                        server_nonce,
                    ));
                    (reply, Step::Continue)
                }
                Some((client_first_bare, server_first, gs2, nonce)) => {
                    let Some((without_proof, proof)) = message.rsplit_once(",p=") else {
                        return (Vec::new(), Step::Failed);
                    };
                    if attribute(without_proof, "c") != Some(&B64.encode(gs2.as_bytes()))
                        || attribute(without_proof, "r") != Some(nonce.as_str())
                    {
                        return (b"e=other-error".to_vec(), Step::Failed);
                    }
                    let Ok(proof) = B64.decode(proof) else {
                        return (Vec::new(), Step::Failed);
                    };
                    let mut salted = [0u8; 32];
                    pbkdf2::pbkdf2_hmac::<Sha256>(
                        super::PASSWORD.as_bytes(),
                        SALT,
                        ITERATIONS,
                        &mut salted,
                    );
                    let auth_message =
                        format!("{client_first_bare},{server_first},{without_proof}");
                    let client_key = hmac(&salted, b"Client Key");
                    let stored_key = Sha256::digest(&client_key);
                    let signature = hmac(&stored_key, auth_message.as_bytes());
                    let claimed: Vec<u8> =
                        proof.iter().zip(&signature).map(|(p, s)| p ^ s).collect();
                    if proof.len() != 32 || Sha256::digest(&claimed) != stored_key {
                        return (b"e=invalid-proof".to_vec(), Step::Failed);
                    }
                    let server_key = hmac(&salted, b"Server Key");
                    let verifier = hmac(&server_key, auth_message.as_bytes());
                    (
                        format!("v={}", B64.encode(verifier)).into_bytes(),
                        Step::Done,
                    )
                }
            }
        }
    }

    fn rand_u64() -> u64 {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.finish()
    }
}

/// tansu listening on `listen` (plaintext, reached only through the front door), advertising the
/// front door's port `advertised`.
async fn start_tansu(tansu: &Path, listen: u16, advertised: u16, dir: &Path) -> Child {
    let log = std::fs::File::create(dir.join("tansu.log")).expect("log file");
    let child = Command::new(tansu)
        .args(["broker", "--cluster-id", "factgate-secured"])
        .arg("--listener-url")
        .arg(format!("tcp://127.0.0.1:{listen}"))
        .arg("--advertised-listener-url")
        .arg(format!("tcp://127.0.0.1:{advertised}"))
        .args(["--storage-engine", "memory://tansu/", "--silent"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
        .expect("tansu starts");
    let until = Instant::now() + BROKER_START;
    while TcpStream::connect(("127.0.0.1", listen)).await.is_err() {
        assert!(
            Instant::now() < until,
            "tansu did not listen within {BROKER_START:?}"
        );
        sleep(Duration::from_millis(100)).await;
    }
    child
}

/// factgate's configuration for the secured broker, loaded as `factgate run` loads it: the file
/// names the mechanism and the CA, the environment holds the password.
fn secured_config(dir: &Path, port: u16, ca: &Path, password: &str) -> Config {
    let file = dir.join("factgate.toml");
    std::fs::write(
        &file,
        format!(
            "[kafka]\nbootstrap_servers = \"127.0.0.1:{port}\"\npartitions = 1\n\
             [kafka.properties]\n\"security.protocol\" = \"SASL_SSL\"\n\
             \"sasl.mechanisms\" = \"SCRAM-SHA-256\"\n\"sasl.username\" = \"{USER}\"\n\
             \"ssl.ca.location\" = {ca:?}\n\
             # librdkafka's own logs of the connection and the authentication, at debug.\n\
             \"debug\" = \"security,broker\"\n",
            ca = ca.display().to_string()
        ),
    )
    .expect("write the configuration");
    Config::load_with_env(
        Some(&file),
        vec![(
            "FACTGATE_KAFKA__PROPERTIES__SASL_PASSWORD".to_owned(),
            password.to_owned(),
        )],
    )
    .expect("the secured configuration loads")
}

/// Every log line of this process, for the check that no secret reaches them.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn factgate_works_on_a_broker_requiring_tls_and_sasl_scram_and_never_logs_the_password() {
    let logs = Captured::default();
    let writer = logs.clone();
    let _ = tracing_subscriber::fmt()
        .with_env_filter("debug")
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .try_init();

    let tansu = tansu_binary();
    let dir = tempfile::tempdir().expect("temp dir");
    let (cert, key) = make_certificate(dir.path());
    let (broker_port, tls_port) = (free_port(), free_port());
    start_front_door(tls_port, broker_port, &cert, &key).await;
    let mut broker = start_tansu(&tansu, broker_port, tls_port, dir.path()).await;

    let config = secured_config(dir.path(), tls_port, &cert, PASSWORD);
    assert!(!format!("{config:?}").contains(PASSWORD));
    let bootstrap = config.kafka.bootstrap_servers.clone().expect("brokers set");

    // Over TLS, authenticated: factgate's topics are created, a record goes in and comes back.
    let ensured = timeout(
        Duration::from_secs(60),
        ensure_topics(&config.kafka, &bootstrap),
    )
    .await
    .expect("topics within a minute")
    .unwrap_or_else(|e| panic!("creating topics over SASL_SSL: {e:?}\n{}", logs.text()));
    assert!(!ensured.created.is_empty() || !ensured.existing.is_empty());
    let producer = EventProducer::new(&config.kafka, &bootstrap).expect("producer");
    let topic = config.kafka.topics.drafts.clone();
    let delivered = timeout(
        Duration::from_secs(60),
        producer.produce(
            &topic,
            "secured-1",
            b"{}",
            &EventHeaders::new(DRAFT_V1, None),
        ),
    )
    .await
    .expect("acknowledged within a minute")
    .unwrap_or_else(|e| panic!("producing over SASL_SSL: {e}\n{}", logs.text()));
    assert!(delivered.offset >= 0);
    let reader = consumer(&config.kafka, &bootstrap, "secured-test").expect("consumer");
    reader.subscribe(&[topic.as_str()]).expect("subscribe");
    let message = timeout(Duration::from_secs(60), reader.recv())
        .await
        .expect("the record comes back within a minute")
        .expect("read over SASL_SSL");
    assert_eq!(message.key(), Some(&b"secured-1"[..]));
    close_consumer(reader).await.expect("the consumer closes");

    // The wrong password is refused: nothing is produced.
    let mut wrong = secured_config(dir.path(), tls_port, &cert, "not-the-password");
    // A refused client gives up after this, not librdkafka's five minutes.
    wrong
        .kafka
        .properties
        .insert("message.timeout.ms".into(), "10000".into());
    let refused_producer = EventProducer::new(&wrong.kafka, &bootstrap).expect("producer");
    let refused = timeout(
        Duration::from_secs(60),
        refused_producer.produce(&topic, "refused", b"{}", &EventHeaders::new(DRAFT_V1, None)),
    )
    .await
    .expect("the refusal comes within a minute");
    let err = refused.expect_err("a wrong SCRAM password was accepted");
    assert!(!err.to_string().contains(PASSWORD));

    // A client that does not trust the test's certificate is refused at the TLS handshake.
    let mut untrusted = wrong.kafka.clone();
    untrusted
        .properties
        .insert("sasl.password".into(), PASSWORD.into());
    let ca = dir.path().join("other-ca");
    std::fs::create_dir_all(&ca).expect("mkdir");
    let (other_cert, _) = make_certificate(&ca);
    untrusted
        .properties
        .insert("ssl.ca.location".into(), other_cert.display().to_string());
    let untrusted_producer = EventProducer::new(&untrusted, &bootstrap).expect("producer");
    let refused = timeout(
        Duration::from_secs(60),
        untrusted_producer.produce(
            &topic,
            "untrusted",
            b"{}",
            &EventHeaders::new(DRAFT_V1, None),
        ),
    )
    .await
    .expect("the refusal comes within a minute");
    assert!(
        refused.is_err(),
        "a certificate from another CA was trusted"
    );

    drop(producer);
    drop(refused_producer);
    drop(untrusted_producer);
    let _ = broker.start_kill();
    let text = logs.text();
    // librdkafka's debug logs of the handshake and the authentication reached the subscriber…
    assert!(
        text.contains("SASL") || text.contains("sasl"),
        "no SASL log line was captured:\n{text}"
    );
    // … and none of them, nor any other line, holds the password.
    assert!(!text.contains(PASSWORD), "the password reached the logs");
}
