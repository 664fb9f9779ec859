//! `mcp-landlock`: the jail's launcher (docs/jail.md). bubblewrap runs it
//! inside the jail as
//!
//! ```text
//! mcp-landlock [--writable PATH]... -- PROGRAM [ARG]...
//! ```
//!
//! It restricts itself with Landlock to writing only beneath the given
//! paths (`mcp_os::landlock`), then executes `PROGRAM` in its place (same
//! pid, same descriptors). If the restriction cannot be put in force, or
//! the arguments are malformed, it says why on stderr and exits 126 without
//! running anything; if `PROGRAM` cannot be executed, 127.
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

fn main() {
    let arguments: Vec<OsString> = std::env::args_os().skip(1).collect();
    if arguments.len() == 1 && arguments[0] == "--abi" {
        println!("{}", mcp_os::landlock::abi().unwrap_or(0));
        return;
    }
    let mut writable = Vec::new();
    let mut rest = arguments.into_iter();
    let program = loop {
        match rest.next() {
            Some(flag) if flag == "--writable" => match rest.next() {
                Some(path) => writable.push(PathBuf::from(path)),
                None => refuse("--writable needs a path"),
            },
            Some(separator) if separator == "--" => break rest.collect::<Vec<_>>(),
            Some(other) => refuse(&format!("unexpected argument {:?}", other)),
            None => refuse("usage: mcp-landlock [--writable PATH]... -- PROGRAM [ARG]..."),
        }
    };
    if program.is_empty() {
        refuse("no program to run after --");
    }
    let paths: Vec<&std::path::Path> = writable.iter().map(PathBuf::as_path).collect();
    if let Err(error) = mcp_os::landlock::restrict(&paths) {
        refuse(&error.to_string());
    }
    let argv: Vec<CString> = match program.iter().map(|a| CString::new(a.clone().into_vec())).collect() {
        Ok(argv) => argv,
        Err(_) => refuse("an argument holds a NUL byte"),
    };
    let mut pointers: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    pointers.push(std::ptr::null());
    // SAFETY: argv is a NULL-terminated array of NUL-terminated strings
    // that outlive the call; execvp returns only on failure.
    unsafe { libc::execvp(pointers[0], pointers.as_ptr()) };
    let error = std::io::Error::last_os_error();
    eprintln!("mcp-landlock: cannot execute {}: {error}", String::from_utf8_lossy(program[0].as_bytes()));
    exit(NOT_EXECUTED)
}
