//! The `Host` check of `descent serve` against DNS rebinding: a page on another site whose name
//! is made to resolve to this machine could otherwise drive the whole API from the user's
//! browser. Only the bound address's own names are answered: the address itself, `localhost`
//! and loopback addresses when bound to the loopback, the machine's host name and any address
//! when bound to all interfaces; the port, when given, must be the server's. The rest get 421.

use std::net::IpAddr;

use crate::selfplay::distributed::host_name::host_name;

/// Which `Host` headers the server answers.
#[derive(Clone, Debug)]
pub struct HostCheck {
    bound: IpAddr,
    port: u16,
    /// This machine's host name (allowed when bound to all interfaces).
    host_name: Option<String>,
}

impl HostCheck {
    /// For a server bound to `bound`:`port`.
    pub fn new(bound: IpAddr, port: u16) -> HostCheck {
        let host_name = host_name().map(|h| h.to_ascii_lowercase());
        HostCheck {
            bound,
            port,
            host_name,
        }
    }

    /// Whether a request with this `Host` header is answered.
    pub fn allows(&self, host: &str) -> bool {
        let Some((name, port)) = split_host(host) else {
            return false;
        };
        if port.is_some_and(|p| p != self.port) {
            return false;
        }
        let name = name.to_ascii_lowercase();
        let local = self.bound.is_loopback() || self.bound.is_unspecified();
        match name.parse::<IpAddr>() {
            Ok(ip) => {
                ip == self.bound
                    || self.bound.is_unspecified()
                    || (self.bound.is_loopback() && ip.is_loopback())
            }
            Err(_) if name == "localhost" => local,
            Err(_) => self.bound.is_unspecified() && self.host_name.as_deref() == Some(&name),
        }
    }
}

/// `host[:port]` or `[v6][:port]` → (host, port); `None` when malformed.
fn split_host(host: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let (name, after) = rest.split_once(']')?;
        match after {
            "" => (name, None),
            _ => (name, Some(after.strip_prefix(':')?)),
        }
    } else {
        match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    (!name.is_empty()).then_some((name, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loopback_answers_its_own_names_only() {
        let check = HostCheck::new("127.0.0.1".parse().unwrap(), 8080);
        for good in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST",
            "[::1]:8080",
            "127.0.0.1",
        ] {
            assert!(check.allows(good), "{good}");
        }
        for bad in [
            "attacker.example:8080",
            "attacker.example",
            "127.0.0.1:8081",
            "10.0.0.5:8080",
            "",
            "localhost:99999",
            "[::1",
            "localhost:80:80",
        ] {
            assert!(!check.allows(bad), "{bad}");
        }
    }

    #[test]
    fn all_interfaces_answer_addresses_and_the_host_name_but_no_other_name() {
        let mut check = HostCheck::new("0.0.0.0".parse().unwrap(), 80);
        check.host_name = Some("lab-box".into());
        for good in ["192.168.1.9:80", "lab-box", "Lab-Box:80", "localhost:80"] {
            assert!(check.allows(good), "{good}");
        }
        for bad in ["attacker.example", "lab-box:81"] {
            assert!(!check.allows(bad), "{bad}");
        }
        let check = HostCheck::new("192.168.1.9".parse().unwrap(), 80);
        assert!(check.allows("192.168.1.9:80"));
        assert!(!check.allows("localhost:80") && !check.allows("127.0.0.1:80"));
    }
}
