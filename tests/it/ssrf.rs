//! The address policy against the IANA special-purpose address registries: every block of the
//! IPv4 and the IPv6 Special-Purpose Address Registry is refused by default and fetched once it
//! is allowlisted (`fetch.address_allowlist`).
//!
//! The tables below are the registries as published by IANA
//! (<https://www.iana.org/assignments/iana-ipv4-special-registry/> and
//! <https://www.iana.org/assignments/iana-ipv6-special-registry/>, both as updated in 2025),
//! one row per entry, in the registry's order, with the RFC that made it and the registry's
//! "globally reachable" column. factgate refuses the blocks the registry marks globally
//! reachable too (relay and anycast service addresses, AS112, AMT, ORCHIDv2, DETs): no cited
//! source is served from one, so refusing them costs nothing. The blocks that embed an IPv4
//! address (IPv4-mapped, NAT64's well-known prefix, 6to4) reach that IPv4 host, so they are
//! refused exactly when the IPv4 address inside is: the test checks both sides.
//!
//! When a registry gains an entry, add its row here: the test then says whether the policy
//! (`src/verify/fetch/policy.rs`) covers it.
//!
//! Only loopback is ever contacted: every refusal is decided before any connection.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::support::origin::{Hit, respond};
use axum::response::Response;
use factgate::verify::fetch::policy::PolicyResolver;
use factgate::verify::fetch::{FetchSettings, Fetcher, check_address};
use factgate_core::fetched::{FetchOutcome, RefusalReason};
use ipnet::IpNet;
use reqwest::dns::Resolve;

/// How the policy treats a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Every address in it is refused.
    Refused,
    /// It embeds an IPv4 address and is refused when that address is.
    ByEmbeddedIpv4,
}

/// One registry entry: its block, name, RFC, the registry's "globally reachable" column, and how
/// factgate treats it.
struct Entry {
    block: &'static str,
    name: &'static str,
    rfc: &'static str,
    globally_reachable: &'static str,
    rule: Rule,
}

const fn entry(
    block: &'static str,
    name: &'static str,
    rfc: &'static str,
    globally_reachable: &'static str,
    rule: Rule,
) -> Entry {
    Entry {
        block,
        name,
        rfc,
        globally_reachable,
        rule,
    }
}

use Rule::{ByEmbeddedIpv4, Refused};

/// The IANA IPv4 Special-Purpose Address Registry.
const IPV4_REGISTRY: &[Entry] = &[
    entry("0.0.0.0/8", "\"This network\"", "RFC 791", "False", Refused),
    entry(
        "0.0.0.0/32",
        "\"This host on this network\"",
        "RFC 1122",
        "False",
        Refused,
    ),
    entry("10.0.0.0/8", "Private-Use", "RFC 1918", "False", Refused),
    entry(
        "100.64.0.0/10",
        "Shared Address Space",
        "RFC 6598",
        "False",
        Refused,
    ),
    entry("127.0.0.0/8", "Loopback", "RFC 1122", "False", Refused),
    entry("169.254.0.0/16", "Link Local", "RFC 3927", "False", Refused),
    entry("172.16.0.0/12", "Private-Use", "RFC 1918", "False", Refused),
    entry(
        "192.0.0.0/24",
        "IETF Protocol Assignments",
        "RFC 6890",
        "False",
        Refused,
    ),
    entry(
        "192.0.0.0/29",
        "IPv4 Service Continuity Prefix",
        "RFC 7335",
        "False",
        Refused,
    ),
    entry(
        "192.0.0.8/32",
        "IPv4 dummy address",
        "RFC 7600",
        "False",
        Refused,
    ),
    entry(
        "192.0.0.9/32",
        "Port Control Protocol Anycast",
        "RFC 7723",
        "True",
        Refused,
    ),
    entry(
        "192.0.0.10/32",
        "Traversal Using Relays around NAT Anycast",
        "RFC 8155",
        "True",
        Refused,
    ),
    entry(
        "192.0.0.170/32",
        "NAT64/DNS64 Discovery",
        "RFC 8880",
        "False",
        Refused,
    ),
    entry(
        "192.0.0.171/32",
        "NAT64/DNS64 Discovery",
        "RFC 8880",
        "False",
        Refused,
    ),
    entry(
        "192.0.2.0/24",
        "Documentation (TEST-NET-1)",
        "RFC 5737",
        "False",
        Refused,
    ),
    entry("192.31.196.0/24", "AS112-v4", "RFC 7535", "True", Refused),
    entry("192.52.193.0/24", "AMT", "RFC 7450", "True", Refused),
    entry(
        "192.88.99.0/24",
        "Deprecated (6to4 Relay Anycast)",
        "RFC 7526",
        "N/A",
        Refused,
    ),
    entry(
        "192.168.0.0/16",
        "Private-Use",
        "RFC 1918",
        "False",
        Refused,
    ),
    entry(
        "192.175.48.0/24",
        "Direct Delegation AS112 Service",
        "RFC 7534",
        "True",
        Refused,
    ),
    entry(
        "198.18.0.0/15",
        "Benchmarking",
        "RFC 2544",
        "False",
        Refused,
    ),
    entry(
        "198.51.100.0/24",
        "Documentation (TEST-NET-2)",
        "RFC 5737",
        "False",
        Refused,
    ),
    entry(
        "203.0.113.0/24",
        "Documentation (TEST-NET-3)",
        "RFC 5737",
        "False",
        Refused,
    ),
    entry("240.0.0.0/4", "Reserved", "RFC 1112", "False", Refused),
    entry(
        "255.255.255.255/32",
        "Limited Broadcast",
        "RFC 919",
        "False",
        Refused,
    ),
];

