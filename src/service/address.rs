//! Client addresses as the service counts them, and the trusted proxies' networks: which address a
//! request comes from when it passes through proxies the operator trusts (`trusted_proxy`).

use std::fmt;
use std::net::IpAddr;

/// A client address as the bound counts it: an IPv4 address, the /64 network of an IPv6 address
/// (what one subscriber gets), or none known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum AddressKey {
    V4([u8; 4]),
    V6([u8; 8]),
    Unknown,
}

impl AddressKey {
    pub(crate) fn of(ip: IpAddr) -> AddressKey {
        match ip {
            IpAddr::V4(v4) => AddressKey::V4(v4.octets()),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => AddressKey::V4(v4.octets()),
                None => {
                    let mut prefix = [0u8; 8];
                    prefix.copy_from_slice(&v6.octets()[..8]);
                    AddressKey::V6(prefix)
                }
            },
        }
    }
}

impl fmt::Display for AddressKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddressKey::V4(octets) => write!(f, "{}", std::net::Ipv4Addr::from(*octets)),
            AddressKey::V6(prefix) => {
                let mut octets = [0u8; 16];
                octets[..8].copy_from_slice(prefix);
                write!(f, "{}/64", std::net::Ipv6Addr::from(octets))
            }
            AddressKey::Unknown => f.write_str("an unknown address"),
        }
    }
}

/// A network of trusted proxies (`10.0.0.0/8`, `::1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Network {
    address: IpAddr,
    prefix: u8,
}

impl Network {
    /// Parses `ADDRESS` or `ADDRESS/PREFIX`.
    pub(crate) fn parse(text: &str) -> Result<Network, String> {
        let (address, prefix) = match text.trim().split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text.trim(), None),
        };
        let address: IpAddr =
            address.parse().map_err(|_| format!("{text:?} is not an IP address or network"))?;
        let most = if address.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => most,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= most)
                .ok_or_else(|| format!("{text:?}: the prefix length must be 0 to {most}"))?,
        };
        Ok(Network { address, prefix })
    }

    pub(crate) fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        let bits = |octets: &[u8]| octets.iter().fold(0u128, |acc, b| (acc << 8) | u128::from(*b));
        let (net, ip, width) = match (self.address, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => (bits(&net.octets()), bits(&ip.octets()), 32),
            (IpAddr::V6(net), IpAddr::V6(ip)) => (bits(&net.octets()), bits(&ip.octets()), 128),
            _ => return false,
        };
        let shift = width - u32::from(self.prefix);
        shift >= width || (net >> shift) == (ip >> shift)
    }
}

/// The client's address: the peer, or behind trusted proxies the last address of
/// `X-Forwarded-For` (the values of all such headers, in order) that is not a trusted proxy.
/// An entry that is not an address ends the walk at the proxy that added it.
pub(crate) fn client_address(
    peer: Option<IpAddr>,
    forwarded_for: &[&str],
    trusted: &[Network],
) -> AddressKey {
    let Some(mut client) = peer else { return AddressKey::Unknown };
    if trusted.is_empty() {
        return AddressKey::of(client);
    }
    let hops: Vec<&str> = forwarded_for.iter().flat_map(|h| h.split(',')).map(str::trim).collect();
    let mut hops = hops.iter().rev();
    while trusted.iter().any(|n| n.contains(client)) {
        match hops.next().and_then(|hop| hop.parse::<IpAddr>().ok()) {
            Some(hop) => client = hop,
            None => break,
        }
    }
    AddressKey::of(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_counted_by_ipv4_address_and_ipv6_slash_64() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(AddressKey::of(ip("2001:db8:1:2::1")), AddressKey::of(ip("2001:db8:1:2:ffff::9")));
        assert_ne!(AddressKey::of(ip("2001:db8:1:2::1")), AddressKey::of(ip("2001:db8:1:3::1")));
        assert_eq!(AddressKey::of(ip("::ffff:192.0.2.1")), AddressKey::of(ip("192.0.2.1")));
        assert_eq!(AddressKey::of(ip("2001:db8:1:2::1")).to_string(), "2001:db8:1:2::/64");
    }

    #[test]
    fn forwarded_addresses_count_only_behind_a_trusted_proxy() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let trusted = [Network::parse("10.0.0.0/8").unwrap(), Network::parse("::1").unwrap()];
        let key = |s: &str| AddressKey::of(ip(s));
        // No trusted proxy: the peer, whatever the header says.
        assert_eq!(client_address(Some(ip("10.1.1.1")), &["198.51.100.7"], &[]), key("10.1.1.1"));
        // An untrusted peer cannot name another client.
        assert_eq!(client_address(Some(ip("192.0.2.9")), &["198.51.100.7"], &trusted), key("192.0.2.9"));
        // Behind trusted proxies: the last address that is not one; what the client wrote before it
        // is not believed.
        assert_eq!(
            client_address(Some(ip("10.1.1.1")), &["6.6.6.6, 198.51.100.7", "10.2.2.2"], &trusted),
            key("198.51.100.7")
        );
        assert_eq!(client_address(Some(ip("::1")), &["198.51.100.7"], &trusted), key("198.51.100.7"));
        // No header, or garbage in it: the trusted proxy itself.
        assert_eq!(client_address(Some(ip("10.1.1.1")), &[], &trusted), key("10.1.1.1"));
        assert_eq!(client_address(Some(ip("10.1.1.1")), &["unknown"], &trusted), key("10.1.1.1"));
        assert_eq!(client_address(None, &[], &trusted), AddressKey::Unknown);
    }

    #[test]
    fn networks_parse_and_contain() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let net = Network::parse("192.168.0.0/16").unwrap();
        assert!(net.contains(ip("192.168.200.1")) && !net.contains(ip("192.169.0.1")));
        assert!(net.contains(ip("::ffff:192.168.1.1")));
        assert!(Network::parse("0.0.0.0/0").unwrap().contains(ip("8.8.8.8")));
        assert!(Network::parse("fd00::/8").unwrap().contains(ip("fd12::1")));
        assert!(!Network::parse("fd00::/8").unwrap().contains(ip("192.168.1.1")));
        for bad in ["10.0.0.0/33", "fd00::/129", "example.org", "10.0.0.0/x", ""] {
            assert!(Network::parse(bad).is_err(), "{bad}");
        }
    }
}
