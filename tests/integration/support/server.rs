//! The server under test: the real binary (`pruefstein serve`) on a free loopback port with the data
//! directory a test gives it, started, restarted, stopped and killed by the test, and spoken to
//! over raw HTTP/1.1 (`super::http`). Every service test and every hostile test at the service uses
//! this one fixture.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::http::{Response, free_port, request};
use super::{BIN, poll, repo};

/// The course secret the service tests start the server with (it must never reach a student).
pub const COURSE_SECRET: &str = "course-secret-never-shown-7f3a";

/// How a server is started beyond its flags.
#[derive(Clone, Debug)]
pub struct Launch {
    /// Passes `--course-secret` [`COURSE_SECRET`].
    pub course_secret: bool,
    /// Lets its worker processes inject faults (`PRUEFSTEIN_TEST_WORKER_FAULTS`), which only tests set.
    pub fault_injection: bool,
    /// On drop: SIGTERM first (as an operator stops it), `kill -9` only if it does not stop in time;
    /// otherwise `kill -9` at once.
    pub graceful_drop: bool,
    /// The umask the server process starts with (the test process's own when None).
    pub umask: Option<u32>,
    /// The grading processes' module cache ([`shared_module_cache`] when None).
    pub module_cache: Option<PathBuf>,
}

impl Default for Launch {
    fn default() -> Launch {
        Launch {
            course_secret: true,
            fault_injection: false,
            graceful_drop: false,
            umask: None,
            module_cache: None,
        }
    }
}

pub struct Server {
    pub child: Option<Child>,
    pub port: u16,
    pub data: PathBuf,
    pub args: Vec<String>,
    pub log: PathBuf,
    launch: Launch,
}

/// The module cache the servers of this test run share (created by the first that uses it).
pub fn shared_module_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("server-module-cache")
}

impl Server {
    /// Starts a server with the course secret and waits until it is ready.
    pub fn start(data: &Path, extra: &[&str]) -> Server {
        Server::launch(data, extra, Launch::default())
    }

    /// Starts a server as `launch` says and waits until it is ready; creates `data` if needed.
    pub fn launch(data: &Path, extra: &[&str], launch: Launch) -> Server {
        std::fs::create_dir_all(data).unwrap();
        let mut server = Server {
            child: None,
            port: free_port(),
            data: data.to_path_buf(),
            args: extra.iter().map(|s| s.to_string()).collect(),
            log: data.join("server.log"),
            launch,
        };
        server.spawn();
        server
    }

    /// Starts the process (again, after [`Server::kill`] or a stop) on the same port and data, and
    /// waits until `/readyz` answers 200.
    pub fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(&self.log).unwrap();
        let mut command = Command::new(BIN);
        command
            .current_dir(repo())
            .arg("serve")
            .arg("--bind")
            .arg(format!("127.0.0.1:{}", self.port))
            .arg("--data-dir")
            .arg(&self.data)
            // One module cache for the servers of a test run: the interpreters are compiled once,
            // not once per server.
            .arg("--module-cache")
            .arg(self.launch.module_cache.clone().unwrap_or_else(shared_module_cache));
        if self.launch.course_secret {
            command.arg("--course-secret").arg(COURSE_SECRET);
        }
        if self.launch.fault_injection {
            command.env(pruefstein::isolation::worker::FAULT_INJECTION_ENV, "1");
        }
        if let Some(mask) = self.launch.umask {
            use std::os::unix::process::CommandExt;
            // SAFETY: umask(2) is async-signal-safe and only changes the child's own mask.
            unsafe {
                command.pre_exec(move || {
                    libc::umask(mask as libc::mode_t);
                    Ok(())
                });
            }
        }
        let child = command
            .args(&self.args)
            .env_remove("PRUEFSTEIN_CONFIG")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start pruefstein serve");
        self.child = Some(child);
        let port = self.port;
        poll("the server to be ready", Duration::from_secs(60), || {
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                panic!("the server exited with {status}: {}", self.log_text());
            }
            request(port, "GET", "/readyz", &[], b"").ok().filter(|r| r.status == 200)
        });
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("the server runs").id()
    }

    /// `kill -9`.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// Stops the server as an operator would (SIGTERM), `kill -9` only if it does not stop in time.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else { return };
        // SAFETY: kill(2) on a child process of this test.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            // The poll interval: the process's exit decides, the deadline bounds.
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// What the server wrote to its log (stderr) so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The log once `ready` holds for it: the service writes its log lines from a thread of their
    /// own, so a line may reach the file a moment after the request that caused it was answered.
    pub fn log_until(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        poll(what, Duration::from_secs(30), || {
            let log = self.log_text();
            ready(&log).then_some(log)
        })
    }

    /// The service's database, opened beside the server.
    pub fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.data.join("pruefstein.db")).unwrap()
    }

    /// Adds an API client with `pruefstein client add`: its token and webhook secret.
    pub fn client(&self, name: &str) -> (String, String) {
        let out = Command::new(BIN)
            .args(["client", "add", name, "--json", "--data-dir"])
            .arg(&self.data)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let value: Value = serde_json::from_slice(&out.stdout).unwrap();
        (value["token"].as_str().unwrap().to_string(), value["webhook_secret"].as_str().unwrap().to_string())
    }

    pub fn call(
        &self,
        method: &str,
        path: &str,
        token: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        let auth = format!("Bearer {token}");
        let mut all = vec![("Authorization", auth.as_str())];
        all.extend_from_slice(headers);
        request(self.port, method, path, &all, body).unwrap()
    }

    pub fn post_json(&self, path: &str, token: &str, body: &Value, key: Option<&str>) -> Response {
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(key) = key {
            headers.push(("Idempotency-Key", key));
        }
        self.call("POST", path, token, &headers, body.to_string().as_bytes())
    }

    /// A JSON request (no body when `body` is null): the status and the answer as JSON (a JSON
    /// string when it is not JSON).
    pub fn call_json(&self, method: &str, path: &str, token: &str, body: &Value) -> (u16, Value) {
        let payload = if body.is_null() { Vec::new() } else { body.to_string().into_bytes() };
        let response = self.call(method, path, token, &[("Content-Type", "application/json")], &payload);
        (response.status, response.json_or_text())
    }

    pub fn get(&self, path: &str, token: &str) -> Response {
        self.call("GET", path, token, &[], b"")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.launch.graceful_drop { self.stop() } else { self.kill() }
    }
}
