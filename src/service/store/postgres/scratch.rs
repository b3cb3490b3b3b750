//! Throwaway PostgreSQL databases for the tests: one server per test process, started from the
//! system's PostgreSQL binaries (`initdb`, `pg_ctl`) in a temporary directory, listening on a Unix
//! socket only, and stopped when the process ends; each test takes a fresh database on it. With
//! `PRUEFSTEIN_TEST_DATABASE` set (a URL of a database whose user may create databases), the
//! databases are created on that server instead. Without PostgreSQL's binaries the tests fail with a
//! message that says how to install them: no test silently skips.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The variable naming a server to use instead of a throwaway one.
pub const TEST_DATABASE_VAR: &str = "PRUEFSTEIN_TEST_DATABASE";

/// A server the tests create their databases on.
#[derive(Debug)]
pub struct ScratchServer {
    /// The URL of the database to create others from (without a database name to replace).
    admin_url: String,
    /// The throwaway server's directory (data and socket); none for a given server.
    dir: Option<PathBuf>,
    /// How the throwaway server runs.
    setup: Setup,
    next: AtomicU64,
}

/// How a throwaway server runs.
#[derive(Debug, Clone, Copy, Default)]
struct Setup {
    /// Whether it flushes its commits (`fsync`); the tests' servers do not.
    durable: bool,
    /// The loopback port it also listens on, for TLS connections only (`hostssl`); none: a Unix
    /// socket only.
    tls_port: Option<u16>,
}

/// The process's server, started on first use.
pub(crate) fn server() -> &'static ScratchServer {
    static SERVER: OnceLock<ScratchServer> = OnceLock::new();
    SERVER.get_or_init(|| match start() {
        Ok(server) => server,
        // A test without its database fails, loudly, with the reason.
        Err(message) => panic!("no PostgreSQL for the tests: {message}"),
    })
}

/// A fresh, empty database's URL.
pub fn database() -> String {
    server().create_database().unwrap_or_else(|e| panic!("cannot create a test database: {e}"))
}

impl ScratchServer {
    /// Creates a new database and returns its URL.
    pub fn create_database(&self) -> Result<String, String> {
        let name =
            format!("pruefstein_test_{}_{}", std::process::id(), self.next.fetch_add(1, Ordering::SeqCst));
        run_sql(&self.admin_url, &format!("CREATE DATABASE {name}"))?;
        Ok(with_database(&self.admin_url, &name))
    }

    /// A throwaway server of the caller's own (never the given one), to stop and start in a test.
    pub fn start_separate() -> Result<ScratchServer, String> {
        start_local(Setup::default(), None)
    }

    /// A throwaway server of the caller's own that flushes every commit as a production server
    /// does (`fsync` on), for measurements.
    pub fn start_durable() -> Result<ScratchServer, String> {
        start_local(Setup { durable: true, tls_port: None }, None)
    }

    /// A throwaway server of the caller's own that also listens on a loopback port with `ssl=on`,
    /// presenting `cert_pem` (and its `key_pem`), and that `pg_hba.conf` lets in over TCP only
    /// when the connection is encrypted (`hostssl`); the Unix socket stays open as before.
    pub fn start_tls(cert_pem: &str, key_pem: &str) -> Result<ScratchServer, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        start_local(Setup { durable: false, tls_port: Some(port) }, Some((cert_pem, key_pem)))
    }

    /// The loopback port of a server from [`ScratchServer::start_tls`].
    pub fn tls_port(&self) -> Option<u16> {
        self.setup.tls_port
    }

    /// Stops the throwaway server at once (as a crash would); its data stays.
    pub fn stop(&self) -> Result<(), String> {
        let dir = self.dir.as_ref().ok_or("a given server is not stopped by the tests")?;
        stop_server(&dir.join("data"))
    }

    /// Starts the stopped throwaway server again.
    pub fn start(&self) -> Result<(), String> {
        let dir = self.dir.as_ref().ok_or("a given server is not started by the tests")?;
        start_server(&dir.join("data"), dir, self.setup)
    }
}

/// `url` naming the database `name` instead.
fn with_database(url: &str, name: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}dbname={name}")
}

/// Runs one statement on a database of its own small runtime (on a thread of its own, so that a
/// caller inside a runtime does not block it).
pub fn run_sql(url: &str, sql: &str) -> Result<(), String> {
    let (url, sql) = (url.to_string(), sql.to_string());
    std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
        runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .map_err(|e| format!("cannot connect to {url}: {e}"))?;
            let driver = tokio::spawn(connection);
            let done = client.batch_execute(&sql).await.map_err(|e| match e.as_db_error() {
                Some(db) => format!("{sql}: {}", db.message()),
                None => format!("{sql}: {e}"),
            });
            drop(client);
            let _ = driver.await;
            done
        })
    })
    .join()
    .map_err(|_| "the SQL thread panicked".to_string())?
}

