//! `mcp-landlock`: the jail's launcher (docs/jail.md). bubblewrap runs it
//! inside the jail as
//!
//! ```text
//! mcp-landlock [--no-landlock] [--writable PATH]... -- PROGRAM [ARG]...
//! ```
//!
//! with the server's environment carried in its own (`mcp_os::jail_env`:
//! never on a command line). It restricts itself with Landlock to writing
//! only beneath the given paths (`mcp_os::landlock`; not with
//! `--no-landlock`, the jail its caller accepted without it), then
//! executes `PROGRAM` in its place with exactly the decoded environment. If
//! the restriction cannot be put in force, or the arguments are malformed,
//! it says why on stderr and exits 126 without running anything; if
//! `PROGRAM` cannot be executed, 127. A `PROGRAM` without a slash is looked
//! up on the decoded environment's `PATH`.
//!
//! `mcp-landlock --abi` prints the kernel's Landlock ABI version (0 when
//! there is none) and exits 0: the VM asks once whether jails can use it.

use std::ffi::{CString, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::process::exit;

const REFUSED: i32 = 126;
const NOT_EXECUTED: i32 = 127;

fn refuse(message: &str) -> ! {
    eprintln!("mcp-landlock: {message}");
    exit(REFUSED)
}

struct Launch {
    landlock: bool,
    writable: Vec<PathBuf>,
    program: Vec<OsString>,
}

fn parse(arguments: Vec<OsString>) -> Launch {
    let mut landlock = true;
    let mut writable = Vec::new();
    let mut rest = arguments.into_iter();
    let program = loop {
        match rest.next() {
            Some(flag) if flag == "--writable" => match rest.next() {
                Some(path) => writable.push(PathBuf::from(path)),
                None => refuse("--writable needs a path"),
            },
            Some(flag) if flag == "--no-landlock" => landlock = false,
            Some(separator) if separator == "--" => break rest.collect::<Vec<_>>(),
            Some(other) => refuse(&format!("unexpected argument {:?}", other)),
            None => refuse("usage: mcp-landlock [--no-landlock] [--writable PATH]... -- PROGRAM [ARG]..."),
        }
    };
    if program.is_empty() {
        refuse("no program to run after --");
    }
    Launch { landlock, writable, program }
}

fn c_string(bytes: Vec<u8>) -> CString {
    CString::new(bytes).unwrap_or_else(|_| refuse("an argument or variable holds a NUL byte"))
}

/// The candidates `execve` tries for `program`: itself when it holds a
/// slash, else each directory of `PATH` (the decoded one) joined with it.
fn candidates(program: &OsString, env: &[(OsString, OsString)]) -> Vec<CString> {
    let bytes = program.as_bytes();
    if bytes.contains(&b'/') {
        return vec![c_string(bytes.to_vec())];
    }
    let path = env.iter().find(|(name, _)| name == "PATH").map(|(_, value)| value.as_bytes().to_vec())
        .unwrap_or_else(|| b"/usr/local/bin:/usr/bin:/bin".to_vec());
    path.split(|&b| b == b':')
        .map(|dir| if dir.is_empty() { b".".as_slice() } else { dir })
        .map(|dir| c_string([dir, b"/", bytes].concat()))
        .collect()
}

fn main() {
    let arguments: Vec<OsString> = std::env::args_os().skip(1).collect();
    if arguments.len() == 1 && arguments[0] == "--abi" {
        println!("{}", mcp_os::landlock::abi().unwrap_or(0));
        return;
    }
    let launch = parse(arguments);
    let env = mcp_os::jail_env::decode(std::env::vars_os());
    if launch.landlock {
        let paths: Vec<&std::path::Path> = launch.writable.iter().map(PathBuf::as_path).collect();
        if let Err(error) = mcp_os::landlock::restrict(&paths) {
            refuse(&error.to_string());
        }
    }
    let argv: Vec<CString> = launch.program.iter().map(|a| c_string(a.clone().into_vec())).collect();
    let envp: Vec<CString> = env.iter().map(|(n, v)| c_string([n.as_bytes(), b"=", v.as_bytes()].concat())).collect();
    let mut argv_pointers: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_pointers.push(std::ptr::null());
    let mut envp_pointers: Vec<*const libc::c_char> = envp.iter().map(|e| e.as_ptr()).collect();
    envp_pointers.push(std::ptr::null());
    let mut error = std::io::Error::from_raw_os_error(libc::ENOENT);
    for candidate in candidates(&launch.program[0], &env) {
        // SAFETY: NULL-terminated arrays of NUL-terminated strings that
        // outlive the call; execve returns only on failure.
        unsafe { libc::execve(candidate.as_ptr(), argv_pointers.as_ptr(), envp_pointers.as_ptr()) };
        let failed = std::io::Error::last_os_error();
        if failed.raw_os_error() != Some(libc::ENOENT) {
            error = failed;
        }
    }
    eprintln!("mcp-landlock: cannot execute {}: {error}", String::from_utf8_lossy(launch.program[0].as_bytes()));
    exit(NOT_EXECUTED)
}
