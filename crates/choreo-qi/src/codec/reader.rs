//! The byte reader every decoder of the crate reads with (libqi's `BinaryDecoder`): little-endian
//! fields, length-prefixed strings and counts, each length checked against the bytes left
//! before anything is allocated. Below the value codec and the MetaObject codec, which both
//! read with it.

use crate::error::Error;

/// Most elements a count may claim for elements that take no bytes (`[()]`, `[v]`): such a
/// count cannot be checked against the bytes left.
const MAX_EMPTY_ELEMENTS: usize = 1 << 16;

/// Reads little-endian fields from a byte slice, checking every length first.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if n > self.remaining() {
            return Err(Error::Protocol(format!(
                "read past end: {n} bytes wanted, {} left",
                self.remaining()
            )));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// The next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    /// A `u8`.
    pub fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.array::<1>()?[0])
    }

    /// A `u32`.
    pub fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// A `b`: one byte, 0 or 1 (anything non-zero reads as true).
    pub fn bool(&mut self) -> Result<bool, Error> {
        Ok(self.u8()? != 0)
    }

    /// A length-prefixed byte string (`s` or `r`).
    pub fn bytes(&mut self) -> Result<&'a [u8], Error> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    /// An `s`, which must be UTF-8.
    pub fn string(&mut self) -> Result<String, Error> {
        let b = self.bytes()?;
        String::from_utf8(b.to_vec()).map_err(|_| Error::Protocol("string is not UTF-8".into()))
    }

    /// A count of elements each at least `min_size` bytes long, checked against the bytes
    /// left before anyone allocates for it.
    pub fn count(&mut self, min_size: usize) -> Result<usize, Error> {
        let n = self.u32()? as usize;
        let fits = if min_size == 0 {
            n <= MAX_EMPTY_ELEMENTS
        } else {
            n.checked_mul(min_size)
                .is_some_and(|need| need <= self.remaining())
        };
        if fits {
            Ok(n)
        } else {
            Err(Error::Protocol(format!(
                "count {n} does not fit in the {} bytes left",
                self.remaining()
            )))
        }
    }

    /// Fails unless every byte was read.
    pub fn finish(&self) -> Result<(), Error> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(Error::Protocol(format!(
                "{} bytes left over after the value",
                self.remaining()
            )))
        }
    }
}
