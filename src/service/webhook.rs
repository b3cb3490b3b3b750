//! Webhook delivery from the outbox. Sender threads lease due events, `POST` them to the client's
//! callback URL with Standard Webhooks headers (`webhook-id`: the event id, the same on every
//! attempt; `webhook-timestamp`; `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of
//! `id.timestamp.body` under the client's secret), and record the outcome. Network errors, 5xx,
//! 408, 425 and 429 are retried with exponential backoff and a jitter drawn from a ChaCha generator
//! seeded by the configured seed, the event id and the attempt; other answers and exhausted
//! attempts make the event dead, listed by `GET /api/v1/webhooks/dead` until redelivered.
//!
//! Callback URLs are `http` or `https` only. Unless the operator allows it, a target that resolves
//! to a loopback, private, link-local or otherwise non-public address is refused; the check is made
//! on the addresses actually connected to, so a DNS name cannot point elsewhere after the check.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

use super::store::{Delivery, OutboxEvent};
use super::{Shared, auth, clock, log};
use crate::limits::{
    WEBHOOK_BACKOFF_MAX_MS, WEBHOOK_CONNECT_TIMEOUT_MS, WEBHOOK_LEASE_BATCH_MAX, WEBHOOK_LEASE_MS,
    WEBHOOK_RESPONSE_BYTES_MAX, WEBHOOK_RESPONSE_TIMEOUT_MS, WEBHOOK_SENDERS,
};

/// How often an idle sender looks for events whose retry time has come.
const IDLE_POLL: Duration = Duration::from_millis(100);

pub fn start(shared: &Arc<Shared>) -> std::io::Result<Vec<std::thread::JoinHandle<()>>> {
    (0..WEBHOOK_SENDERS)
        .map(|n| {
            let shared = shared.clone();
            std::thread::Builder::new().name(format!("webhook-{n}")).spawn(move || run(&shared))
        })
        .collect()
}

fn run(shared: &Shared) {
    loop {
        let seen = shared.outbox.generation();
        if !shared.accepting.load(Ordering::SeqCst) {
            return;
        }
        match shared.store.lease_events(WEBHOOK_LEASE_BATCH_MAX, WEBHOOK_LEASE_MS, clock::now_ms()) {
            Ok(events) if !events.is_empty() => {
                for event in events {
                    deliver(shared, &event);
                }
            }
            Ok(_) => shared.outbox.wait(seen, IDLE_POLL),
            Err(e) => {
                log::error("outbox_lease_failed", &[("error", &e.to_string())]);
                shared.outbox.wait(seen, Duration::from_secs(1));
            }
        }
    }
}

/// Why one attempt did not deliver, and whether trying again can help.
#[derive(Debug)]
pub struct AttemptError {
    pub message: String,
    pub retry: bool,
}

fn deliver(shared: &Shared, event: &OutboxEvent) {
    let secret = match shared.store.client_by_id(event.client_id) {
        Ok(Some(client)) => client.webhook_secret,
        Ok(None) => {
            record(shared, event, Delivery::Dead { error: "the client no longer exists".into() });
            return;
        }
        Err(e) => {
            log::error("outbox_client_failed", &[("error", &e.to_string())]);
            return;
        }
    };
    let timestamp = clock::now_ms() / 1000;
    let signature = auth::sign_webhook(&secret, &event.event_id, timestamp, event.payload.as_bytes());
    let headers = [
        ("webhook-id", event.event_id.clone()),
        ("webhook-timestamp", timestamp.to_string()),
        ("webhook-signature", signature),
    ];
    let attempt = event.attempts + 1;
    let outcome = post(&event.url, &headers, event.payload.as_bytes(), shared.config.allow_private_callbacks);
    let delivery = match outcome {
        Ok(()) => Delivery::Delivered,
        Err(error) if error.retry && attempt < shared.config.webhook_attempts => Delivery::Retry {
            at: clock::now_ms()
                + backoff_ms(
                    shared.config.webhook_seed,
                    shared.config.webhook_backoff_ms,
                    &event.event_id,
                    attempt,
                ) as i64,
            error: error.message,
        },
        Err(error) => Delivery::Dead {
            error: if error.retry {
                format!("{} (after {attempt} attempts)", error.message)
            } else {
                error.message
            },
        },
    };
    record(shared, event, delivery);
}

