//! Landlock for the jail's launcher: after bubblewrap has built the jail's
//! mounts, the launcher (`mcp-landlock`, inside the jail) restricts itself,
//! and so the server it executes, to writing only beneath the places the
//! jail meant to be writable.
//!
//! Why: a read-only mount stops writes to files but not to a FIFO (or a
//! device node), whose writes go to whatever reads it on the host. Landlock
//! checks every `open` for writing against the path, whatever the mount
//! flags and the file type, so a FIFO outside the writable places refuses
//! the open with `EACCES`.
//!
//! Invariants:
//! - What is handled is every write right of the kernel's ABI (writing,
//!   truncating, creating, removing, renaming across directories), never a
//!   read right: reading is the mounts' business alone.
//! - Each writable path is allowed every handled right when it is a
//!   directory, the file rights alone when it is not; a path that cannot be
//!   opened is an error, never skipped (a rule missing silently would make a
//!   grant read-only, one added elsewhere would widen it).
//! - Inodes the process already holds open for writing as fd 1 or 2 (the
//!   stderr relay's FIFO) stay reopenable through `/dev/stderr`.
//! - `restrict` is all or nothing: on any error the caller must not run the
//!   server (the launcher exits instead).

use std::ffi::CString;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// `LANDLOCK_ACCESS_FS_*` of the kernel's uapi (`linux/landlock.h`).
mod access {
    pub const WRITE_FILE: u64 = 1 << 1;
    pub const REMOVE_DIR: u64 = 1 << 4;
    pub const REMOVE_FILE: u64 = 1 << 5;
    pub const MAKE_CHAR: u64 = 1 << 6;
    pub const MAKE_DIR: u64 = 1 << 7;
    pub const MAKE_REG: u64 = 1 << 8;
    pub const MAKE_SOCK: u64 = 1 << 9;
    pub const MAKE_FIFO: u64 = 1 << 10;
    pub const MAKE_BLOCK: u64 = 1 << 11;
    pub const MAKE_SYM: u64 = 1 << 12;
    /// ABI 2.
    pub const REFER: u64 = 1 << 13;
    /// ABI 3.
    pub const TRUNCATE: u64 = 1 << 14;
}

/// The rights a rule on a non-directory may carry (of those handled here).
const FILE_RIGHTS: u64 = access::WRITE_FILE | access::TRUNCATE;

const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: u32 = 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// Why the restriction could not be put in force.
#[derive(Debug, PartialEq, Eq)]
pub enum LandlockError {
    /// The kernel has no Landlock (not built, not enabled, or filtered).
    Unavailable,
    /// A writable path could not be opened (errno).
    Path(String, i32),
    /// A system call failed (its name and errno).
    Call(&'static str, i32),
    /// The restriction was asked for but a process outside it can still
    /// be written (`verify_in_force`).
    NotInForce,
}

impl fmt::Display for LandlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LandlockError::Unavailable => write!(f, "Landlock is not available in this kernel"),
            LandlockError::Path(path, errno) => write!(f, "cannot open {path}: errno {errno}"),
            LandlockError::Call(name, errno) => write!(f, "{name} failed: errno {errno}"),
            LandlockError::NotInForce => write!(f, "the Landlock restriction is not in force (the init's memory opens for writing)"),
        }
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// The Landlock ABI version the kernel offers, if any.
pub fn abi() -> Option<u32> {
    // SAFETY: the version query takes no attribute and no size.
    let version = unsafe {
        libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<RulesetAttr>(), 0usize, CREATE_RULESET_VERSION)
    };
    u32::try_from(version).ok().filter(|&v| v >= 1)
}

/// Every write right the given ABI knows.
pub fn write_rights(abi: u32) -> u64 {
    let mut rights = access::WRITE_FILE
        | access::REMOVE_DIR
        | access::REMOVE_FILE
        | access::MAKE_CHAR
        | access::MAKE_DIR
        | access::MAKE_REG
        | access::MAKE_SOCK
        | access::MAKE_FIFO
        | access::MAKE_BLOCK
        | access::MAKE_SYM;
    if abi >= 2 {
        rights |= access::REFER;
    }
    if abi >= 3 {
        rights |= access::TRUNCATE;
    }
    rights
}

struct Fd(i32);

impl Drop for Fd {
    fn drop(&mut self) {
        // SAFETY: the descriptor is owned by this value and closed once.
        unsafe { libc::close(self.0) };
    }
}

