//! Requests to addresses outside the service (webhook callbacks, LTI platforms' key sets, token
//! and score endpoints): `http` or `https` only and, unless the operator allows it, never to a
//! loopback, private, link-local or otherwise non-public address. The check is made on the
//! addresses actually connected to, so a DNS name cannot point elsewhere after the check.
//!
//! Requests go out through `ureq` (rustls with the web PKI roots) with one deadline for the whole
//! attempt, no redirects followed, no proxy taken from the environment, and a resolver of our own
//! (`PolicyResolver`) that applies the address policy to what a name resolves to.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ureq::Timeout;
use ureq::unversioned::resolver::{ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use crate::limits::{
    WEBHOOK_ATTEMPT_MS_MAX, WEBHOOK_CONNECT_TIMEOUT_MS, WEBHOOK_LOOKUPS_PENDING_MAX,
    WEBHOOK_RESPONSE_BYTES_MAX,
};

/// Why one attempt did not deliver, and whether trying again can help.
#[derive(Debug)]
pub(crate) struct AttemptError {
    pub message: String,
    pub retry: bool,
}

impl std::fmt::Display for AttemptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AttemptError {}

/// A callback URL taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub https: bool,
    pub host: String,
    pub port: u16,
    /// Path and query, starting with `/`.
    pub path: String,
}

/// Parses a callback URL: `http` or `https`, a host, no credentials. `allow_private` = false
/// refuses IP literals that are not public (names are checked when they are resolved).
pub fn parse_target(raw: &str, allow_private: bool) -> Result<Target, String> {
    let url = url::Url::parse(raw).map_err(|e| format!("not a valid URL: {e}"))?;
    let https = match url.scheme() {
        "http" => false,
        "https" => true,
        other => return Err(format!("the scheme {other:?} is not allowed: use http or https")),
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err("credentials in a callback URL are not allowed".into());
    }
    let host = match url.host() {
        Some(url::Host::Domain(name)) => name.to_string(),
        Some(url::Host::Ipv4(ip)) => {
            check_ip(IpAddr::V4(ip), allow_private)?;
            ip.to_string()
        }
        Some(url::Host::Ipv6(ip)) => {
            check_ip(IpAddr::V6(ip), allow_private)?;
            format!("[{ip}]")
        }
        None => return Err("the URL has no host".into()),
    };
    let port = url.port_or_known_default().unwrap_or(if https { 443 } else { 80 });
    let mut path = url.path().to_string();
    if let Some(query) = url.query() {
        path.push('?');
        path.push_str(query);
    }
    Ok(Target { https, host, port, path })
}

/// What a refusal of a non-public target says the operator can do.
pub(crate) const PRIVATE_TARGETS: &str = "the operator has not allowed such targets \
    (pruefstein serve --allow-private-callbacks allows them, for a closed network)";

fn check_ip(ip: IpAddr, allow_private: bool) -> Result<(), String> {
    if allow_private || is_public(ip) {
        Ok(())
    } else {
        Err(format!("{ip} is a loopback, private or otherwise non-public address; {PRIVATE_TARGETS}"))
    }
}

/// IPv4 ranges that are not on the public internet (IANA IPv4 Special-Purpose Address Registry,
/// plus multicast and the reserved class E): `(network, prefix length)`.
const IPV4_NOT_PUBLIC: [(Ipv4Addr, u8); 15] = [
    (Ipv4Addr::new(0, 0, 0, 0), 8),       // "this network" (RFC 791)
    (Ipv4Addr::new(10, 0, 0, 0), 8),      // private (RFC 1918)
    (Ipv4Addr::new(100, 64, 0, 0), 10),   // shared address space, carrier-grade NAT (RFC 6598)
    (Ipv4Addr::new(127, 0, 0, 0), 8),     // loopback
    (Ipv4Addr::new(169, 254, 0, 0), 16),  // link-local, cloud metadata services
    (Ipv4Addr::new(172, 16, 0, 0), 12),   // private (RFC 1918)
    (Ipv4Addr::new(192, 0, 0, 0), 24),    // IETF protocol assignments (RFC 6890)
    (Ipv4Addr::new(192, 0, 2, 0), 24),    // documentation TEST-NET-1
    (Ipv4Addr::new(192, 88, 99, 0), 24),  // 6to4 relay anycast, deprecated (RFC 7526)
    (Ipv4Addr::new(192, 168, 0, 0), 16),  // private (RFC 1918)
    (Ipv4Addr::new(198, 18, 0, 0), 15),   // benchmarking (RFC 2544)
    (Ipv4Addr::new(198, 51, 100, 0), 24), // documentation TEST-NET-2
    (Ipv4Addr::new(203, 0, 113, 0), 24),  // documentation TEST-NET-3
    (Ipv4Addr::new(224, 0, 0, 0), 4),     // multicast
    (Ipv4Addr::new(240, 0, 0, 0), 4),     // reserved, and the limited broadcast 255.255.255.255
];