fn record(shared: &Shared, event: &OutboxEvent, delivery: Delivery) {
    let attempt = (event.attempts + 1).to_string();
    match &delivery {
        Delivery::Delivered => {
            shared.metrics.webhook_delivered.fetch_add(1, Ordering::Relaxed);
            log::info("webhook_delivered", &[("event", &event.event_id), ("attempt", &attempt)]);
        }
        Delivery::Retry { error, at } => {
            shared.metrics.webhook_retried.fetch_add(1, Ordering::Relaxed);
            log::warn(
                "webhook_retry",
                &[
                    ("event", &event.event_id),
                    ("attempt", &attempt),
                    ("error", error),
                    ("next", &clock::rfc3339(*at)),
                ],
            );
        }
        Delivery::Dead { error } => {
            shared.metrics.webhook_dead.fetch_add(1, Ordering::Relaxed);
            log::warn("webhook_dead", &[("event", &event.event_id), ("attempt", &attempt), ("error", error)]);
        }
    }
    if let Err(e) = shared.store.record_delivery(&event.event_id, &delivery, clock::now_ms()) {
        // The lease runs out and the event is tried again: at least once, never lost.
        log::error("outbox_record_failed", &[("error", &e.to_string())]);
    }
}

/// The delay before retry number `attempt` (1 = after the first failure): `base · 2^(attempt-1)`,
/// at most [`WEBHOOK_BACKOFF_MAX_MS`], less a jitter of up to half of it drawn from ChaCha8 keyed
/// with SHA-256(seed, event id, attempt). The same inputs give the same delay on every machine.
pub fn backoff_ms(seed: u64, base_ms: u64, event_id: &str, attempt: u32) -> u64 {
    let exponent = attempt.saturating_sub(1).min(40);
    let delay = base_ms.saturating_mul(1u64 << exponent).min(WEBHOOK_BACKOFF_MAX_MS);
    let mut hash = Sha256::new();
    hash.update(seed.to_le_bytes());
    hash.update(event_id.as_bytes());
    hash.update(attempt.to_le_bytes());
    let mut rng = ChaCha8Rng::from_seed(hash.finalize().into());
    let fraction = rng.next_u64() as f64 / (u64::MAX as f64 + 1.0);
    delay - (delay as f64 * 0.5 * fraction) as u64
}

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

fn check_ip(ip: IpAddr, allow_private: bool) -> Result<(), String> {
    if allow_private || is_public(ip) {
        Ok(())
    } else {
        Err(format!(
            "{ip} is a loopback, private or otherwise non-public address; the operator has not allowed such targets"
        ))
    }
}

/// Whether an address is on the public internet (not loopback, private, link-local, shared,
/// documentation, benchmarking, multicast, reserved or unspecified).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 192 && b == 0 && c == 0)
                || (a == 198 && (b == 18 || b == 19))
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || first == 0x2001 && v6.segments()[1] == 0x0db8
                || first == 0x0064 && v6.segments()[1] == 0xff9b)
        }
    }
}

/// POSTs `body` as JSON to `url`; Ok for a 2xx answer.
pub fn post(
    url: &str,
    headers: &[(&str, String)],
    body: &[u8],
    allow_private: bool,
) -> Result<(), AttemptError> {
    let permanent = |message: String| AttemptError { message, retry: false };
    let transient = |message: String| AttemptError { message, retry: true };
    let target = parse_target(url, allow_private).map_err(permanent)?;
    let host_for_lookup = target.host.trim_start_matches('[').trim_end_matches(']').to_string();
    let addrs: Vec<SocketAddr> = (host_for_lookup.as_str(), target.port)
        .to_socket_addrs()
        .map_err(|e| transient(format!("cannot resolve {}: {e}", target.host)))?
        .collect();
    let allowed: Vec<SocketAddr> =
        addrs.iter().copied().filter(|a| allow_private || is_public(a.ip())).collect();
    if allowed.is_empty() {
        return Err(permanent(format!(
            "{} resolves only to non-public addresses ({}); the operator has not allowed such targets",
            target.host,
            addrs.iter().map(|a| a.ip().to_string()).collect::<Vec<_>>().join(", ")
        )));
    }
    let mut last_error = String::new();
    let mut stream = None;
    for addr in &allowed {
        match TcpStream::connect_timeout(addr, Duration::from_millis(WEBHOOK_CONNECT_TIMEOUT_MS)) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last_error = format!("cannot connect to {addr}: {e}"),
        }
    }
    let stream = stream.ok_or_else(|| transient(last_error))?;
    let timeout = Some(Duration::from_millis(WEBHOOK_RESPONSE_TIMEOUT_MS));
    stream.set_read_timeout(timeout).map_err(|e| transient(e.to_string()))?;
    stream.set_write_timeout(timeout).map_err(|e| transient(e.to_string()))?;
    let _ = stream.set_nodelay(true);

    let mut request = format!(
        "POST {} HTTP/1.1\r\nHost: {}{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         User-Agent: pruefstein/{}\r\nConnection: close\r\n",
        target.path,
        target.host,
        if (target.https && target.port == 443) || (!target.https && target.port == 80) {
            String::new()
        } else {
            format!(":{}", target.port)
        },
        body.len(),
        env!("CARGO_PKG_VERSION"),
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut message = request.into_bytes();
    message.extend_from_slice(body);

    let response = if target.https {
        let name = rustls::pki_types::ServerName::try_from(host_for_lookup.clone())
            .map_err(|e| permanent(format!("{host_for_lookup} is not a valid TLS server name: {e}")))?;
        let connection =
            rustls::ClientConnection::new(tls_config(), name).map_err(|e| transient(format!("TLS: {e}")))?;
        let mut tls = rustls::StreamOwned::new(connection, stream);
        exchange(&mut tls, &message)
    } else {
        let mut plain = stream;
        exchange(&mut plain, &message)
    }
    .map_err(|e| transient(format!("{}: {e}", target.host)))?;

    let status = parse_status(&response)
        .ok_or_else(|| transient(format!("{} answered something that is not HTTP", target.host)))?;
    match status {
        200..=299 => Ok(()),
        408 | 425 | 429 | 500..=599 => Err(transient(format!("the receiver answered {status}"))),
        _ => Err(permanent(format!("the receiver answered {status}; not retried"))),
    }
}

