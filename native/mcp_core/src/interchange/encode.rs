//! The MessagePack writer: the smallest encoding for each value.

use super::events::{walk_msgpack, WalkError};
use super::value::{Msgpack, MsgpackVisitor, Scalar};
use super::{MAX_MSGPACK_INT, MIN_MSGPACK_INT};

/// Why a value cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("nesting deeper than max_depth")]
    TooDeep,
    #[error("integer outside msgpack range")]
    IntOutOfRange,
    #[error("float is not finite")]
    NonFiniteFloat,
    #[error("length does not fit 32 bits")]
    TooLong,
}

/// The encoding of `value`.
pub fn encode(value: &Msgpack) -> Result<Vec<u8>, EncodeError> {
    let mut writer = MsgpackWriter::default();
    match walk_msgpack(value, &mut writer) {
        Ok(()) => Ok(writer.into_bytes()),
        Err(WalkError::TooDeep) => Err(EncodeError::TooDeep),
        Err(WalkError::Visitor(error)) => Err(error),
    }
}

/// A [`MsgpackVisitor`] writing bytes.
#[derive(Default)]
pub struct MsgpackWriter {
    out: Vec<u8>,
}

impl MsgpackWriter {
    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// The bytes written so far.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.out
    }

    /// Appends bytes that are already msgpack.
    pub(super) fn raw(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// A length header: the fix form (marker | len) below `fix_limit`,
    /// else the 8- (when `marker8` exists), 16- or 32-bit form.
    fn header(
        &mut self,
        len: usize,
        fix: u8,
        fix_limit: usize,
        marker8: Option<u8>,
        marker16: u8,
        marker32: u8,
    ) -> Result<(), EncodeError> {
        if len < fix_limit {
            self.out.push(fix | len as u8);
        } else if let (Some(marker), Ok(len)) = (marker8, u8::try_from(len)) {
            self.out.extend_from_slice(&[marker, len]);
        } else if let Ok(len) = u16::try_from(len) {
            self.out.push(marker16);
            self.out.extend_from_slice(&len.to_be_bytes());
        } else if let Ok(len) = u32::try_from(len) {
            self.out.push(marker32);
            self.out.extend_from_slice(&len.to_be_bytes());
        } else {
            return Err(EncodeError::TooLong);
        }
        Ok(())
    }

    fn int(&mut self, value: i128) -> Result<(), EncodeError> {
        if !(MIN_MSGPACK_INT..=MAX_MSGPACK_INT).contains(&value) {
            return Err(EncodeError::IntOutOfRange);
        }
        let out = &mut self.out;
        // Each arm's range makes its narrowing cast exact.
        match value {
            0..=0x7f => out.push(value as u8),
            -32..=-1 => out.push(value as i8 as u8),
            0x80..=0xff => out.extend_from_slice(&[0xcc, value as u8]),
            0x100..=0xffff => {
                out.push(0xcd);
                out.extend_from_slice(&(value as u16).to_be_bytes());
            }
            0x1_0000..=0xffff_ffff => {
                out.push(0xce);
                out.extend_from_slice(&(value as u32).to_be_bytes());
            }
            0x1_0000_0000.. => {
                out.push(0xcf);
                out.extend_from_slice(&(value as u64).to_be_bytes());
            }
            -0x80..=-33 => out.extend_from_slice(&[0xd0, value as i8 as u8]),
            -0x8000..=-0x81 => {
                out.push(0xd1);
                out.extend_from_slice(&(value as i16).to_be_bytes());
            }
            -0x8000_0000..=-0x8001 => {
                out.push(0xd2);
                out.extend_from_slice(&(value as i32).to_be_bytes());
            }
            _ => {
                out.push(0xd3);
                out.extend_from_slice(&(value as i64).to_be_bytes());
            }
        }
        Ok(())
    }

    fn float(&mut self, value: f64) -> Result<(), EncodeError> {
        if !value.is_finite() {
            return Err(EncodeError::NonFiniteFloat);
        }
        let narrow = value as f32;
        if f64::from(narrow) == value {
            self.out.push(0xca);
            self.out.extend_from_slice(&narrow.to_be_bytes());
        } else {
            self.out.push(0xcb);
            self.out.extend_from_slice(&value.to_be_bytes());
        }
        Ok(())
    }

    fn ext(&mut self, kind: i8, data: &[u8]) -> Result<(), EncodeError> {
        let fixext = match data.len() {
            1 => Some(0xd4),
            2 => Some(0xd5),
            4 => Some(0xd6),
            8 => Some(0xd7),
            16 => Some(0xd8),
            _ => None,
        };
        match fixext {
            Some(marker) => self.out.push(marker),
            // There is no fix form: `fix_limit` 0 skips it.
            None => self.header(data.len(), 0, 0, Some(0xc7), 0xc8, 0xc9)?,
        }
        self.out.push(kind as u8);
        self.out.extend_from_slice(data);
        Ok(())
    }
}

impl MsgpackVisitor for MsgpackWriter {
    type Error = EncodeError;
    fn scalar(&mut self, value: Scalar<'_>) -> Result<(), EncodeError> {
        match value {
            Scalar::Nil => self.out.push(0xc0),
            Scalar::Bool(b) => self.out.push(if b { 0xc3 } else { 0xc2 }),
            Scalar::Int(i) => self.int(i)?,
            Scalar::Float(f) => self.float(f)?,
            Scalar::String(text) => {
                self.header(text.len(), 0xa0, 32, Some(0xd9), 0xda, 0xdb)?;
                self.out.extend_from_slice(text);
            }
            Scalar::Binary(data) => {
                self.header(data.len(), 0, 0, Some(0xc4), 0xc5, 0xc6)?;
                self.out.extend_from_slice(data);
            }
            Scalar::Ext(kind, data) => self.ext(kind, data)?,
        }
        Ok(())
    }
    fn array(&mut self, len: usize) -> Result<(), EncodeError> {
        self.header(len, 0x90, 16, None, 0xdc, 0xdd)
    }
    fn map(&mut self, len: usize) -> Result<(), EncodeError> {
        self.header(len, 0x80, 16, None, 0xde, 0xdf)
    }
    fn end(&mut self) -> Result<(), EncodeError> {
        Ok(())
    }
}
