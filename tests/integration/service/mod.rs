//! The grading service end to end: the real binary (`pruefstein serve`) on a free loopback port with
//! a fresh data directory, driven over HTTP. Covers the API contract (auth, limits, errors,
//! idempotency, waiting, report pages, catalogue, metrics, OpenAPI), webhook retries and the dead
//! list, and the reliability proof: 500 submissions, `kill -9` in the middle, restart, and nothing
//! lost, nothing twice, every event delivered with a stable id and a valid signature.
//!
//! The API contract is one focused test per promise, each against a fresh server of the shared
//! fixture (`support::server`), so that one broken promise does not hide the ones after it. No test
//! sleeps for time: every wait polls a condition with a deadline.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use crate::support::http::{Response, request};
use crate::support::server::{COURSE_SECRET, Server};
use crate::support::{BIN, CONSUMER, PREDICTION, copy_tree, poll, repo};

fn exercise_file(path: &str) -> String {
    std::fs::read_to_string(repo().join("exercises").join(CONSUMER).join(path)).unwrap()
}

fn wat_submission(file: &str, learner: &str) -> Value {
    json!({"exercise": CONSUMER, "learner": learner, "wat": exercise_file(file)})
}

// ---------------------------------------------------------------------------------------------
// A webhook receiver on loopback.

#[derive(Debug, Clone)]
struct Received {
    id: String,
    timestamp: String,
    signature: String,
    body: Vec<u8>,
}

struct Receiver {
    port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    policy: Policy,
}

/// How the receiver answers its n-th request (0-based): the status code.
type Policy = Arc<Mutex<Box<dyn FnMut(usize) -> u16 + Send>>>;

impl Receiver {
    fn start(policy: impl FnMut(usize) -> u16 + Send + 'static) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let policy: Policy = Arc::new(Mutex::new(Box::new(policy)));
        let (r, p) = (received.clone(), policy.clone());
        std::thread::spawn(move || {
            let mut n = 0usize;
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let Some(request) = read_request(&mut stream) else { continue };
                let status = (p.lock().unwrap())(n);
                n += 1;
                r.lock().unwrap().push(request);
                let _ = stream.write_all(
                    format!("HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .as_bytes(),
                );
            }
        });
        Receiver { port, received, policy }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook", self.port)
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    fn set_policy(&self, policy: impl FnMut(usize) -> u16 + Send + 'static) {
        *self.policy.lock().unwrap() = Box::new(policy);
    }
}

fn read_request(stream: &mut TcpStream) -> Option<Received> {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut raw = Vec::new();
    let mut buffer = [0u8; 8192];
    let split = loop {
        let n = stream.read(&mut buffer).ok()?;
        if n == 0 {
            return None;
        }
        raw.extend_from_slice(&buffer[..n]);
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
    };
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let header = |name: &str| {
        head.split("\r\n")
            .filter_map(|l| l.split_once(':'))
            .find(|(n, _)| n.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default()
    };
    let length: usize = header("content-length").parse().ok()?;
    let mut body = raw[split + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut buffer).ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&buffer[..n]);
    }
    Some(Received {
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        body,
    })
}

/// Checks a Standard Webhooks signature with the client's secret.
fn signature_valid(secret: &str, r: &Received) -> bool {
    let key =
        base64::engine::general_purpose::STANDARD.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
    let mut message = format!("{}.{}.", r.id, r.timestamp).into_bytes();
    message.extend_from_slice(&r.body);
    let expected = format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD
            .encode(pruefstein::service::auth::hmac_sha256(&key, &message))
    );
    r.signature.split(' ').any(|s| s == expected)
}

// ---------------------------------------------------------------------------------------------
// The API contract: one focused test per promise, each against a fresh server of its own.

mod a11y;
mod backup;
mod browser;
mod contract;
mod dashboard;
mod durability;
mod jobe;
mod lti;
mod nodes;
mod openapi;
mod operations;
mod teachers;

mod page;
mod pgtls;
mod privacy;
mod webhooks;
