//! Where clients connect and how servers are reached over TLS. A server given a certificate
//! and its key (`--tls-cert`, `--tls-key`) serves over TLS; a client reaches an `https://`
//! address trusting the certificate authority whose certificate is in the file `ONYX_TLS_CA`
//! names (the authority that signed the server's certificate), and a plain address over TCP.
//! Every client of Onyx's services (a gem reaching its stone, the command line, the IDE)
//! makes its endpoint here.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity, ServerTlsConfig};

/// The environment variable naming the certificate authority's file.
pub const CA_VARIABLE: &str = "ONYX_TLS_CA";

/// How long a client waits for a connection before it gives up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why an endpoint or a server's TLS could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// The address does not parse.
    #[error("{address} is not an address: {reason}")]
    BadAddress {
        /// What was given.
        address: String,
        /// Why it is not an address.
        reason: String,
    },
    /// An `https://` address, and no authority to trust.
    #[error("{address} is reached over TLS: set {CA_VARIABLE} to the certificate authority's file")]
    NoAuthority {
        /// The address.
        address: String,
    },
    /// A certificate, key or authority file that cannot be read.
    #[error("cannot read the TLS {what} {}: {cause}", .path.display())]
    Unreadable {
        /// Which file it is ("certificate", "key", "certificate authority").
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// A certificate without its key, or a key without its certificate.
    #[error("TLS needs both --tls-cert and --tls-key")]
    HalfGiven,
    /// The TLS library refused the configuration.
    #[error("TLS for {address}: {reason}")]
    Refused {
        /// The address.
        address: String,
        /// Why.
        reason: String,
    },
}

/// A server's certificate and key files, as the command line names them.
#[derive(Clone, Debug, Default)]
pub struct ServerFiles {
    /// The certificate (PEM).
    pub cert: Option<PathBuf>,
    /// Its private key (PEM).
    pub key: Option<PathBuf>,
}

impl ServerFiles {
    /// The TLS configuration to serve with, or `None` to serve plain TCP.
    pub fn config(&self) -> Result<Option<ServerTlsConfig>, TlsError> {
        let (cert, key) = match (&self.cert, &self.key) {
            (None, None) => return Ok(None),
            (Some(c), Some(k)) => (c, k),
            _ => return Err(TlsError::HalfGiven),
        };
        let cert = read(cert, "certificate")?;
        let key = read(key, "key")?;
        Ok(Some(ServerTlsConfig::new().identity(Identity::from_pem(cert, key))))
    }
}

fn read(path: &Path, what: &'static str) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|cause| TlsError::Unreadable { what, path: path.to_path_buf(), cause })
}

/// Where a client connects for `address` (`host:port`, `http://host:port` or
/// `https://host:port`): without Nagle's delay (a request would wait for the peer's delayed
/// acknowledgement), giving up on a connection after a few seconds.
pub fn endpoint(address: &str) -> Result<Endpoint, TlsError> {
    let url = if address.contains("://") { address.to_string() } else { format!("http://{address}") };
    let endpoint = Endpoint::from_shared(url)
        .map_err(|e| TlsError::BadAddress { address: address.to_string(), reason: e.to_string() })?
        .tcp_nodelay(true)
        .connect_timeout(CONNECT_TIMEOUT);
    if !address.starts_with("https://") {
        return Ok(endpoint);
    }
    let Some(ca) = std::env::var_os(CA_VARIABLE) else {
        return Err(TlsError::NoAuthority { address: address.to_string() });
    };
    let ca = Certificate::from_pem(read(Path::new(&ca), "certificate authority")?);
    endpoint
        .tls_config(ClientTlsConfig::new().ca_certificate(ca))
        .map_err(|e| TlsError::Refused { address: address.to_string(), reason: crate::error_chain(&e) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_that_cannot_work_are_clear_errors() {
        assert!(matches!(endpoint("not an address"), Err(TlsError::BadAddress { .. })));
        assert!(endpoint("127.0.0.1:1").is_ok());
        assert!(endpoint("http://localhost:1").is_ok());
        let half = ServerFiles { cert: Some("cert.pem".into()), key: None };
        assert!(matches!(half.config(), Err(TlsError::HalfGiven)));
        assert!(matches!(ServerFiles::default().config(), Ok(None)));
    }
}
