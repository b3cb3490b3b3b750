//! TLS to PostgreSQL with rustls, as libpq's URL parameters ask for it: `sslmode` (`disable`,
//! `prefer`, `require`, `verify-ca`, `verify-full`) and `sslrootcert` (a PEM file of the CA
//! certificates to trust). `tokio-postgres` knows only the first three modes and no `sslrootcert`,
//! so both are taken out of the URL here ([`split_url`]) and the rest goes to `tokio-postgres`.
//!
//! The modes mean what they mean to libpq: `disable` never encrypts; `prefer` (the default)
//! encrypts when the server offers it, without checking its certificate; `require` encrypts
//! without checking, unless `sslrootcert` is given, when it checks as `verify-ca` does; `verify-ca`
//! checks that the server's certificate is signed by a CA in `sslrootcert`; `verify-full` checks
//! that too and that the certificate names the host of the URL. A failed check ends the connection
//! with a message naming the parameter ([`TlsFailure`]). TLS is not used over a Unix socket (as
//! libpq does not). No channel binding is offered to SCRAM: the server is authenticated by the
//! certificate check, which is what `verify-full` is for.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{WebPkiSupportedAlgorithms, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};

use crate::limits::PG_ROOT_CERT_BYTES_MAX;
use crate::service::store::StoreError;

/// libpq's `sslmode`, as far as it decides what is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Result<SslMode, String> {
        Ok(match value {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            "allow" => {
                return Err(
                    "sslmode=allow is not supported: use prefer, require, verify-ca or verify-full".into()
                );
            }
            other => {
                let shown: String = other.chars().take(40).collect();
                let more = if shown.len() < other.len() { "…" } else { "" };
                return Err(format!(
                    "sslmode={shown}{more} is not a mode: use disable, prefer, require, verify-ca or verify-full"
                ));
            }
        })
    }

    /// The name in the URL.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    /// The mode `tokio-postgres` runs: whether it may fall back to an unencrypted connection.
    pub(crate) fn transport(self) -> tokio_postgres::config::SslMode {
        match self {
            SslMode::Disable => tokio_postgres::config::SslMode::Disable,
            SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
            _ => tokio_postgres::config::SslMode::Require,
        }
    }
}

/// What the URL asks of TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsSettings {
    /// The mode as written (or `prefer`, libpq's default).
    pub written: SslMode,
    /// The mode in force: `require` with a root certificate is `verify-ca`, as in libpq.
    pub mode: SslMode,
    pub root_cert: Option<PathBuf>,
}

impl TlsSettings {
    /// The parameters as they appear in the URL, for messages: `sslmode=verify-full, sslrootcert=ca.pem`.
    pub(crate) fn describe(&self) -> String {
        match &self.root_cert {
            Some(path) => format!("sslmode={}, sslrootcert={}", self.written.name(), path.display()),
            None => format!("sslmode={}", self.written.name()),
        }
    }

    /// `error` with a word on the URL's `sslmode` when the server refused a connection because it
    /// was not encrypted (PostgreSQL's "no pg_hba.conf entry …, no encryption").
    pub(crate) fn unencrypted_hint(&self, error: StoreError) -> StoreError {
        let hint = |message: String| {
            if message.contains("no encryption") {
                format!(
                    "{message}; the server accepts only encrypted connections and the database URL \
                     says {}: use sslmode=verify-full with sslrootcert=FILE",
                    self.describe()
                )
            } else {
                message
            }
        };
        match error {
            StoreError::Database { operation, message } => {
                StoreError::Database { operation, message: hint(message) }
            }
            StoreError::Unavailable { operation, message } => {
                StoreError::Unavailable { operation, message: hint(message) }
            }
            other => other,
        }
    }
}

/// Splits a `postgres://` URL into the URL `tokio-postgres` reads (without `sslmode` and
/// `sslrootcert`) and the TLS settings those two parameters give.
pub(crate) fn split_url(url: &str) -> Result<(String, TlsSettings), String> {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, query),
        None => (url, ""),
    };
    let (mut written, mut root_cert, mut kept) = (SslMode::Prefer, None, Vec::new());
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "sslmode" => written = SslMode::parse(&percent_decode(value)?)?,
            "sslrootcert" => root_cert = Some(PathBuf::from(percent_decode(value)?)),
            _ => kept.push(pair),
        }
    }
    let mode = match (written, &root_cert) {
        (SslMode::Require, Some(_)) => SslMode::VerifyCa,
        (SslMode::VerifyCa | SslMode::VerifyFull, None) => {
            return Err(format!(
                "sslmode={} needs sslrootcert=FILE: the PEM file of the CA that signed the database \
                 server's certificate",
                written.name()
            ));
        }
        _ => written,
    };
    let url = if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) };
    Ok((url, TlsSettings { written, mode, root_cert }))
}

