//! Fields of stored bytes, little-endian, as the stone's own tables write them (users,
//! policies, the object log): a writer's two helpers, and a [`Reader`] that trusts no length
//! it reads (every read is bounds-checked and answers `None` past the end).

/// Appends a length (of at most `u32::MAX`).
pub fn put_count(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

/// Appends a text: its length, then its UTF-8 bytes.
pub fn put_text(out: &mut Vec<u8>, text: &str) {
    put_count(out, text.len());
    out.extend_from_slice(text.as_bytes());
}

/// Reads fields off the front of some bytes.
pub struct Reader<'a>(pub &'a [u8]);

impl Reader<'_> {
    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Option<&[u8]> {
        let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(head)
    }

    /// A byte.
    pub fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    /// A `u32`.
    pub fn u32(&mut self) -> Option<u32> {
        self.take(4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes)
    }

    /// A `u64`.
    pub fn u64(&mut self) -> Option<u64> {
        self.take(8).and_then(|b| b.try_into().ok()).map(u64::from_le_bytes)
    }

    /// A length of at most `max`.
    pub fn count(&mut self, max: usize) -> Option<usize> {
        usize::try_from(self.u32()?).ok().filter(|&n| n <= max)
    }

    /// A text of at most `max` bytes.
    pub fn text(&mut self, max: usize) -> Option<String> {
        let n = self.count(max)?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }

    /// Whether every byte was read.
    pub fn is_done(&self) -> bool {
        self.0.is_empty()
    }
}