/// The IANA IPv6 Special-Purpose Address Registry.
const IPV6_REGISTRY: &[Entry] = &[
    entry("::1/128", "Loopback Address", "RFC 4291", "False", Refused),
    entry(
        "::/128",
        "Unspecified Address",
        "RFC 4291",
        "False",
        Refused,
    ),
    entry(
        "::ffff:0:0/96",
        "IPv4-mapped Address",
        "RFC 4291",
        "False",
        ByEmbeddedIpv4,
    ),
    entry(
        "64:ff9b::/96",
        "IPv4-IPv6 Translat.",
        "RFC 6052",
        "True",
        ByEmbeddedIpv4,
    ),
    entry(
        "64:ff9b:1::/48",
        "IPv4-IPv6 Translat.",
        "RFC 8215",
        "False",
        Refused,
    ),
    entry(
        "100::/64",
        "Discard-Only Address Block",
        "RFC 6666",
        "False",
        Refused,
    ),
    entry(
        "100:0:0:1::/64",
        "Dummy IPv6 Prefix",
        "RFC 9780",
        "False",
        Refused,
    ),
    entry(
        "2001::/23",
        "IETF Protocol Assignments",
        "RFC 2928",
        "False",
        Refused,
    ),
    entry("2001::/32", "TEREDO", "RFC 4380", "N/A", Refused),
    entry(
        "2001:1::1/128",
        "Port Control Protocol Anycast",
        "RFC 7723",
        "True",
        Refused,
    ),
    entry(
        "2001:1::2/128",
        "Traversal Using Relays around NAT Anycast",
        "RFC 8155",
        "True",
        Refused,
    ),
    entry(
        "2001:1::3/128",
        "DNS-SD Service Registration Protocol Anycast",
        "RFC 9665",
        "True",
        Refused,
    ),
    entry("2001:2::/48", "Benchmarking", "RFC 5180", "False", Refused),
    entry("2001:3::/32", "AMT", "RFC 7450", "True", Refused),
    entry("2001:4:112::/48", "AS112-v6", "RFC 7535", "True", Refused),
    entry(
        "2001:10::/28",
        "Deprecated (previously ORCHID)",
        "RFC 4843",
        "N/A",
        Refused,
    ),
    entry("2001:20::/28", "ORCHIDv2", "RFC 7343", "True", Refused),
    entry(
        "2001:30::/28",
        "Drone Remote ID Protocol Entity Tags (DETs) Prefix",
        "RFC 9374",
        "True",
        Refused,
    ),
    entry(
        "2001:db8::/32",
        "Documentation",
        "RFC 3849",
        "False",
        Refused,
    ),
    entry("2002::/16", "6to4", "RFC 3056", "N/A", ByEmbeddedIpv4),
    entry(
        "2620:4f:8000::/48",
        "Direct Delegation AS112 Service",
        "RFC 7534",
        "True",
        Refused,
    ),
    entry("3fff::/20", "Documentation", "RFC 9637", "False", Refused),
    entry(
        "5f00::/16",
        "Segment Routing (SRv6) SIDs",
        "RFC 9602",
        "False",
        Refused,
    ),
    entry("fc00::/7", "Unique-Local", "RFC 4193", "False", Refused),
    entry(
        "fe80::/10",
        "Link-Local Unicast",
        "RFC 4291",
        "False",
        Refused,
    ),
];