/// IPv6 ranges inside global unicast (2000::/3) that are not on the public internet.
const IPV6_NOT_PUBLIC: [(Ipv6Addr, u8); 3] = [
    // IETF protocol assignments (RFC 2928), with Teredo 2001::/32 (RFC 4380: the client's IPv4
    // address is hidden inverted in the last 32 bits, so it is refused as a whole), benchmarking
    // 2001:2::/48 and ORCHID.
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23),
    (Ipv6Addr::new(0x2001, 0x0db8, 0, 0, 0, 0, 0, 0), 32), // documentation (RFC 3849)
    (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20),      // documentation (RFC 9637)
];

fn in_v4(ip: Ipv4Addr, (network, prefix): (Ipv4Addr, u8)) -> bool {
    let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - u32::from(prefix)) };
    u32::from(ip) & mask == u32::from(network) & mask
}

fn in_v6(ip: Ipv6Addr, (network, prefix): (Ipv6Addr, u8)) -> bool {
    let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - u32::from(prefix)) };
    u128::from(ip) & mask == u128::from(network) & mask
}

/// Whether an address is on the public internet. IPv4: everything but the ranges of
/// [`IPV4_NOT_PUBLIC`]. IPv6: global unicast (2000::/3) only, without [`IPV6_NOT_PUBLIC`]; an IPv6
/// address that carries an IPv4 address on its way (IPv4-mapped `::ffff:a.b.c.d`, NAT64
/// `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::/48`) is judged by that IPv4 address, since that is
/// where the packets go. Everything outside 2000::/3 is refused: the unspecified and loopback
/// addresses, the deprecated IPv4-compatible `::a.b.c.d` and the IPv4-translated
/// `::ffff:0:a.b.c.d` forms, local-use NAT64 64:ff9b:1::/48, discard-only 100::/64, unique local
/// fc00::/7, link-local fe80::/10, the deprecated site-local fec0::/10 and multicast ff00::/8.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => !IPV4_NOT_PUBLIC.iter().any(|range| in_v4(v4, *range)),
        IpAddr::V6(v6) => match embedded_ipv4(v6) {
            Some(v4) => is_public(IpAddr::V4(v4)),
            None => u128::from(v6) >> 125 == 0b001 && !IPV6_NOT_PUBLIC.iter().any(|range| in_v6(v6, *range)),
        },
    }
}

/// The IPv4 address an IPv6 address delivers to: IPv4-mapped (::ffff:0:0/96), NAT64 with the
/// well-known prefix (64:ff9b::/96, RFC 6052) and 6to4 (2002::/16, RFC 3056).
fn embedded_ipv4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if in_v6(ip, (Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0, 0), 96))
        || in_v6(ip, (Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96))
    {
        Some(low)
    } else if s[0] == 0x2002 {
        Some(Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8))
    } else {
        None
    }
}

/// POSTs `body` as JSON to `url`; Ok for a 2xx answer. The whole attempt (name lookup, connect,
/// TLS handshake, request, answer) has `timeout_ms` milliseconds; a receiver that takes longer,
/// however slowly it trickles, ends the attempt with a retryable timeout. Redirects are not
/// followed (a 3xx is an answer like any other), and no proxy is taken from the environment.
pub(crate) fn post(
    url: &str,
    headers: &[(&str, String)],
    body: &[u8],
    allow_private: bool,
    timeout_ms: u64,
) -> Result<(), AttemptError> {
    let (status, _) = exchange(
        Exchange { method: "POST", url, content_type: Some("application/json"), headers, body, read_max: 0 },
        allow_private,
        timeout_ms,
    )?;
    status_outcome(status)
}

