//! The admin IP whitelist: entries, what an entry's address may be (an IP, a CIDR block or the
//! name `localhost`) and whether an entry admits a caller.

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The addresses `initialize-defaults` adds: the loopback addresses, the any-address and the
/// name localhost.
pub const DEFAULT_ADDRESSES: [&str; 4] = ["127.0.0.1", "::1", "0.0.0.0", "localhost"];

/// A whitelist entry (the spec's fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhitelistEntry {
    /// Sequential id.
    pub id: u64,
    /// The address as normalised by [`normalise_address`].
    pub ip_address: String,
    /// Why it is there.
    pub description: String,
    /// When it was added.
    pub added_at: DateTime<Utc>,
    /// When it stops admitting callers (and `cleanup` removes it).
    pub expires_at: Option<DateTime<Utc>>,
    /// Switched off without removing it.
    pub is_active: bool,
}

impl WhitelistEntry {
    /// Whether the expiry has passed.
    pub fn is_expired(&self, now: DateTime<Utc>) -> bool {
        self.expires_at.is_some_and(|e| e <= now)
    }
    /// Whether this entry admits `ip` at `now`: active, not expired, and the address matches
    /// (equal, inside the CIDR block, or a loopback address for `localhost`). The any-address
    /// `0.0.0.0` is matched literally, not as a wildcard.
    pub fn admits(&self, ip: IpAddr, now: DateTime<Utc>) -> bool {
        self.is_active && !self.is_expired(now) && address_matches(&self.ip_address, ip)
    }
}

/// Canonical form of an IPv4-mapped IPv6 peer (`::ffff:1.2.3.4` is `1.2.3.4`).
pub fn canonical_ip(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// Validates and normalises an entry address: an IP, a CIDR block (`10.0.0.0/8`) or
/// `localhost`; VALIDATION_ERROR naming `ip_address` otherwise.
pub fn normalise_address(raw: &str) -> Result<String, Error> {
    let s = raw.trim();
    if s.eq_ignore_ascii_case("localhost") {
        return Ok("localhost".into());
    }
    if let Some((net, bits)) = s.split_once('/') {
        let ip: IpAddr = net.parse().map_err(|_| Error::validation("ip_address", "not an IP address or CIDR block"))?;
        let max = if ip.is_ipv4() { 32 } else { 128 };
        let bits: u8 =
            bits.parse().ok().filter(|b| *b <= max).ok_or_else(|| {
                Error::validation("ip_address", format!("the prefix length must be between 0 and {max}"))
            })?;
        return Ok(format!("{}/{bits}", canonical_ip(ip)));
    }
    let ip: IpAddr =
        s.parse().map_err(|_| Error::validation("ip_address", "not an IP address, CIDR block or 'localhost'"))?;
    Ok(canonical_ip(ip).to_string())
}

fn address_matches(entry: &str, ip: IpAddr) -> bool {
    let ip = canonical_ip(ip);
    if entry == "localhost" {
        return ip.is_loopback();
    }
    match entry.split_once('/') {
        Some((net, bits)) => {
            let (Ok(net), Ok(bits)) = (net.parse::<IpAddr>(), bits.parse::<u32>()) else { return false };
            match (net, ip) {
                (IpAddr::V4(n), IpAddr::V4(i)) => prefix_eq(u32::from(n) as u128, u32::from(i) as u128, bits, 32),
                (IpAddr::V6(n), IpAddr::V6(i)) => prefix_eq(u128::from(n), u128::from(i), bits, 128),
                _ => false,
            }
        }
        None => entry.parse::<IpAddr>().is_ok_and(|e| canonical_ip(e) == ip),
    }
}

fn prefix_eq(a: u128, b: u128, bits: u32, width: u32) -> bool {
    if bits == 0 {
        return true;
    }
    let shift = width - bits.min(width);
    (a >> shift) == (b >> shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(addr: &str) -> WhitelistEntry {
        WhitelistEntry {
            id: 1,
            ip_address: normalise_address(addr).unwrap(),
            description: String::new(),
            added_at: Utc::now(),
            expires_at: None,
            is_active: true,
        }
    }

    #[test]
    fn addresses_blocks_and_localhost_admit_the_right_callers() {
        let now = Utc::now();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert!(entry("127.0.0.1").admits(ip("127.0.0.1"), now));
        assert!(entry("127.0.0.1").admits(ip("::ffff:127.0.0.1"), now));
        assert!(!entry("127.0.0.1").admits(ip("127.0.0.2"), now));
        assert!(entry("10.0.0.0/8").admits(ip("10.200.1.1"), now));
        assert!(!entry("10.0.0.0/8").admits(ip("11.0.0.1"), now));
        assert!(entry("localhost").admits(ip("::1"), now));
        assert!(!entry("0.0.0.0").admits(ip("8.8.8.8"), now), "the any-address is no wildcard");
    }

    #[test]
    fn inactive_or_expired_entries_admit_nobody_and_bad_addresses_are_refused() {
        let now = Utc::now();
        let mut e = entry("127.0.0.1");
        e.expires_at = Some(now - chrono::Duration::seconds(1));
        assert!(!e.admits("127.0.0.1".parse().unwrap(), now));
        let mut e = entry("127.0.0.1");
        e.is_active = false;
        assert!(!e.admits("127.0.0.1".parse().unwrap(), now));
        for bad in ["", "1.2.3", "10.0.0.0/33", "example.org"] {
            assert!(normalise_address(bad).is_err(), "{bad}");
        }
    }
}