/// Blocks in neither registry that are refused as well.
const ALSO_REFUSED: &[Entry] = &[
    entry("224.0.0.0/4", "Multicast", "RFC 5771", "-", Refused),
    entry("ff00::/8", "Multicast", "RFC 4291", "-", Refused),
    entry(
        "fec0::/10",
        "Site-local (deprecated)",
        "RFC 3879",
        "-",
        Refused,
    ),
    entry("::/8", "Reserved by IETF", "RFC 4291", "-", Refused),
];

/// The first, a middle and the last address of `block`.
fn samples(block: IpNet) -> [IpAddr; 3] {
    match block {
        IpNet::V4(net) => {
            let first = u32::from(net.network());
            let last = u32::from(net.broadcast());
            [first, first + (last - first) / 2, last].map(|a| IpAddr::V4(Ipv4Addr::from(a)))
        }
        IpNet::V6(net) => {
            let first = u128::from(net.network());
            let last = u128::from(net.broadcast());
            [first, first + (last - first) / 2, last].map(|a| IpAddr::V6(Ipv6Addr::from(a)))
        }
    }
}

/// `v4` written in the IPv6 form of `block` (IPv4-mapped, NAT64, 6to4).
fn embed(block: &str, v4: Ipv4Addr) -> IpAddr {
    let v4 = u128::from(u32::from(v4));
    let bits = match block {
        "::ffff:0:0/96" => 0xffff_u128 << 32 | v4,
        "64:ff9b::/96" => 0x64_ff9b_u128 << 96 | v4,
        // 6to4: 2002:V4ADDR::/48, the IPv4 address in bits 16 to 48.
        "2002::/16" => 0x2002_u128 << 112 | v4 << 80,
        other => panic!("{other} embeds no IPv4 address"),
    };
    IpAddr::V6(Ipv6Addr::from(bits))
}

fn net(block: &str) -> IpNet {
    block.parse().unwrap_or_else(|e| panic!("{block}: {e}"))
}

fn refused(ip: IpAddr, settings: &FetchSettings) -> bool {
    check_address(ip, settings).is_err()
}

fn allowlisting(nets: Vec<IpNet>) -> FetchSettings {
    FetchSettings {
        address_allowlist: nets,
        ..FetchSettings::default()
    }
}