/// Whether an answer's status delivered: 2xx yes; 408, 425, 429 and 5xx are worth another try;
/// anything else is final.
pub(crate) fn status_outcome(status: u16) -> Result<(), AttemptError> {
    match status {
        200..=299 => Ok(()),
        408 | 425 | 429 | 500..=599 => {
            Err(AttemptError { message: format!("the receiver answered {status}"), retry: true })
        }
        _ => Err(AttemptError {
            message: format!("the receiver answered {status}; not retried"),
            retry: false,
        }),
    }
}

/// One outgoing request of the service (webhooks, and LTI's keys, tokens and scores).
pub(crate) struct Exchange<'a> {
    pub method: &'static str,
    pub url: &'a str,
    pub content_type: Option<&'a str>,
    pub headers: &'a [(&'a str, String)],
    pub body: &'a [u8],
    /// Bytes of the answer's body that are read (0: none); a longer body fails the exchange.
    pub read_max: usize,
}

/// The answer to an [`Exchange`]: its status, up to `read_max` bytes of its body, and its
/// `Cache-Control` (for what is cached, such as a platform's keys).
pub(crate) struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
    pub cache_control: Option<String>,
}

/// Sends one request under the senders' rules (the URL and address policy, one deadline of
/// `timeout_ms` for everything, no redirect, no proxy) and returns the answer's status and up to
/// `read_max` bytes of its body.
pub(crate) fn exchange(
    request: Exchange<'_>,
    allow_private: bool,
    timeout_ms: u64,
) -> Result<(u16, Vec<u8>), AttemptError> {
    exchange_answer(request, allow_private, timeout_ms).map(|answer| (answer.status, answer.body))
}

/// [`exchange`], with the answer's `Cache-Control`.
pub(crate) fn exchange_answer(
    request: Exchange<'_>,
    allow_private: bool,
    timeout_ms: u64,
) -> Result<Answer, AttemptError> {
    let permanent = |message: String| AttemptError { message, retry: false };
    let started = Instant::now();
    let target = parse_target(request.url, allow_private).map_err(permanent)?;
    // The URL as the url crate normalises it (an international name in punycode, spaces escaped),
    // which the HTTP client's stricter parser takes.
    let normalised = url::Url::parse(request.url).map_err(|e| permanent(format!("not a valid URL: {e}")))?;
    let builder = match request.method {
        "GET" => ureq::http::Request::get(normalised.as_str()),
        _ => ureq::http::Request::post(normalised.as_str()),
    };
    let mut builder = builder.header("user-agent", concat!("pruefstein/", env!("CARGO_PKG_VERSION")));
    if let Some(content_type) = request.content_type {
        builder = builder.header("content-type", content_type);
    }
    for (name, value) in request.headers {
        builder = builder.header(*name, value.as_str());
    }
    let http_request = builder
        .body(request.body.to_vec())
        .map_err(|e| permanent(format!("cannot build the request: {e}")))?;
    let agent = agent(allow_private);
    let configured =
        agent.configure_request(http_request).timeout_global(Some(Duration::from_millis(timeout_ms))).build();
    let mut response = agent
        .run(configured)
        .map_err(|error| attempt_error(error, &target.host, timeout_ms, started.elapsed()))?;
    let status = response.status().as_u16();
    let cache_control = response
        .headers()
        .get_all("cache-control")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(", ");
    let cache_control = (!cache_control.is_empty()).then_some(cache_control);
    let mut body = Vec::new();
    if request.read_max > 0 {
        body = response.body_mut().with_config().limit(request.read_max as u64).read_to_vec().map_err(
            |error| match error {
                ureq::Error::BodyExceedsLimit(_) => permanent(format!(
                    "{}: the answer is larger than {} bytes",
                    target.host, request.read_max
                )),
                error => attempt_error(error, &target.host, timeout_ms, started.elapsed()),
            },
        )?;
    }
    Ok(Answer { status, body, cache_control })
}

