//! TLS to PostgreSQL (`sslmode`, `sslrootcert` in `--database`): against a throwaway server with
//! `ssl=on`, a certificate for `localhost` from a throwaway CA, and `hostssl`-only access over TCP
//! (`scratch::ScratchServer::start_tls`). The right CA and host name connect, encrypted, and grade;
//! a wrong CA, a wrong host name under `verify-full` and a plain connection are each refused at
//! the start, with a message naming the parameter to look at.

use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use pruefstein::service::store::postgres::{LeaseClock, PgStore, scratch::ScratchServer};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use serde_json::json;

use super::*;
use crate::support::http::free_port;

/// The TLS server of this test process, and the PEM of the CA that signed its certificate and of
/// another CA.
struct Fixture {
    server: ScratchServer,
    ca: String,
    other_ca: String,
}

/// A CA: its certificate (PEM) and the issuer that signs with its key.
fn authority(name: &str) -> (String, Issuer<'static, KeyPair>) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    let key = KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    (cert.pem(), Issuer::new(params, key))
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let (ca, issuer) = authority("Pruefstein test CA");
        let (other_ca, _) = authority("Another CA");
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        params.distinguished_name.push(DnType::CommonName, "localhost");
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &issuer).unwrap();
        let server = ScratchServer::start_tls(&cert.pem(), &key.serialize_pem())
            .unwrap_or_else(|e| panic!("no PostgreSQL with TLS for the tests: {e}"));
        Fixture { server, ca, other_ca }
    })
}

/// A fresh database on the TLS server, reached over TCP at `host` with `params` (`sslmode=…`);
/// `{ca}` and `{other_ca}` in `params` become paths of the two CAs' files in `dir`.
fn url(dir: &Path, host: &str, params: &str) -> String {
    let fixture = fixture();
    let (ca, other) = (dir.join("ca.pem"), dir.join("other-ca.pem"));
    std::fs::write(&ca, &fixture.ca).unwrap();
    std::fs::write(&other, &fixture.other_ca).unwrap();
    let local = fixture.server.create_database().unwrap();
    let name = local.rsplit("dbname=").next().unwrap();
    let port = fixture.server.tls_port().unwrap();
    let params =
        params.replace("{ca}", &ca.display().to_string()).replace("{other_ca}", &other.display().to_string());
    format!("postgres://postgres@{host}:{port}/{name}?{params}")
}

/// Starts `pruefstein serve` on `url`, expects it to refuse to start, and returns what it said.
fn refused(dir: &Path, url: &str) -> String {
    let mut child: Child = Command::new(BIN)
        .current_dir(repo())
        .args(["serve", "--bind", &format!("127.0.0.1:{}", free_port()), "--data-dir"])
        .arg(dir.join("data"))
        .args(["--database", url, "--isolation", "thread"])
        .env_remove("PRUEFSTEIN_CONFIG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A hang guard only: a refused start ends as soon as the handshake or the login fails.
    let status = poll("the service to give up", Duration::from_secs(60), || child.try_wait().unwrap());
    let mut said = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut said).unwrap();
    assert!(!status.success(), "the service started on {url}: {said}");
    said
}

/// Whether the store's own connection to `url` is encrypted, as the server sees it.
fn encrypted(url: &str) -> String {
    let store = PgStore::open(url, "test-reader", LeaseClock::Database).unwrap();
    store.query_texts("SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()").unwrap().concat()
}

#[test]
fn verify_full_with_the_right_ca_and_host_name_connects_encrypted_and_grades() {
    let dir = tempfile::tempdir().unwrap();
    let url = url(dir.path(), "localhost", "sslmode=verify-full&sslrootcert={ca}");
    assert_eq!(encrypted(&url), "true");
    let server = Server::start(&dir.path().join("node-a"), &["--database", &url, "--isolation", "thread"]);
    let out =
        Command::new(BIN).args(["client", "add", "lms", "--json", "--database", &url]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let token = serde_json::from_slice::<Value>(&out.stdout).unwrap()["token"].as_str().unwrap().to_string();
    let submission = json!({"exercise": PREDICTION, "learner": "anna", "answer": "(2, 2, 0)"});
    let posted = server.post_json("/api/v1/submissions", &token, &submission, None);
    assert_eq!(posted.status, 202, "{}", posted.text());
    let id = posted.json()["id"].as_str().unwrap().to_string();
    let graded = server.get(&format!("/api/v1/submissions/{id}?wait=30s"), &token).json();
    assert_eq!(graded["status"], "graded", "{graded}");
}

#[test]
fn a_certificate_from_another_ca_is_refused_naming_sslrootcert() {
    let dir = tempfile::tempdir().unwrap();
    let said =
        refused(dir.path(), &url(dir.path(), "localhost", "sslmode=verify-full&sslrootcert={other_ca}"));
    assert!(
        said.contains("the database server's certificate is not signed by a CA in sslrootcert"),
        "{said}"
    );
    assert!(said.contains("sslmode=verify-full, sslrootcert="), "{said}");
    // `require` with a root certificate checks the chain, as libpq does.
    let said = refused(dir.path(), &url(dir.path(), "localhost", "sslmode=require&sslrootcert={other_ca}"));
    assert!(said.contains("not signed by a CA in sslrootcert (sslmode=require, sslrootcert="), "{said}");
    // `require` alone encrypts without checking.
    assert_eq!(encrypted(&url(dir.path(), "localhost", "sslmode=require")), "true");
}

#[test]
fn a_wrong_host_name_is_refused_by_verify_full_and_not_by_verify_ca() {
    let dir = tempfile::tempdir().unwrap();
    // The certificate names `localhost`, not 127.0.0.1.
    let said = refused(dir.path(), &url(dir.path(), "127.0.0.1", "sslmode=verify-full&sslrootcert={ca}"));
    assert!(said.contains("the database server's certificate does not name the host 127.0.0.1"), "{said}");
    assert!(said.contains("sslmode=verify-full"), "{said}");
    assert_eq!(encrypted(&url(dir.path(), "127.0.0.1", "sslmode=verify-ca&sslrootcert={ca}")), "true");
}

#[test]
fn a_plain_connection_is_refused_by_a_server_that_accepts_only_tls() {
    let dir = tempfile::tempdir().unwrap();
    let said = refused(dir.path(), &url(dir.path(), "localhost", "sslmode=disable"));
    assert!(said.contains("no encryption"), "{said}");
    assert!(said.contains("the database URL says sslmode=disable: use sslmode=verify-full"), "{said}");
}

#[test]
fn verify_full_without_a_root_certificate_is_refused_before_connecting() {
    let dir = tempfile::tempdir().unwrap();
    let said = refused(dir.path(), &url(dir.path(), "localhost", "sslmode=verify-full"));
    assert!(said.contains("sslmode=verify-full needs sslrootcert=FILE"), "{said}");
    let missing = dir.path().join("absent.pem");
    let said = refused(
        dir.path(),
        &url(dir.path(), "localhost", &format!("sslmode=verify-full&sslrootcert={}", missing.display())),
    );
    assert!(said.contains(&format!("sslrootcert={}: cannot read the file", missing.display())), "{said}");
}
