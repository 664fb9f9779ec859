//! `mcp-landlock`: the jail's init and launcher (docs/jail.md). bubblewrap
//! runs it inside the jail as its first process (`--as-pid-1`, pid 1 of
//! the jail's pid namespace):
//!
//! ```text
//! mcp-landlock [--init [--copy-on-write DIR]...] [--no-landlock] [--writable PATH]... -- PROGRAM [ARG]...
//! ```
//!
//! With `--init` (the jail's init, never on the host) it first makes the
//! jail's mounts private, mounts a private copy-on-write view over each
//! `--copy-on-write` directory (a launcher's package cache,
//! `mcp_os::copy_on_write`), sets the jail's user namespace limits and
//! drops every capability bubblewrap left it (`mcp_os::jail_init`).
//!
//! with the server's environment carried in its own (`mcp_os::jail_env`:
//! never on a command line). It forks the server and stays as the jail's
//! init: it reaps orphans, passes SIGTERM, SIGINT and SIGHUP on to the
//! server, and when the server ends exits with its status (128 + N when
//! signal N killed it), which ends every other process of the jail. The
//! init runs no code of the server's and cannot be written by it: with
//! Landlock the server's domain may not trace or open the memory of a
//! process outside it (the launcher checks that before running the
//! server), and without (`--no-landlock`) the init is not dumpable, so
//! `/proc/1/mem`, `/proc/1/fd` and the like refuse a process without
//! `CAP_SYS_PTRACE`, which no process of the jail has.
//!
//! The server's process restricts itself with Landlock to writing only
//! beneath the given paths (`mcp_os::landlock`; not with `--no-landlock`,
//! the jail its caller accepted without it), checks that the restriction
//! is in force (its init's memory refuses to open), then executes
//! `PROGRAM` with exactly the decoded environment. If the restriction
//! cannot be put in force or is not, or the arguments are malformed, it
//! says why on stderr and the launcher exits 126 without running anything;
//! if `PROGRAM` cannot be executed, 127. A `PROGRAM` without a slash is
//! looked up on the decoded environment's `PATH`.
//!
//! `mcp-landlock --abi` prints the kernel's Landlock ABI version (0 when
//! there is none) and exits 0: the VM asks once whether jails can use it.
//! `mcp-landlock --seccomp-fd HEX -- PROGRAM [ARG]...` (on the host, the
//! port's child) executes `PROGRAM` with the seccomp filter whose bytes
//! `HEX` spells on fd 3, a sealed memfd (`mcp_os::filter_fd`), and its own
//! environment unchanged: bubblewrap reads it there (`--seccomp 3`), and no
//! path leads to it.
//! `mcp-landlock --strip-controls` copies stdin to stdout without what a
//! terminal would obey (`mcp_os::terminal_text`): the stderr relay's filter
//! when the VM's stderr is a terminal (`mcp_stderr`).

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
    init: bool,
    writable: Vec<PathBuf>,
    copy_on_write: Vec<PathBuf>,
    program: Vec<OsString>,
}

