//! Load benchmark of the grading service, end to end over loopback: the release binary
//! (`pruefstein serve`) with a fresh data directory, driven by keep-alive HTTP/1.1 clients in this
//! process. Two phases, each with `?wait=` so that a request counts only when its result is stored:
//! prediction answers (exercise 01) and consumer modules (exercise 03's reference solution, every
//! module made distinct by a comment, so nothing could be served from a cache by hash). Prints
//! submissions/s, latency p50/p99 and the server's peak RSS (VmHWM from /proc).
//!
//! Then Python and JavaScript consumers (exercise 03's `lesson.py` and `reference.js`, each file made
//! distinct by a comment), and the grading workers' peak RSS.
//!
//! Run: `cargo bench --bench service` (options: `--seconds N` per phase, `--clients N`,
//! `--durability full|normal`, `--phases answers,wat,python,javascript` to choose, `--binary <a
//! pruefstein binary>` to measure another build's server, such as the one before a change). Several nodes on one PostgreSQL: `--store postgres --nodes 2` (a
//! throwaway server from the system's PostgreSQL, with `fsync` and `synchronous_commit` on, or the
//! database `PRUEFSTEIN_TEST_DATABASE` names); the clients are spread over the nodes, and the CPU
//! time of the nodes and of the database is reported, since they share the machine's cores.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pruefstein");

fn arg<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::args().skip_while(|a| a != name).nth(1).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A keep-alive HTTP/1.1 connection.
struct Connection {
    reader: BufReader<TcpStream>,
    port: u16,
}

impl Connection {
    fn open(port: u16) -> Connection {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream.set_nodelay(true).ok();
        Connection { reader: BufReader::new(stream), port }
    }

    /// POSTs and returns the status and body.
    fn post(&mut self, path: &str, token: &str, body: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            self.port,
            body.len()
        );
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let status: u16 = line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let mut length = 0usize;
        loop {
            line.clear();
            self.reader.read_line(&mut line)?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0u8; length];
        self.reader.read_exact(&mut body)?;
        Ok((status, body))
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

struct Phase {
    name: &'static str,
    done: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
    /// Mean time the server spent grading one submission (from its metrics).
    grade_ms: f64,
    /// CPU ticks of the nodes (and their workers) and of the database during the phase.
    cpu: (u64, u64),
}

/// The server's grade duration histogram: (sum in seconds, count).
fn grade_totals(port: u16) -> (f64, f64) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .write_all(
            format!("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .expect("metrics request");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("metrics");
    let value = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0)
    };
    (value("pruefstein_grade_duration_seconds_sum "), value("pruefstein_grade_duration_seconds_count "))
}

/// The nodes' grade duration histograms, summed.
fn grade_totals_of(ports: &[u16]) -> (f64, f64) {
    ports.iter().map(|p| grade_totals(*p)).fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// CPU time (user + system, in clock ticks) of every process whose name is `name`.
fn cpu_ticks(name: &str) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|stat| {
            let (head, rest) = stat.rsplit_once(") ")?;
            let comm = head.split_once(" (")?.1;
            (comm == name).then_some(())?;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
        })
        .sum()
}

