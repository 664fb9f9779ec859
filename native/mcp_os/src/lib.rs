//! mcp_os: the few operating-system calls the NIF layer makes on behalf of
//! the port transport. No rustler and no Erlang terms here (`mcp_nif`
//! translates), and no protocol logic (that is `mcp_core`).
//!
//! Linux only: a [`ChildWatch`] is a pidfd (Linux 5.3+) on a port's child.
//! On other systems every call answers [`WatchError::Unsupported`].
//! [`landlock`] restricts the jail's launcher (the `mcp-landlock` binary)
//! to writing only where the jail allows; [`jail_env`] decodes the
//! server's environment the launcher receives; [`jail_init`] prepares the
//! jail from its init (private mounts, limits, no capability);
//! [`copy_on_write`] gives a launcher private copies of its package caches;
//! [`filter_fd`] hands bubblewrap the seccomp filter on a sealed memfd;
//! [`terminal_text`] strips what a terminal would obey from a jailed
//! server's relayed stderr.

pub mod child_watch;
pub mod copy_on_write;
pub mod filter_fd;
pub mod jail_env;
pub mod jail_init;
pub mod landlock;
pub mod terminal_text;

pub use child_watch::{ChildWatch, WatchError};
