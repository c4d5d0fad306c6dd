//! Object records on the wire: conversions between the store's records and the stone
//! protocol's messages.

use onyx_protocol::stone as pb;
use onyx_store::ObjectRecord;

/// A record as a protocol message.
pub fn to_wire(r: &ObjectRecord) -> pb::Object {
    pb::Object {
        oop: r.oop,
        class: r.class,
        kind: u32::from(r.kind),
        hash: r.hash,
        named: r.named,
        words: r.words.clone(),
        bytes: r.bytes.clone(),
    }
}

/// A protocol message as a record; a kind or shape no record can have is an error.
pub fn from_wire(o: pb::Object) -> Result<ObjectRecord, String> {
    let kind = u8::try_from(o.kind).map_err(|_| format!("object {}: kind {} out of range", o.oop, o.kind))?;
    if o.named as usize > o.words.len() {
        return Err(format!("object {}: {} named slots but {} slots", o.oop, o.named, o.words.len()));
    }
    Ok(ObjectRecord { oop: o.oop, class: o.class, kind, hash: o.hash, named: o.named, words: o.words, bytes: o.bytes })
}