#[test]
fn every_special_purpose_block_is_refused_unless_allowlisted() {
    let default = FetchSettings::default();
    let mut failures = Vec::new();
    for e in IPV4_REGISTRY
        .iter()
        .chain(IPV6_REGISTRY)
        .chain(ALSO_REFUSED)
    {
        let block = net(e.block);
        let what = format!(
            "{} ({}, {}, globally reachable: {})",
            e.block, e.name, e.rfc, e.globally_reachable
        );
        match e.rule {
            Refused => {
                for ip in samples(block) {
                    if !refused(ip, &default) {
                        failures.push(format!("{ip} of {what} is fetched by default"));
                    }
                    if refused(ip, &allowlisting(vec![block])) {
                        failures.push(format!("{ip} of {what} is refused though allowlisted"));
                    }
                }
            }
            ByEmbeddedIpv4 => {
                for special in ["10.0.0.1", "127.0.0.1", "169.254.169.254", "0.0.0.0"] {
                    let v4: Ipv4Addr = special.parse().expect("address");
                    let ip = embed(e.block, v4);
                    if !refused(ip, &default) {
                        failures.push(format!("{ip} of {what}, reaching {v4}, is fetched"));
                    }
                    let both = allowlisting(vec![block, IpNet::from(IpAddr::V4(v4))]);
                    if refused(ip, &both) {
                        failures.push(format!(
                            "{ip} of {what} is refused though it and {v4} are allowlisted"
                        ));
                    }
                }
                let public = embed(e.block, Ipv4Addr::new(93, 184, 216, 34));
                if refused(public, &default) {
                    failures.push(format!("{public} of {what} reaches a public address"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn addresses_next_to_the_blocks_are_public() {
    let default = FetchSettings::default();
    for ip in [
        "9.255.255.255",
        "11.0.0.0",
        "100.63.255.255",
        "100.128.0.0",
        "172.15.255.255",
        "172.32.0.0",
        "192.0.1.0",
        "192.31.195.255",
        "192.169.0.0",
        "198.20.0.0",
        "223.255.255.255",
        "64:ff9b::5db8:d822",
        "2001:200::1",
        "2001:db9::1",
        "2606:4700::1",
        "3fff:1000::1",
        "5eff:ffff::1",
        "fbff::1",
    ] {
        let parsed: IpAddr = ip.parse().expect("address");
        assert!(!refused(parsed, &default), "{ip} is public");
    }
}

/// The local-use NAT64 prefix (RFC 8215) was the one encoding fetched: as a literal, through
/// the resolver, and as a redirect's target. Each is refused, naming the block.
#[tokio::test]
async fn the_local_use_nat64_prefix_is_refused_as_literal_by_resolver_and_after_a_redirect() {
    let target = "64:ff9b:1::a00:1";
    let settings = FetchSettings {
        address_allowlist: vec!["127.0.0.1/32".parse().expect("net")],
        max_retries: 0,
        ..FetchSettings::default()
    };
    let names_the_block = |outcome: &FetchOutcome| {
        matches!(
            outcome,
            FetchOutcome::RefusedByPolicy(RefusalReason::Address { range, .. })
                if range.contains("translation")
        )
    };

    let fetcher = Fetcher::new(settings.clone()).expect("fetcher");
    let literal = fetcher.fetch(&format!("http://[{target}]/report")).await;
    assert!(names_the_block(&literal.outcome), "{:?}", literal.outcome);

    // The resolver is what a host name goes through; a literal given to it resolves to itself.
    let resolver = PolicyResolver::new(std::sync::Arc::new(settings.clone()));
    let name: reqwest::dns::Name = target.parse().expect("a name");
    let resolved = resolver.resolve(name).await;
    let err = resolved.err().expect("no address handed to the client");
    let reason = err
        .downcast_ref::<RefusalReason>()
        .expect("the refusal is the error");
    assert!(
        matches!(reason, RefusalReason::Address { range, .. } if range.contains("translation")),
        "{reason}"
    );

    let origin = crate::support::origin::start(move |_hit: Hit| async move {
        redirect(&format!("http://[{target}]:8080/report"))
    })
    .await;
    let redirected = fetcher.fetch(&origin.url("/moved")).await;
    assert!(
        names_the_block(&redirected.outcome),
        "{:?}",
        redirected.outcome
    );
}

fn redirect(to: &str) -> Response {
    respond(302, &[("location", to)], "")
}

/// Log lines written by the thread's subscriber, for a test to read back.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log buffer").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A source refused by the policy is one WARN line however many claims cite it and however
/// many addresses its name resolves to, and the line names the setting that would allow it.
#[tokio::test]
async fn a_refused_source_is_logged_once_with_the_setting_that_allows_it() {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let fetcher = Fetcher::new(FetchSettings {
        max_retries: 0,
        ..FetchSettings::default()
    })
    .expect("fetcher");
    // Port 9 (discard): nothing is ever sent there, the policy refuses first.
    for _claim in 0..3 {
        for url in ["http://127.0.0.1:9/a", "http://localhost:9/b"] {
            let fetched = fetcher.fetch(url).await;
            assert!(
                matches!(*fetched.outcome, FetchOutcome::RefusedByPolicy(_)),
                "{url}: {:?}",
                fetched.outcome
            );
        }
    }
    let text = String::from_utf8(logs.0.lock().expect("log buffer").clone()).expect("UTF-8");
    let warns: Vec<&str> = text.lines().filter(|l| l.contains(" WARN ")).collect();
    assert_eq!(warns.len(), 2, "one per source:\n{text}");
    for line in warns {
        assert!(
            line.contains("fetch.address_allowlist") && line.contains("loopback"),
            "{line}"
        );
    }
}
