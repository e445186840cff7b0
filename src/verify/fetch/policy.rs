//! The safety policy: which URLs and addresses the fetcher may connect to.
//!
//! A cited URL is written by whoever wrote the draft, so it may point at the network factgate runs
//! in (an admin port, a cloud metadata service). Three checks close that door, all through
//! [`check_address`]:
//! - URLs with an IP literal are checked before any request (reqwest does not resolve them);
//! - host names are resolved by [`PolicyResolver`], which hands reqwest only allowed addresses, so
//!   the address checked is the address connected to (no DNS rebinding window);
//! - redirects are followed by the fetcher itself and every hop goes through both checks again.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use super::settings::FetchSettings;
use crate::internal_events;
use factgate_core::fetched::RefusalReason;

/// Range name given to cloud metadata endpoints; refused even when private addresses are allowed.
pub const METADATA: &str = "cloud metadata";

/// Checks one address against the policy.
///
/// Allowed: any address inside `settings.address_allowlist`; otherwise any public address; and,
/// when `allow_private_addresses` is set, any non-public address except cloud metadata endpoints.
///
/// An IPv6 address that embeds an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
/// `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::`) is checked twice, as the IPv6
/// address it is (whose range is that of the IPv4 address it reaches) and as the IPv4 address
/// inside, and the stricter answer wins: an allowlist entry for `127.0.0.1/32` does not admit
/// `::ffff:127.0.0.1` or `2002:7f00:1::` (which a 6to4 relay would carry anywhere), and an entry
/// for an IPv6 range does not admit the private IPv4 address one of its addresses embeds.
///
/// # Errors
/// [`RefusalReason::Address`] naming the range the address (or the one inside it) falls in.
pub fn check_address(ip: IpAddr, settings: &FetchSettings) -> Result<(), RefusalReason> {
    check_one(ip, settings)?;
    if let Some(v4) = embedded_ipv4(ip) {
        check_one(IpAddr::V4(v4), settings).map_err(|reason| match reason {
            // Name the address the fetch would have gone to, and the range of the one inside.
            RefusalReason::Address { range, .. } => RefusalReason::Address { address: ip, range },
            other => other,
        })?;
    }
    Ok(())
}

/// [`check_address`] for the address as it is, without looking inside it.
fn check_one(ip: IpAddr, settings: &FetchSettings) -> Result<(), RefusalReason> {
    if settings.address_allowlist.iter().any(|n| n.contains(&ip)) {
        return Ok(());
    }
    match range_of(ip) {
        None => Ok(()),
        Some(range) if settings.allow_private_addresses && range != METADATA => Ok(()),
        Some(range) => Err(RefusalReason::Address { address: ip, range }),
    }
}

/// Checks a URL before any request: the scheme, and the host when it is an IP literal.
///
/// # Errors
/// The reason the URL is refused.
pub fn check_url(url: &Url, settings: &FetchSettings) -> Result<(), RefusalReason> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(RefusalReason::Scheme(url.scheme().to_owned()));
    }
    match url.host() {
        None => Err(RefusalReason::InvalidUrl("no host".to_owned())),
        Some(Host::Domain(_)) => Ok(()),
        Some(Host::Ipv4(v4)) => check_address(IpAddr::V4(v4), settings),
        Some(Host::Ipv6(v6)) => check_address(IpAddr::V6(v6), settings),
    }
}

/// The non-public range an address belongs to, or `None` for a public address.
pub fn range_of(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => range_of_v4(v4),
        IpAddr::V6(v6) => range_of_v6(v6),
    }
}

