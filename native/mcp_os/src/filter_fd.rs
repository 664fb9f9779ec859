//! The jail's seccomp filter handed to bubblewrap as an open file that no
//! path reaches: `mcp-landlock --seccomp-fd HEX -- bwrap ... --seccomp 3`
//! decodes the filter's bytes from its argument, puts them in a sealed
//! memfd on fd 3 and executes bwrap (same pid, so the port's child stays
//! the witness). A file by path would leave a window in which a server of
//! the same user with a write grant on its directory replaces it.
//!
//! Invariants: the memfd is sealed against writes, growth and shrinking
//! before anything else runs, so what bwrap reads is what the VM gave; a
//! malformed argument is an error, never an empty filter.

use std::os::fd::RawFd;

/// Why the filter could not be put on its descriptor.
#[derive(Debug, PartialEq, Eq)]
pub enum FilterFdError {
    /// The argument is empty, of odd length or not hexadecimal.
    NotHex,
    /// A system call failed (what, errno).
    Call(&'static str, i32),
}

impl std::fmt::Display for FilterFdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FilterFdError::NotHex => write!(f, "the filter is not an even number of hexadecimal digits"),
            FilterFdError::Call(what, errno) => write!(f, "{what} failed: errno {errno}"),
        }
    }
}

/// The bytes `text` spells in hexadecimal (either case).
pub fn decode_hex(text: &[u8]) -> Result<Vec<u8>, FilterFdError> {
    if text.is_empty() || !text.len().is_multiple_of(2) {
        return Err(FilterFdError::NotHex);
    }
    let digit = |c: u8| (c as char).to_digit(16).ok_or(FilterFdError::NotHex);
    text.chunks_exact(2).map(|pair| Ok((digit(pair[0])? * 16 + digit(pair[1])?) as u8)).collect()
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// A sealed memfd holding `bytes`, read position at the start, open (not
/// close-on-exec) as `target`.
pub fn sealed_on(bytes: &[u8], target: RawFd) -> Result<(), FilterFdError> {
    // SAFETY: memfd_create, write, fcntl, lseek, dup2 and close on a
    // descriptor this function owns, with a buffer that outlives the calls.
    unsafe {
        let fd = libc::memfd_create(c"mcp-jail-seccomp".as_ptr(), libc::MFD_ALLOW_SEALING);
        if fd < 0 {
            return Err(FilterFdError::Call("memfd_create", errno()));
        }
        let mut written = 0;
        while written < bytes.len() {
            let n = libc::write(fd, bytes[written..].as_ptr().cast(), bytes.len() - written);
            if n < 0 {
                return Err(FilterFdError::Call("write", errno()));
            }
            written += n as usize;
        }
        let seals = libc::F_SEAL_WRITE | libc::F_SEAL_GROW | libc::F_SEAL_SHRINK | libc::F_SEAL_SEAL;
        if libc::fcntl(fd, libc::F_ADD_SEALS, seals) != 0 {
            return Err(FilterFdError::Call("fcntl(F_ADD_SEALS)", errno()));
        }
        if libc::lseek(fd, 0, libc::SEEK_SET) != 0 {
            return Err(FilterFdError::Call("lseek", errno()));
        }
        if fd != target {
            if libc::dup2(fd, target) != target {
                return Err(FilterFdError::Call("dup2", errno()));
            }
            libc::close(fd);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_decoded_and_anything_else_refused() {
        assert_eq!(decode_hex(b"00ff7fA0"), Ok(vec![0, 255, 127, 160]));
        for bad in [&b""[..], b"0", b"0g", b"0 ", b"+1"] {
            assert_eq!(decode_hex(bad), Err(FilterFdError::NotHex));
        }
    }
}
