//! `http.proxies-confiaveis`: the trusted proxies, each an IP address or a CIDR block, parsed
//! and checked here when the configuration loads; the throttling layer matches client addresses
//! against them.

use std::net::IpAddr;

/// An entry of `http.proxies-confiaveis`: an IP address or a CIDR block.
pub fn proxy_valido(s: &str) -> bool {
    Bloco::parse(s).is_some()
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