/// The IPv4 blocks refused unless allowlisted, most specific first: every block of the IANA
/// IPv4 Special-Purpose Address Registry (RFC 6890), the anycast ones it marks globally reachable
/// included (no cited source is served from a relay or AS112 anycast address), and multicast.
/// `tests/it/ssrf.rs` holds the registry as a table and checks each block against this policy.
const V4_BLOCKS: &[([u8; 4], u8, &str)] = &[
    ([0, 0, 0, 0], 8, "this network"),
    ([10, 0, 0, 0], 8, "private"),
    ([100, 64, 0, 0], 10, "shared address space (CGNAT)"),
    ([127, 0, 0, 0], 8, "loopback"),
    ([169, 254, 0, 0], 16, "link-local"),
    ([172, 16, 0, 0], 12, "private"),
    ([192, 0, 0, 0], 24, "IETF protocol assignments"),
    ([192, 0, 2, 0], 24, "documentation"),
    ([192, 31, 196, 0], 24, "AS112 anycast"),
    ([192, 52, 193, 0], 24, "AMT anycast"),
    ([192, 88, 99, 0], 24, "6to4 relay anycast (deprecated)"),
    ([192, 168, 0, 0], 16, "private"),
    ([192, 175, 48, 0], 24, "AS112 anycast"),
    ([198, 18, 0, 0], 15, "benchmarking"),
    ([198, 51, 100, 0], 24, "documentation"),
    ([203, 0, 113, 0], 24, "documentation"),
    ([224, 0, 0, 0], 4, "multicast"),
    ([255, 255, 255, 255], 32, "broadcast"),
    ([240, 0, 0, 0], 4, "reserved"),
];

/// The IPv6 blocks refused unless allowlisted, checked before the forms that embed an IPv4
/// address: every block of the IANA IPv6 Special-Purpose Address Registry except those that
/// embed one (IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, judged by the
/// address inside), with `2001::/23` refused whole (Teredo, benchmarking, ORCHID, AMT, AS112 and
/// the anycast services are all inside it), plus the deprecated site-local block and multicast.
const V6_BLOCKS: &[([u16; 8], u8, &str)] = &[
    ([0, 0, 0, 0, 0, 0, 0, 0], 128, "unspecified"),
    ([0, 0, 0, 0, 0, 0, 0, 1], 128, "loopback"),
    (
        [0x64, 0xff9b, 1, 0, 0, 0, 0, 0],
        48,
        "IPv4/IPv6 translation (local use)",
    ),
    ([0x100, 0, 0, 0, 0, 0, 0, 0], 64, "discard-only"),
    ([0x100, 0, 0, 1, 0, 0, 0, 0], 64, "dummy prefix"),
    (
        [0x2001, 0, 0, 0, 0, 0, 0, 0],
        23,
        "IETF protocol assignments",
    ),
    ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32, "documentation"),
    ([0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], 48, "AS112 anycast"),
    ([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20, "documentation"),
    (
        [0x5f00, 0, 0, 0, 0, 0, 0, 0],
        16,
        "segment routing (SRv6) SIDs",
    ),
    ([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, "unique local"),
    ([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10, "link-local"),
    ([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10, "site-local (deprecated)"),
    ([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, "multicast"),
];

fn range_of_v4(ip: Ipv4Addr) -> Option<&'static str> {
    // Metadata endpoints first: they sit inside link-local and CGNAT.
    if ip.octets() == [169, 254, 169, 254] || ip.octets() == [100, 100, 100, 200] {
        return Some(METADATA);
    }
    let bits = u32::from(ip);
    V4_BLOCKS.iter().find_map(|(first, len, name)| {
        let mask = u32::MAX.checked_shl(32 - u32::from(*len)).unwrap_or(0);
        (bits & mask == u32::from(Ipv4Addr::from(*first))).then_some(*name)
    })
}

fn range_of_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
        return Some(METADATA);
    }
    let bits = u128::from(ip);
    let block = V6_BLOCKS.iter().find_map(|(first, len, name)| {
        let mask = u128::MAX.checked_shl(128 - u32::from(*len)).unwrap_or(0);
        (bits & mask == u128::from(Ipv6Addr::from(*first))).then_some(*name)
    });
    if block.is_some() {
        return block;
    }
    // An IPv6 form of an IPv4 address reaches that IPv4 host: judge the IPv4 address.
    if let Some(v4) = embedded_ipv4(IpAddr::V6(ip)) {
        return range_of_v4(v4);
    }
    // The rest of `::/8`, reserved by the IETF (RFC 4291).
    (ip.segments()[0] < 0x100).then_some("reserved")
}

/// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`),
/// NAT64 (`64:ff9b::a.b.c.d`) or 6to4 (`2002:aabb:ccdd::`) IPv6 address.
fn embedded_ipv4(ip: IpAddr) -> Option<Ipv4Addr> {
    let IpAddr::V6(v6) = ip else { return None };
    let s = v6.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(tail),
        [0, 0, 0, 0, 0, 0, _, _] if !v6.is_loopback() && !v6.is_unspecified() => Some(tail),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(tail),
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new(
            (hi >> 8) as u8,
            hi as u8,
            (lo >> 8) as u8,
            lo as u8,
        )),
        _ => None,
    }
}

