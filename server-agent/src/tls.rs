//! TLS for the stone's and the agent's services and their clients. A server given a
//! certificate and its key (`--tls-cert`, `--tls-key`) serves over TLS; a client reaches an
//! `https://` address trusting the certificate authority whose certificate is in the file
//! `ONYX_TLS_CA` names (the authority that signed the server's certificate), and a plain
//! address over TCP.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity, ServerTlsConfig};

/// A server's certificate and key files, as the command line names them.
#[derive(Clone, Debug, Default)]
pub struct ServerFiles {
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
}

impl ServerFiles {
    /// The TLS configuration to serve with, or `None` to serve plain TCP.
    pub fn config(&self) -> Result<Option<ServerTlsConfig>> {
        let (cert, key) = match (&self.cert, &self.key) {
            (None, None) => return Ok(None),
            (Some(c), Some(k)) => (c, k),
            _ => bail!("TLS needs both --tls-cert and --tls-key"),
        };
        let cert = read(cert, "certificate")?;
        let key = read(key, "key")?;
        Ok(Some(ServerTlsConfig::new().identity(Identity::from_pem(cert, key))))
    }
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read the TLS {what} {}", path.display()))
}

/// Where a client connects for `addr` (`host:port`, `http://host:port` or
/// `https://host:port`).
pub fn endpoint(addr: &str) -> Result<Endpoint> {
    let url = if addr.contains("://") { addr.to_string() } else { format!("http://{addr}") };
    let endpoint = Endpoint::from_shared(url).with_context(|| format!("bad address {addr}"))?;
    if !addr.starts_with("https://") {
        return Ok(endpoint);
    }
    let Some(ca) = std::env::var_os("ONYX_TLS_CA") else {
        bail!("{addr} is reached over TLS: set ONYX_TLS_CA to the certificate authority's file");
    };
    let ca = Certificate::from_pem(read(Path::new(&ca), "certificate authority")?);
    endpoint.tls_config(ClientTlsConfig::new().ca_certificate(ca)).with_context(|| format!("TLS for {addr}"))
}
