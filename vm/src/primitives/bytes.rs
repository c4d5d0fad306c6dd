//! Encodings and hashes (310-319): UTF-8 between Strings and bytes, Base64, the MD5, SHA-1
//! and SHA-256 digests, and the random bytes of a UUID. Each takes the bytes of any byte
//! object (a ByteArray, a byte String) and answers a new object; bad input (invalid UTF-8, a
//! character that is not Base64) fails the primitive, and the method's code says why.

use super::string::{Text, text};
use super::{Args, Prim, PrimResult, table};
use crate::heap::Body;
use crate::memory::LARGE_ALLOCATION;
use crate::value::Value;
use crate::vm::Vm;
use base64::Engine;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, general_purpose};
use sha2::Digest;

/// Base64 as RFC 4648 writes it, read with or without its padding.
const BASE64_READ: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    let r = a.recv(vm);
    match index {
        table::STRING_UTF8_ENCODED => {
            let encoded = utf8_encoded(text(vm, r)?)?;
            let class = vm.known.byte_array;
            alloc_bytes(vm, class, encoded)
        }
        table::BYTES_UTF8_DECODED => {
            let size = vm.heap.bytes(r).ok_or(Prim::Fail)?.len();
            if size >= LARGE_ALLOCATION {
                vm.reserve(size * 4)?;
            }
            let bytes = vm.heap.bytes(r).ok_or(Prim::Fail)?;
            let s = std::str::from_utf8(bytes).map_err(|_| Prim::Fail)?.to_owned();
            Ok(vm.new_string(&s))
        }
        table::BYTES_UTF8_ERROR_OFFSET => {
            let bytes = vm.heap.bytes(r).ok_or(Prim::Fail)?;
            Ok(Value::small(std::str::from_utf8(bytes).err().map_or(0, |e| e.valid_up_to() as i64 + 1)))
        }
        table::BYTES_BASE64_ENCODED => {
            let encoded = general_purpose::STANDARD.encode(vm.heap.bytes(r).ok_or(Prim::Fail)?);
            let class = vm.known.string;
            alloc_bytes(vm, class, encoded.into_bytes())
        }
        table::STRING_BASE64_DECODED => {
            let Text::Narrow(chars) = text(vm, r)? else { return Err(Prim::Fail) };
            let kept: Vec<u8> = chars.iter().copied().filter(|c| !c.is_ascii_whitespace()).collect();
            let decoded = BASE64_READ.decode(kept).map_err(|_| Prim::Fail)?;
            let class = vm.known.byte_array;
            alloc_bytes(vm, class, decoded)
        }
        table::HASH_DIGEST => {
            let bytes = vm.heap.bytes(a.arg(vm, 0)).ok_or(Prim::Fail)?;
            let digest = match a.arg(vm, 1).as_int() {
                Some(0) => md5::Md5::digest(bytes).to_vec(),
                Some(1) => sha1::Sha1::digest(bytes).to_vec(),
                Some(2) => sha2::Sha256::digest(bytes).to_vec(),
                _ => return Err(Prim::Fail),
            };
            Ok(vm.heap.alloc(vm.known.byte_array, 0, Body::Bytes(digest.into())))
        }
        table::UUID_FILL_RANDOM => {
            let obj = vm.heap.get_mut(r).ok_or(Prim::Fail)?;
            match &mut obj.body {
                Body::Bytes(b) if b.len() == 16 => b.copy_from_slice(uuid::Uuid::new_v4().as_bytes()),
                _ => return Err(Prim::Fail),
            }
            vm.heap.note_store(r);
            Ok(r)
        }
        _ => Err(Prim::Fail),
    }
}

/// A string's characters as UTF-8; a code point that is no character (a surrogate, or past
/// U+10FFFF) fails.
fn utf8_encoded(t: Text<'_>) -> Result<Vec<u8>, Prim> {
    if let Text::Narrow(b) = t
        && b.is_ascii()
    {
        return Ok(b.to_vec());
    }
    let mut out = Vec::with_capacity(t.len());
    let mut buf = [0u8; 4];
    for c in t.codes() {
        out.extend_from_slice(char::from_u32(c).ok_or(Prim::Fail)?.encode_utf8(&mut buf).as_bytes());
    }
    Ok(out)
}

/// A new byte object of `class` holding `bytes`, within the memory limit.
fn alloc_bytes(vm: &mut Vm, class: Value, bytes: Vec<u8>) -> PrimResult {
    if bytes.len() >= LARGE_ALLOCATION {
        vm.reserve(bytes.len())?;
    }
    Ok(vm.heap.alloc(class, 0, Body::Bytes(bytes.into())))
}