/// What an attempt that did not get an answer records: a refusal by the address policy as it
/// was made, a timeout of the whole attempt naming its limit, anything else as a network error.
fn attempt_error(error: ureq::Error, host: &str, timeout_ms: u64, elapsed: Duration) -> AttemptError {
    match error {
        ureq::Error::Other(inner) => match inner.downcast::<AttemptError>() {
            Ok(refusal) => *refusal,
            Err(other) => AttemptError { message: format!("{host}: {other}"), retry: true },
        },
        ureq::Error::Timeout(phase)
            if elapsed >= Duration::from_millis(timeout_ms) || phase == Timeout::Global =>
        {
            let what = match phase {
                Timeout::Resolve => format!("resolving {host}"),
                Timeout::Connect => format!("connecting to {host}"),
                _ => host.to_string(),
            };
            AttemptError {
                message: format!(
                    "{what}: the attempt took longer than {timeout_ms} ms (webhook_attempt_ms_max); \
                     it timed out and is retried"
                ),
                retry: true,
            }
        }
        ureq::Error::Timeout(phase) => {
            AttemptError { message: format!("{host}: timed out ({phase})"), retry: true }
        }
        // Sending the same URL again cannot help.
        error @ (ureq::Error::BadUri(_) | ureq::Error::Http(_)) => {
            AttemptError { message: format!("{host}: {error}"), retry: false }
        }
        ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
            AttemptError { message: format!("cannot connect to {host}: {e}"), retry: true }
        }
        other => AttemptError { message: format!("{host}: {other}"), retry: true },
    }
}

/// The HTTP agent of the senders, one for each answer to "are non-public targets allowed":
/// rustls with the web PKI roots, no redirects, no proxy, no pooled connections, a connect
/// timeout per attempt ([`WEBHOOK_CONNECT_TIMEOUT_MS`]), at most [`WEBHOOK_RESPONSE_BYTES_MAX`]
/// bytes of answer head, and the [`PolicyResolver`]. Each request sets its own total deadline.
fn agent(allow_private: bool) -> &'static ureq::Agent {
    static AGENTS: [OnceLock<ureq::Agent>; 2] = [OnceLock::new(), OnceLock::new()];
    AGENTS[usize::from(allow_private)].get_or_init(|| {
        let config = sender_config(ureq::Agent::config_builder());
        ureq::Agent::with_parts(config, DefaultConnector::default(), PolicyResolver { allow_private })
    })
}

/// The senders' settings over whatever `builder` holds (ureq's defaults take a proxy from the
/// environment; these never do).
fn sender_config(builder: ureq::config::ConfigBuilder<ureq::typestate::AgentScope>) -> ureq::config::Config {
    builder
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .max_idle_connections(0)
        .max_idle_connections_per_host(0)
        .timeout_connect(Some(Duration::from_millis(WEBHOOK_CONNECT_TIMEOUT_MS)))
        .max_response_header_size(WEBHOOK_RESPONSE_BYTES_MAX)
        .build()
}

/// The name resolver of the senders: the system resolver bounded by the attempt's deadline (see
/// [`resolve`]), then the URL policy applied to every address it gave. Only the addresses that pass
/// are connected to, so a name cannot lead to a non-public address; a name with none left is
/// refused for good.
#[derive(Debug)]
struct PolicyResolver {
    allow_private: bool,
}

impl Resolver for PolicyResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        _config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let shown = uri.host().ok_or(ureq::Error::HostNotFound)?;
        let host = shown.trim_start_matches('[').trim_end_matches(']');
        let port = uri.port_u16().unwrap_or(if uri.scheme_str() == Some("https") { 443 } else { 80 });
        let now = Instant::now();
        let deadline = now
            .checked_add(*timeout.after)
            .unwrap_or_else(|| now + Duration::from_millis(WEBHOOK_ATTEMPT_MS_MAX));
        let addrs = resolve(host, port, deadline).map_err(|e| match e {
            Lookup::TimedOut => ureq::Error::Timeout(Timeout::Resolve),
            Lookup::Failed(e) => ureq::Error::Other(Box::new(AttemptError {
                message: format!("cannot resolve {shown}: {e}"),
                retry: true,
            })),
        })?;
        // The policy applies to the addresses connected to, not to the name in the URL.
        let mut allowed = self.empty();
        for addr in addrs.iter().filter(|a| self.allow_private || is_public(a.ip())).take(RESOLVER_CAPACITY) {
            allowed.push(*addr);
        }
        if allowed.is_empty() {
            return Err(ureq::Error::Other(Box::new(AttemptError {
                message: format!(
                    "{shown} resolves only to non-public addresses ({}); {PRIVATE_TARGETS}",
                    addrs.iter().map(|a| a.ip().to_string()).collect::<Vec<_>>().join(", ")
                ),
                retry: false,
            })));
        }
        Ok(allowed)
    }
}

