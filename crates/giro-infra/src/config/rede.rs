//! `http.proxies-confiaveis`: the trusted proxies, each an IP address or a CIDR block, parsed
//! and checked here when the configuration loads; the throttling layer matches client addresses
//! against them.

use std::net::IpAddr;

/// An entry of `http.proxies-confiaveis`: an IP address or a CIDR block.
pub fn proxy_valido(s: &str) -> bool {
    Bloco::parse(s).is_some()
}

/// The client a per-address bound counts `ip` as: an IPv4 address is itself; an IPv6 address is
/// its `/prefixo_v6` network (one subscriber is usually handed a whole /64, so counting each of
/// its 2^64 addresses apart would make every per-address bound worthless). An IPv4-mapped IPv6
/// address counts as the IPv4 address it carries.
pub fn vizinhanca(ip: IpAddr, prefixo_v6: u8) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let p = u32::from(prefixo_v6.clamp(1, 128));
                let m = if p == 128 { u128::MAX } else { !(u128::MAX >> p) };
                IpAddr::V6(std::net::Ipv6Addr::from(u128::from(v6) & m))
            }
        },
    }
}

/// An address or a CIDR block of trusted proxies.
#[derive(Clone, Copy, Debug)]
pub struct Bloco {
    rede: IpAddr,
    prefixo: u8,
}

impl Bloco {
    pub fn parse(s: &str) -> Option<Bloco> {
        let (ip, prefixo) = match s.split_once('/') {
            Some((ip, p)) => (ip.parse::<IpAddr>().ok()?, p.parse::<u8>().ok()?),
            None => {
                let ip = s.parse::<IpAddr>().ok()?;
                (ip, if ip.is_ipv4() { 32 } else { 128 })
            }
        };
        let max = if ip.is_ipv4() { 32 } else { 128 };
        (prefixo <= max).then_some(Bloco { rede: ip, prefixo })
    }

    pub fn contem(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
            v4 => v4,
        };
        match (self.rede, ip) {
            (IpAddr::V4(r), IpAddr::V4(a)) => {
                let m = if self.prefixo == 0 { 0 } else { u32::MAX << (32 - u32::from(self.prefixo)) };
                (u32::from(r) & m) == (u32::from(a) & m)
            }
            (IpAddr::V6(r), IpAddr::V6(a)) => {
                let m = if self.prefixo == 0 { 0 } else { u128::MAX << (128 - u32::from(self.prefixo)) };
                (u128::from(r) & m) == (u128::from(a) & m)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::vizinhanca;
    use std::net::IpAddr;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_ipv6_slash_64_is_one_client_and_ipv4_is_itself() {
        assert_eq!(vizinhanca(ip("2001:db8:1:2:aaaa::1"), 64), ip("2001:db8:1:2::"));
        assert_eq!(vizinhanca(ip("2001:db8:1:2:ffff:1:2:3"), 64), ip("2001:db8:1:2::"));
        assert_ne!(vizinhanca(ip("2001:db8:1:3::1"), 64), vizinhanca(ip("2001:db8:1:2::1"), 64));
        assert_eq!(vizinhanca(ip("2001:db8::1"), 128), ip("2001:db8::1"));
        assert_eq!(vizinhanca(ip("2001:db8:ab::1"), 48), ip("2001:db8:ab::"));
        assert_eq!(vizinhanca(ip("203.0.113.7"), 64), ip("203.0.113.7"));
        assert_eq!(vizinhanca(ip("::ffff:203.0.113.7"), 64), ip("203.0.113.7"));
    }
}