/// Restricts this process (and what it executes) to writing only beneath
/// `writable`, plus the files open as its fd 1 and 2.
pub fn restrict(writable: &[&Path]) -> Result<(), LandlockError> {
    let abi = abi().ok_or(LandlockError::Unavailable)?;
    let handled = write_rights(abi);
    let attr = RulesetAttr { handled_access_fs: handled };
    // SAFETY: `attr` is a live, properly sized ruleset attribute.
    let ruleset = unsafe {
        libc::syscall(libc::SYS_landlock_create_ruleset, &attr as *const RulesetAttr, std::mem::size_of::<RulesetAttr>(), 0u32)
    };
    let ruleset = Fd(i32::try_from(ruleset).map_err(|_| LandlockError::Call("landlock_create_ruleset", errno()))?);
    for path in writable {
        let opened = open_path(path)?;
        add_rule(&ruleset, &opened, handled)?;
    }
    for fd in [1, 2] {
        if let Some(rights) = reopenable(fd) {
            match add_rule(&ruleset, &Fd(dup(fd)?), rights & handled) {
                // An anonymous pipe is S_IFIFO too, but Landlock neither
                // governs nor accepts it: it needs no rule.
                Err(LandlockError::Call(_, libc::EBADFD)) => {}
                other => other?,
            }
        }
    }
    // SAFETY: plain prctl and landlock calls on integers this function owns.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(LandlockError::Call("prctl(PR_SET_NO_NEW_PRIVS)", errno()));
        }
        if libc::syscall(libc::SYS_landlock_restrict_self, ruleset.0, 0u32) != 0 {
            return Err(LandlockError::Call("landlock_restrict_self", errno()));
        }
    }
    Ok(())
}

/// Checks that a Landlock domain is in force on this process: the memory
/// of its parent (the jail's init, outside the domain) refuses to open for
/// writing with `EACCES`, as Landlock refuses every trace of a process
/// outside the caller's domain. Anything else (the open succeeds, or fails
/// for another reason) is an error: a restriction faked or skipped, say by
/// a preloaded library, is caught here before the server runs.
pub fn verify_in_force() -> Result<(), LandlockError> {
    // SAFETY: getppid takes nothing; open and close on a path this
    // function built.
    let parent = unsafe { libc::getppid() };
    let name = CString::new(format!("/proc/{parent}/mem")).map_err(|_| LandlockError::Call("getppid", libc::EINVAL))?;
    let fd = unsafe { libc::open(name.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if fd >= 0 {
        // SAFETY: closing the descriptor just opened.
        unsafe { libc::close(fd) };
        return Err(LandlockError::NotInForce);
    }
    match errno() {
        libc::EACCES => Ok(()),
        other => Err(LandlockError::Call("open(/proc/<parent>/mem)", other)),
    }
}

fn open_path(path: &Path) -> Result<Fd, LandlockError> {
    let shown = || path.to_string_lossy().into_owned();
    let name = CString::new(path.as_os_str().as_bytes()).map_err(|_| LandlockError::Path(shown(), libc::EINVAL))?;
    // SAFETY: `name` is a NUL-terminated path.
    let fd = unsafe { libc::open(name.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(LandlockError::Path(shown(), errno()));
    }
    Ok(Fd(fd))
}

fn dup(fd: i32) -> Result<i32, LandlockError> {
    // SAFETY: duplicating a descriptor number; failure is reported.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if copy < 0 {
        Err(LandlockError::Call("fcntl(F_DUPFD_CLOEXEC)", errno()))
    } else {
        Ok(copy)
    }
}

/// The rights to keep for the file open as `fd`, when it is a FIFO (named,
/// or an anonymous pipe, which `restrict` then passes over) or a regular
/// file open for writing (a socket needs no rule: Landlock does not check
/// it).
fn reopenable(fd: i32) -> Option<u64> {
    // SAFETY: fstat and fcntl on a descriptor number; failures answer None.
    let (mode, flags) = unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut stat) != 0 {
            return None;
        }
        (stat.st_mode & libc::S_IFMT, libc::fcntl(fd, libc::F_GETFL))
    };
    let for_writing = flags >= 0 && (flags & libc::O_ACCMODE) != libc::O_RDONLY;
    (for_writing && (mode == libc::S_IFIFO || mode == libc::S_IFREG)).then_some(FILE_RIGHTS)
}

fn add_rule(ruleset: &Fd, target: &Fd, handled: u64) -> Result<(), LandlockError> {
    // SAFETY: fstat on a descriptor this function was given.
    let is_dir = unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        libc::fstat(target.0, &mut stat) == 0 && (stat.st_mode & libc::S_IFMT) == libc::S_IFDIR
    };
    let allowed = if is_dir { handled } else { handled & FILE_RIGHTS };
    let rule = PathBeneathAttr { allowed_access: allowed, parent_fd: target.0 };
    // SAFETY: `rule` is a live path-beneath attribute naming an open fd.
    let added = unsafe {
        libc::syscall(libc::SYS_landlock_add_rule, ruleset.0, RULE_PATH_BENEATH, &rule as *const PathBeneathAttr, 0u32)
    };
    if added != 0 {
        return Err(LandlockError::Call("landlock_add_rule", errno()));
    }
    Ok(())
}