/// The `tokio-postgres` configuration and the TLS connector for a `postgres://` URL. Over Unix
/// sockets only, TLS is off whatever the mode (PostgreSQL offers none there).
pub(crate) fn configure(url: &str) -> Result<(tokio_postgres::Config, RustlsConnect), String> {
    let (rest, settings) = split_url(url)?;
    let mut config: tokio_postgres::Config =
        rest.parse().map_err(|e: tokio_postgres::Error| e.to_string())?;
    let unix_only = !config.get_hosts().is_empty()
        && config.get_hosts().iter().all(|h| !matches!(h, tokio_postgres::config::Host::Tcp(_)));
    config.ssl_mode(if unix_only {
        tokio_postgres::config::SslMode::Disable
    } else {
        settings.mode.transport()
    });
    Ok((config, RustlsConnect::new(settings)?))
}

/// `%XX` escapes decoded (libpq's URLs do not read `+` as a space).
fn percent_decode(value: &str) -> Result<String, String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = value.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok());
            out.push(hex.ok_or("a bad %-escape in a parameter of the database URL")?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out)
        .map_err(|_| "a parameter of the database URL is not UTF-8 when decoded".to_string())
}

/// The connector every connection of the store uses (the pool's and the listener's).
#[derive(Clone)]
pub(crate) struct RustlsConnect {
    config: Arc<ClientConfig>,
    settings: Arc<TlsSettings>,
}

impl RustlsConnect {
    /// The connector for `settings`; reads the root certificates now, so that a missing or empty
    /// file stops the start, naming `sslrootcert`.
    pub(crate) fn new(settings: TlsSettings) -> Result<RustlsConnect, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let algorithms = provider.signature_verification_algorithms;
        let verifier: Arc<dyn ServerCertVerifier> = match &settings.root_cert {
            Some(path) if settings.mode != SslMode::Prefer => {
                let roots = read_roots(path)?;
                let full = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                    .build()
                    .map_err(|e| format!("sslrootcert={}: {e}", path.display()))?;
                Arc::new(Checked { full, names: settings.mode == SslMode::VerifyFull })
            }
            _ => Arc::new(Unchecked { algorithms }),
        };
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS to the database: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(RustlsConnect { config: Arc::new(config), settings: Arc::new(settings) })
    }
}

impl RustlsConnect {
    /// The TLS settings, as the URL gave them.
    pub(crate) fn settings(&self) -> &TlsSettings {
        &self.settings
    }
}

impl std::fmt::Debug for RustlsConnect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RustlsConnect").field("settings", &self.settings).finish_non_exhaustive()
    }
}

/// The CA certificates in the PEM file at `path`.
fn read_roots(path: &std::path::Path) -> Result<RootCertStore, String> {
    let shown = path.display();
    let mut text = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| {
            std::io::Read::read_to_end(&mut std::io::Read::take(file, PG_ROOT_CERT_BYTES_MAX + 1), &mut text)
        })
        .map_err(|e| format!("sslrootcert={shown}: cannot read the file: {e}"))?;
    if text.len() as u64 > PG_ROOT_CERT_BYTES_MAX {
        return Err(format!(
            "sslrootcert={shown}: larger than a file of CA certificates may be (PG_ROOT_CERT_BYTES_MAX, \
             {PG_ROOT_CERT_BYTES_MAX} bytes)"
        ));
    }
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&text) {
        let cert = cert.map_err(|e| format!("sslrootcert={shown}: not a PEM certificate file: {e}"))?;
        roots
            .add(cert)
            .map_err(|e| format!("sslrootcert={shown}: a certificate that cannot be used: {e}"))?;
    }
    if roots.is_empty() {
        return Err(format!("sslrootcert={shown}: the file holds no certificate"));
    }
    Ok(roots)
}

/// `verify-ca` and `verify-full`: the chain up to a root of `sslrootcert`; the host name only for
/// `verify-full`.
#[derive(Debug)]
struct Checked {
    full: Arc<WebPkiServerVerifier>,
    names: bool,
}

impl ServerCertVerifier for Checked {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.full.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !self.names => Ok(ServerCertVerified::assertion()),
            outcome => outcome,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.full.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.full.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.full.supported_verify_schemes()
    }
}

/// `prefer` and `require` without a root certificate: encrypted, the certificate not checked (the
/// handshake's signatures still are).
#[derive(Debug)]
struct Unchecked {
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// A failed TLS handshake with the database, in words that name the parameter to look at.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct TlsFailure(String);

impl TlsFailure {
    fn of(error: std::io::Error, settings: &TlsSettings, host: &str) -> TlsFailure {
        let given = settings.describe();
        let rustls_error = error.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>());
        TlsFailure(match rustls_error {
            Some(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => format!(
                "the database server's certificate does not name the host {host} ({given}: \
                 verify-full checks the host name of the URL against the certificate; {error})"
            ),
            Some(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer | CertificateError::BadSignature,
            )) => format!(
                "the database server's certificate is not signed by a CA in sslrootcert ({given}; {error})"
            ),
            Some(rustls::Error::InvalidCertificate(_)) => {
                format!("the database server's certificate was refused ({given}; {error})")
            }
            _ => format!("the TLS handshake with the database failed ({given}; {error})"),
        })
    }
}

