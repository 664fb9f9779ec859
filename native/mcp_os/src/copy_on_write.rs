//! Private copy-on-write views of a launcher's package caches (`npx`'s
//! `~/.npm`, `uvx`'s `~/.cache/uv` and tool directory; docs/jail.md,
//! "Launchers"), mounted by the jail's init while it still holds
//! `CAP_SYS_ADMIN` in the jail's user namespace.
//!
//! Each view is an overlay mounted over the cache's own path: the lower
//! layer is the cache as the jail shows it (read-only), the upper and work
//! layers live on a tmpfs the init mounts for them and then detaches, so
//! nothing of the jail reaches them by any other path. The server reads
//! the real cache and writes (locks, logs, unpacked packages, downloads
//! with the network) into its own copy, gone with the jail; the real cache,
//! which later servers execute, is never written.
//!
//! Invariants: all or nothing (a view that cannot be mounted is an error
//! and the launcher runs nothing); a path the overlay's option syntax
//! would misread (a comma, a colon, a backslash) is refused, never
//! escaped.

use crate::jail_init::InitError;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Where the init mounts the tmpfs holding the views' upper and work
/// layers, detached once every view is mounted.
const LAYERS: &str = "/run/mcp-copy-on-write";

/// The overlay's mount options for a view of `lower` whose layers are
/// `upper` and `work`; `None` when a path holds a character the option
/// syntax gives a meaning (`,` separates options, `:` lower layers, `\`
/// escapes) or a NUL.
pub fn overlay_options(lower: &Path, upper: &Path, work: &Path) -> Option<CString> {
    let paths = [lower, upper, work];
    if paths.iter().any(|p| p.as_os_str().as_bytes().iter().any(|b| matches!(b, b',' | b':' | b'\\' | 0))) {
        return None;
    }
    // `userxattr': the overlay's own attributes in the `user.' namespace,
    // the one a user namespace may write (without it, moving a directory
    // made in the copy, as uv does when it unpacks, fails with EXDEV).
    let text = format!("lowerdir={},upperdir={},workdir={},userxattr", lower.display(), upper.display(), work.display());
    CString::new(text).ok()
}

fn c_path(path: &Path, what: &'static str) -> Result<CString, InitError> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| InitError::Call(what, libc::EINVAL))
}

fn checked(done: libc::c_int, what: &'static str) -> Result<(), InitError> {
    if done != 0 {
        return Err(InitError::Call(what, std::io::Error::last_os_error().raw_os_error().unwrap_or(0)));
    }
    Ok(())
}

fn make_dir(path: &Path) -> Result<(), InitError> {
    let c = c_path(path, "mkdir (copy-on-write layer)")?;
    // SAFETY: a NUL-terminated path.
    checked(unsafe { libc::mkdir(c.as_ptr(), 0o700) }, "mkdir (copy-on-write layer)")
}

/// Mounts a private copy-on-write view over each of `caches` (absolute
/// directories the jail shows). Must run in the jail's init after its
/// mounts are private, never on the host.
pub fn mount_views(caches: &[PathBuf]) -> Result<(), InitError> {
    if caches.is_empty() {
        return Ok(());
    }
    let layers = Path::new(LAYERS);
    make_dir(layers)?;
    let layers_c = c_path(layers, "mount tmpfs (copy-on-write layers)")?;
    // SAFETY: NUL-terminated strings that outlive the calls.
    unsafe {
        checked(libc::mount(c"tmpfs".as_ptr(), layers_c.as_ptr(), c"tmpfs".as_ptr(),
                            libc::MS_NOSUID | libc::MS_NODEV, c"mode=0700".as_ptr().cast()),
                "mount tmpfs (copy-on-write layers)")?;
    }
    for (index, cache) in caches.iter().enumerate() {
        let upper = layers.join(format!("upper-{index}"));
        let work = layers.join(format!("work-{index}"));
        make_dir(&upper)?;
        make_dir(&work)?;
        let options = overlay_options(cache, &upper, &work)
            .ok_or(InitError::Call("overlay options (a comma, colon or backslash in the path)", libc::EINVAL))?;
        let target = c_path(cache, "mount overlay (copy-on-write view)")?;
        // SAFETY: NUL-terminated strings that outlive the call.
        unsafe {
            checked(libc::mount(c"overlay".as_ptr(), target.as_ptr(), c"overlay".as_ptr(),
                                libc::MS_NOSUID | libc::MS_NODEV, options.as_ptr().cast()),
                    "mount overlay (copy-on-write view)")?;
        }
    }
    // The overlays hold their own references to the layers: the tmpfs
    // leaves the jail's tree, and no path reaches the layers any more.
    // SAFETY: NUL-terminated strings that outlive the calls.
    unsafe {
        checked(libc::umount2(layers_c.as_ptr(), libc::MNT_DETACH), "umount (copy-on-write layers)")?;
        checked(libc::rmdir(layers_c.as_ptr()), "rmdir (copy-on-write layers)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_name_the_three_layers() {
        let options = overlay_options(Path::new("/root/.npm"), Path::new("/run/l/upper-0"), Path::new("/run/l/work-0"));
        assert_eq!(options.unwrap().to_str().unwrap(), "lowerdir=/root/.npm,upperdir=/run/l/upper-0,workdir=/run/l/work-0,userxattr");
    }

    #[test]
    fn a_path_the_option_syntax_would_misread_is_refused() {
        for bad in ["/a,upperdir=/etc", "/a:/b", "/a\\,b"] {
            assert_eq!(overlay_options(Path::new(bad), Path::new("/u"), Path::new("/w")), None, "{bad}");
        }
    }
}