/// Addresses of one name that are tried: the capacity of ureq's resolver interface (an array of
/// this many), not a limit of ours.
const RESOLVER_CAPACITY: usize = 16;

/// Why a name could not be resolved.
enum Lookup {
    TimedOut,
    Failed(String),
}

/// Name lookups running on their own thread past their attempt's deadline.
static LOOKUPS_PENDING: AtomicUsize = AtomicUsize::new(0);

/// Resolves `host` by the deadline. An IP literal needs no lookup; a name is looked up by the
/// system resolver on a thread of its own (it cannot be interrupted), and the attempt waits for it
/// only until the deadline. At most [`WEBHOOK_LOOKUPS_PENDING_MAX`] lookups may still be running.
fn resolve(host: &str, port: u16, deadline: Instant) -> Result<Vec<SocketAddr>, Lookup> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    if LOOKUPS_PENDING.fetch_add(1, Ordering::SeqCst) >= WEBHOOK_LOOKUPS_PENDING_MAX {
        LOOKUPS_PENDING.fetch_sub(1, Ordering::SeqCst);
        return Err(Lookup::Failed(format!(
            "{WEBHOOK_LOOKUPS_PENDING_MAX} earlier name lookups have not finished \
             (webhook_lookups_pending_max); the name server is not answering"
        )));
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let name = host.to_string();
    let spawned = std::thread::Builder::new().name("webhook-lookup".into()).spawn(move || {
        let result = (name.as_str(), port).to_socket_addrs().map(|addrs| addrs.collect::<Vec<_>>());
        LOOKUPS_PENDING.fetch_sub(1, Ordering::SeqCst);
        // The attempt may have given up waiting: then nobody listens, which is fine.
        let _ = sender.send(result);
    });
    if let Err(e) = spawned {
        LOOKUPS_PENDING.fetch_sub(1, Ordering::SeqCst);
        return Err(Lookup::Failed(e.to_string()));
    }
    match receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(addrs)) => Ok(addrs),
        Ok(Err(e)) => Err(Lookup::Failed(e.to_string())),
        Err(_) => Err(Lookup::TimedOut),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    /// The attempt deadline of the tests that do not test it.
    const T: u64 = 10_000;

    #[test]
    fn only_http_and_public_targets_unless_allowed() {
        assert!(parse_target("ftp://example.org/x", true).unwrap_err().contains("scheme"));
        assert!(parse_target("http://127.0.0.1:9/x", false).unwrap_err().contains("loopback"));
        assert!(parse_target("http://[::1]:9/x", false).is_err());
        assert!(parse_target("http://10.1.2.3/x", false).is_err());
        assert!(parse_target("http://169.254.169.254/latest", false).is_err());
        assert!(parse_target("http://user:pw@example.org/", false).is_err());
        let target = parse_target("https://example.org/hook?a=1", false).unwrap();
        assert_eq!((target.https, target.port, target.path.as_str()), (true, 443, "/hook?a=1"));
        assert!(parse_target("http://127.0.0.1:9/x", true).is_ok());
        assert!(is_public("93.184.216.34".parse().unwrap()));
        assert!(!is_public("::ffff:127.0.0.1".parse().unwrap()));
        assert!(!is_public("fd00::1".parse().unwrap()));
    }

    /// A receiver on loopback that answers every connection with `answer` after reading a little.
    fn receiver(answer: &'static [u8]) -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(4) {
                let mut stream = stream.unwrap();
                let mut buffer = [0u8; 4096];
                let _ = stream.read(&mut buffer);
                let _ = stream.write_all(answer);
            }
        });
        port
    }

    #[test]
    fn answers_decide_between_delivered_retry_and_dead() {
        let headers = [("webhook-id", "evt_sub_1".to_string())];
        let ok = receiver(b"HTTP/1.1 204 No Content\r\n\r\n");
        assert!(post(&format!("http://127.0.0.1:{ok}/h"), &headers, b"{}", true, T).is_ok());
        let busy = receiver(b"HTTP/1.1 503 Busy\r\n\r\n");
        let error = post(&format!("http://127.0.0.1:{busy}/h"), &headers, b"{}", true, T).unwrap_err();
        assert!(error.retry && error.message.contains("503"), "{error:?}");
        let gone = receiver(b"HTTP/1.1 410 Gone\r\n\r\n");
        let error = post(&format!("http://127.0.0.1:{gone}/h"), &headers, b"{}", true, T).unwrap_err();
        assert!(!error.retry && error.message.contains("410"), "{error:?}");
        // A redirect is an answer, not followed: the event is dead at once, naming the status.
        let moved: &'static [u8] =
            format!("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{ok}/h\r\nContent-Length: 0\r\n\r\n")
                .leak()
                .as_bytes();
        let moved = receiver(moved);
        let error = post(&format!("http://127.0.0.1:{moved}/h"), &headers, b"{}", true, T).unwrap_err();
        assert!(!error.retry && error.message.contains("302"), "{error:?}");
        // https to a server that speaks plain HTTP: the TLS handshake fails, which may pass.
        let plain = receiver(b"HTTP/1.1 200 OK\r\n\r\n");
        let error = post(&format!("https://127.0.0.1:{plain}/h"), &headers, b"{}", true, T).unwrap_err();
        assert!(error.retry, "{error:?}");
        // Nobody listening: a network error, retried.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        assert!(post(&format!("http://127.0.0.1:{closed}/h"), &headers, b"{}", true, T).unwrap_err().retry);
        // Loopback without the operator's permission: refused for good.
        assert!(!post(&format!("http://127.0.0.1:{ok}/h"), &headers, b"{}", false, T).unwrap_err().retry);
    }

    /// A receiver that reads the request, then answers one byte at a time, each after a pause, for as
    /// long as the sender listens (at most `bytes` bytes). Returns the port.
    fn trickler(bytes: usize) -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let Ok((mut stream, _)) = listener.accept() else { return };
            let mut buffer = [0u8; 4096];
            let _ = stream.read(&mut buffer);
            // Never a line end: the status line is never complete.
            for byte in b"HTTP/1.1 200 OK".iter().cycle().take(bytes) {
                if stream.write_all(&[*byte]).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        port
    }

    #[test]
    fn a_trickling_receiver_cannot_hold_a_sender_beyond_the_attempt_deadline() {
        let headers = [("webhook-id", "evt_sub_1".to_string())];
        // Each byte comes well within any per-read timeout; only the deadline for the whole
        // attempt ends this (the receiver would go on for 100 s).
        let port = trickler(5_000);
        let error = post(&format!("http://127.0.0.1:{port}/h"), &headers, b"{}", true, 300).unwrap_err();
        assert!(error.retry, "{error:?}");
        assert!(
            error.message.contains("timed out") && error.message.contains("webhook_attempt_ms_max"),
            "{error:?}"
        );
    }

    /// A proxy from the environment (or anywhere else) is dropped, redirects are not followed,
    /// every status is an answer, and an answer's head is bounded.
    #[test]
    fn senders_take_no_proxy_and_follow_no_redirect() {
        let proxy = ureq::Proxy::new("http://127.0.0.1:9").unwrap();
        let config = sender_config(ureq::Agent::config_builder().proxy(Some(proxy)).max_redirects(10));
        assert!(config.proxy().is_none());
        assert_eq!(config.max_redirects(), 0);
        assert!(!config.http_status_as_error());
        assert_eq!(config.max_response_header_size(), WEBHOOK_RESPONSE_BYTES_MAX);
        assert!(agent(false).config().proxy().is_none() && agent(true).config().proxy().is_none());
    }

    /// An international name is sent as its punycode form: the lookup fails (the name does not
    /// exist), not the URL.
    #[test]
    fn international_names_are_sent_in_punycode() {
        let headers = [("webhook-id", "evt_sub_1".to_string())];
        let error = post("http://bücher.invalid/h", &headers, b"{}", true, T).unwrap_err();
        assert!(error.retry && error.message.contains("resolv"), "a lookup, retried: {error:?}");
        assert!(error.message.contains("xn--bcher-kva.invalid"), "{error:?}");
    }

    #[test]
    fn names_are_judged_by_the_addresses_they_resolve_to() {
        let headers = [("webhook-id", "evt_sub_1".to_string())];
        let ok = receiver(b"HTTP/1.1 204 No Content\r\n\r\n");
        // "localhost" is a name, not a literal: the URL passes, the resolved loopback address does not.
        assert!(parse_target(&format!("http://localhost:{ok}/h"), false).is_ok());
        let error = post(&format!("http://localhost:{ok}/h"), &headers, b"{}", false, T).unwrap_err();
        assert!(!error.retry && error.message.contains("non-public"), "{error:?}");
    }
}