/// PostgreSQL's program `name`: from Debian's versioned directory (newest first), or the PATH.
pub(crate) fn program(name: &str) -> Result<PathBuf, String> {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path().join("bin").join(name)).collect())
        .unwrap_or_default();
    versions.sort();
    if let Some(found) = versions.into_iter().rev().find(|p| p.exists()) {
        return Ok(found);
    }
    std::env::var_os("PATH")
        .and_then(|path| std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.exists()))
        .ok_or_else(|| format!("{name} is not installed (Debian: apt-get install postgresql)"))
}

/// Runs a PostgreSQL program as the `postgres` user when this process is root (initdb refuses
/// root), as this user otherwise.
pub(crate) fn pg_command(program: &Path) -> Command {
    let root = std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false);
    if root {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn checked(command: &mut Command, what: &str) -> Result<(), String> {
    let output = command.stdin(Stdio::null()).output().map_err(|e| format!("{what}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Starts (or, with the variable set, finds) the server.
fn start() -> Result<ScratchServer, String> {
    if let Ok(url) = std::env::var(TEST_DATABASE_VAR) {
        let setup = Setup { durable: true, tls_port: None };
        return Ok(ScratchServer { admin_url: url, dir: None, setup, next: AtomicU64::new(0) });
    }
    start_local(Setup::default(), None)
}

/// Starts a throwaway server in a new temporary directory; with `tls` (a certificate and its key,
/// PEM), TLS-only on `setup.tls_port`.
fn start_local(setup: Setup, tls: Option<(&str, &str)>) -> Result<ScratchServer, String> {
    let dir = tempfile::Builder::new().prefix("pruefstein-pg-").tempdir().map_err(|e| e.to_string())?.keep();
    // The server runs as `postgres`: it needs to write its socket here.
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o777))
        .map_err(|e| e.to_string())?;
    let data = dir.join("data");
    checked(
        pg_command(&program("initdb")?).arg("-D").arg(&data).args([
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale",
            "C",
        ]),
        "initdb",
    )?;
    if let Some((cert, key)) = tls {
        encrypted_only(&data, cert, key)?;
    }
    start_server(&data, &dir, setup)?;
    // The server goes when this process does: a watcher stops it and removes its directory.
    let watcher = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} ; rm -rf '{dir}'",
        pid = std::process::id(),
        stop = stop_command(&data)?,
        dir = dir.display()
    );
    Command::new("sh")
        .arg("-c")
        .arg(watcher)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the server's watcher: {e}"))?;
    let port = setup.tls_port.map(|p| format!("&port={p}")).unwrap_or_default();
    Ok(ScratchServer {
        admin_url: format!("postgresql:///postgres?host={}&user=postgres{port}", dir.display()),
        dir: Some(dir),
        setup,
        next: AtomicU64::new(0),
    })
}

/// Gives the server of `data` its certificate and key, and lets TCP clients in only over TLS.
fn encrypted_only(data: &Path, cert: &str, key: &str) -> Result<(), String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    // The server reads its key only when it owns it alone: the files go to the data directory's owner.
    let owner = std::fs::metadata(data).map_err(|e| e.to_string())?;
    for (name, text) in [("server.crt", cert), ("server.key", key)] {
        let path = data.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{name}: {e}"))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).map_err(|e| e.to_string())?;
        std::os::unix::fs::chown(&path, Some(owner.uid()), Some(owner.gid()))
            .map_err(|e| format!("{name}: {e}"))?;
    }
    let hba = "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostssl all all ::1/128 trust\n";
    std::fs::write(data.join("pg_hba.conf"), hba).map_err(|e| format!("pg_hba.conf: {e}"))
}

/// Starts the server of `data`, listening on a socket in `socket_dir` (and with TLS on the loopback
/// port of `setup`, if any); without flushing its commits to disk unless `setup.durable` (a crash
/// of the server loses nothing either way, a power cut would).
fn start_server(data: &Path, socket_dir: &Path, setup: Setup) -> Result<(), String> {
    let unflushed = if setup.durable { "" } else { " -c fsync=off -c full_page_writes=off" };
    let listen = match setup.tls_port {
        Some(port) => format!("-c listen_addresses='127.0.0.1' -p {port} -c ssl=on"),
        None => "-c listen_addresses=''".to_string(),
    };
    checked(
        pg_command(&program("pg_ctl")?)
            .arg("-D")
            .arg(data)
            .args(["-w", "-l"])
            .arg(data.join("server.log"))
            .arg("-o")
            .arg(format!("{listen} -k {} -c max_connections=300{unflushed}", socket_dir.display()))
            .arg("start")
            .stdout(Stdio::null()),
        "pg_ctl start",
    )
}

/// Stops the server of `data` at once.
pub(crate) fn stop_server(data: &Path) -> Result<(), String> {
    checked(
        pg_command(&program("pg_ctl")?).arg("-D").arg(data).args(["-m", "immediate", "-w", "stop"]),
        "pg_ctl stop",
    )
}

fn stop_command(data: &Path) -> Result<String, String> {
    let pg_ctl = program("pg_ctl")?;
    let prefix = if pg_command(&pg_ctl).get_program() == "runuser" { "runuser -u postgres -- " } else { "" };
    Ok(format!("{prefix}'{}' -D '{}' -m immediate stop >/dev/null 2>&1", pg_ctl.display(), data.display()))
}
