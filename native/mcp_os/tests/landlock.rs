//! The launcher `mcp-landlock` against the writes a jailed server attempts:
//! each attempt is first made without the launcher, where it must work
//! (so the probe can tell), then through it, where only the writable
//! places accept it. Needs a kernel with Landlock (this suite fails,
//! rather than skips, without one).

use std::fs;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const LAUNCHER: &str = env!("CARGO_BIN_EXE_mcp-landlock");
/// The shell's `PATH`, carried to it as the jail carries a server's
/// environment (`mcp_os::jail_env`).
const CARRIED_PATH: (&str, &str) = ("MCP_JAIL_ENV_0", "PATH=/usr/bin:/bin");

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("mcp-landlock-{}-{}", name, std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("writable")).unwrap();
        fs::create_dir_all(dir.join("elsewhere")).unwrap();
        Scratch(dir)
    }
    fn path(&self, relative: &str) -> PathBuf {
        self.0.join(relative)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn sh(script: &str, launcher: Option<&[&Path]>) -> Output {
    let mut command = match launcher {
        None => Command::new("/bin/sh"),
        Some(writable) => {
            let mut command = Command::new(LAUNCHER);
            for path in writable {
                command.arg("--writable").arg(path);
            }
            command.args(["--", "/bin/sh"]);
            command
        }
    };
    command.args(["-c", script]).env(CARRIED_PATH.0, CARRIED_PATH.1).stdin(Stdio::null()).output().unwrap()
}

fn status(output: &Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

/// Opens the FIFO for reading (without blocking) so a writer's open
/// succeeds, and answers what arrived once the script has run.
fn written_to_fifo(fifo: &Path, script: &str, launcher: Option<&[&Path]>) -> (i32, String) {
    let mut reader = fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(fifo).unwrap();
    let output = sh(script, launcher);
    let mut got = String::new();
    let _ = reader.read_to_string(&mut got);
    (status(&output), got)
}

#[test]
fn the_kernel_offers_landlock() {
    let output = Command::new(LAUNCHER).arg("--abi").output().unwrap();
    let abi: u32 = String::from_utf8_lossy(&output.stdout).trim().parse().unwrap();
    assert!(abi >= 1, "this kernel has no Landlock: the jail cannot refuse FIFO writes here");
    assert_eq!(mcp_os::landlock::abi(), Some(abi));
}

#[test]
fn a_fifo_outside_the_writable_places_refuses_the_open() {
    let scratch = Scratch::new("fifo");
    let fifo = scratch.path("elsewhere/fifo");
    mkfifo(&fifo);
    let script = format!("echo planted > {}", fifo.display());
    assert_eq!(written_to_fifo(&fifo, &script, None), (0, "planted\n".to_string()));
    let writable = scratch.path("writable");
    let (code, got) = written_to_fifo(&fifo, &script, Some(&[&writable]));
    // The shell ran (126 would be the launcher's refusal) and its
    // redirection failed.
    assert!(code != 0 && code != 126, "{code}");
    assert_eq!(got, "");
}

#[test]
fn writable_places_accept_writes_and_others_refuse_them() {
    let scratch = Scratch::new("files");
    let writable = scratch.path("writable");
    let inside = scratch.path("writable/sub/kept");
    let outside = scratch.path("elsewhere/kept");
    fs::write(&outside, "original").unwrap();
    let script = format!(
        "mkdir -p {dir} && echo ok > {inside} && mkfifo {dir}/fifo && rm {dir}/fifo",
        dir = scratch.path("writable/sub").display(),
        inside = inside.display()
    );
    let output = sh(&script, Some(&[&writable]));
    assert_eq!(status(&output), 0, "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(fs::read_to_string(&inside).unwrap(), "ok\n");
    for attempt in [
        format!("echo changed > {}", outside.display()),
        format!("rm {}", outside.display()),
        format!("mkfifo {}", scratch.path("elsewhere/made").display()),
        format!("mv {} {}", inside.display(), scratch.path("elsewhere/moved").display()),
    ] {
        assert_eq!(status(&sh(&attempt, None)), 0, "{attempt} must work without the launcher");
        fs::write(&outside, "original").unwrap();
        fs::write(&inside, "ok\n").unwrap();
        let _ = fs::remove_file(scratch.path("elsewhere/made"));
        let _ = fs::remove_file(scratch.path("elsewhere/moved"));
        let refused = sh(&attempt, Some(&[&writable]));
        assert!(status(&refused) != 0 && status(&refused) != 126, "{attempt} must be refused by the shell's command");
        assert!(String::from_utf8_lossy(&refused.stderr).contains("ermission denied"), "{attempt}: {refused:?}");
        assert_eq!(fs::read_to_string(&outside).unwrap(), "original");
    }
}

/// The stderr relay's FIFO arrives as fd 2; reopening it by name
/// (`/dev/stderr`) keeps working, and so does `/dev/null`'s parent rule.
#[test]
fn the_inherited_stderr_fifo_stays_reopenable() {
    let scratch = Scratch::new("stderr");
    let fifo = scratch.path("elsewhere/stderr");
    mkfifo(&fifo);
    let mut reader = fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(&fifo).unwrap();
    let writer = fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let output = Command::new(LAUNCHER)
        .args(["--writable", "/dev", "--", "/bin/sh", "-c", "echo relayed > /dev/stderr && echo gone > /dev/null"])
        .stderr(writer)
        .output()
        .unwrap();
    assert_eq!(status(&output), 0);
    let mut got = String::new();
    let _ = reader.read_to_string(&mut got);
    assert_eq!(got, "relayed\n");
}

#[test]
fn malformed_arguments_and_missing_paths_run_nothing() {
    let scratch = Scratch::new("refusals");
    let marker = scratch.path("writable/ran");
    let script = format!("touch {}", marker.display());
    for arguments in [
        vec!["--writable".to_string()],
        vec!["--writable".to_string(), "/no/such/dir".to_string(), "--".to_string(), "/bin/sh".to_string(), "-c".to_string(), script.clone()],
        vec!["--bogus".to_string(), "--".to_string(), "/bin/sh".to_string(), "-c".to_string(), script.clone()],
        vec!["--".to_string()],
    ] {
        let output = Command::new(LAUNCHER).args(&arguments).output().unwrap();
        assert_eq!(status(&output), 126, "{arguments:?}");
        assert!(!marker.exists());
    }
    let output = Command::new(LAUNCHER).args(["--", "/no/such/program"]).output().unwrap();
    assert_eq!(status(&output), 127);
}
