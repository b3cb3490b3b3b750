//! Hostile requests and receivers at the service: slow bodies, slow webhook receivers, private
//! callback addresses, restarts mid-edit, and an exercise that asks for a deeper wasm stack.
//!
//! The server is the shared fixture (`support::server`: the real binary on a free loopback port, a
//! client added, raw HTTP/1.1). No test sleeps to wait: every wait polls a condition with a
//! deadline; the slow peers below pause between bytes because being slow is what they test.

use std::io::{Read, Write};
use std::net::{IpAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pruefstein::service::outbound::{is_public, parse_target};
use serde_json::{Value, json};

use crate::support::http::parse_response;
use crate::support::server::Server;
use crate::support::{CONSUMER, PREDICTION, copy_tree, poll, repo};

// ---------------------------------------------------------------------------------------------
// Callback addresses.

/// Every special-purpose range of the IANA IPv4 and IPv6 registries that a callback must not reach
/// (with multicast and reserved space): its first address, one inside and its last.
const NOT_PUBLIC: &[(&str, &[&str])] = &[
    ("0.0.0.0/8 this network", &["0.0.0.0", "0.1.2.3", "0.255.255.255"]),
    ("10.0.0.0/8 private", &["10.0.0.0", "10.1.2.3", "10.255.255.255"]),
    ("100.64.0.0/10 shared (CGN)", &["100.64.0.0", "100.100.100.100", "100.127.255.255"]),
    ("127.0.0.0/8 loopback", &["127.0.0.0", "127.0.0.1", "127.255.255.255"]),
    ("169.254.0.0/16 link-local", &["169.254.0.0", "169.254.169.254", "169.254.255.255"]),
    ("172.16.0.0/12 private", &["172.16.0.0", "172.20.1.1", "172.31.255.255"]),
    ("192.0.0.0/24 IETF protocol assignments", &["192.0.0.0", "192.0.0.8", "192.0.0.255"]),
    ("192.0.2.0/24 TEST-NET-1", &["192.0.2.0", "192.0.2.1", "192.0.2.255"]),
    ("192.88.99.0/24 6to4 relay", &["192.88.99.0", "192.88.99.1", "192.88.99.255"]),
    ("192.168.0.0/16 private", &["192.168.0.0", "192.168.1.1", "192.168.255.255"]),
    ("198.18.0.0/15 benchmarking", &["198.18.0.0", "198.19.1.1", "198.19.255.255"]),
    ("198.51.100.0/24 TEST-NET-2", &["198.51.100.0", "198.51.100.7", "198.51.100.255"]),
    ("203.0.113.0/24 TEST-NET-3", &["203.0.113.0", "203.0.113.9", "203.0.113.255"]),
    ("224.0.0.0/4 multicast", &["224.0.0.0", "239.1.2.3", "239.255.255.255"]),
    ("240.0.0.0/4 reserved", &["240.0.0.0", "250.1.2.3", "255.255.255.254"]),
    ("255.255.255.255 broadcast", &["255.255.255.255"]),
    ("::/128 unspecified", &["::"]),
    ("::1/128 loopback", &["::1"]),
    ("::a.b.c.d IPv4-compatible (deprecated)", &["::127.0.0.1", "::10.0.0.1", "::8.8.8.8", "::ffff:ffff"]),
    (
        "::ffff:0:0/96 IPv4-mapped, private inside",
        &["::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0.0.0.0"],
    ),
    ("::ffff:0:a.b.c.d IPv4-translated", &["::ffff:0:7f00:1", "::ffff:0:a00:1", "::ffff:0:808:808"]),
    ("64:ff9b::/96 NAT64, private inside", &["64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::a00:1"]),
    (
        "64:ff9b:1::/48 local-use NAT64",
        &["64:ff9b:1::", "64:ff9b:1::808:808", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"],
    ),
    ("100::/64 discard-only", &["100::", "100::1", "100::ffff:ffff:ffff:ffff"]),
    (
        "2001::/23 IETF protocol assignments",
        &["2001::", "2001:2::1", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"],
    ),
    // Teredo: server 65.54.227.120, client 127.0.0.1 hidden as its inverse 0x80fffffe.
    ("2001::/32 Teredo", &["2001:0:4136:e378:8000:63bf:80ff:fffe", "2001:0:4136:e378:8000:63bf:f7f7:f7f7"]),
    ("2001:db8::/32 documentation", &["2001:db8::", "2001:db8::1", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"]),
    ("3fff::/20 documentation", &["3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"]),
    (
        "2002::/16 6to4, private inside",
        &["2002:7f00:1::1", "2002:a9fe:a9fe::1", "2002:a00:1::", "2002:c0a8:101::1", "2002::"],
    ),
    ("fc00::/7 unique local", &["fc00::", "fd12:3456::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]),
    ("fe80::/10 link-local", &["fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]),
    ("fec0::/10 site-local (deprecated)", &["fec0::", "fec0::1", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]),
    ("ff00::/8 multicast", &["ff00::", "ff02::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]),
    ("outside 2000::/3, unassigned", &["4000::1", "5f00::1", "8000::1", "1::1"]),
];

/// Public addresses, next to the edges of the ranges above: they must pass.
const PUBLIC: &[&str] = &[
    "1.1.1.1",
    "8.8.8.8",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.0",
    "169.253.255.255",
    "169.255.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.255",
    "192.0.3.0",
    "192.88.98.255",
    "192.88.100.0",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "198.51.99.255",
    "203.0.112.255",
    "223.255.255.255",
    "93.184.216.34",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "2001:200::1",
    "2001:db7:ffff::1",
    "2001:db9::1",
    "2003::1",
    "3ffe:ffff::1",
    "2000::1",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
    "2002:5db8:d822::1",
];

/// The policy refuses every private range in both families, whatever form the address takes, and
/// lets the public ones through; with the operator's permission, everything passes.
#[test]
fn callback_policy_refuses_every_special_purpose_range() {
    let mut wrong = Vec::new();
    for (range, addresses) in NOT_PUBLIC {
        for address in *addresses {
            let ip: IpAddr = address.parse().unwrap_or_else(|e| panic!("{address}: {e}"));
            let url = match ip {
                IpAddr::V4(_) => format!("http://{address}/hook"),
                IpAddr::V6(_) => format!("http://[{address}]/hook"),
            };
            if is_public(ip) {
                wrong.push(format!("{address} ({range}) counts as public"));
            }
            match parse_target(&url, false) {
                Ok(_) => wrong.push(format!("{url} ({range}) is accepted")),
                Err(message) if !message.contains("non-public") => {
                    wrong.push(format!("{url}: the refusal does not say why: {message}"))
                }
                Err(_) => {}
            }
            if let Err(message) = parse_target(&url, true) {
                wrong.push(format!("{url} is refused although private targets are allowed: {message}"));
            }
        }
    }
    for address in PUBLIC {
        let ip: IpAddr = address.parse().unwrap();
        if !is_public(ip) {
            wrong.push(format!("{address} is public but refused"));
        }
    }
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}

/// The five forms that passed before, and IPv4 literals written the ways a URL parser accepts.
#[test]
fn callback_urls_in_disguise_are_refused() {
    for url in [
        "http://[::127.0.0.1]/h",
        "http://[::ffff:0:7f00:1]/h",
        "http://[fec0::1]/h",
        "http://[2002:7f00:1::1]/h",
        "http://[2002:a9fe:a9fe::1]/h",
        "http://2130706433/h",
        "http://0x7f000001/h",
        "http://0177.0.0.1/h",
        "http://127.1/h",
        "http://0/h",
        "http://[::ffff:7f00:1]/h",
        "http://[0:0:0:0:0:ffff:169.254.169.254]/h",
        "https://169.254.169.254.:443/latest/meta-data",
    ] {
        let refused = parse_target(url, false);
        assert!(refused.as_ref().is_err_and(|m| m.contains("non-public")), "{url}: {refused:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// A webhook receiver that answers a byte at a time.

/// A receiver that reads each request and then answers one byte at a time (a status line that never
/// ends) for as long as the sender stays, at most `bytes` bytes per connection. Returns its port and
/// a flag set when a sender hung up on it.
fn trickling_receiver(bytes: usize) -> (u16, Arc<AtomicBool>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hung_up = Arc::new(AtomicBool::new(false));
    let flag = hung_up.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let flag = flag.clone();
            std::thread::spawn(move || {
                let mut buffer = [0u8; 16 * 1024];
                let _ = stream.read(&mut buffer);
                for byte in b"HTTP/1.1 200 OK".iter().cycle().take(bytes) {
                    if stream.write_all(&[*byte]).is_err() {
                        flag.store(true, Ordering::SeqCst);
                        return;
                    }
                    // Slow on purpose: one byte every 50 ms, far inside any per-read timeout.
                    std::thread::sleep(Duration::from_millis(50));
                }
            });
        }
    });
    (port, hung_up)
}

/// A receiver that trickles its answer cannot hold a webhook sender: the attempt ends at its
/// deadline as a timeout, and the event is scheduled for another attempt.
#[test]
fn a_trickling_webhook_receiver_cannot_hold_a_sender() {
    let dir = tempfile::tempdir().unwrap();
    // The receiver would go on for 10 minutes; the attempt's deadline is 1 s.
    let (receiver, hung_up) = trickling_receiver(12_000);
    let server = Server::start(
        dir.path(),
        &["--allow-private-callbacks", "--webhook-timeout-ms", "1000", "--workers", "1"],
    );
    let token = server.client("lms").0;
    let (status, view) = server.call_json(
        "POST",
        "/api/v1/submissions?wait=30s",
        &token,
        &json!({"exercise": PREDICTION, "learner": "l", "answer": "(1, 1, 1)",
                "callback_url": format!("http://127.0.0.1:{receiver}/hook")}),
    );
    assert_eq!(status, 200, "{view}");
    let now =
        || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let (attempts, error, next, state) = poll("the first attempt to end", Duration::from_secs(60), || {
        server
            .db()
            .query_row("SELECT attempts, last_error, next_attempt_at, state FROM outbox", [], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .ok()
            .filter(|(attempts, ..)| *attempts >= 1)
    });
    let error = error.unwrap_or_default();
    assert_eq!(state, "pending", "scheduled for another attempt: {error}");
    assert!(error.contains("timed out") && error.contains("webhook_attempt_ms_max"), "{error}");
    assert!(attempts < 10, "each attempt ended at its deadline: {attempts}");
    assert!(next > now() - 60_000, "the retry is scheduled");
    poll("the sender to hang up", Duration::from_secs(30), || hung_up.load(Ordering::SeqCst).then_some(()));
}

// ---------------------------------------------------------------------------------------------
// Request bodies that never end.

/// Sends a submission whose body comes a byte (or a one-byte chunk) every 50 ms, and reads until
/// the server closes the connection. Returns the answer's status and body and how many body bytes
/// went out before the server closed.
fn send_slowly(port: u16, token: &str, chunked: bool) -> (u16, String, usize) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = json!({"exercise": PREDICTION, "learner": "slow", "answer": "(1, 1, 1)"}).to_string();
    let padded = format!("{body:<4000}");
    let framing = if chunked {
        "Transfer-Encoding: chunked".to_string()
    } else {
        format!("Content-Length: {}", padded.len())
    };
    let head = format!(
        "POST /api/v1/submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\n{framing}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let sent = std::thread::spawn(move || {
        // The whole body would take 200 s.
        for (n, byte) in padded.bytes().enumerate() {
            let piece = if chunked { format!("1\r\n{}\r\n", byte as char).into_bytes() } else { vec![byte] };
            if writer.write_all(&piece).is_err() {
                return n;
            }
            // Slow on purpose: this client is the slow peer under test.
            std::thread::sleep(Duration::from_millis(50));
        }
        padded.len()
    });
    // Ends when the server closes the connection: end of stream, or a reset (the server drops
    // the unread rest of the body). A read timeout fails the test here.
    let mut raw = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset && !raw.is_empty() => break,
            Err(e) => panic!("the connection was not closed: {e}"),
        }
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
    let response = parse_response(&raw).expect("an HTTP answer");
    (response.status, response.text(), sent.join().unwrap())
}

/// An authenticated client that sends its body a byte at a time (with a length, or chunked) gets
/// 408 when the body deadline passes, its connection is closed, nothing is stored, and the server
/// goes on serving.
#[test]
fn a_slow_request_body_gets_408_and_its_connection_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--request-body-timeout-ms", "1000"]);
    let token = server.client("lms").0;
    for chunked in [false, true] {
        let (status, text, sent) = send_slowly(server.port, &token, chunked);
        assert_eq!(status, 408, "chunked {chunked}: {text}");
        let problem: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(problem["type"], "urn:pruefstein:problem:body-timeout");
        assert!(problem["detail"].as_str().unwrap().contains("request_body_ms_max"), "{problem}");
        assert!(problem["detail_de"].as_str().unwrap().contains("request_body_ms_max"), "{problem}");
        assert!(sent < 4000, "chunked {chunked}: the body was cut off, not read to its end ({sent} bytes)");
    }
    let stored: i64 = server.db().query_row("SELECT count(*) FROM submissions", [], |r| r.get(0)).unwrap();
    assert_eq!(stored, 0);
    // A whole body on a new connection is taken as usual.
    let (status, view) = server.call_json(
        "POST",
        "/api/v1/submissions",
        &token,
        &json!({"exercise": PREDICTION, "learner": "fast", "answer": "(1, 1, 1)"}),
    );
    assert_eq!(status, 202, "{view}");
}

// ---------------------------------------------------------------------------------------------
// A restart while an exercise folder is being edited.

/// A queued submission whose exercise folder is broken when the service starts waits (it does not
/// fail, and the waiting costs no attempt); once the teacher repairs the folder, it is graded. An
/// exercise that does not exist is still refused at intake, with the reason.
#[test]
fn a_submission_for_a_folder_broken_at_restart_is_graded_once_it_is_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let exercises = dir.path().join("exercises");
    copy_tree(&repo().join("exercises").join(PREDICTION), &exercises.join(PREDICTION));
    // Another exercise, so that the service is ready while the one being edited is broken.
    copy_tree(&repo().join("exercises").join("02-wann-acken"), &exercises.join("02-wann-acken"));
    let data = dir.path().join("data");
    let mut server = Server::start(&data, &["--exercises", exercises.to_str().unwrap(), "--workers", "1"]);
    let token = server.client("lms").0;
    let (status, problem) = server.call_json(
        "POST",
        "/api/v1/submissions",
        &token,
        &json!({"exercise": "no-such-exercise", "learner": "l", "answer": "(1, 1, 1)"}),
    );
    assert_eq!((status, &problem["type"]), (404, &json!("urn:pruefstein:problem:unknown-exercise")));
    assert!(problem["detail"].as_str().unwrap().contains(PREDICTION), "names the known ones: {problem}");
    server.kill();

    // What the queue holds after a crash: one submission, not yet graded.
    let db = server.db();
    db.execute(
        "INSERT INTO submissions (client_id, exercise, learner, kind, payload, sha256, request_hash, created_at) \
         VALUES (1, ?1, 'l', 'answer', ?2, ?3, 'h', 0)",
        rusqlite::params![PREDICTION, b"(1, 1, 1)".as_slice(), pruefstein::submission::sha256_hex(b"(1, 1, 1)")],
    )
    .unwrap();
    let id = db.last_insert_rowid();
    db.execute("INSERT INTO jobs (submission_id) VALUES (?1)", [id]).unwrap();
    drop(db);
    // The teacher is in the middle of an edit when the service starts again.
    let toml = exercises.join(PREDICTION).join("exercise.toml");
    let good = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, "slug = \"01-visibility-timeout\"\n[oops\n").unwrap();
    server.spawn();
    let public = format!("sub_{id}");
    // It waits, queued, and the waiting is not an attempt (the old behaviour failed it for good).
    poll("the submission to wait for its exercise", Duration::from_secs(60), || {
        let log = server.log_text();
        let waited =
            log.lines().any(|l| l.contains("exercise_unavailable") && l.contains(&format!("\"{public}\"")));
        let (_, view) =
            server.call_json("GET", &format!("/api/v1/submissions/{public}"), &token, &Value::Null);
        assert_ne!(view["status"], "failed", "{view}");
        (waited && view["status"] == "queued" && view["attempts"] == 0).then_some(())
    });

    // The repaired folder is loaded (after its soundness proof), and the submission is graded.
    std::fs::write(&toml, good).unwrap();
    let view = poll("the submission to be graded", Duration::from_secs(180), || {
        let (_, view) =
            server.call_json("GET", &format!("/api/v1/submissions/{public}?wait=5s"), &token, &Value::Null);
        (view["status"] != "queued" && view["status"] != "running").then_some(view)
    });
    assert_eq!(view["status"], "graded", "{view}");
    assert_eq!(view["attempts"], 1, "{view}");
}

// ---------------------------------------------------------------------------------------------
// The per-exercise wasm stack.

/// Exercise 3's reference, made to recurse `depth` levels (each frame holding 32 i64 locals)
/// before every delivery: correct, but it needs more stack than the default.
fn deep_reference(depth: u32) -> String {
    let reference =
        std::fs::read_to_string(repo().join("exercises").join(CONSUMER).join("solutions/reference.wat"))
            .unwrap();
    let locals = "(local i64) ".repeat(32);
    let deep = format!(
        "(func $deep (param $n i32) (result i32) {locals}\
           (if (result i32) (local.get $n) \
             (then (i32.add (call $deep (i32.sub (local.get $n) (i32.const 1))) (i32.const 1))) \
             (else (i32.const 0))))\n  "
    );
    let entry = "(func (export \"verarbeite\") (result i32)";
    let with_deep = reference.replacen(entry, &format!("{deep}{entry}"), 1);
    let locals_line = "(local $status i32) (local $len i32)";
    let result = with_deep.replacen(
        locals_line,
        &format!("{locals_line}\n    (drop (call $deep (i32.const {depth})))"),
        1,
    );
    assert!(result.contains("call $deep (i32.const"), "the reference changed its shape");
    result
}

/// An exercise that asks for a larger wasm stack (`[limits] wasm_stack_bytes`) gets it: a module
/// that recurses deeper than the default stack allows passes there, and the same module fails
/// with the stack limit named under the default.
#[test]
fn the_exercise_stack_limit_is_honoured() {
    use pruefstein::grade::{GradeOptions, grade};
    use pruefstein::submission::Submission;

    let dir = tempfile::tempdir().unwrap();
    let larger = dir.path().join("larger");
    copy_tree(&repo().join("exercises").join(CONSUMER), &larger);
    let toml = larger.join("exercise.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\n[limits]\nwasm_stack_bytes = 4_194_304\n")).unwrap();
    let larger = pruefstein::graders::load(&larger).unwrap();
    assert_eq!(larger.limits.wasm_stack_bytes, 4 * 1024 * 1024);
    let default = pruefstein::graders::load(&repo().join("exercises").join(CONSUMER)).unwrap();
    assert_eq!(default.limits.wasm_stack_bytes, pruefstein::limits::WASM_STACK_BYTES_MAX);

    // One engine per (compiler, stack): the stack is an engine setting in wasmtime.
    use pruefstein::grade::Compiler;
    use pruefstein::sandbox::{engine, engine_with_stack};
    let deep = engine_with_stack(Compiler::Winch, 4 * 1024 * 1024).unwrap();
    assert_eq!(deep.get_max_wasm_stack(), 4 * 1024 * 1024);
    assert!(std::ptr::eq(deep, engine_with_stack(Compiler::Winch, 4 * 1024 * 1024).unwrap()));
    assert_eq!(
        engine(Compiler::Winch).unwrap().get_max_wasm_stack(),
        pruefstein::limits::WASM_STACK_BYTES_MAX
    );
    assert_eq!(
        engine_with_stack(Compiler::Cranelift, 4 * 1024 * 1024).unwrap().get_max_wasm_stack(),
        4 * 1024 * 1024
    );

    let submission = Submission::Module(deep_reference(3_000).into_bytes());
    let options = GradeOptions::default();
    let report = grade(&larger, &submission, &options).unwrap();
    let json = serde_json::to_string(&report).unwrap();
    assert_eq!(report.verdict, pruefstein::report::Verdict::Passed, "{json}");
    let report = grade(&default, &submission, &options).unwrap();
    let json = serde_json::to_string(&report).unwrap();
    assert_ne!(report.verdict, pruefstein::report::Verdict::Passed, "{json}");
    assert!(json.contains("stack-limit"), "the stack limit is named: {json}");
}

// ---------------------------------------------------------------------------------------------
// Teachers' calls.

/// Malformed, oversized and unknown regrade and analytics requests get clear 4xx problems, write
/// nothing, and leave the service up.
#[test]
fn teacher_calls_refuse_malformed_requests_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    let (token, _) = server.client("lms");
    let out = std::process::Command::new(crate::support::BIN)
        .args(["client", "add", "lehrerin", "--teacher", "--token-only", "--data-dir"])
        .arg(&server.data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let teacher = String::from_utf8(out.stdout).unwrap().trim().to_string();
    // One graded submission, so that a regrade would have something to queue.
    let r = server.post_json(
        "/api/v1/submissions?wait=30",
        &token,
        &json!({"exercise": PREDICTION, "learner": "anna", "answer": "(1, 1, 1)"}),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let regrade = format!("/api/v1/exercises/{PREDICTION}/regrade");
    let jobs = || -> i64 { server.db().query_row("SELECT count(*) FROM jobs", [], |r| r.get(0)).unwrap() };
    let many: Vec<String> = (0..1001).map(|n| format!("l{n}")).collect();
    let oversized = format!("{{\"learners\": [\"{}\"]}}", "x".repeat(70 * 1024));
    let cases: Vec<(String, u16, &str)> = vec![
        ("{".into(), 400, "bad-json"),
        ("null".into(), 400, "bad-json"),
        ("[]".into(), 400, "bad-json"),
        (r#"{"dry_run": "yes"}"#.into(), 400, "bad-json"),
        (r#"{"colour": 1}"#.into(), 400, "bad-json"),
        (r#"{"verdict": "maybe"}"#.into(), 400, "bad-filter"),
        (r#"{"learners": ["  "]}"#.into(), 400, "bad-filter"),
        (json!({"learners": many}).to_string(), 400, "bad-filter"),
        (oversized, 413, "body-too-large"),
    ];
    for (body, status, code) in &cases {
        let r =
            server.call("POST", &regrade, &teacher, &[("Content-Type", "application/json")], body.as_bytes());
        assert_eq!(r.status, *status, "{}: {}", &body[..body.len().min(60)], r.text());
        let problem = r.json();
        assert!(problem["type"].as_str().unwrap().ends_with(code), "{problem}");
        assert!(problem["detail_de"].as_str().is_some_and(|d| !d.is_empty()), "{problem}");
        assert_eq!(jobs(), 0, "a refused regrade queues nothing");
    }
    let r = server.call("POST", "/api/v1/exercises/nope/regrade", &teacher, &[], b"{}");
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(server.call("POST", &regrade, "pst_unknown", &[], b"{}").status, 401);
    assert_eq!(server.call("POST", &regrade, &token, &[], b"{}").status, 403);
    for query in ["format=pdf", "lang=fr", "colour=blue", "format=csv&format=json"] {
        let r = server.get(&format!("/api/v1/exercises/{PREDICTION}/analytics?{query}"), &teacher);
        assert_eq!(r.status, 400, "{query}: {}", r.text());
    }
    // A dry run asked twice writes nothing either time; the service still answers.
    for _ in 0..2 {
        let (status, dry) = server.call_json("POST", &regrade, &teacher, &json!({"dry_run": true}));
        assert_eq!((status, dry["selected"].clone()), (200, json!(1)), "{dry}");
        assert_eq!(jobs(), 0);
    }
    assert_eq!(server.get("/readyz", &token).status, 200);
}

// ---------------------------------------------------------------------------------------------
// The teachers' dashboard.

/// Hostile links and forms at the dashboard: an oversized regrade form is 413 and queues nothing;
/// a course id beyond `DASHBOARD_COURSE_BYTES_MAX` (even correctly signed), a learner id with a
/// control character or beyond its bound, and submission ids that are not ids are the 404 page;
/// other methods are 405. Nothing is written.
#[test]
fn the_dashboard_refuses_hostile_links_and_forms_and_writes_nothing() {
    use pruefstein::limits::{DASHBOARD_COURSE_BYTES_MAX, DASHBOARD_FORM_BYTES_MAX};
    use pruefstein::service::dashboard::{Course, DashboardLink, csrf_token};
    use pruefstein::text::Lang;

    const SECRET: &str = "a-report-secret-for-hostile-dashboard-links";
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--report-secret", SECRET]);
    let key = SECRET.as_bytes();
    let later = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis()
        as i64
        + 3_600_000;
    let link = DashboardLink::signed(key, Course::Service, later, Lang::En);
    let jobs = || -> i64 { server.db().query_row("SELECT count(*) FROM jobs", [], |r| r.get(0)).unwrap() };
    let get = |path: &str| crate::support::http::request(server.port, "GET", path, &[], b"").unwrap();

    let action = link.href(&format!("/teach/exercises/{CONSUMER}/regrade"), Lang::En, "");
    let csrf = csrf_token(key, &link.token);
    let mut body = format!("csrf={csrf}&dry_run=false&pad=").into_bytes();
    body.resize(DASHBOARD_FORM_BYTES_MAX + 1, b'a');
    let r = crate::support::http::request(
        server.port,
        "POST",
        &action,
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &body,
    )
    .unwrap();
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(jobs(), 0, "an oversized form queued nothing");

    let long_course = Course::Lti { platform: 1, context: "k".repeat(DASHBOARD_COURSE_BYTES_MAX + 1) };
    let long = DashboardLink::signed(key, long_course, later, Lang::En);
    assert_eq!(get(&long.href("/teach", Lang::En, "")).status, 404, "a course id beyond its bound");
    for more in ["&learner=an%01na", &format!("&learner={}", "a".repeat(256)), "&learner="] {
        let r = get(&link.href("/teach/learner", Lang::En, more));
        assert_eq!(r.status, 404, "{more}");
    }
    for more in ["&a=sub_1", "&a=1&b=2", "&a=sub_x&b=sub_1", "&a=sub_99&b=sub_98"] {
        let r = get(&link.href("/teach/compare", Lang::En, more));
        assert_eq!(r.status, 404, "{more}");
    }
    let r = crate::support::http::request(server.port, "PUT", &link.href("/teach", Lang::En, ""), &[], b"")
        .unwrap();
    assert_eq!(r.status, 405);
    let r = get(&action);
    assert_eq!(r.status, 405, "the regrade is a POST only");
    assert_eq!(jobs(), 0);
}

// ---------------------------------------------------------------------------------------------
// The operator's files: the database URL's TLS parameters and the erasure log a restore reads.

/// Runs the binary with `args` under a hang guard: whether it succeeded, and what it said.
fn bounded_run(args: &[&str]) -> (bool, String) {
    // Into a file, not a pipe: a long message must not block the command while it is waited for.
    let out = tempfile::tempfile().unwrap();
    let mut child = std::process::Command::new(crate::support::BIN)
        .args(args)
        .stdout(out.try_clone().unwrap())
        .stderr(out.try_clone().unwrap())
        .spawn()
        .unwrap();
    let status = poll("the command to end", Duration::from_secs(60), || child.try_wait().unwrap());
    let mut said = String::new();
    let mut out = out;
    std::io::Seek::rewind(&mut out).unwrap();
    out.read_to_string(&mut said).unwrap();
    (status.success(), said)
}

#[test]
fn hostile_tls_parameters_and_erasure_logs_are_refused_by_name_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let data_arg = data.to_str().unwrap();
    // The database URL: an endless or oversized root certificate file, a directory, bad escapes,
    // an unknown mode. No connection is tried (port 1 would refuse it anyway).
    let big = dir.path().join("big.pem");
    std::fs::File::create(&big).unwrap().set_len(pruefstein::limits::PG_ROOT_CERT_BYTES_MAX + 1).unwrap();
    for (params, said) in [
        ("sslmode=verify-full&sslrootcert=/dev/zero", "PG_ROOT_CERT_BYTES_MAX"),
        (&format!("sslmode=verify-full&sslrootcert={}", big.display()), "PG_ROOT_CERT_BYTES_MAX"),
        (&format!("sslmode=verify-ca&sslrootcert={}", dir.path().display()), "cannot read the file"),
        ("sslmode=verify-full&sslrootcert=%ZZ", "%-escape"),
        ("sslmode=%C3%28", "not UTF-8"),
        ("sslrootcert=%C3%28", "not UTF-8"),
        ("sslmode=verify-full&sslrootcert=%2Fdev%2Fnull", "holds no certificate"),
        (&format!("sslmode={}", "x".repeat(100_000)), "is not a mode"),
    ] {
        let url = format!("postgres://u@localhost:1/db?{params}");
        let (ok, out) = bounded_run(&["client", "add", "lms", "--database", &url]);
        assert!(!ok && out.contains(said), "{params:.80}: {out:.400}");
        assert!(out.len() < 2_000, "a short message: {out:.400}");
    }
    // The erasure log: larger than its limit, a line of something else, a key that is no hash.
    let (ok, out) = bounded_run(&["client", "add", "lms", "--data-dir", data_arg]);
    assert!(ok, "{out}");
    let backup = dir.path().join("backup.db");
    let (ok, out) = bounded_run(&["backup", backup.to_str().unwrap(), "--data-dir", data_arg]);
    assert!(ok, "{out}");
    let log = dir.path().join("erasures.jsonl");
    let key = "ab".repeat(32);
    for (content, said) in [
        (None, "ERASURE_LOG_BYTES_MAX"),
        (
            Some(format!("{{\"at\":1,\"client_id\":null,\"learner_key\":\"{key}\"}}\n[1,2,3]\n")),
            "line 2: not an erasure",
        ),
        (
            Some(format!("{{\"at\":1,\"client_id\":null,\"learner_key\":\"{}\"}}\n", "z".repeat(1 << 20))),
            "line 1: the learner key",
        ),
        (Some("\u{feff}\u{0}\n".to_string()), "line 1: not an erasure"),
    ] {
        match content {
            Some(text) => std::fs::write(&log, text).unwrap(),
            None => std::fs::File::create(&log)
                .unwrap()
                .set_len(pruefstein::limits::ERASURE_LOG_BYTES_MAX + 1)
                .unwrap(),
        }
        let target = dir.path().join("restored");
        let args = ["restore", backup.to_str().unwrap(), "--erasures", log.to_str().unwrap(), "--data-dir"];
        let (ok, out) = bounded_run(&[&args[..], &[target.to_str().unwrap()]].concat());
        assert!(!ok && out.contains(said), "{said}: {out:.400}");
        assert!(!target.exists(), "{said}: a refused restore wrote nothing");
    }
}