/// A DNS resolver for reqwest that resolves with the system resolver and hands back only the
/// addresses the policy allows.
///
/// A name with no allowed address fails with the [`RefusalReason`] as the error, which the
/// fetcher finds again in the error's source chain.
#[derive(Debug, Clone)]
pub struct PolicyResolver {
    settings: Arc<FetchSettings>,
}

impl PolicyResolver {
    /// A resolver enforcing `settings`' address policy.
    pub fn new(settings: Arc<FetchSettings>) -> Self {
        Self { settings }
    }
}

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let settings = Arc::clone(&self.settings);
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // Port 0: reqwest puts the URL's port in afterwards.
            let resolved = tokio::net::lookup_host((host.as_str(), 0)).await?;
            let mut allowed: Vec<SocketAddr> = Vec::new();
            let mut first_refusal = None;
            for addr in resolved {
                match check_address(addr.ip(), &settings) {
                    Ok(()) => allowed.push(addr),
                    Err(reason) => {
                        internal_events::address_refused(&host, &reason);
                        first_refusal.get_or_insert(reason);
                    }
                }
            }
            if allowed.is_empty() {
                let reason = first_refusal.unwrap_or(RefusalReason::NoAllowedAddress { host });
                return Err(Box::new(reason) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(ip: &str, settings: &FetchSettings) -> bool {
        let ip: IpAddr = ip.parse().expect("test address parses");
        check_address(ip, settings).is_err()
    }

    #[test]
    fn non_public_addresses_are_refused_by_default() {
        let settings = FetchSettings::default();
        for ip in [
            "10.0.0.1",
            "172.16.5.4",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.1.1",
            "100.64.0.1",
            "100.100.100.200",
            "127.0.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "192.0.2.1",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd00:ec2::254",
            "ff02::1",
            "2001:db8::1",
            "::ffff:10.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
            "2002:a00:1::",
        ] {
            assert!(refused(ip, &settings), "{ip} should be refused");
        }
    }

    #[test]
    fn public_addresses_are_allowed() {
        let settings = FetchSettings::default();
        for ip in [
            "93.184.216.34",
            "2606:4700::1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
        ] {
            assert!(!refused(ip, &settings), "{ip} should be allowed");
        }
    }

    #[test]
    fn the_refusal_names_the_range() {
        let settings = FetchSettings::default();
        let err = check_address("169.254.169.254".parse().expect("parses"), &settings);
        assert!(matches!(
            err,
            Err(RefusalReason::Address {
                range: METADATA,
                ..
            })
        ));
        let err = check_address("::ffff:10.0.0.1".parse().expect("parses"), &settings);
        assert!(matches!(
            err,
            Err(RefusalReason::Address {
                range: "private",
                ..
            })
        ));
    }

    #[test]
    fn allow_private_keeps_metadata_refused_unless_allowlisted() {
        let mut settings = FetchSettings {
            allow_private_addresses: true,
            ..FetchSettings::default()
        };
        assert!(!refused("10.0.0.1", &settings));
        assert!(!refused("::1", &settings));
        assert!(refused("169.254.169.254", &settings));
        assert!(refused("fd00:ec2::254", &settings));
        assert!(refused("100.100.100.200", &settings));
        settings.address_allowlist = vec!["169.254.169.254/32".parse().expect("parses")];
        assert!(!refused("169.254.169.254", &settings));
    }

    #[test]
    fn allowlist_admits_only_its_networks() {
        let settings = FetchSettings {
            address_allowlist: vec!["127.0.0.1/32".parse().expect("parses")],
            ..FetchSettings::default()
        };
        assert!(!refused("127.0.0.1", &settings));
        assert!(refused("127.0.0.2", &settings));
        assert!(refused("10.0.0.1", &settings));
    }

    #[test]
    fn an_ipv6_address_embedding_an_allowlisted_ipv4_needs_an_entry_of_its_own() {
        let settings = FetchSettings {
            address_allowlist: vec!["127.0.0.1/32".parse().expect("parses")],
            ..FetchSettings::default()
        };
        // 6to4 and NAT64 reach 127.0.0.1 through a relay or translator, mapped and compatible
        // forms through the IPv6 stack: the IPv6 address itself is not allowlisted.
        for ip in [
            "2002:7f00:1::",
            "2002:7f00:1:1234::5",
            "64:ff9b::7f00:1",
            "::ffff:127.0.0.1",
            "::127.0.0.1",
        ] {
            assert!(refused(ip, &settings), "{ip} should be refused");
        }
        let both = FetchSettings {
            address_allowlist: vec![
                "127.0.0.1/32".parse().expect("parses"),
                "::ffff:127.0.0.1/128".parse().expect("parses"),
            ],
            ..FetchSettings::default()
        };
        assert!(!refused("::ffff:127.0.0.1", &both), "both forms allowed");
    }

    #[test]
    fn an_allowlisted_ipv6_range_does_not_admit_the_private_ipv4_inside() {
        let settings = FetchSettings {
            address_allowlist: vec![
                "2002::/16".parse().expect("parses"),
                "64:ff9b::/96".parse().expect("parses"),
            ],
            ..FetchSettings::default()
        };
        for ip in [
            "2002:a00:1::",
            "2002:a9fe:a9fe::",
            "64:ff9b::a00:1",
            "64:ff9b::7f00:1",
        ] {
            assert!(refused(ip, &settings), "{ip} should be refused");
        }
        assert!(!refused("2002:5db8:d822::", &settings));
        assert!(!refused("64:ff9b::5db8:d822", &settings));
        let err = check_address("2002:a9fe:a9fe::".parse().expect("parses"), &settings);
        assert!(
            matches!(
                err,
                Err(RefusalReason::Address {
                    range: METADATA,
                    ..
                })
            ),
            "{err:?}"
        );
    }

    #[test]
    fn embedded_public_addresses_are_allowed_and_private_ones_refused_by_default() {
        let settings = FetchSettings::default();
        for ip in [
            "64:ff9b::5db8:d822",
            "2002:5db8:d822::",
            "::ffff:93.184.216.34",
        ] {
            assert!(!refused(ip, &settings), "{ip} reaches a public address");
        }
        for ip in [
            "64:ff9b::a9fe:a9fe",
            "2002:c0a8:101::",
            "::ffff:192.168.1.1",
            "::10.0.0.1",
        ] {
            assert!(refused(ip, &settings), "{ip} reaches a private address");
        }
        let allow_private = FetchSettings {
            allow_private_addresses: true,
            ..FetchSettings::default()
        };
        assert!(
            refused("2002:a9fe:a9fe::", &allow_private),
            "metadata stays refused"
        );
        assert!(!refused("2002:a00:1::", &allow_private));
    }

    #[test]
    fn urls_are_checked_for_scheme_and_literal_addresses() {
        let settings = FetchSettings::default();
        let check = |u: &str| check_url(&Url::parse(u).expect("test URL parses"), &settings);
        assert!(
            matches!(check("ftp://example.com/a"), Err(RefusalReason::Scheme(s)) if s == "ftp")
        );
        assert!(matches!(
            check("file:///etc/passwd"),
            Err(RefusalReason::Scheme(_))
        ));
        assert!(check("http://169.254.169.254/latest/").is_err());
        assert!(check("http://[::1]:8080/").is_err());
        // Numeric host forms are normalised by the URL parser and caught as well.
        assert!(check("http://2130706433/").is_err());
        assert!(check("http://0x7f.1/").is_err());
        assert!(check("https://example.com/a?b=c").is_ok());
        assert!(check("http://93.184.216.34/").is_ok());
    }
}