impl<S> MakeTlsConnect<S> for RustlsConnect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type TlsConnect = RustlsConnector;
    type Error = TlsFailure;

    /// Called for every host before connecting, with "" for a Unix socket (where no handshake
    /// follows): a host that is no name fails only when a handshake is tried.
    fn make_tls_connect(&mut self, domain: &str) -> Result<RustlsConnector, TlsFailure> {
        let name = ServerName::try_from(domain.to_string()).map_err(|e| {
            format!("the database host {domain:?} is no name to check a certificate against: {e}")
        });
        Ok(RustlsConnector { name, config: self.config.clone(), settings: self.settings.clone() })
    }
}

/// One connection's handshake.
pub(crate) struct RustlsConnector {
    name: Result<ServerName<'static>, String>,
    config: Arc<ClientConfig>,
    settings: Arc<TlsSettings>,
}

impl<S> TlsConnect<S> for RustlsConnector
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type Error = TlsFailure;
    type Future = Pin<Box<dyn Future<Output = Result<RustlsStream<S>, TlsFailure>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let name = self.name.map_err(TlsFailure)?;
            let host = name.to_str().into_owned();
            tokio_rustls::TlsConnector::from(self.config)
                .connect(name, stream)
                .await
                .map(|stream| RustlsStream(Box::new(stream)))
                .map_err(|e| TlsFailure::of(e, &self.settings, &host))
        })
    }
}

/// An encrypted connection to the database.
pub(crate) struct RustlsStream<S>(Box<tokio_rustls::client::TlsStream<S>>);

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for RustlsStream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut *self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for RustlsStream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut *self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut *self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut *self.0).poll_shutdown(cx)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> TlsStream for RustlsStream<S> {
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tls_parameters_are_taken_out_of_the_url() {
        let (url, settings) = split_url(
            "postgres://u@db.example:5432/x?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&user=u",
        )
        .unwrap();
        assert_eq!(url, "postgres://u@db.example:5432/x?user=u");
        assert_eq!(settings.mode, SslMode::VerifyFull);
        assert_eq!(settings.root_cert, Some(PathBuf::from("/etc/ca.pem")));
        let (url, settings) = split_url("postgresql:///db?host=/run/pg").unwrap();
        assert_eq!(url, "postgresql:///db?host=/run/pg");
        assert_eq!(settings.mode, SslMode::Prefer, "libpq's default");
        let (url, _) = split_url("postgres://h/db?sslmode=disable").unwrap();
        assert_eq!(url, "postgres://h/db");
    }

    #[test]
    fn require_with_a_root_certificate_checks_the_chain_as_libpq_does() {
        let (_, settings) = split_url("postgres://h/db?sslmode=require&sslrootcert=ca.pem").unwrap();
        assert_eq!((settings.written, settings.mode), (SslMode::Require, SslMode::VerifyCa));
        let (_, settings) = split_url("postgres://h/db?sslmode=require").unwrap();
        assert_eq!(settings.mode, SslMode::Require);
    }

    #[test]
    fn bad_tls_parameters_are_refused_by_name() {
        let refused = |url: &str| split_url(url).unwrap_err();
        assert!(
            refused("postgres://h/db?sslmode=verify-full").contains("sslmode=verify-full needs sslrootcert")
        );
        assert!(refused("postgres://h/db?sslmode=verify-ca").contains("sslrootcert"));
        assert!(refused("postgres://h/db?sslmode=sometimes").contains("sslmode=sometimes is not a mode"));
        assert!(refused("postgres://h/db?sslrootcert=%zz").contains("%-escape"));
    }

    #[test]
    fn a_missing_or_empty_root_certificate_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let settings = |path: PathBuf| TlsSettings {
            written: SslMode::VerifyFull,
            mode: SslMode::VerifyFull,
            root_cert: Some(path),
        };
        let missing = RustlsConnect::new(settings(dir.path().join("absent.pem"))).unwrap_err();
        assert!(missing.starts_with("sslrootcert=") && missing.contains("cannot read"), "{missing}");
        std::fs::write(dir.path().join("empty.pem"), "no certificate here\n").unwrap();
        let empty = RustlsConnect::new(settings(dir.path().join("empty.pem"))).unwrap_err();
        assert!(empty.contains("holds no certificate"), "{empty}");
    }
}