fn parse(arguments: Vec<OsString>) -> Launch {
    let mut landlock = true;
    let mut init = false;
    let mut writable = Vec::new();
    let mut copy_on_write = Vec::new();
    let mut rest = arguments.into_iter();
    let program = loop {
        match rest.next() {
            Some(flag) if flag == "--writable" => match rest.next() {
                Some(path) => writable.push(PathBuf::from(path)),
                None => refuse("--writable needs a path"),
            },
            Some(flag) if flag == "--copy-on-write" => match rest.next() {
                Some(path) => copy_on_write.push(PathBuf::from(path)),
                None => refuse("--copy-on-write needs a path"),
            },
            Some(flag) if flag == "--no-landlock" => landlock = false,
            Some(flag) if flag == "--init" => init = true,
            Some(separator) if separator == "--" => break rest.collect::<Vec<_>>(),
            Some(other) => refuse(&format!("unexpected argument {:?}", other)),
            None => refuse("usage: mcp-landlock [--init [--copy-on-write DIR]...] [--no-landlock] [--writable PATH]... -- PROGRAM [ARG]..."),
        }
    };
    if program.is_empty() {
        refuse("no program to run after --");
    }
    if !init && !copy_on_write.is_empty() {
        refuse("--copy-on-write needs --init (the jail's init mounts the views)");
    }
    Launch { landlock, init, writable, copy_on_write, program }
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

/// The signals the init waits for: a child's end, and those it passes on.
const PASSED_ON: [i32; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

extern "C" fn noted(_signal: libc::c_int) {}

fn main() {
    let arguments: Vec<OsString> = std::env::args_os().skip(1).collect();
    if arguments.len() == 1 && arguments[0] == "--abi" {
        println!("{}", mcp_os::landlock::abi().unwrap_or(0));
        return;
    }
    if arguments.len() == 1 && arguments[0] == "--strip-controls" {
        strip_controls();
    }
    if arguments.len() >= 4 && arguments[0] == "--seccomp-fd" && arguments[2] == "--" {
        with_filter_fd(&arguments[1], &arguments[3..]);
    }
    let launch = parse(arguments);
    let env = mcp_os::jail_env::decode(std::env::vars_os());
    if launch.init {
        if let Err(error) = mcp_os::jail_init::prepare(&launch.copy_on_write) {
            refuse(&error.to_string());
        }
    }
    // SAFETY: prctl on this process, sigaction with a handler that does
    // nothing, sigprocmask and fork in a single-threaded program.
    let (server, previous_mask) = unsafe {
        if !launch.landlock && libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 {
            refuse("prctl(PR_SET_DUMPABLE) failed");
        }
        // A handler (not SIG_DFL): the kernel drops a signal to a pid
        // namespace's init that has none. Blocked, and taken by sigwaitinfo.
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in PASSED_ON.iter().chain([libc::SIGCHLD].iter()) {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = noted as extern "C" fn(libc::c_int) as usize;
            libc::sigaction(*signal, &action, std::ptr::null_mut());
            libc::sigaddset(&mut set, *signal);
        }
        let mut previous: libc::sigset_t = std::mem::zeroed();
        libc::sigprocmask(libc::SIG_BLOCK, &set, &mut previous);
        (libc::fork(), previous)
    };
    match server {
        -1 => refuse("fork failed"),
        0 => run_server(&launch, &env, &previous_mask),
        pid => init(pid),
    }
}

/// Executes `program` with the filter `hex` spells on fd 3.
fn with_filter_fd(hex: &OsString, program: &[OsString]) -> ! {
    use std::os::unix::process::CommandExt;
    let placed = mcp_os::filter_fd::decode_hex(hex.as_bytes()).and_then(|filter| mcp_os::filter_fd::sealed_on(&filter, 3));
    if let Err(error) = placed {
        refuse(&error.to_string());
    }
    let error = std::process::Command::new(&program[0]).args(&program[1..]).exec();
    eprintln!("mcp-landlock: cannot execute {}: {error}", String::from_utf8_lossy(program[0].as_bytes()));
    exit(NOT_EXECUTED)
}

/// Copies stdin to stdout without what a terminal would obey
/// (`mcp_os::terminal_text`), until the end of stdin or a failed write.
fn strip_controls() -> ! {
    use std::io::{Read, Write};
    let mut stripper = mcp_os::terminal_text::Stripper::new();
    let mut input = [0u8; 8192];
    let mut out = Vec::with_capacity(input.len());
    let (mut stdin, mut stdout) = (std::io::stdin().lock(), std::io::stdout().lock());
    loop {
        let read = match stdin.read(&mut input) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        out.clear();
        stripper.feed(&input[..read], &mut out);
        if stdout.write_all(&out).and_then(|()| stdout.flush()).is_err() {
            break;
        }
    }
    stripper.finish();
    exit(0)
}

/// The init: waits for the server, passes signals on, reaps orphans, and
/// exits with the server's status.
fn init(server: libc::pid_t) -> ! {
    // SAFETY: descriptors, signal sets and waitpid on integers this
    // function owns; exit ends the process.
    unsafe {
        // The init holds none of the server's stdio (a pipe or the stderr
        // relay's FIFO stays the server's alone).
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            for fd in 0..3 {
                libc::dup2(null, fd);
            }
            if null > 2 {
                libc::close(null);
            }
        }
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in PASSED_ON.iter().chain([libc::SIGCHLD].iter()) {
            libc::sigaddset(&mut set, *signal);
        }
        loop {
            let signal = libc::sigwaitinfo(&set, std::ptr::null_mut());
            if PASSED_ON.contains(&signal) {
                libc::kill(server, signal);
                continue;
            }
            loop {
                let mut status = 0;
                let reaped = libc::waitpid(-1, &mut status, libc::WNOHANG);
                if reaped <= 0 {
                    break;
                }
                if reaped == server {
                    let code = if libc::WIFSIGNALED(status) { 128 + libc::WTERMSIG(status) } else { libc::WEXITSTATUS(status) };
                    libc::_exit(code);
                }
            }
        }
    }
}

/// The server's process: restricted, checked, then the server itself.
fn run_server(launch: &Launch, env: &[(OsString, OsString)], previous_mask: &libc::sigset_t) -> ! {
    // SAFETY: restoring this process's signal mask and dispositions.
    unsafe {
        for signal in PASSED_ON.iter().chain([libc::SIGCHLD].iter()) {
            libc::signal(*signal, libc::SIG_DFL);
        }
        libc::sigprocmask(libc::SIG_SETMASK, previous_mask, std::ptr::null_mut());
    }
    if launch.init {
        if let Err(error) = mcp_os::jail_init::limit_processes_and_signals() {
            refuse(&error.to_string());
        }
    }
    if launch.landlock {
        let paths: Vec<&std::path::Path> = launch.writable.iter().map(PathBuf::as_path).collect();
        if let Err(error) = mcp_os::landlock::restrict(&paths) {
            refuse(&error.to_string());
        }
        if let Err(error) = mcp_os::landlock::verify_in_force() {
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
    for candidate in candidates(&launch.program[0], env) {
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
