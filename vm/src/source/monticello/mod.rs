//! Monticello versions: the `.mcz` file, a zip holding `package` (the package's name),
//! `version` (the version's info with its ancestry, `info.rs`) and `snapshot/source.st` (the
//! definitions in chunk format, `snapshot.rs`), written as Squeak's and Pharo's Monticello
//! write them so that both load what Onyx writes.
//!
//! The snapshot's text is UTF-8, as Monticello has written it since Squeak 4 and Pharo 1;
//! older versions wrote Latin-1, which is read as such when the text is not UTF-8. Line ends
//! are carriage returns in the file and line feeds in the package model. A `snapshot.bin`
//! (Squeak's serialized copy of the same definitions) is read past.

mod info;
mod snapshot;
#[cfg(test)]
mod tests;

use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};

pub use info::VersionInfo;
pub use info::civil_from_days;

use super::model::{Package, SourceError};

/// One Monticello version: a package's definitions and the version's info.
#[derive(Clone, Debug, PartialEq)]
pub struct Mcz {
    /// The package, its methods' files naming `….mcz/snapshot/source.st`.
    pub package: Package,
    /// The version's name, author, message, id and ancestry.
    pub info: VersionInfo,
}

const SOURCE: &str = "snapshot/source.st";

/// The most a member of an `.mcz` unpacks to (the largest packages' snapshots are a few
/// megabytes). A zip's sizes are what the file says: reading stops here whatever it claims,
/// so a small file that inflates to gigabytes is refused, not unpacked.
pub const MAX_MEMBER: u64 = 64 << 20;

/// The bytes of one member of a zip, at most [`MAX_MEMBER`] of them.
fn unpacked(entry: impl Read, file: &Path) -> Result<Vec<u8>, SourceError> {
    let mut bytes = Vec::new();
    entry
        .take(MAX_MEMBER + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| SourceError::whole(file, format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_MEMBER {
        return Err(SourceError::whole(file, format!("unpacks to more than {} MiB", MAX_MEMBER >> 20)));
    }
    Ok(bytes)
}

/// Reads the `.mcz` at `path`.
pub fn read(path: &Path) -> Result<Mcz, SourceError> {
    let bytes = std::fs::read(path).map_err(|e| SourceError::whole(path, format!("cannot read: {e}")))?;
    read_bytes(path, &bytes)
}

/// Reads only the version info of the `.mcz` at `path` (its snapshot unread).
pub fn read_info(path: &Path) -> Result<VersionInfo, SourceError> {
    let bytes = std::fs::read(path).map_err(|e| SourceError::whole(path, format!("cannot read: {e}")))?;
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes.as_slice()))
        .map_err(|e| SourceError::whole(path, format!("not a Monticello version (a zip file): {e}")))?;
    let file = path.join("version");
    let entry = zip.by_name("version").map_err(|e| SourceError::whole(&file, format!("cannot read: {e}")))?;
    let text = String::from_utf8(unpacked(entry, &file)?)
        .map_err(|_| SourceError::whole(&file, "the version info is not UTF-8".to_string()))?;
    VersionInfo::parse(&text).map_err(|m| SourceError::whole(&file, m))
}

/// Reads an `.mcz` from its bytes; `path` names it in errors.
pub fn read_bytes(path: &Path, bytes: &[u8]) -> Result<Mcz, SourceError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| SourceError::whole(path, format!("not a Monticello version (a zip file): {e}")))?;
    let mut member = |name: &str| -> Result<(PathBuf, String), SourceError> {
        let file = path.join(name);
        let entry = zip.by_name(name).map_err(|e| SourceError::whole(&file, format!("cannot read: {e}")))?;
        let mut bytes = unpacked(entry, &file)?;
        if bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes.drain(..3);
        }
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
        };
        Ok((file, text.replace("\r\n", "\n").replace('\r', "\n")))
    };
    let (file, text) = member("package")?;
    let name = info::parse_package(&text).map_err(|m| SourceError::whole(&file, m))?;
    let (file, text) = member("version")?;
    let info = VersionInfo::parse(&text).map_err(|m| SourceError::whole(&file, m))?;
    let (file, text) = member(SOURCE)?;
    let mut package = Package { name, ..Package::default() };
    snapshot::read(&file, &text, &mut package)?;
    Ok(Mcz { package, info })
}

/// The bytes of an `.mcz` holding `package` as the version `info`.
pub fn write(package: &Package, info: &VersionInfo) -> std::io::Result<Vec<u8>> {
    let members = [
        ("package", info::package_text(&package.name)),
        ("version", info.to_text()),
        (SOURCE, snapshot::write(package)),
    ];
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, text) in members {
        zip.start_file(name, options)?;
        zip.write_all(text.replace("\r\n", "\r").replace('\n', "\r").as_bytes())?;
    }
    Ok(zip.finish()?.into_inner())
}

/// The file name Monticello gives a version: `Pkg-ab.3.mcz`.
pub fn file_name(info: &VersionInfo) -> String {
    format!("{}.mcz", info.name)
}