/// Runs `clients` threads for `seconds`, each posting bodies from `make` with `?wait=30s` to the
/// nodes in turn (client n to node n mod nodes).
fn run_phase(
    name: &'static str,
    ports: &[u16],
    token: &str,
    clients: usize,
    seconds: f64,
    make: Arc<dyn Fn(usize) -> Vec<u8> + Send + Sync>,
) -> Phase {
    let stop = Arc::new(AtomicBool::new(false));
    let counter = Arc::new(AtomicUsize::new(0));
    let before = grade_totals_of(ports);
    let cpu_before = (cpu_ticks("pruefstein"), cpu_ticks("postgres"));
    let start = Instant::now();
    let handles: Vec<_> = (0..clients)
        .map(|c| {
            let port = ports[c % ports.len()];
            let (stop, counter, make, token) =
                (stop.clone(), counter.clone(), make.clone(), token.to_string());
            std::thread::spawn(move || {
                let mut connection = Connection::open(port);
                let mut latencies = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    let body = make(n);
                    let sent = Instant::now();
                    let (status, response) =
                        connection.post("/api/v1/submissions?wait=30s", &token, &body).expect("request");
                    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&response));
                    assert!(
                        response.windows(17).any(|w| w == b"\"status\":\"graded\""),
                        "not graded within the wait"
                    );
                    latencies.push(sent.elapsed());
                }
                latencies
            })
        })
        .collect();
    while start.elapsed().as_secs_f64() < seconds {
        std::thread::park_timeout(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    let mut latencies: Vec<Duration> = handles.into_iter().flat_map(|h| h.join().expect("client")).collect();
    let elapsed = start.elapsed();
    latencies.sort();
    let after = grade_totals_of(ports);
    let grade_ms = (after.0 - before.0) / (after.1 - before.1).max(1.0) * 1e3;
    // Processes that ended during the phase take their ticks with them: a floor of zero.
    let cpu = (
        cpu_ticks("pruefstein").saturating_sub(cpu_before.0),
        cpu_ticks("postgres").saturating_sub(cpu_before.1),
    );
    Phase { name, done: latencies.len(), elapsed, latencies, grade_ms, cpu }
}

fn peak_rss_mib(child: &Child) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

fn main() {
    let seconds: f64 = arg("--seconds", 10.0);
    let clients: usize = arg("--clients", 32);
    let durability: String = arg("--durability", "full".to_string());
    let store: String = arg("--store", "sqlite".to_string());
    let nodes: usize = arg("--nodes", 1);
    // The server binary: this build's, or another (`--binary`, a build before a change).
    let bin: String = arg("--binary", BIN.to_string());
    assert!(nodes == 1 || store == "postgres", "several nodes share a PostgreSQL database: --store postgres");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = tempfile::tempdir().expect("temp dir");
    let ports: Vec<u16> =
        (0..nodes).map(|_| TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()).collect();

    // The store's flags for every command: SQLite in the data directory, or the shared database.
    let mut store_args: Vec<String> = Vec::new();
    let _database_server;
    if store == "postgres" {
        use pruefstein::service::store::postgres::scratch;
        let url = match std::env::var(scratch::TEST_DATABASE_VAR) {
            Ok(_) => scratch::database(),
            Err(_) => {
                // As durable as SQLite's `full`: every commit is flushed.
                let server = scratch::ScratchServer::start_durable().expect("a PostgreSQL server");
                let url = server.create_database().expect("a database");
                _database_server = server;
                url
            }
        };
        store_args = vec!["--database".into(), url];
    }
    let out = Command::new(&bin)
        .args(["client", "add", "bench", "--token-only", "--data-dir"])
        .arg(data.path().join("node-0"))
        .args(&store_args)
        .output()
        .expect("client add");
    let token = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let mut servers: Vec<Child> = ports
        .iter()
        .enumerate()
        .map(|(n, port)| {
            Command::new(&bin)
                .current_dir(repo)
                .args(["serve", "--bind", &format!("127.0.0.1:{port}"), "--durability", &durability])
                .args(["--node-id", &format!("bench-{n}"), "--data-dir"])
                .arg(data.path().join(format!("node-{n}")))
                .args(&store_args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start the server")
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    for port in &ports {
        while TcpStream::connect(("127.0.0.1", *port)).is_err() {
            assert!(Instant::now() < deadline, "the server did not start");
            std::thread::park_timeout(Duration::from_millis(20));
        }
    }

    let answer = Arc::new(|n: usize| {
        format!(r#"{{"exercise":"01-visibility-timeout","learner":"learner-{n}","answer":"(2, 2, 0)"}}"#)
            .into_bytes()
    });
    let reference =
        std::fs::read_to_string(repo.join("exercises/03-idempotenter-konsument/solutions/reference.wat"))
            .expect("reference solution");
    let consumer = Arc::new(move |n: usize| {
        // A comment makes every module distinct: its own bytes, hash, parse and compile.
        let wat = format!("{reference}\n;; submission {n}\n");
        serde_json::json!({"exercise": "03-idempotenter-konsument", "learner": format!("learner-{n}"), "wat": wat})
            .to_string()
            .into_bytes()
    });

    // Source consumers: the lesson's Python and the JavaScript reference, each file made distinct
    // by a comment as the modules are.
    let source = |language: &'static str, file: &str, comment: &'static str| {
        let text = std::fs::read_to_string(repo.join("exercises/03-idempotenter-konsument").join(file))
            .expect("source solution");
        Arc::new(move |n: usize| {
            let source = format!("{text}\n{comment} submission {n}\n");
            serde_json::json!({"exercise": "03-idempotenter-konsument", "learner": format!("learner-{n}"),
                "language": language, "source": source})
            .to_string()
            .into_bytes()
        }) as Arc<dyn Fn(usize) -> Vec<u8> + Send + Sync>
    };
    let python = source("python", "solutions/lesson.py", "#");
    let javascript = source("javascript", "solutions/reference.js", "//");

    // Warm-up: the exercise's oracle, engines, page cache (and the interpreters, when measured).
    let wanted: String = arg("--phases", "answers,wat,python,javascript".to_string());
    let wants = |phase: &str| wanted.split(',').any(|p| p == phase);
    run_phase("warm-up", &ports, &token, 2 * nodes, 1.0, consumer.clone());
    for (phase, make) in [("python", &python), ("javascript", &javascript)] {
        if wants(phase) {
            run_phase("warm-up", &ports, &token, 2 * nodes, 1.0, make.clone());
        }
    }
    let mut phases = Vec::new();
    if wants("answers") {
        phases.push(run_phase("answers (exercise 01)", &ports, &token, clients, seconds, answer));
    }
    if wants("wat") {
        phases.push(run_phase("WAT consumers (exercise 03)", &ports, &token, clients, seconds, consumer));
    }
    if wants("python") {
        phases.push(run_phase("Python consumers (03, lesson.py)", &ports, &token, clients, seconds, python));
    }
    if wants("javascript") {
        phases.push(run_phase(
            "JavaScript consumers (03, reference.js)",
            &ports,
            &token,
            clients,
            seconds,
            javascript,
        ));
    }
    let rss: Vec<String> = servers.iter().map(|s| format!("{:.1}", peak_rss_mib(s))).collect();
    let workers = worker_peak_rss_mib();
    for server in &mut servers {
        let _ = server.kill();
        let _ = server.wait();
    }

    println!(
        "pruefstein serve on {store} ({nodes} node(s)), durability {durability}, {clients} keep-alive clients, \
         ?wait=30s, {seconds} s per phase"
    );
    println!("| phase | submissions | per second | p50 | p99 | grading, mean | CPU: nodes / database |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for phase in &phases {
        let ticks = (phase.cpu.0 + phase.cpu.1).max(1) as f64;
        println!(
            "| {} | {} | {:.0} | {:.1} ms | {:.1} ms | {:.2} ms | {:.0} % / {:.0} % |",
            phase.name,
            phase.done,
            phase.done as f64 / phase.elapsed.as_secs_f64(),
            percentile(&phase.latencies, 0.5).as_secs_f64() * 1e3,
            percentile(&phase.latencies, 0.99).as_secs_f64() * 1e3,
            phase.grade_ms,
            phase.cpu.0 as f64 / ticks * 100.0,
            phase.cpu.1 as f64 / ticks * 100.0,
        );
    }
    println!("server peak RSS (VmHWM) per node: {} MiB", rss.join(", "));
    println!("grading worker peak RSS (VmHWM): {} MiB", workers.join(", "));
}

/// Peak RSS of every grading worker process (`pruefstein grade-worker`) alive now.
fn worker_peak_rss_mib() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .map(|c| c.split(|b| *b == 0).any(|arg| arg == b"grade-worker"))
                .unwrap_or(false)
        })
        .filter_map(|e| {
            let status = std::fs::read_to_string(e.path().join("status")).ok()?;
            let mib = |key: &str| -> Option<f64> {
                let kb: f64 =
                    status.lines().find(|l| l.starts_with(key))?.split_whitespace().nth(1)?.parse().ok()?;
                Some(kb / 1024.0)
            };
            // The peak, then what is resident now: anonymous memory and mapped files (code).
            Some(format!(
                "{:.1} (now {:.1} anon, {:.1} file)",
                mib("VmHWM:")?,
                mib("RssAnon:")?,
                mib("RssFile:")?
            ))
        })
        .collect()
}
