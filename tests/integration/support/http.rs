//! A minimal HTTP/1.1 client (one request per connection, `Connection: close`), so that the tests
//! control every byte they send and see every byte the server answers.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use serde_json::Value;

/// How long a test waits for an answer before it fails (a hang guard, not a performance bound).
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// A port on loopback that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// An answer: status, headers as sent, body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// The body as JSON; panics with the body when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The body as JSON, or as a JSON string when it is not JSON.
    pub fn json_or_text(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|_| Value::String(self.text()))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// One exchange on a fresh connection. A server may answer (413) before the whole body is sent, so
/// a failed write of the body is not an error yet.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Response> {
    exchange(TcpStream::connect(("127.0.0.1", port))?, port, method, path, headers, body)
}

/// [`request`] from the loopback address `source` (any of 127.0.0.0/8 on Linux), as a client at
/// another address would send it.
pub fn request_from(
    source: Ipv4Addr,
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> std::io::Result<Response> {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    socket.bind(&SocketAddr::from((source, 0)).into())?;
    socket.connect(&SocketAddr::from((Ipv4Addr::LOCALHOST, port)).into())?;
    exchange(socket.into(), port, method, path, headers, b"")
}

fn exchange(
    mut stream: TcpStream,
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Response> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes())?;
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    parse_response(&raw)
}

/// Splits raw bytes read from a connection into status, headers and body.
pub fn parse_response(raw: &[u8]) -> std::io::Result<Response> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| {
        std::io::Error::other(format!("no HTTP head in {:?}", String::from_utf8_lossy(raw)))
    })?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other("bad status line"))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    Ok(Response { status, headers, body: raw[split + 4..].to_vec() })
}