fn tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map(|b| b.with_root_certificates(roots).with_no_client_auth())
                .unwrap_or_else(|_| {
                    // The ring provider supports the default versions; this branch is unreachable.
                    rustls::ClientConfig::builder()
                        .with_root_certificates(rustls::RootCertStore::empty())
                        .with_no_client_auth()
                });
            Arc::new(config)
        })
        .clone()
}

/// Writes the request and reads the start of the answer (enough for the status line).
fn exchange(stream: &mut impl ReadWrite, message: &[u8]) -> std::io::Result<Vec<u8>> {
    stream.write_all(message)?;
    stream.flush()?;
    let mut response = Vec::new();
    let mut buffer = [0u8; 1024];
    while response.len() < WEBHOOK_RESPONSE_BYTES_MAX {
        let n = stream.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        response.extend_from_slice(&buffer[..n]);
        if response.windows(2).any(|w| w == b"\r\n") {
            break;
        }
    }
    Ok(response)
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

fn parse_status(response: &[u8]) -> Option<u16> {
    let line = response.split(|&b| b == b'\r').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut parts = line.split(' ');
    let version = parts.next()?;
    if !version.starts_with("HTTP/1.") {
        return None;
    }
    parts.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn backoff_doubles_with_seeded_jitter() {
        let delays: Vec<u64> = (1..=4).map(|a| backoff_ms(7, 1000, "evt_sub_1", a)).collect();
        for (attempt, delay) in delays.iter().enumerate() {
            let full = 1000u64 << attempt;
            assert!(*delay > full / 2 && *delay <= full, "attempt {}: {delay}", attempt + 1);
        }
        assert_eq!(delays, (1..=4).map(|a| backoff_ms(7, 1000, "evt_sub_1", a)).collect::<Vec<_>>());
        assert_ne!(backoff_ms(7, 1000, "evt_sub_1", 3), backoff_ms(8, 1000, "evt_sub_1", 3));
        assert!(backoff_ms(0, 1000, "e", 60) <= WEBHOOK_BACKOFF_MAX_MS);
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
        assert!(post(&format!("http://127.0.0.1:{ok}/h"), &headers, b"{}", true).is_ok());
        let busy = receiver(b"HTTP/1.1 503 Busy\r\n\r\n");
        let error = post(&format!("http://127.0.0.1:{busy}/h"), &headers, b"{}", true).unwrap_err();
        assert!(error.retry && error.message.contains("503"), "{error:?}");
        let gone = receiver(b"HTTP/1.1 410 Gone\r\n\r\n");
        let error = post(&format!("http://127.0.0.1:{gone}/h"), &headers, b"{}", true).unwrap_err();
        assert!(!error.retry && error.message.contains("410"), "{error:?}");
        // https to a server that speaks plain HTTP: the TLS handshake fails, which may pass.
        let plain = receiver(b"HTTP/1.1 200 OK\r\n\r\n");
        let error = post(&format!("https://127.0.0.1:{plain}/h"), &headers, b"{}", true).unwrap_err();
        assert!(error.retry, "{error:?}");
        // Nobody listening: a network error, retried.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        assert!(post(&format!("http://127.0.0.1:{closed}/h"), &headers, b"{}", true).unwrap_err().retry);
        // Loopback without the operator's permission: refused for good.
        assert!(!post(&format!("http://127.0.0.1:{ok}/h"), &headers, b"{}", false).unwrap_err().retry);
    }

    #[test]
    fn status_lines() {
        assert_eq!(parse_status(b"HTTP/1.1 204 No Content\r\n"), Some(204));
        assert_eq!(parse_status(b"SSH-2.0\r\n"), None);
    }
}
