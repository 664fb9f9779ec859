//! A handle on one port child that outlives the port: a pidfd.
//!
//! The Erlang runtime reports a port child's exit status only while the port
//! is open. When a write fails with EPIPE (the child closed its stdin or
//! died) the runtime closes the port, and the status is lost. A pidfd taken
//! while the child is known to be ours keeps naming that very process
//! whatever happens to the port: it can be polled for the exit (readable
//! once the process has terminated, zombie or reaped) and signalled without
//! the risk of hitting a recycled pid.
//!
//! Identity: the pid comes from the runtime while the port is open, but the
//! child may already have exited and been reaped, and the number reused,
//! before `pidfd_open` runs. [`ChildWatch::open`] therefore checks, after
//! opening, that the process's parent's parent is this VM (a port child's
//! parent is the runtime's `erl_child_setup`, a child of the VM, from the
//! moment of the fork), then that the pidfd's process is still alive (so the
//! `/proc` entry read was the pidfd's process). Its session is not checked:
//! the child calls `setsid()` after the fork, possibly after the runtime
//! already reported its pid. A recycled pid passes only if it is another
//! port child of this same VM: the remaining window is described in
//! `docs/server-processes.md`.
//!
//! What a refusal proves: the pid was the child's when the runtime reported
//! it, and a pid is free for reuse only once its process was reaped. So
//! `pidfd_open` failing with ESRCH (no such process), or opening a process
//! that is not one of this VM's port children, proves the child exited
//! ([`WatchError::NotOurChild`]).

use std::io;

/// Why a watch could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchError {
    /// No pidfd on this system (not Linux, or a kernel before 5.3).
    Unsupported,
    /// The process is gone (reaped) or is not this VM's port child.
    NotOurChild,
    /// Another OS error (`errno`).
    Os(i32),
}

/// An open pidfd on a port's child, closed on drop.
#[derive(Debug)]
pub struct ChildWatch {
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    fd: i32,
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pid: i32,
}

#[cfg(target_os = "linux")]
mod sys {
    use super::*;

    pub fn pidfd_open(pid: i32) -> io::Result<i32> {
        // SAFETY: a plain syscall with integer arguments.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(fd as i32)
        }
    }

    pub fn pidfd_send_signal(fd: i32, signal: i32) -> io::Result<()> {
        // SAFETY: a plain syscall; a null siginfo is allowed.
        let r = unsafe {
            libc::syscall(libc::SYS_pidfd_send_signal, fd, signal, std::ptr::null::<libc::siginfo_t>(), 0)
        };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    /// Whether the pidfd is readable: its process has terminated.
    pub fn terminated(fd: i32) -> io::Result<bool> {
        let mut pollfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        loop {
            // SAFETY: one valid pollfd, zero timeout.
            let r = unsafe { libc::poll(&mut pollfd, 1, 0) };
            if r >= 0 {
                return Ok(r > 0 && pollfd.revents & (libc::POLLIN | libc::POLLHUP) != 0);
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }

    pub fn kill_group(pgid: i32, signal: i32) {
        // SAFETY: a plain syscall; the result is deliberately ignored (the
        // group may be empty).
        unsafe {
            libc::kill(-pgid, signal);
        }
    }

    pub fn close(fd: i32) {
        // SAFETY: the fd is owned by the watch and closed once.
        unsafe {
            libc::close(fd);
        }
    }

    pub fn vm_pid() -> i32 {
        // SAFETY: getpid cannot fail.
        unsafe { libc::getpid() }
    }
}

/// The parent's pid from `/proc/<pid>/stat`, read after the command name
/// (which may contain spaces and parentheses).
pub fn parent_pid(stat: &str) -> Option<i32> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_ascii_whitespace();
    let _state = fields.next()?;
    fields.next()?.parse().ok()
}

#[cfg(target_os = "linux")]
fn parent_of(pid: i32) -> Option<i32> {
    parent_pid(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

fn os_error(error: io::Error) -> WatchError {
    match error.raw_os_error() {
        Some(libc::ENOSYS) => WatchError::Unsupported,
        Some(libc::ESRCH) => WatchError::NotOurChild,
        Some(code) => WatchError::Os(code),
        None => WatchError::Os(0),
    }
}

#[cfg(target_os = "linux")]
impl ChildWatch {
    /// Opens a watch on `pid`, which must be a port child of this VM (see the
    /// module doc for the identity check).
    pub fn open(pid: i32) -> Result<ChildWatch, WatchError> {
        if pid <= 0 {
            return Err(WatchError::NotOurChild);
        }
        let fd = sys::pidfd_open(pid).map_err(os_error)?;
        let watch = ChildWatch { fd, pid };
        let ours = parent_of(pid).and_then(parent_of) == Some(sys::vm_pid());
        // Still alive (a zombie counts): the stat read above was the pidfd's
        // process, not one that took its number after it was reaped.
        if ours && sys::pidfd_send_signal(fd, 0).is_ok() {
            Ok(watch)
        } else {
            Err(WatchError::NotOurChild)
        }
    }

    /// Whether the process has terminated (exited or killed; zombie or reaped).
    pub fn exited(&self) -> Result<bool, WatchError> {
        sys::terminated(self.fd).map_err(os_error)
    }

    /// Sends `signal` to the process (through the pidfd: never to a recycled
    /// pid) and, while the process has not terminated, to its process group
    /// (the child leads it, so the group's id is its pid, and no other group
    /// can have that id while the leader lives).
    pub fn signal_tree(&self, signal: i32) {
        if let Ok(false) = self.exited() {
            sys::kill_group(self.pid, signal);
        }
        let _ = sys::pidfd_send_signal(self.fd, signal);
    }
}

#[cfg(not(target_os = "linux"))]
impl ChildWatch {
    pub fn open(_pid: i32) -> Result<ChildWatch, WatchError> {
        Err(WatchError::Unsupported)
    }
    pub fn exited(&self) -> Result<bool, WatchError> {
        Err(WatchError::Unsupported)
    }
    pub fn signal_tree(&self, _signal: i32) {}
}

impl Drop for ChildWatch {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        sys::close(self.fd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_after_a_name_with_spaces_and_parentheses() {
        let stat = "4242 (a (b) 1 c) S 17 4242 4242 0 -1 4194304 0";
        assert_eq!(parent_pid(stat), Some(17));
    }

    #[test]
    fn stat_that_is_cut_short_is_refused() {
        assert_eq!(parent_pid("4242 (x) S"), None);
        assert_eq!(parent_pid("garbage"), None);
        assert_eq!(parent_pid("1 (x) S nope 1 1"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_that_is_not_a_port_child_is_refused() {
        // This test process is nobody's port child: its grandparent is not us.
        assert_eq!(ChildWatch::open(std::process::id() as i32).err(), Some(WatchError::NotOurChild));
        assert_eq!(ChildWatch::open(0).err(), Some(WatchError::NotOurChild));
        assert_eq!(ChildWatch::open(-1).err(), Some(WatchError::NotOurChild));
    }
}
