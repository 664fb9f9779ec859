//! What the jail's init does before it forks the server, while it still
//! holds the three capabilities bubblewrap leaves it inside the jail's
//! user namespace (`CAP_SYS_ADMIN`, `CAP_SYS_RESOURCE`, `CAP_SETPCAP`),
//! and then gives them up for good:
//!
//! - every mount of the jail becomes private (`MS_PRIVATE`, recursively):
//!   a mount the host makes later under a shared mount no longer
//!   propagates into the jail;
//! - a launcher's package caches get private copy-on-write views
//!   (`crate::copy_on_write`), when the jail asks for them;
//! - the jail's user namespace gets its own limits on the per-user kernel
//!   resources a server could exhaust for the host's user: inotify
//!   instances and watches at a quarter of the host's, and no nested user
//!   namespace at all (`max_user_namespaces` 0: what bwrap's
//!   `--disable-userns` gave). They are written through `/proc/sys/user`,
//!   made writable for the moment and read-only again;
//! - the jail's devpts instance gets a `max=` of a quarter of the ptys the
//!   non-initial instances share (`kernel/pty/max` minus
//!   `kernel/pty/reserve`): bwrap mounts it without one, so a server could
//!   take the whole pool other jails and containers draw from;
//! - every capability is dropped (bounding set, ambient, inheritable,
//!   permitted, effective) and the drop is checked in `/proc/self/status`;
//! - the server's process bounds the counters no namespace limit covers
//!   (`limit_processes_and_signals`: processes, pending signals and POSIX
//!   message queue bytes).
//!
//! Invariants: all or nothing (any step that fails is an error, and the
//! launcher then runs nothing); no capability survives into the server.

use std::ffi::CString;
use std::fmt;

/// Why the init could not prepare the jail.
#[derive(Debug, PartialEq, Eq)]
pub enum InitError {
    /// A system call failed (what, errno).
    Call(&'static str, i32),
    /// A limit could not be read or written (its path, errno).
    Limit(String, i32),
    /// A capability is left after the drop (the status line).
    CapabilityLeft(String),
}

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InitError::Call(what, errno) => write!(f, "{what} failed: errno {errno}"),
            InitError::Limit(path, errno) => write!(f, "cannot set {path}: errno {errno}"),
            InitError::CapabilityLeft(line) => write!(f, "a capability is left after the drop: {line}"),
        }
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// The jail's limits as (file under `/proc/sys`, host file whose value is
/// divided, divisor); a divisor of 0 means the value 0.
const LIMITS: [(&str, &str, u64); 3] = [
    ("user/max_inotify_instances", "fs/inotify/max_user_instances", 4),
    ("user/max_inotify_watches", "fs/inotify/max_user_watches", 4),
    ("user/max_user_namespaces", "", 0),
];

/// The value the jail's namespace gets for one limit: a quarter of the
/// host user's (at least 1), or 0.
pub fn jail_limit(host: u64, divisor: u64) -> u64 {
    host.checked_div(divisor).map_or(0, |quarter| quarter.max(1))
}

fn mount(target: &str, flags: libc::c_ulong, what: &'static str) -> Result<(), InitError> {
    let target = CString::new(target).map_err(|_| InitError::Call(what, libc::EINVAL))?;
    // SAFETY: a NUL-terminated target; no source, type or data.
    let done = unsafe { libc::mount(std::ptr::null(), target.as_ptr(), std::ptr::null(), flags, std::ptr::null()) };
    if done != 0 {
        return Err(InitError::Call(what, errno()));
    }
    Ok(())
}

/// Prepares the jail (see the module doc). Must run in the jail's init,
/// never on the host: it changes the propagation of every mount it sees.
pub fn prepare(copy_on_write: &[std::path::PathBuf]) -> Result<(), InitError> {
    mount("/", libc::MS_REC | libc::MS_PRIVATE, "mount(/, MS_PRIVATE)")?;
    crate::copy_on_write::mount_views(copy_on_write)?;
    set_limits()?;
    limit_ptys()?;
    drop_capabilities()
}

fn set_limits() -> Result<(), InitError> {
    let read_only = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    mount("/proc/sys", libc::MS_REMOUNT | libc::MS_BIND | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC, "remount /proc/sys writable")?;
    let written = LIMITS.iter().try_for_each(|(file, host_file, divisor)| {
        let host = if host_file.is_empty() {
            0
        } else {
            let path = format!("/proc/sys/{host_file}");
            std::fs::read_to_string(&path)
                .ok()
                .and_then(|text| text.trim().parse::<u64>().ok())
                .ok_or(InitError::Limit(path, libc::EINVAL))?
        };
        let path = format!("/proc/sys/{file}");
        std::fs::write(&path, jail_limit(host, *divisor).to_string())
            .map_err(|e| InitError::Limit(path, e.raw_os_error().unwrap_or(0)))
    });
    // Read-only again whatever happened.
    mount("/proc/sys", read_only, "remount /proc/sys read-only")?;
    written
}

/// The jail's share of the ptys every non-initial devpts instance draws
/// from.
pub fn pty_share(max: u64, reserve: u64) -> u64 {
    jail_limit(max.saturating_sub(reserve), 4)
}

fn proc_sys_value(file: &str) -> Result<u64, InitError> {
    let path = format!("/proc/sys/{file}");
    std::fs::read_to_string(&path).ok().and_then(|text| text.trim().parse::<u64>().ok()).ok_or(InitError::Limit(path, libc::EINVAL))
}

/// Remounts the jail's `/dev/pts` (bwrap's own instance) with the options
/// bwrap gave it and `max=` the jail's share (`pty_share`). A remount
/// resets every option to its default, hence the whole set.
fn limit_ptys() -> Result<(), InitError> {
    let share = pty_share(proc_sys_value("kernel/pty/max")?, proc_sys_value("kernel/pty/reserve")?);
    let options = CString::new(format!("mode=620,ptmxmode=666,max={share}")).map_err(|_| InitError::Call("devpts options", libc::EINVAL))?;
    let flags = libc::MS_REMOUNT | libc::MS_NOSUID | libc::MS_NOEXEC;
    // SAFETY: NUL-terminated strings that outlive the call.
    let done = unsafe { libc::mount(c"devpts".as_ptr(), c"/dev/pts".as_ptr(), c"devpts".as_ptr(), flags, options.as_ptr().cast()) };
    if done != 0 {
        return Err(InitError::Call("remount /dev/pts with max=", errno()));
    }
    Ok(())
}

/// Bounds the per-user counters no namespace limit covers, for this
/// process and what it executes: processes (`RLIMIT_NPROC`), pending
/// signals (`RLIMIT_SIGPENDING`) and the bytes of POSIX message queues
/// (`RLIMIT_MSGQUEUE`, counted per user across IPC namespaces), soft and
/// hard, at a quarter of the current soft limit (at least 1). Without `CAP_SYS_RESOURCE` nothing in
/// the jail can raise them again. (The kernel does not apply
/// `RLIMIT_NPROC` to the host's root.)
pub fn limit_processes_and_signals() -> Result<(), InitError> {
    let limited = [
        (libc::RLIMIT_NPROC, "setrlimit(RLIMIT_NPROC)"),
        (libc::RLIMIT_SIGPENDING, "setrlimit(RLIMIT_SIGPENDING)"),
        (libc::RLIMIT_MSGQUEUE, "setrlimit(RLIMIT_MSGQUEUE)"),
    ];
    for (resource, what) in limited {
        // SAFETY: getrlimit and setrlimit on this process with a properly
        // sized value.
        unsafe {
            let mut limit: libc::rlimit = std::mem::zeroed();
            if libc::getrlimit(resource, &mut limit) != 0 {
                return Err(InitError::Call(what, errno()));
            }
            let quarter = if limit.rlim_cur == libc::RLIM_INFINITY { limit.rlim_cur } else { jail_limit(limit.rlim_cur, 4) };
            let bounded = libc::rlimit { rlim_cur: quarter, rlim_max: quarter };
            if libc::setrlimit(resource, &bounded) != 0 {
                return Err(InitError::Call(what, errno()));
            }
        }
    }
    Ok(())
}

/// The highest capability number this kernel knows.
fn last_capability() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(63)
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// Drops every capability of this process for good, and checks it.
pub fn drop_capabilities() -> Result<(), InitError> {
    // SAFETY: prctl and capset on this process with plain integers and a
    // properly sized header and data.
    unsafe {
        for capability in 0..=last_capability() {
            if libc::prctl(libc::PR_CAPBSET_DROP, capability as libc::c_ulong, 0, 0, 0) != 0 && errno() != libc::EINVAL {
                return Err(InitError::Call("prctl(PR_CAPBSET_DROP)", errno()));
            }
        }
        if libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong, 0, 0, 0) != 0 {
            return Err(InitError::Call("prctl(PR_CAP_AMBIENT_CLEAR_ALL)", errno()));
        }
        let header = CapHeader { version: CAPABILITY_VERSION_3, pid: 0 };
        let data = [CapData::default(); 2];
        if libc::syscall(libc::SYS_capset, &header as *const CapHeader, data.as_ptr()) != 0 {
            return Err(InitError::Call("capset", errno()));
        }
    }
    check_no_capability()
}

/// Every `Cap*:` line of `/proc/self/status` is all zeros.
pub fn check_no_capability() -> Result<(), InitError> {
    let status = std::fs::read_to_string("/proc/self/status").map_err(|e| InitError::Call("read /proc/self/status", e.raw_os_error().unwrap_or(0)))?;
    let lines: Vec<&str> = status.lines().filter(|line| line.starts_with("Cap")).collect();
    if lines.len() < 5 {
        return Err(InitError::CapabilityLeft("no capability lines".to_string()));
    }
    match lines.iter().find(|line| line.split(':').nth(1).map(|v| v.trim().trim_start_matches('0')) != Some("")) {
        Some(line) => Err(InitError::CapabilityLeft(line.to_string())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_of_the_hosts_at_least_one_or_none() {
        assert_eq!(jail_limit(128, 4), 32);
        assert_eq!(jail_limit(3, 4), 1);
        assert_eq!(jail_limit(128, 0), 0);
    }

    #[test]
    fn a_quarter_of_the_shared_ptys() {
        assert_eq!(pty_share(4096, 1024), 768);
        assert_eq!(pty_share(1024, 1024), 1);
        assert_eq!(pty_share(10, 1024), 1);
    }
}
